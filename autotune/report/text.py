"""Formatting helpers of the report's markdown: numbers, tables, figure links."""
from __future__ import annotations

import statistics
from typing import Iterable, Mapping, Sequence

def ms(value: float | None) -> str:
    """Milliseconds with three significant digits (at least one decimal)."""
    if value is None:
        return "–"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def pct(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{100 * value:+.1f}%" if signed else f"{100 * value:.1f}%"


def times(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}x"


def share(count: int, total: int) -> str:
    return f"{count} of {total}" + (f" ({100 * count / total:.0f}%)" if total else "")


def table(header: Sequence[str], rows: Iterable[Sequence[str]], right: Sequence[int] = ()) -> list[str]:
    """A Markdown table; columns whose index is in `right` are right-aligned."""
    lines = ["| " + " | ".join(header) + " |",
             "| " + " | ".join("---:" if i in right else "---" for i in range(len(header))) + " |"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return lines + [""]


def figure(figures: Mapping[str, str], name: str, alt: str, skipped: str | None) -> list[str]:
    if name in figures:
        return [f"![{alt}]({figures[name]})", ""]
    if skipped:
        return [f"*Figure not drawn: {skipped}.*", ""]
    return []


def spread(values: Sequence[float], formatter=pct) -> str:
    """`a to b (median m)` of some values (one value, or several equal ones: that value)."""
    if not values:
        return "–"
    if len(set(values)) == 1:
        return formatter(values[0])
    return f"{formatter(min(values))} to {formatter(max(values))} (median {formatter(statistics.median(values))})"
