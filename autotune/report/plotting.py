"""What every report figure is drawn with: matplotlib's `Figure` (no pyplot, no global state, any
backend), at `DPI`, its log axes labelled in plain numbers, saved as PNG; and whether matplotlib is
here at all (`unavailable`)."""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Sequence

DPI = 100


def unavailable() -> str | None:
    """Why figures cannot be drawn here (None when matplotlib imports)."""
    try:
        import matplotlib  # noqa: F401
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError:
        return "matplotlib is not installed"
    return None


def slug(name: str) -> str:
    """A file-name-safe form of a graph name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "graph"


def new_figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=DPI, layout="constrained")


def log_axis(ax: Any, axis: str = "y", values: Sequence[float] = (), percent: bool = False,
              max_labels: int = 10) -> None:
    """A log scale labelled in plain numbers (2, 5, 10, not 2x10^0): as many labels per decade as
    fit `max_labels` over the decades `values` span; `percent` labels 0.05 as 5%."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    positive = [v for v in values if v > 0]
    decades = max(math.log10(max(positive) / min(positive)), 0.3) if positive else 3.0
    candidates = ((1.0, 1.5, 2.0, 3.0, 5.0, 7.0), (1.0, 2.0, 3.0, 5.0), (1.0, 2.0, 5.0), (1.0, 3.0), (1.0,))
    subs = next((c for c in candidates if decades * len(c) <= max_labels), (1.0,))
    getattr(ax, f"set_{axis}scale")("log")
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_locator(LogLocator(base=10, subs=subs))
    target.set_major_formatter(FuncFormatter(
        (lambda value, _pos: f"{100 * value:g}%") if percent else (lambda value, _pos: f"{value:g}")))
    target.set_minor_formatter(NullFormatter())


def save(fig: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, metadata={"Software": None})
    return path
