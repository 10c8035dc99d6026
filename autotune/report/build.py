"""Build a report: read the inputs, compute every section, draw the figures, write `README.md`.

Example:
    >>> result = write_report(["sweeps"], "report",
    ...                       cpu_paths=["cpu-times.jsonl"])  # doctest: +SKIP
    >>> result.readme                                                    # doctest: +SKIP
    PosixPath('report/README.md')
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from autotune.report.analysis import Measured, kernel_gains, solve_gain
from autotune.report.cpu import CpuTiming, SourcePool, sweep_source_pool
from autotune.report.efficiency import budget_comparisons, curves
from autotune.report.findings import FINDINGS
from autotune.report.grid import exhaustive_grid
from autotune.report.load import GraphSummary, ReportInputs, Run, load_inputs
from autotune.report.model_check import check_model, ck_independence, sensitivity
from autotune.report.model_values import graph_value_checks
from autotune.files import atomic_write
from autotune.report.data import GraphReport, Report

README = "README.md"
FIGURES_DIR = "figures"


def _pools(runs: Sequence[Run]) -> dict[str, SourcePool]:
    """Strategy -> the source pool its GPU sweep drew, where its table's command says."""
    found = {run.strategy: sweep_source_pool(run.command, run.entry) for run in runs if run.entry is not None}
    return {strategy: pool for strategy, pool in found.items() if pool is not None}


def _pool_notes(graph: GraphSummary, pools: Mapping[str, SourcePool], timings: Sequence[CpuTiming]) -> list[str]:
    notes = []
    for timing in timings:
        other = {strategy: pool for strategy, pool in pools.items()
                 if timing.source_pool is not None and pool != timing.source_pool}
        if other:
            swept = "; ".join(f"the {strategy} sweep drew {pool}" for strategy, pool in other.items())
            notes.append(f"{graph.name}: the CPU timing of {timing.solver} took its sources from a pool of "
                         f"{timing.source_pool}, but {swept}: not the same sources. Time them again with "
                         "`scripts/cpu_baseline.py --sweeps TABLE_OR_DIR`")
    return notes


def _cpu_of(graph: GraphSummary, timings: Sequence[CpuTiming], notes: list[str]) -> tuple[CpuTiming, ...]:
    matched = []
    for timing in timings:
        if timing.graph_name != graph.name and (not timing.graph_sha256 or timing.graph_sha256 != graph.sha256):
            continue
        if timing.graph_sha256 and graph.sha256 and timing.graph_sha256 != graph.sha256:
            notes.append(f"{graph.name}: the CPU timing of {timing.solver} is of another graph of that name "
                         f"(sha256 {timing.graph_sha256[:12]} against the sweep's {graph.sha256[:12]}); left out")
            continue
        matched.append(timing)
    by_solver = {t.solver: t for t in matched}  # the last timing of a solver wins
    return tuple(by_solver[s] for s in sorted(by_solver))


def _input_notes(inputs: ReportInputs) -> list[str]:
    notes = list(inputs.notes)
    for run in inputs.runs:
        entry = run.entry or {}
        if entry.get("partial"):
            notes.append(f"{run.graph.name} ({run.strategy}): the sweep was interrupted; its best is the best "
                         "measured so far")
        replay = (entry.get("x-sweep") or {}).get("replay")
        if replay and (replay.get("composed") or replay.get("not_recorded")):
            notes.append(f"{run.graph.name} ({run.strategy}): a replay; {replay.get('composed', 0)} configuration(s) "
                         f"composed from uniform runs, {replay.get('not_recorded', 0)} not in the replayed records")
        failed = (entry.get("x-sweep") or {}).get("failed_specials") or {}
        for name, part in sorted(failed.items()):
            notes.append(f"{run.graph.name} ({run.strategy}): the {name} configuration did not run: "
                         f"{part.get('status')}: {part.get('reason')}")
    return notes


def build_report(inputs: ReportInputs, command: str | None = None) -> Report:
    """Compute every section of the report from its inputs (no file is written)."""
    notes = _input_notes(inputs)
    graphs = []
    for graph in inputs.graphs:
        runs = inputs.runs_of(graph.key)
        measured = Measured.of(runs)
        solve = solve_gain(runs, measured)
        kernels = kernel_gains(runs, solve, measured)
        cpu = _cpu_of(graph, inputs.cpu, notes)
        pools = _pools(runs)
        notes += _pool_notes(graph, pools, cpu)
        graphs.append(GraphReport(
            graph=graph, runs=tuple(runs), solve=solve, kernels=tuple(kernels),
            model=check_model(runs, solve, kernels, measured), ck_study=tuple(ck_independence(measured, kernels)),
            curves=tuple(curves(runs)), grid=exhaustive_grid(runs, measured), cpu=cpu,
            sensitivity=tuple(sensitivity(measured, kernels)), pools=pools,
            values=graph_value_checks(runs, solve, measured)))
    known = {g.graph.name for g in graphs} | {g.graph.sha256 for g in graphs}
    for timing in inputs.cpu:
        if timing.graph_name not in known and timing.graph_sha256 not in known:
            notes.append(f"{timing.graph_name}: the CPU timing of {timing.solver} is of a graph that no sweep "
                         "covers; left out")
    comparisons = tuple(item for g in graphs for item in budget_comparisons(g.runs))
    return Report(inputs, tuple(graphs), comparisons, tuple(dict.fromkeys(notes)), command)


def _read_findings(path: Path) -> str | None:
    """FINDINGS.md's text (None when there is none).

    Raises:
        InputError: it exists but cannot be read as UTF-8 text.
    """
    from autotune.files import read_text

    if not path.is_file():
        return None
    return read_text(path, "findings")


@dataclass(frozen=True)
class WrittenReport:
    """What `write_report` wrote.

    Args:
        readme: the README's path.
        figures: the PNG files written.
        figures_skipped: why no figure was drawn (None when they were).
        report: the data.
    """

    readme: Path
    figures: tuple[Path, ...] = ()
    figures_skipped: str | None = None
    report: Report | None = field(default=None, repr=False)


def write_report(paths: Sequence[str | Path], out_dir: str | Path, cpu_paths: Sequence[str | Path] = (),
                 figures: bool = True, command: str | None = None) -> WrittenReport:
    """Read the inputs, write `out_dir/README.md` and, with matplotlib, `out_dir/figures/*.png`.

    Args:
        paths: tables, records, CPU timings or directories (see `load.load_inputs`).
        out_dir: where to write; created when missing. A `FINDINGS.md` there (the interpretation,
            written by hand) is included as the README's section 7, below the figures; it is read,
            never written.
        cpu_paths: CPU timings files.
        figures: False skips the figures.
        command: the command line, shown in the README.

    Raises:
        InputError: bad input (see `load.load_inputs`).
        AutotuneError: an output file cannot be written.
    """
    from autotune.errors import AutotuneError
    from autotune.report import figures as figure_module
    from autotune.report.markdown import render
    from autotune.report.plotting import unavailable

    out_dir = Path(out_dir)
    report = build_report(load_inputs(paths, cpu_paths), command)
    skipped: str | None = "not asked for (--no-figures)"
    drawn: dict[str, Path] = {}
    if figures:
        skipped = unavailable()
        if skipped is None:
            drawn = figure_module.draw_all(report, out_dir / FIGURES_DIR)
    findings = _read_findings(out_dir / FINDINGS)
    text = render(report, {name: path.relative_to(out_dir).as_posix() for name, path in drawn.items()},
                  skipped, findings)
    try:
        readme = atomic_write(out_dir / README, text)
    except OSError as error:
        raise AutotuneError(f"{out_dir / README}: cannot write: {error.strerror or error}") from None
    return WrittenReport(readme, tuple(drawn.values()), skipped, report)
