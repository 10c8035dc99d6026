"""What every registered algorithm is: its kernels and compile options, its launch parameters and
their domains, its CPU reference, its GPU engine, its characterization and model rules.

The engine, the search space, the model, records, tables, reports and the command line ask an
`Algorithm` instead of testing names. A subclass (or instance) overrides what differs.
"""
from __future__ import annotations

import dataclasses
import inspect
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from autotune.algorithms.parameters import Parameter
from autotune.errors import InputError
from autotune.launch import (
    CONCURRENT_KERNEL_CHOICES,
    LANE_CHOICES,
    CacheState,
    KernelLaunch,
    LaunchConfig,
    ParamValue,
)
from autotune.model.memory import MEMORY_SHARE  # of a GPU's memory, the most the solves may take

if TYPE_CHECKING:
    import threading

    from autotune.graphs.csr import CSRGraph
    from autotune.model.characterization import Characterization
    from autotune.model.device import DeviceProfile
    from autotune.model.features import GraphFeatures
    from autotune.reference.result import SolveResult


class Algorithm:
    """One SSSP algorithm the tuner can launch.

    Class attributes a subclass sets:
        name: the registered name (`--algorithm NAME`, configurations' `algorithm`).
        summary: one line for `--help` and the docs.
        kernels: the tuned kernels, in launch order (a configuration has one launch each).
        lanes_kernels: the kernels that may launch several lanes per vertex.
        parameters: the algorithm's own tuned parameters.
        concurrent_kernels: the CK values a sweep tries by default.
        source: the CUDA file in `kernels/`.
        source_parts: the source's kernels in groups that build apart, side by side (group k, from 1,
            with -DSOURCE_PART=k; the source guards each kernel with IN_PART(k)): a source of many kernels
            is a cold start's longest build. Empty: the source builds whole.
        engine: "module:Class" of the GPU solver (imported only when a GPU solve is asked for).
        characterization_file: the characterization TOML, beside the algorithm's class in its package.
        thesis: a kernel of Ortega-Arranz's thesis (its model and Table 4.2 apply).
        header_id: its value in the C/C++ header's `autotune_algorithm` enum (`table export`): fixed
            once given, never reused, so that a program compiled against an older header reads a
            newer one's configurations the same (registration order may change).
        auto_rank: the order `--algorithm auto` tunes the algorithms of a graph in (lower first):
            the work-efficient first, so that its best prunes the others' hopeless trials.
        in_auto: whether `--algorithm auto` tunes it (an experimental kernel that loses everywhere
            measured is tuned only when named, so that it takes no share of a sweep's budget).
        conditional: whether `admits` depends on something kept per graph (PHAST's hierarchy):
            the choice model may then learn to pick it wherever a graph admits it.
        bytes_per_vertex, bytes_per_instance: the GPU workspace one concurrent instance takes (its
            engine allocates CK x (bytes_per_vertex x n + bytes_per_instance)); see `instances_that_fit`.
        renumbers_hubs: whether its engine relaxes a copy of the graph renumbered by in-degree where
            `graphs.order.hub_order` gives one (the copy's memory counts beside the graph's).
        reads_level_width: whether its model's rules read the graph's level width
            (`GraphFeatures.level_width`): callers measure it (breadth-first searches) only then.
        wide_distances: whether its kernels have 64-bit builds (`-DWIDE_DISTANCES=1`), with which
            it solves a graph whose distances may pass 32 bits (`distance_range.width_for`); one
            without refuses such a graph (`admits`, `refuses_width`). `wide_bytes_per_vertex` and
            `wide_bytes_per_instance`: what those builds add to a workspace.
    """

    name: str = ""
    summary: str = ""
    kernels: tuple[str, ...] = ()
    lanes_kernels: frozenset[str] = frozenset()
    parameters: tuple[Parameter, ...] = ()
    concurrent_kernels: tuple[int, ...] = CONCURRENT_KERNEL_CHOICES
    source: str = ""
    source_parts: tuple[tuple[str, ...], ...] = ()
    engine: str = ""
    characterization_file: str = ""
    one_query_shape_queries: int = 1  # `one_query_shape_up_to` where the characterization does not say
    thesis: bool = False
    header_id: int = -1
    auto_rank: int = 1
    in_auto: bool = True
    conditional: bool = False
    bytes_per_vertex: int = 0
    bytes_per_instance: int = 0
    renumbers_hubs: bool = False
    reads_level_width: bool = False
    wide_distances: bool = False
    wide_bytes_per_vertex: int = 0
    wide_bytes_per_instance: int = 0

    # --- kernels and compilation ------------------------------------------------------------------

    def compile_options(self, no_l1: bool) -> list[str]:
        """nvcc options of one build; `no_l1`: every global load past L1 (the `no_l1` state)."""
        # plain loads only (no read-only path), and those past L1: see RESTRICT in the sources
        return ["-DNO_L1=1", "-Xptxas=-dlcm=cg"] if no_l1 else []

    def source_part(self, function: str) -> int:
        """The build that compiles `function`: its group's number in `source_parts`, or 0 (the whole
        source) where no group holds it."""
        return next((k for k, group in enumerate(self.source_parts, 1) if function in group), 0)

    def builds(self) -> tuple[int, ...]:
        """The source's builds (`source_part`'s numbers) that hold every kernel of it."""
        return tuple(range(1, len(self.source_parts) + 1)) or (0,)

    def compiled_functions(self) -> dict[str, tuple[str, ...]]:
        """Per tuned kernel, the compiled functions that launch as it (their resources bound its
        occupancy): by default the function of the kernel's own name."""
        return {k: (k,) for k in self.kernels}

    @property
    def source_path(self) -> Path:
        from autotune.resources import kernels_dir

        return kernels_dir() / self.source

    # --- memory -----------------------------------------------------------------------------------

    def instances_that_fit(self, n_vertices: int, n_edges: int, memory_bytes: int, wide: bool = False,
                           hub_ordered: bool = False) -> int:
        """How many concurrent instances' workspaces fit in `MEMORY_SHARE` of a GPU's memory beside
        the graph's CSR arrays (row offsets, columns and weights, 4 bytes each): what bounds CK
        (`wide`: of the 64-bit builds; `hub_ordered`: a graph `hub_order` renumbers, `memory_bytes`).

        Example::

            >>> from autotune.algorithms import get
            >>> get("delta").instances_that_fit(23_947_347, 58_333_344, 80 * 2**30)  # USA roads, 80 GiB
            114
        """
        graph_bytes = self.memory_bytes(n_vertices, n_edges, 0, hub_ordered=hub_ordered)
        per_instance = self.memory_bytes(n_vertices, n_edges, 1, wide, hub_ordered) - graph_bytes
        return max(0, int((MEMORY_SHARE * memory_bytes - graph_bytes) // max(per_instance, 1)))

    def memory_bytes(self, n_vertices: int, n_edges: int, ck: int, wide: bool = False,
                     hub_ordered: bool = False) -> int:
        """The GPU memory a batch of `ck` instances takes: the graph's CSR arrays (row offsets,
        columns and weights, 4 bytes each), its renumbered copy where the algorithm relaxes one
        and the graph is `hub_ordered` (`renumbers_hubs`, `graphs.order.renumbered_bytes`), and `ck`
        workspaces (what a table records per CK point; `wide`: of the 64-bit builds)."""
        from autotune.graphs.order import renumbered_bytes

        per_vertex = self.bytes_per_vertex + (self.wide_bytes_per_vertex if wide else 0)
        per_instance = self.bytes_per_instance + (self.wide_bytes_per_instance if wide else 0)
        copy = renumbered_bytes(n_vertices, n_edges) if hub_ordered and self.renumbers_hubs else 0
        return 4 * (n_vertices + 1) + 8 * n_edges + copy + ck * (per_vertex * n_vertices + per_instance)

    # --- parameters and configurations ------------------------------------------------------------

    def parameter(self, name: str, where: str | None = None) -> Parameter:
        """The parameter called `name`.

        Raises:
            InputError: the algorithm has none of that name (`where` names the option).
        """
        for parameter in self.parameters:
            if parameter.name == name:
                return parameter
        raise InputError(f"{where + ': ' if where else ''}{self.name} has no parameter {name!r}")

    def default_params(self) -> dict[str, ParamValue]:
        return {p.name: p.default for p in self.parameters}

    def uniform(self, block_size: int, cache: CacheState | str = CacheState.DEFAULT, concurrent_kernels: int = 1,
                lanes: int = 1, params: Mapping[str, ParamValue] | None = None) -> LaunchConfig:
        """One block size and cache state for every kernel (the thesis's way to search); `lanes`
        for the kernels that take them; the default parameters, updated with `params`."""
        cache = CacheState(cache)
        kernels = {k: KernelLaunch(block_size, cache, lanes if k in self.lanes_kernels else 1) for k in self.kernels}
        return self.canonical(LaunchConfig(concurrent_kernels, kernels, self.name,
                                           {**self.default_params(), **(params or {})}))

    def default_config(self) -> LaunchConfig:
        """The thesis's default: 256 threads and the default cache for every kernel, CK 1, L 1,
        and the default of every parameter."""
        return self.uniform(256)

    def validate(self, config: LaunchConfig, where: str = "config") -> LaunchConfig:
        """`config` in canonical form, if it is one of this algorithm's.

        Raises:
            InputError: another algorithm's, missing or unknown kernels or parameters, lanes on a
                kernel that takes none, or a parameter value out of its domain.
        """
        if config.algorithm != self.name:
            raise InputError(f"{where}: a configuration of {config.algorithm}, not of {self.name}")
        names = config.kernel_names
        missing = [k for k in self.kernels if k not in names]
        extra = sorted(set(names) - set(self.kernels))
        if missing or extra:
            raise InputError(
                f"{where}: 'kernels' must hold exactly {', '.join(self.kernels)}"
                + (f"; missing {', '.join(missing)}" if missing else "")
                + (f"; unknown {', '.join(extra)}" if extra else "")
            )
        for kernel, launch in config.kernels.items():
            if launch.lanes != 1 and kernel not in self.lanes_kernels:
                takes = ", ".join(sorted(self.lanes_kernels)) or "no kernel"
                raise InputError(f"{where}: lanes applies to {takes} of {self.name}; {kernel} has lanes {launch.lanes}")
        known = {p.name for p in self.parameters}
        unknown = sorted(set(config.params) - known)
        if unknown:
            listed = ", ".join(sorted(known)) or "none"
            raise InputError(f"{where}: {self.name} has no parameter(s) {', '.join(unknown)}; its parameters: {listed}")
        params = self.default_params()
        for name, value in config.params.items():
            params[name] = self.parameter(name).check(value, where)
        ordered = {k: config.kernel(k) for k in self.kernels}
        return self.canonical(LaunchConfig(config.concurrent_kernels, ordered, self.name, params))

    def canonical(self, config: LaunchConfig) -> LaunchConfig:
        """The one form of configurations that launch the same (override where some values are
        unused in some modes)."""
        return config

    # --- the CPU reference --------------------------------------------------------------------------

    def solve_cpu(self, graph: CSRGraph, source: int, params: Mapping[str, ParamValue] | None = None) -> SolveResult:
        raise NotImplementedError

    # --- the model -----------------------------------------------------------------------------------

    @property
    def characterization_path(self) -> Path:
        """The characterization TOML: `characterization_file` in the folder of the module that
        defines the algorithm's class (its package, `autotune/algorithms/NAME/`)."""
        return Path(inspect.getfile(type(self))).resolve().parent / self.characterization_file

    @cached_property
    def characterization(self) -> Characterization:
        from autotune.model.characterization import load_characterization

        return load_characterization(self.characterization_path)

    def predict(self, features: GraphFeatures, device: DeviceProfile,
                characterization: Characterization | None = None) -> Any:
        """The model's `Prediction` (`config`, `rules()`, `to_json()`) for a graph on a GPU."""
        raise NotImplementedError

    def predict_one_query(self, features: GraphFeatures, device: DeviceProfile,
                          characterization: Characterization | None = None) -> Any:
        """The model's prediction for one query where the algorithm has rules of their own for it
        (`predict` aims at batches), else None."""
        return None

    def one_query_shape_up_to(self, characterization: Characterization | None = None) -> int:
        """The most sources at once that take the one-query shape (`predict_one_query`, its CK raised
        to the sources': `model.queries.at_queries`) rather than the batch end's, capped: the
        characterization's [model] `one_query_shape_queries`, else the class's (1 by default)."""
        model = getattr(characterization or self.characterization, "model", None) or {}
        return int(model.get("one_query_shape_queries", self.one_query_shape_queries))

    def spread_over(self, config: LaunchConfig, concurrent_kernels: int) -> LaunchConfig:
        """One query's configuration `config` for `concurrent_kernels` sources at once in its shape
        (`model.queries.spread`, up to `one_query_shape_up_to` sources): CK raised by default."""
        return config.replace(concurrent_kernels=concurrent_kernels)

    def with_latency_rules(self, config: LaunchConfig, decisions: Sequence[Any], features: GraphFeatures,
                           level_width: Callable[[], float], latency: Any) -> tuple[LaunchConfig, Sequence[Any]]:
        """One query's configuration and decisions after the latency rules a choice model was
        fitted with (`latency`, `predict.choice.ChoiceModel.latency`), where they are this
        algorithm's; unchanged by default."""
        return config, decisions

    def with_spread_rules(self, config: LaunchConfig, decisions: Sequence[Any], features: GraphFeatures,
                          latency: Any, queries: int) -> tuple[LaunchConfig, Sequence[Any]]:
        """One query's configuration shared out over `queries` sources (`spread_over`) after the
        rules a choice model was fitted with for a few at once, where they are this algorithm's;
        unchanged by default."""
        return config, decisions

    def with_gpu_constants(self, characterization: Any, latency: Any) -> Any:
        """The characterization with the constants a choice model fitted on its GPU's probes
        (`latency`, `predict.choice.ChoiceModel.latency`), where they are this algorithm's;
        unchanged by default."""
        return characterization

    def header_rules(self, device: DeviceProfile, characterization: Characterization, latency: Any) -> str | None:
        """The C function `autotune_rules_<name>_(graph, queries, config)` of the table export's header
        (`autotune.table.export_model`): this algorithm's rules on `device` as `predict.auto.predicted`
        applies them (`latency`: the choice model's fitted rules); None where it has no C form (the
        header's model then never picks it)."""
        return None

    def unsuited(self, max_degree: int) -> str | None:
        """Why the algorithm cannot run on a graph of this largest degree, or None (the model's
        choice falls back on the next algorithm then)."""
        return None

    def admits(self, graph: CSRGraph, prepare: bool = False, within_s: float | None = None,
               beside: threading.Event | None = None) -> str | None:
        """Why `--algorithm auto` leaves this algorithm out on `graph`, or None where it tunes it
        (every graph whose distances its kernels hold, by default: `refuses_width`). With `prepare`,
        what the algorithm needs kept per graph (PHAST's hierarchy) is built first where the graph
        qualifies, with progress on stderr, stopped where it takes more than `within_s` seconds;
        `beside`: it is made beside a sweep's measurements (a thread of `search.run.preparing`),
        leaving them cores, and stopped once the event is set."""
        return self.refuses_width(graph)

    def refuses_width(self, graph: CSRGraph) -> str | None:
        """Why this algorithm cannot solve `graph`'s distances: they may pass 32 bits and its kernels
        have no 64-bit build (`wide_distances`); None where it can."""
        from autotune.reference.distance_range import width_for

        if self.wide_distances or not width_for(graph).wide:
            return None
        return ("its kernels hold distances in 32 bits and a shortest path of the graph may pass that "
                "(`--algorithm auto` picks one with 64-bit builds)")

    def require_width(self, graph: CSRGraph) -> None:
        """Refuse, naming both, a graph whose distances this algorithm's kernels cannot hold.

        Raises:
            InputError: `refuses_width` says why.
        """
        if (why := self.refuses_width(graph)) is not None:
            raise InputError(f"{graph.name}: {self.name} cannot solve it: {why}")

    def with_level_width(self, features: GraphFeatures, level_width: Callable[[], float] | None) -> GraphFeatures:
        """`features` with the graph's level width where this algorithm's rules read it
        (`reads_level_width`) and `level_width` (a callable: the breadth-first searches) is given."""
        if not self.reads_level_width or level_width is None:
            return features
        return dataclasses.replace(features, level_width=level_width())

    def baseline_candidates(self, device: DeviceProfile) -> tuple[LaunchConfig, ...]:
        """Thesis 4.6.1's baseline candidates: the uniform configurations (default cache, CK 1,
        L 1, default parameters) of the block sizes that maximize every kernel's occupancy; where
        no size does so for all kernels, candidate i launches each kernel with its own i-th
        maximizing size (shorter lists repeat their last). A sweep keeps the slowest."""
        from autotune.model.occupancy import max_occupancy_block_sizes

        sizes = {k: max_occupancy_block_sizes(device, self.characterization.kernel(k).resources) for k in self.kernels}
        common = sorted(set.intersection(*(set(s) for s in sizes.values())))
        if common:
            return tuple(self.uniform(b) for b in common)
        candidates = []
        for i in range(max(len(s) for s in sizes.values())):
            launches = {k: KernelLaunch(sizes[k][min(i, len(sizes[k]) - 1)]) for k in self.kernels}
            candidates.append(self.canonical(LaunchConfig(1, launches, self.name, self.default_params())))
        return tuple(dict.fromkeys(candidates))

    def bridge_candidates(self, config: LaunchConfig, concurrent_kernels: int) -> list[LaunchConfig]:
        """What a queries curve measures for a CK the search left without a point, from the fastest
        point at a neighbouring CK (`search.plan.bridges`): by default that point with CK set to it;
        an algorithm whose instances can spread over more of the GPU adds the shapes that do."""
        return [config.replace(concurrent_kernels=concurrent_kernels)]

    def latency_design(self, space: Any) -> list[LaunchConfig]:
        """First trials of a search of one query or a few at once (a space of CK at most
        `search.space.FEW_QUERIES`; `space` a `SearchSpace`): the launch shapes that serve them,
        which the model's rules (tuned for batches) do not predict. None by default."""
        return []

    def lanes_choices(self) -> tuple[int, ...]:
        return LANE_CHOICES if self.lanes_kernels else (1,)

    def __repr__(self) -> str:
        return f"<algorithm {self.name}>"
