"""What `autotune sweep` works on: per graph and algorithm, a `Job` (the graph, its search space,
its specials and how to get its timer), from recorded measurements (`--replay`) or the GPU."""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import sys
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterator, Mapping, Sequence

from autotune import algorithms
from autotune.errors import InputError
from autotune.measure import Protocol, Timer, choose_sources
from autotune.model.shape import level_width
from autotune.search.run import specials as sp
from autotune.search.run.opening import Reentrant
from autotune.search.run.plan import ENOUGH_AT_END
from autotune.search.run.preparing import Preparations
from autotune.search.run.references import gpu_reference_rows, reference_config
from autotune.search.results.records import Record, read_records
from autotune.search.timers.replay import recorded_space, replay_timer
from autotune.search.results import GraphInfo
from autotune.search.space import FEW_QUERIES, SearchSpace


@dataclass(frozen=True)
class SpaceOptions:
    """The search-space options as given (None: the algorithm's full range)."""

    block_sizes: str | None = None
    caches: str | None = None
    ck: str | None = None
    lanes: str | None = None
    params: tuple[str, ...] = ()
    max_ck: int | None = None
    min_ck: int = 1
    memory_bytes: int | None = None  # the GPU memory the sweep may use (`--max-memory`, else the GPU's)

    def space(self, algorithm: str, graph: GraphInfo | None, records: Sequence[Record] | None = None) -> SearchSpace:
        """The space of one algorithm on one graph; a replay defaults each option to what its
        records cover. With `memory_bytes`, no CK whose workspaces do not fit beside the graph
        (`Algorithm.instances_that_fit`): nothing is launched that the GPU's memory would refuse."""
        given: dict[str, Any] = {"block_sizes": self.block_sizes, "caches": self.caches, "ck": self.ck,
                                 "lanes": self.lanes}
        params = list(self.params)
        if records:
            covered = recorded_space(records)
            given = {name: value if value is not None else covered[name] for name, value in given.items()}
            named = {text.partition("=")[0] for text in params}
            params += [text for text in covered["params"] if text.partition("=")[0] not in named]
        features = sp.features(graph) if graph is not None and graph.n_vertices > 0 else None
        space = SearchSpace.from_options(algorithm, params=params, graph=features, **given)
        space = space if self.max_ck is None else at_most_ck(space, self.max_ck)
        if self.memory_bytes is not None and graph is not None and graph.n_vertices > 0:
            space = fitting_memory(space, algorithms.get(algorithm), graph, self.memory_bytes)
        return space if self.min_ck <= 1 else at_least_ck(space, self.min_ck)


class BeyondCK(InputError):
    """The objective's bound on CK leaves an algorithm's space no value (Δ-stepping of 32 lanes
    has no CK 1)."""


def at_most_ck(space: SearchSpace, max_ck: int) -> SearchSpace:
    """The space without its CK values above `max_ck` (`--objective latency`: 1; `--queries K`: K).

    Raises:
        BeyondCK: no CK value of the space is that small.
    """
    kept = tuple(ck for ck in space.concurrent_kernels if ck <= max_ck)
    if not kept:
        raise BeyondCK(f"--objective/--queries: the space's CK values ({', '.join(map(str, space.concurrent_kernels))}) "
                         f"are all above {max_ck}, the most SSSPs at once asked for; give --ck values of at most {max_ck}")
    return dataclasses.replace(space, concurrent_kernels=kept)


def fitting_memory(space: SearchSpace, algorithm: Any, graph: GraphInfo, memory_bytes: int) -> SearchSpace:
    """The space without its CK values whose workspaces do not fit in `memory_bytes` beside the graph.

    Raises:
        BeyondCK: not even its smallest CK fits.
    """
    wide = graph.distance_bits == 64
    fit = algorithm.instances_that_fit(graph.n_vertices, graph.n_edges, memory_bytes, wide, graph.hub_ordered)
    kept = tuple(ck for ck in space.concurrent_kernels if ck <= fit)
    if not kept:
        smallest = algorithm.memory_bytes(graph.n_vertices, graph.n_edges, min(space.concurrent_kernels), wide,
                                          graph.hub_ordered)
        raise BeyondCK(f"{graph.name}: {algorithm.name}'s smallest batch (CK {min(space.concurrent_kernels)}) needs "
                       f"{smallest / 2**30:.1f} "
                       f"GiB of GPU memory; {memory_bytes / 2**30:.1f} GiB may be used (the GPU's, or --max-memory)")
    return dataclasses.replace(space, concurrent_kernels=kept)


def at_least_ck(space: SearchSpace, min_ck: int) -> SearchSpace:
    """The space without its CK values below `min_ck` (the queries curve's middle: 2).

    Raises:
        BeyondCK: no CK value of the space is that large.
    """
    kept = tuple(ck for ck in space.concurrent_kernels if ck >= min_ck)
    if not kept:
        values = ", ".join(map(str, space.concurrent_kernels))
        raise BeyondCK(f"the space's CK values ({values}) are all below {min_ck}")
    return dataclasses.replace(space, concurrent_kernels=kept)


@dataclass(frozen=True)
class Job:
    """One graph and algorithm to sweep.

    Args:
        graph: its description (classified on the GPU).
        algorithm: the algorithm.
        space: the search space.
        specials: prediction, default, baseline candidates.
        timer: a context manager giving its timer.
        source: how a worker of a multi-GPU run finds it: a --graph spec, or the records' graph key.
        objective: the end of the queries curve it searches (throughput, latency or few), or the sweep's
            objective.
        settings: what its study changes of the sweep's `SweepSettings` (the curve's ends: bridging,
            pruning the references).
        prepared: the preparation its trials need, made beside the sweep (`preparing.Preparations`):
            a future of why its algorithm is left out, or None; None: it needs none.
    """

    graph: GraphInfo
    algorithm: str
    space: SearchSpace
    specials: sp.Specials
    timer: ContextManager[Timer]
    source: str = ""
    objective: str = "throughput"
    settings: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    prepared: Future | None = None


@dataclass(frozen=True)
class End:
    """One study of an algorithm on a graph: the objective it measures and its space's options.
    The queries curve (`objective` curve) has three: the batch end (`throughput`: every CK, the
    CK values below its best that no other end searches bridged), the latency end (`latency`:
    CK 1, searched on its own) and the middle (`few`: CK 2 to `FEW_QUERIES`, searched from the
    algorithm's shapes for a few queries, its own CK values bridged); the latency end and the
    middle prune their references like any trial (a table reports the batch end's)."""

    objective: str
    options: SpaceOptions
    curve: bool = False


def ends(options: SpaceOptions, objective: str) -> tuple[End, ...]:
    if objective == "curve":
        few = dataclasses.replace(options, min_ck=2, max_ck=min(FEW_QUERIES, options.max_ck or FEW_QUERIES))
        latency = dataclasses.replace(options, max_ck=1)
        return End("throughput", options, curve=True), End("latency", latency, curve=True), End("few", few, curve=True)
    return (End(objective, options),)


def end_spaces(options: SpaceOptions, objective: str, algorithm: str, graph: GraphInfo | None,
               records: Sequence[Record] | None = None, required: bool = True) -> list[tuple[End, SearchSpace]]:
    """The studies of one algorithm: each end with its space. An end whose CK bound the algorithm
    cannot meet (Δ-stepping of 32 lanes has no CK 1) is left out unless the algorithm was named
    alone for it (`required`, and not the curve's latency end).

    Raises:
        InputError: a bad space, or a required end the algorithm cannot meet.
    """
    found = []
    for end in ends(options, objective):
        try:
            found.append((end, end.options.space(algorithm, graph, records)))
        except BeyondCK:
            if required and objective != "curve":
                raise
    return found


def jobs_of_algorithm(graph: GraphInfo, algorithm: str, spaces: list[tuple[End, SearchSpace]],
                      specials_of: Callable[[SearchSpace], sp.Specials], timer: Callable[[], ContextManager[Timer]],
                      source: str, keep_timer: bool = False, prepared: Future | None = None) -> list[Job]:
    """The jobs of one algorithm on one graph: one per end, the batch end bridging every CK below
    its best but those the other ends search, each end converging only once it has enough points
    (`plan.short_of_enough`); `keep_timer` as `Reentrant`'s `keep`; `prepared` as `Job`'s."""
    searched = tuple(sorted({ck for end, space in spaces if end.curve and end.objective != "throughput"
                             for ck in space.concurrent_kernels}))

    def settings(end: End) -> dict[str, Any]:
        if not end.curve:
            return {}
        if end.objective == "throughput":
            return {"bridge": True, "searched_elsewhere": searched, "enough": ENOUGH_AT_END}
        if end.objective == "latency":
            return {"prune_references": True, "enough": ENOUGH_AT_END}
        return {"prune_references": True, "bridge": True}

    return [Job(graph, algorithm, space, specials_of(space), Reentrant(timer, keep_timer), source, end.objective,
                settings(end), prepared) for end, space in spaces]


def replay_records(path: str, algorithm: str) -> list[Record]:
    """The records of the algorithm(s) `--algorithm` names.

    Raises:
        InputError: unreadable records, or none of those algorithms.
    """
    wanted = {a.name for a in algorithms.resolve(algorithm)}
    records = [r for r in read_records(path) if r.algorithm in wanted]
    if not records:
        raise InputError(f"{path}: holds no records of algorithm {algorithm}")
    return records


def replay_device(path: str, records: Sequence[Record], device_spec: str | None) -> tuple[dict[str, Any], Any]:
    """The records' GPU (one) and its profile (`--device` where the records lack one).

    Raises:
        InputError: the records mix GPUs, or no profile is known.
    """
    devices = {r.device_name for r in records}
    if len(devices) > 1:
        raise InputError(f"{path}: the records mix GPUs ({', '.join(sorted(devices))}); replay one GPU's records")
    device = dict(records[0].device)
    profile = sp.profile_from_json(device, path)
    if device_spec is not None:
        from autotune.gpu.device import load_profile

        profile = load_profile(device_spec)
        name = device.get("name")
        device = sp.device_json(profile)
        if name and name != "unknown":
            device["name"] = name
    if profile is None:
        raise InputError(f"{path}: the records do not describe the GPU (its name: {device.get('name')!r}); "
                         "name its profile with --device NAME|FILE (autotune devices lists them)")
    return device, profile


def fitted_model(option: str, algorithm: str, profile: Any, required: bool) -> Any:
    """The `FittedModel` that `--model` names for one algorithm (None: the thesis's rules); where
    it is not `required` (an auto sweep's other algorithms), an algorithm without one uses the
    thesis's rules."""
    from autotune.algorithms.thesis.fitted import resolve_model

    try:
        return resolve_model(option, algorithm, profile)
    except InputError:
        if required:
            raise
        return None


def recorded_graph_features(graph: GraphInfo, load: Callable[[str], Any]) -> GraphInfo:
    """A recorded graph with the features its records lack (the degree skew in older records, the
    lightest-arc weight in every one: rule 1's unit, which tables and records do not hold), from
    the graph itself where it can be had (a generator spec, a file) and is the one recorded (same
    sha256); else as recorded."""
    try:
        loaded = sp.graph_info(load(graph.name), seed=graph.seed, weights=graph.weights)
    except InputError:
        return graph
    return loaded if not graph.sha256 or loaded.sha256 == graph.sha256 else graph


def replay_jobs(path: str, records: list[Record], graphs: Sequence[str], algorithm: str, options: SpaceOptions,
                device_spec: str | None, load: Callable[[str], Any], delay_s: float = 0.0, model: str = "auto",
                pace: float = 0.0, objective: str = "throughput") -> tuple[dict[str, Any], list[Job], list[str]]:
    """The jobs of a replay: per graph of the records (or of `graphs`), per algorithm. The
    prediction is the recorded one unless `model` names one (`thesis`, `fitted` or a file)."""
    device, profile = replay_device(path, records, device_spec)
    by_graph: dict[str, list[Record]] = {}
    for record in records:
        by_graph.setdefault(record.graph.key, []).append(record)
    names = {group[0].graph.name: key for key, group in by_graph.items()}
    if graphs:
        unknown = [g for g in graphs if g not in names and g not in by_graph]
        if unknown:
            raise InputError(f"--graph {unknown[0]}: not in {path}; it holds {', '.join(sorted(names))}")
        keys = [names.get(g, g) for g in graphs]
    else:
        keys = list(by_graph)
    jobs = []
    for key in keys:
        group = by_graph[key]
        graph = group[0].graph
        if graph.n_vertices < 1:  # records that do not say (engine benchmark): load it
            graph = sp.graph_info(load(graph.name), seed=graph.seed, weights=graph.weights)
        elif model != "auto" and graph.lightest_weight is None:  # the fitted rules read the skew and the lightest arcs
            graph = recorded_graph_features(graph, load)
        graph = sp.classify_graph(graph, profile)
        for entry in algorithms.resolve(algorithm):
            mine = [r for r in group if r.algorithm == entry.name]
            if not mine:
                continue
            fitted = None if model == "auto" else fitted_model(model, entry.name, profile, algorithm != algorithms.AUTO)
            spaces = end_spaces(options, objective, entry.name, graph, mine, algorithm != algorithms.AUTO)
            jobs += jobs_of_algorithm(
                graph, entry.name, spaces,
                lambda space, e=entry.name, m=mine, f=fitted: sp.recorded_specials(
                    m, graph, profile, e, f, use_model=model != "auto", space=space),
                lambda m=mine: contextlib.nullcontext(replay_timer(m, delay_s, pace)), key, keep_timer=True)
    return device, jobs, [by_graph[k][0].graph.name for k in keys]


def gpu_device(device_index: int) -> tuple[dict[str, Any], Any]:
    """The live GPU's table device object and profile (PyCUDA)."""
    from autotune import gpu
    from autotune.gpu.device import device_from_gpu

    description = gpu.device_description(gpu.device_handle(device_index))
    profile = device_from_gpu(device_index)
    device = sp.device_json(profile, cuda_version=str(description.get("cuda_driver_version")))
    device["name"] = str(description.get("name", device["name"]))
    return device, profile


@contextlib.contextmanager
def cuda_timer(graph: Any, algorithm: str, protocol: Protocol, references: Any) -> Iterator[Timer]:
    """A `CudaEventTimer` for one graph and algorithm; its GPU memory is released on exit.
    Requires the GPU's context to be current (`gpu.gpu_session`)."""
    from autotune.gpu import CudaEventTimer

    from autotune.algorithms import open_solver

    with open_solver(graph, algorithm) as solver:
        yield CudaEventTimer(solver, choose_sources(graph, protocol.sample, protocol.seed), protocol,
                             references=references)


def gpu_jobs(specs: Sequence[str], loaded: Sequence[Any], algorithm: str, options: SpaceOptions,
             profile: Any, protocol: Protocol, seed: int, weights: str | None, references: Any,
             model: str = "auto", objective: str = "throughput", prepare: bool = True, shapes: Any = None,
             ready: Callable[[], None] | None = None, prepare_within_s: Sequence[float] | None = None,
             beside: Preparations | None = None) -> list[Job]:
    """The jobs of a sweep on the GPU: per graph, per algorithm (the reference distances of each
    graph's sample are computed and kept before any timer opens, which reads them; on a large graph
    some solved on the GPU, `gpu_reference_rows`, where `ready` is given: the GPU is current, the
    sweep's algorithms include Δ-stepping (`gpu_shares_references`), and `ready()` waits for the
    kernels' builds); the prediction is `model`'s (`--model`: auto, thesis, fitted or a file). With
    `prepare`, `auto` first builds what a conditional algorithm needs per graph (PHAST's hierarchy,
    `Algorithm.admits`), within the sweep's wall time, stopped after the graph's `prepare_within_s`
    seconds where given (then that algorithm is left out); with `beside`, a conditional algorithm's
    preparation is made there, beside the sweep, and its jobs wait for it (`Job.prepared`).
    `shapes` (a `model.shape.ShapeCache`) gives the level width the rules read where an earlier run
    kept it (a breadth-first search of seconds on a large graph), else it is searched."""
    jobs = []
    for index, (graph, spec) in enumerate(zip(loaded, specs)):
        within = None if prepare_within_s is None else prepare_within_s[index]
        info = sp.classify_graph(sp.graph_info(graph, seed=seed, weights=weights), profile)
        width = functools.cache(  # searched once, if the rules ask
            lambda g=graph: shapes.level_width(g) if shapes is not None else level_width(g))
        gpu_rows = None if ready is None else \
            gpu_reference_rows(graph, lambda i=info, w=width: reference_config(i, profile, w), ready)
        references.ensure(graph, choose_sources(graph, protocol.sample, protocol.seed), gpu_rows)
        source = str(Path(spec).resolve()) if Path(spec).exists() else spec
        for entry in algorithms.resolve(algorithm):
            prepared = None
            if algorithm == algorithms.AUTO:
                later = prepare and beside is not None and entry.conditional
                why = entry.admits(graph, prepare and not later, within)
                if why is not None and later:
                    prepared, why = beside.start(graph, entry, within), None
                if why is not None:
                    print(f"autotune: {graph.name}: auto leaves {entry.name} out: {why}", file=sys.stderr)
                    continue
            fitted = fitted_model(model, entry.name, profile, algorithm != algorithms.AUTO and model != "auto")
            spaces = end_spaces(options, objective, entry.name, info, None, algorithm != algorithms.AUTO)
            jobs += jobs_of_algorithm(
                info, entry.name, spaces,
                lambda space, e=entry.name, f=fitted, w=width: sp.model_specials(
                    info, profile, e, f, space, w, with_one_query=objective == "throughput"),
                lambda g=graph, e=entry.name: cuda_timer(g, e, protocol, references), source, prepared=prepared)
    return jobs


def protocol_json(protocol: Protocol, replay: bool, settings: Mapping[str, Any]) -> dict[str, Any]:
    """How each configuration is measured (part of a study's name: only the same protocol resumes)."""
    return {"timer": "replay" if replay else "cuda-events", **protocol.to_json(), **settings}
