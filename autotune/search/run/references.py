"""The GPU's share of a large graph's reference distances in a sweep (`reference.cache`'s
`ReferenceCache.ensure` checks it against the CPU's rows before keeping any): which sweeps solve
some references on the GPU, with which configuration, and the solve itself."""
from __future__ import annotations

from typing import Any, Callable

from autotune import algorithms
from autotune.errors import InputError
from autotune.search.results import GraphInfo
from autotune.search.run import specials as sp

REFERENCE_ALGORITHM = "delta"  # its one-query configuration solves the reference rows the CPU's share leaves


def gpu_shares_references(algorithm: str) -> bool:
    """Whether a sweep of `algorithm` (a name or `auto`) solves some references on the GPU: where it
    builds `REFERENCE_ALGORITHM`'s kernels anyway (a cold build of Δ-stepping's alone takes about
    as long as the CPU's second round it would save)."""
    return REFERENCE_ALGORITHM in {entry.name for entry in algorithms.resolve(algorithm)}


def reference_config(graph: GraphInfo, profile: Any, level_width: Callable[[], float] | None) -> Any:
    """`REFERENCE_ALGORITHM`'s configuration for one query on the graph by the model (what
    `autotune predict --algorithm delta --queries 1` gives; its default, a single block that took
    0.97 s a source on rmat22, where the model cannot answer)."""
    from autotune.predict.auto import predicted
    from autotune.predict.choice import shipped_choice

    chooser = shipped_choice(profile)
    try:
        return predicted(REFERENCE_ALGORITHM, sp.features(graph), profile, "auto", 1,
                         chooser.latency if chooser is not None else None, level_width)[0]
    except InputError:
        return algorithms.get(REFERENCE_ALGORITHM).default_config()


def gpu_reference_rows(graph: Any, config: Callable[[], Any], ready: Callable[[], None] | None = None
                       ) -> Callable[[list[int]], Any]:
    """What solves sources' rows on the GPU for `ReferenceCache.ensure` (checked there against the
    CPU's before any is kept), with `config()` (`reference_config`: made only when asked), the
    kernels' builds waited for first (`ready`, `gpu.compile.precompile`'s). Requires the GPU's
    context to be current."""
    def solve(sources: list[int]) -> Any:
        import numpy as np

        from autotune.measure import batches

        if ready is not None:
            ready()
        chosen = config()
        rows: dict[int, Any] = {}
        with algorithms.open_solver(graph, chosen.algorithm) as solver:
            for batch in batches(sources, chosen.concurrent_kernels):
                found = solver.solve(chosen, batch).distances
                rows.update((source, np.array(found[k], dtype=np.int32)) for k, source in enumerate(batch))
        return np.stack([rows[source] for source in sources])

    return solve
