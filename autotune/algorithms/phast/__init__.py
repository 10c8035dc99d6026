"""One-to-all queries on a contraction hierarchy, PHAST's way (`kernels/phast.cu`; Delling,
Goldberg, Nowatzyk and Werneck, IPDPS 2011): a block per instance sweeps the hierarchy level by
level, up from the source and down over every level, a barrier a level and no queue. On a road
network that is 6x to 9x fewer barrier-separated steps than near-far Delta-stepping's iterations
(docs/notes/phast.md, run V).

The hierarchy is built on the CPU once per graph and kept (`autotune.hierarchy.store`); a graph
with hubs gets none, and then every configuration is refused. Tuned: the block size of the sweep
and of the GPU-wide levels, where an instance's distances live, from what size a level is swept by
the whole GPU, and CK.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from autotune.algorithms.base import Algorithm
from autotune.algorithms.delta import OFF, SHARED_PER_BLOCK
from autotune.algorithms.parameters import Parameter
from autotune.launch import CONCURRENT_KERNEL_CHOICES, LaunchConfig, ParamValue

if TYPE_CHECKING:
    import threading

    from autotune.graphs.csr import CSRGraph
    from autotune.model.characterization import Characterization
    from autotune.model.device import DeviceProfile
    from autotune.model.features import GraphFeatures
    from autotune.reference.result import SolveResult

GLOBAL, SHARED = "global", "shared"
LEVELS, SEARCH = "levels", "search"
NONE, DOWN = "none", "down"
ON = "on"
SHARED_ARCS = (NONE, DOWN)  # phast.cu's SHARED_ARCS_NONE and _DOWN
# phast.cu's static shared memory: the level starts (SHARED_LEVELS + 1 ints), the search's two
# queues (QUEUE ints each) and its counters (tests/test_phast_registry.py holds it to nvcc's count
# in algorithms/phast/phast.toml)
STAGED_BYTES = 12 * 1024 + 32
MAX_SHARED_VERTICES = (SHARED_PER_BLOCK - STAGED_BYTES) // 4  # distances in shared memory: an int a vertex


def distances_values(features: Any) -> tuple[ParamValue, ...]:
    """Where a sweep tries the distances: `shared` only where n ints fit one block's shared memory.

    Example:
        >>> from types import SimpleNamespace
        >>> distances_values(SimpleNamespace(n_vertices=3353)), distances_values(SimpleNamespace(n_vertices=87575))
        (('global', 'shared'), ('global',))
    """
    n = getattr(features, "n_vertices", None)
    return (GLOBAL, SHARED) if n is not None and n <= MAX_SHARED_VERTICES else (GLOBAL,)


class Phast(Algorithm):
    name = "phast"
    summary = "PHAST: level sweeps over a contraction hierarchy built once per graph (graphs without hubs)"
    kernels = ("sweep", "pull")
    parameters = (
        Parameter("distances", "global: an instance's distances in GPU memory; shared: in its block's shared "
                  f"memory (graphs of up to {MAX_SHARED_VERTICES:,} vertices; every level on the block)", GLOBAL,
                  values=(GLOBAL, SHARED), names=(GLOBAL, SHARED), integers=False, graph_values=distances_values),
        Parameter("gpu_levels", "a level of more than this many vertices, and every level below it, is swept "
                  "by the whole GPU (a launch a level); off: the block sweeps every level", 16384,
                  values=(1024, 4096, 16384, 65536, OFF), names=(OFF,), minimum=32),
        Parameter("shared_arcs", "down: the downward arcs copied into the block's shared memory beside the "
                  "distances while the upward phase runs (with distances in shared memory, where both fit); "
                  "none: read in GPU memory", NONE, values=SHARED_ARCS, names=SHARED_ARCS, integers=False),
        Parameter("warp_levels", "on: a level of at most a vertex a warp is swept downward a warp a vertex, "
                  "a lane an arc; off: a thread a vertex", ON, values=(ON, OFF), names=(ON, OFF), integers=False),
        Parameter("upward", "search: the upward phase as rounds of a search over the vertices the source "
                  "reaches, a round a hop; levels: a step for every level above the source's", SEARCH,
                  values=(SEARCH, LEVELS), names=(SEARCH, LEVELS), integers=False),
    )
    concurrent_kernels = CONCURRENT_KERNEL_CHOICES + (128, 256, 512, 1024)
    source = "phast.cu"
    engine = "autotune.algorithms.phast.engine:PhastSolver"
    characterization_file = "phast.toml"
    one_query_shape_queries = 16  # phast.toml's [model] says why
    header_id = 5
    auto_rank = 0  # work-efficient where it applies: its ends first, with the larger share of a budget
    conditional = True  # admitted where the graph's hierarchy is kept
    # Building a hierarchy takes minutes of Python on a road network: auto tunes PHAST only where the
    # graph's hierarchy is kept already (`admits`); naming it builds one.
    bytes_per_vertex = 16  # distances by level and by the graph's ids, the search's due rounds and list
    bytes_per_instance = 8  # a source and its steps
    wide_distances = True  # kernels/phast.cu's distances and the hierarchy's weights are dist_t and weight_t
    wide_bytes_per_vertex = 8  # distances by level and by the graph's ids of 8 bytes
    staged_bytes = STAGED_BYTES

    def compiled_functions(self) -> dict[str, tuple[str, ...]]:
        return {"sweep": ("phast_global", "phast_shared", "phast_global_levels", "phast_shared_levels", "phast_target",
                          "phast_target_shared"),
                "pull": ("pull_level", "scatter_out")}

    def canonical(self, config: LaunchConfig) -> LaunchConfig:
        """Distances in shared memory put every level on the block (`gpu_levels` off); in global
        memory, the arcs stay there too (`shared_arcs` none)."""
        if config.param("distances") == SHARED and config.param("gpu_levels") != OFF:
            return config.replace(gpu_levels=OFF)
        if config.param("distances") == GLOBAL and config.param("shared_arcs") != NONE:
            return config.replace(shared_arcs=NONE)
        return config

    def unsuited(self, max_degree: int) -> str | None:
        from autotune.hierarchy.contraction import MAX_DEGREE

        return f"builds no hierarchy for a vertex of {max_degree} arcs" if max_degree > MAX_DEGREE else None

    def admits(self, graph: CSRGraph, prepare: bool = False, within_s: float | None = None,
               beside: threading.Event | None = None) -> str | None:
        """Auto tunes PHAST where the graph's hierarchy is kept; with `prepare` it is built first
        where the graph qualifies (kept for later runs; `hierarchy.build.build_kept` reports it),
        and stopped where it takes more than `within_s` seconds (a sweep's share of its budget)."""
        from autotune.hierarchy import HierarchyStore, default_directory

        if (why := self.refuses_width(graph)) is not None:
            return why
        if (why := self.unsuited(graph.max_degree)) is not None:
            return f"no contraction hierarchy: {why}"
        store = HierarchyStore(default_directory())
        stopped = False
        if not store.kept(graph) and prepare and store.refusal(graph) is None:
            from autotune.hierarchy.build import build_kept

            limit = "its share of the sweep's budget" if within_s is not None else "its time limit"
            stopped = build_kept(store, graph, within_s=within_s, limit_is=limit, beside=beside) is None and \
                store.refusal(graph) is None
        if store.kept(graph):
            return None
        why = store.refusal(graph)
        build = f"`autotune graph hierarchy {graph.name}` builds one"
        if why:
            return f"no contraction hierarchy: {why}"
        if not stopped:
            return f"no contraction hierarchy kept for {graph.name} ({build})"
        if beside is not None and beside.is_set():  # the sweep ended before the build, not its limit
            return f"no contraction hierarchy: the sweep ended before its build ({build})"
        return f"no contraction hierarchy: its build took more than {within_s:.0f} s ({build})"

    def solve_cpu(self, graph: CSRGraph, source: int, params: Mapping[str, ParamValue] | None = None) -> SolveResult:
        """The CPU reference: the same level sweeps on the graph's kept hierarchy (built if not kept).

        Raises:
            InputError: the graph gets no hierarchy.
        """
        from autotune.errors import InputError
        from autotune.hierarchy import HierarchyStore, Unsuited, default_directory, level_sweeps
        from autotune.reference.result import UNREACHABLE, SolveResult, check_sources

        (source,) = check_sources(graph, [source]).tolist()
        try:
            hierarchy = HierarchyStore(default_directory()).hierarchy(graph)
        except Unsuited as why:
            raise InputError(f"{graph.name}: no contraction hierarchy for phast: {why}") from None
        distances, steps = level_sweeps(hierarchy, source, UNREACHABLE)
        return SolveResult(self.name, source, distances, steps)

    def latency_design(self, space: Any) -> list[LaunchConfig]:
        """One query: the one-query rules' shapes (`phast_rules.one_query`) at CK 1, the distances
        in shared memory where the graph's domain has them (with the downward arcs there too, where
        they fit, then without), and in global memory with the levels of more than 1,024 vertices on
        the whole GPU, within the space's values."""
        values = dict(space.params)
        block = 1024 if 1024 in space.uniform_block_sizes else max(space.uniform_block_sizes)
        shapes = ((SHARED, OFF, DOWN), (SHARED, OFF, NONE), (GLOBAL, 1024, NONE))
        design = [self.uniform(block, space.caches[0], 1, 1, {"distances": d, "gpu_levels": g, "shared_arcs": a})
                  for d, g, a in shapes
                  if d in values["distances"] and g in values["gpu_levels"] and a in values.get("shared_arcs", (a,))]
        return [c for c in dict.fromkeys(design) if space.contains(c)]

    def predict(self, features: GraphFeatures, device: DeviceProfile,
                characterization: Characterization | None = None) -> Any:
        from autotune.algorithms.phast.rules import predict

        return predict(features, device, characterization or self.characterization, self)

    def predict_one_query(self, features: GraphFeatures, device: DeviceProfile,
                          characterization: Characterization | None = None) -> Any:
        from autotune.algorithms.phast.rules import one_query

        return one_query(features, device, characterization or self.characterization, self)

    def header_rules(self, device: DeviceProfile, characterization: Characterization, latency: Any) -> str:
        from autotune.algorithms.phast.header import header_rules

        return header_rules(self, device, characterization)


PHAST = Phast()
