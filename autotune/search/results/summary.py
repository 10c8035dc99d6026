"""The terminal summary of a sweep: one rich table row per study, then each graph's queries curve (rendering only)."""
from __future__ import annotations

from collections import Counter
from typing import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from autotune.launch import LaunchConfig
from autotune.measure import Status
from autotune.search.results import GraphResult
from autotune.search.results.entries import merged_curve


def _times(value: float | None) -> str:
    return f"{value:.2f}x" if value is not None else "-"


def _gap(value: float | None) -> str:
    return f"{100 * value:+.1f}%" if value is not None else "-"


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def config_text(config: LaunchConfig) -> str:
    """A configuration on a few short lines: the algorithm, CK and L, each kernel's block size
    and cache, then the algorithm's parameters."""
    lines = [f"{config.algorithm} CK {config.concurrent_kernels}" + (f", L {config.lanes}" if config.lanes != 1 else "")]
    lines += [f"{name} {launch.block_size} {launch.cache.value}" for name, launch in config.kernels.items()]
    if config.params:
        lines.append(" ".join(f"{name}={value}" for name, value in config.params.items()))
    return "\n".join(lines)


def study_text(result: GraphResult) -> str:
    """A study's name in the summary: its graph and, on a second line, its algorithm and CK values."""
    cks = list(result.space.get("concurrent_kernels") or ())
    span = "" if not cks else f" CK {min(cks)}" + (f"-{max(cks)}" if max(cks) != min(cks) else "")
    return f"{escape(result.graph.name)}\n[dim]{escape(result.algorithm)}{span}[/]"


def unverified_text(result: GraphResult) -> str:
    """Why a study has no best: every measurement pruned (an auto sweep's algorithm slower than
    another's best, then abandoned) is said so, plainly; anything else is a failure, in red."""
    log = result.log
    if log and all(e.measurement.status is Status.PRUNED for e in log):
        return "[dim]pruned: slower than the best elsewhere[/]"
    return "[red]none verified[/]"


def curve_text(results: Sequence[GraphResult]) -> list[str]:
    """Per graph, the queries curve the table holds (the fastest verified point at each CK over its
    studies): one line, CK then ms per SSSP and the algorithm."""
    lines = []
    graphs: dict[str, list[GraphResult]] = {}
    for result in results:
        graphs.setdefault(result.graph.key, []).append(result)
    for studies in graphs.values():
        fastest = merged_curve(studies)
        if len(fastest) > 1:
            points = " · ".join(f"{ck}: {fastest[ck].ms_per_sssp:.3g} {fastest[ck].config.algorithm}"
                                for ck in sorted(fastest))
            lines.append(f"{escape(studies[0].graph.name)}: ms per SSSP by SSSPs at once: {escape(points)}")
    return lines


def measured_text(result: GraphResult) -> str:
    """How many measurements a study took, and how many of its configurations failed (refused by
    the GPU or wrong; pruned ones are not failures)."""
    failed = {e.measurement.config.key() for e in result.log
              if e.measurement.status in (Status.INVALID, Status.WRONG)}
    return f"{result.evaluations}" + (f"\n[red]{len(failed)} failed[/]" if failed else "")


def render_summary(results: Sequence[GraphResult], console: Console, written: Sequence[str] = ()) -> None:
    """Print one row per study (a graph, an algorithm, an end of its queries curve): the winner, its
    time, the speedups, the model's gap, the cost; then each graph's queries curve.

    Args:
        results: the studies' results.
        console: where to print.
        written: files written (shown below the table).
    """
    if not results:
        console.print("no graph was swept")
        return
    device = results[0].device.get("name", "?")
    algorithms = list(dict.fromkeys(r.algorithm for r in results))
    table = Table(title=f"autotune sweep on {escape(str(device))} ({escape(', '.join(algorithms))}, "
                        f"{escape(results[0].strategy)})")
    for column, justify in (("study", "left"), ("best", "left"), ("ms/SSSP", "right"), ("GTEPS", "right"),
                            ("×default", "right"), ("×baseline", "right"), ("model gap", "right"),
                            ("measured", "right"), ("time", "right")):
        table.add_column(column, justify=justify, no_wrap=column not in ("study", "best"),
                         min_width={"study": 12, "best": 24}.get(column), overflow="fold")
    for result in results:
        best = result.best
        name = study_text(result) + (" [yellow](partial)[/]" if result.partial else "")
        table.add_row(
            name,
            escape(config_text(best.config)) if best else unverified_text(result),
            f"{best.ms_per_sssp:.3f}" if best else "-",
            f"{best.gteps:.2f}" if best and best.gteps is not None else "-",
            _times(result.speedup_over_default),
            _times(result.speedup_over_baseline),
            _gap(result.model_gap),
            measured_text(result),
            _duration(result.tuning_seconds),
        )
    console.print(table)
    for line in curve_text(results):
        console.print(line, highlight=False)
    notes: dict[str, list[str]] = {}
    for result in results:
        said = notes.setdefault(result.graph.name, [])
        if not said:
            studies = [r for r in results if r.graph.key == result.graph.key]
            tuning = sum(r.tuning_seconds for r in studies)
            if tuning > 0:  # outside the timer's measure calls, over the graph's studies (`GraphResult.host_share`)
                share = max(0.0, 1.0 - sum(r.measure_seconds for r in studies) / tuning)
                said.append(f"host share {100 * share:.0f}% of the wall time")
        if result.replay:
            said.append("replay: " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in result.replay.items()))
        if result.study.get("resumed"):
            said.append("resumed")
    for graph, said in notes.items():
        if said:
            console.print(f"{escape(graph)}: " + "; ".join(dict.fromkeys(said)), highlight=False)
    for path in written:
        console.print(f"wrote {escape(str(path))}", highlight=False)


def why_none_verified(results: Sequence[GraphResult]) -> str:
    """Why a graph's studies (one per algorithm of an auto sweep) ended without a verified
    configuration, on one line: what was measured, how it failed and the most common reason, and
    the stages the wall-time budget cut."""
    log = [e for r in results for e in r.log]
    outcomes = Counter(str(e.measurement.status) for e in log)
    references = sum(1 for e in log if e.measurement.ok and set(e.roles) & {"default", "baseline_candidate"})
    reasons = Counter(e.measurement.reason for e in log if not e.measurement.ok and e.measurement.reason)
    cut = sorted({stage for r in results for stage in r.protocol.get("cut_by_budget") or ()})
    parts = [f"{len(log)} measurements" + (f" ({', '.join(f'{n} {s}' for s, n in sorted(outcomes.items()))})"
                                           if outcomes else "")]
    if references:
        parts.append(f"{references} of the verified ones references (measured to compare with, never a winner)")
    if reasons:
        reason, count = reasons.most_common(1)[0]
        parts.append(f"most common failure ({count}x): {reason}")
    if cut:
        parts.append(f"the budget cut {', '.join(cut)}")
    return f"{results[0].graph.name}: no configuration verified: " + "; ".join(parts)
