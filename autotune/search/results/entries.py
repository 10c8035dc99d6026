"""A sweep's results as the JSON table of `autotune.table.format` (schema autotune.table/3).

Per graph the entry holds `predicted` (the model's account), `best`, `default`, `baseline` and
`model` (the prediction as measured), each measured part with its median, raw times and kernel
times; `strategy`, `evaluations` (GPU measurements, re-measurements included), `tuning_seconds`,
the speedups over the default and the baseline, `model_gap` and `partial`. What the schema has no
key for is under `x-sweep` (the schema's extension prefix): trials, distinct configurations,
failures, time inside measure calls and the host's share of the wall time, the finalists, the
baseline candidates, the study, the space and the replay's counts. A table of an interrupted sweep
has `x-partial: true`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from autotune.table import format as tables
from autotune.search.results import ConfigResult, GraphInfo, GraphResult, fastest_configurations


def measured_part(result: ConfigResult | None) -> dict[str, Any] | None:
    """The schema's `measured` object, or None unless the configuration measured ok."""
    if result is None or not result.ok:
        return None
    extra: dict[str, Any] = {"times_ms": list(result.times_ms), "kernel_ms": dict(result.kernel_ms),
                             "iterations": result.iterations, "status": "ok"}
    if result.gteps is not None:
        extra["gteps"] = result.gteps
    return tables.measured(result.config, result.ms_per_sssp, True, **extra)


def memory_of(result: ConfigResult, graph: GraphInfo) -> int:
    """The GPU memory, in bytes, that a point's batch takes (`Algorithm.memory_bytes`: the graph, its
    renumbered copy where one is relaxed, and CK workspaces), which a table records per CK (`x-memory`)
    for a program to check it has it."""
    from autotune.algorithms import get

    config = result.config
    return get(config.algorithm).memory_bytes(graph.n_vertices, graph.n_edges, config.concurrent_kernels,
                                              graph.distance_bits == 64, graph.hub_ordered)


def _failure(result: ConfigResult) -> dict[str, Any]:
    return {"config": result.config.to_json(), "status": result.status.value, "reason": result.reason}


def dedupe(ranked: Sequence[ConfigResult]) -> list[ConfigResult]:
    """Each configuration once, at its first (fastest) place."""
    seen: set[str] = set()
    return [r for r in ranked if not (r.config.key() in seen or seen.add(r.config.key()))]


def pareto_front(curve: Sequence[ConfigResult]) -> list[ConfigResult]:
    """The points of a curve (ascending CK) that no other beats on both the time per SSSP and the
    time a batch takes (CK x the time per SSSP): each a fair answer to "how many at once"."""
    front = []
    for part in curve:
        batch = part.ms_per_sssp * part.config.concurrent_kernels
        if not any(o is not part and o.ms_per_sssp <= part.ms_per_sssp
                   and o.ms_per_sssp * o.config.concurrent_kernels <= batch
                   and (o.ms_per_sssp, o.ms_per_sssp * o.config.concurrent_kernels) != (part.ms_per_sssp, batch)
                   for o in curve):
            front.append(part)
    return front


def measured_by() -> dict[str, Any]:
    """When an entry was measured and by which code: the date (UTC), the tool's version and, in a
    checkout, its commit."""
    from autotune._version import __version__
    from autotune.resources import source_commit

    return {"date": tables.now_iso(), "tool_version": __version__, "commit": source_commit()}


def stopped_early(result: GraphResult) -> bool:
    """Whether a graph's sweep stopped before its search was done: interrupted (`partial`), or a
    stage cut short by the wall-time budget (`cut_by_budget` in its protocol), as a table's
    `partial` says (docs/tables.md: "the search stopped early (time limit, interrupt)")."""
    return result.partial or bool(result.protocol.get("cut_by_budget"))


def merged_curve(results: Sequence[GraphResult]) -> dict[int, ConfigResult]:
    """The queries curve of a graph's studies together: at each CK, the fastest of their points."""
    curve: dict[int, ConfigResult] = {}
    for part in sorted((p for r in results for p in r.curve), key=lambda p: (p.ms_per_sssp, p.config.key())):
        curve.setdefault(part.config.concurrent_kernels, part)
    return curve


def table_entry(result: GraphResult, others: Sequence[GraphResult] = ()) -> dict[str, Any]:
    """One graph's entry of the table; with `others` (the same graph's sweeps of the other
    algorithms of an auto sweep), the entry of the fastest, with each algorithm's best and the
    curve of them all."""
    group = (result, *others)
    extra: dict[str, Any] = {
        "algorithm": result.best.config.algorithm if result.best else result.algorithm,
        "strategy": result.strategy,
        "evaluations": sum(r.evaluations for r in group),  # every study of the graph (algorithms, curve ends)
        "tuning_seconds": sum(r.tuning_seconds for r in group),
        "partial": any(stopped_early(r) for r in group),
        "x-measured": measured_by(),  # when and by which code (a merged table keeps each entry's)
    }
    if result.graph.distance_bits != 32:  # its configurations launch 64-bit builds (docs/tables.md)
        extra["x-distance_bits"] = result.graph.distance_bits
    for key in ("speedup_over_default", "speedup_over_baseline", "model_gap"):
        value = getattr(result, key)
        if value is not None:
            extra[key] = value
    model = measured_part(result.predicted)
    if model is not None:
        extra["model"] = model
    curve = merged_curve(group)
    if curve:
        extra["curve"] = [measured_part(curve[ck]) for ck in sorted(curve)]
        extra["x-memory"] = {str(ck): memory_of(curve[ck], result.graph) for ck in sorted(curve)}
    if result.protocol.get("objectives") == 2 and curve:
        extra["x-pareto"] = [measured_part(p) for p in pareto_front([curve[ck] for ck in sorted(curve)])]
    top = sorted((p for r in (result, *others) for p in r.top), key=lambda p: (p.ms_per_sssp, p.config.key()))
    if top:
        extra["x-top"] = [measured_part(p) for p in fastest_configurations(dedupe(top))]
    if others:
        fastest: dict[str, ConfigResult] = {}
        for r in group:
            if r.best is not None and (r.algorithm not in fastest or r.best.ms_per_sssp < fastest[r.algorithm].ms_per_sssp):
                fastest[r.algorithm] = r.best
        if len(fastest) > 1 or any(r.algorithm != result.algorithm for r in others):
            extra["by_algorithm"] = {name: measured_part(best) for name, best in fastest.items()}
    failed_specials = {name: _failure(part) for name, part in
                       (("default", result.default), ("model", result.predicted)) if part is not None and not part.ok}
    extra["x-sweep"] = {
        "strategy_parameters": dict(result.strategy_parameters),
        "space": dict(result.space),
        "trials": result.trials,
        "configurations": result.configurations,
        "failed": result.failed,
        "measure_seconds": result.measure_seconds,
        "host_share": result.host_share,
        "finalists": [c.to_json() for c in result.finalists],
        "baseline_candidates": [c.to_json() for c in result.baseline_candidates],
        "failed_specials": failed_specials,
        "study": dict(result.study),
        "protocol": dict(result.protocol),
        "replay": None if result.replay is None else dict(result.replay),
    }
    return tables.make_entry(
        result.graph.to_json(),
        predicted=result.prediction,
        best=measured_part(result.best),
        baseline=measured_part(result.baseline),
        default=measured_part(result.default),
        **extra,
    )


def sweep_table(results: Sequence[GraphResult], device: Mapping[str, Any], algorithm: str,
                command: str | None = None, partial: bool = False, objective: str | None = None) -> dict[str, Any]:
    """The whole table of a sweep (one GPU, one entry per graph; the graph's sweeps of several
    algorithms, `--algorithm auto`, make one entry: the fastest's)."""
    by_graph: dict[str, list[GraphResult]] = {}
    for result in results:
        by_graph.setdefault(result.graph.key, []).append(result)
    entries = []
    for group in by_graph.values():
        fastest = min(group, key=lambda r: (r.best is None, r.best.ms_per_sssp if r.best else 0.0))
        entries.append(table_entry(fastest, [r for r in group if r is not fastest]))
    table = tables.build_table(device, entries, algorithm, command=command, objective=objective)
    if partial or any(stopped_early(r) for r in results):
        table["x-partial"] = True
    return table


def write_sweep_table(path: str | Path, table: Mapping[str, Any]) -> Path:
    """Validate and write the table atomically (`tables.write_table`)."""
    return tables.write_table(path, table)
