"""The terminal summary of a sweep: one rich table row per graph (rendering only)."""
from __future__ import annotations

from collections import Counter
from typing import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from autotune.search.results import GraphResult
from autotune.launch import LaunchConfig


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


def render_summary(results: Sequence[GraphResult], console: Console, written: Sequence[str] = ()) -> None:
    """Print one row per graph: the winner, its time, the speedups, the model's gap, the cost.

    Args:
        results: the graphs' results.
        console: where to print.
        written: files written (shown below the table).
    """
    if not results:
        console.print("no graph was swept")
        return
    device = results[0].device.get("name", "?")
    table = Table(title=f"autotune sweep on {escape(str(device))} ({escape(results[0].algorithm)}, "
                        f"{escape(results[0].strategy)})")
    for column, justify in (("graph", "left"), ("best", "left"), ("ms/SSSP", "right"), ("GTEPS", "right"),
                            ("vs default", "right"), ("vs baseline", "right"), ("model gap", "right"),
                            ("measured", "right"), ("time", "right")):
        table.add_column(column, justify=justify, no_wrap=column != "graph")
    for result in results:
        best = result.best
        name = escape(result.graph.name) + (" [yellow](partial)[/]" if result.partial else "")
        table.add_row(
            name,
            escape(config_text(best.config)) if best else "[red]none verified[/]",
            f"{best.ms_per_sssp:.3f}" if best else "-",
            f"{best.gteps:.2f}" if best and best.gteps is not None else "-",
            _times(result.speedup_over_default),
            _times(result.speedup_over_baseline),
            _gap(result.model_gap),
            f"{result.evaluations}\n{result.failed} failed",
            _duration(result.tuning_seconds),
        )
    console.print(table)
    for result in results:
        notes = []
        if result.host_share is not None:
            notes.append(f"host share {100 * result.host_share:.0f}% of the wall time")
        if result.replay:
            notes.append("replay: " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in result.replay.items()))
        if result.study.get("resumed"):
            notes.append("resumed")
        if notes:
            console.print(f"{escape(result.graph.name)}: " + "; ".join(notes), highlight=False)
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
