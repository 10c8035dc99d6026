"""The report's PNG figures (matplotlib, the optional extra `plot`; imported only when drawing).

Without matplotlib `plotting.unavailable()` says so and the README says how to get the figures.
Figures are drawn as `plotting` makes them (`matplotlib.figure.Figure`, no pyplot, no global state).

- `solve-times.png`: per graph, ms per SSSP of the baseline, default, model and best (log scale).
- `kernel-gains.png`: per graph and kernel, the gain of the kernel's best over the baseline.
- `model-hits.png`: per graph, kernel and value: hit, held (within 2 %), missed, not searched.
- `model-values.png`: per algorithm, per graph and value of its configuration, the same.
- `exhaustive-<graph>.png`: thesis Fig. 4.1: per kernel (rows) and L1 state (columns), time
  against CK, one line per block size.
- `search-efficiency.png`: per graph, best so far / optimum against evaluations, per strategy.
- `gpu-cpu.png`: per graph, ms per SSSP of the tuned GPU solve, scipy Dijkstra and CPU Crauser.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from autotune.report.cpu import CPU_SOLVERS, SOLVER_TITLES
from autotune.report.efficiency import TOLERANCES
from autotune.report.load import strategy_order
from autotune.report.model_check import PARAMETER_TITLES, parameters_of
from autotune.report.plotting import log_axis, new_figure, save, slug
from autotune.report.thesis import THESIS_KERNELS

if TYPE_CHECKING:
    from autotune.report.data import GraphReport, Report

CACHE_ORDER = ("default", "prefer_l1", "prefer_shared", "no_l1")
GAP_FLOOR = 0.001  # gaps at or below the optimum are drawn at 0.1 % (a log scale has no 0)
KERNEL_COLORS = {"relax": "#1f77b4", "minimum": "#ff7f0e", "update": "#2ca02c"}


def draw_all(report: Report, directory: Path) -> dict[str, Path]:
    """Draw every figure the data allows into `directory`; returns name -> path.

    PNG files of `directory` that this call did not write (figures of graphs no longer in the
    inputs) are removed, so a regenerated report holds no stale figure.
    """
    drawn: dict[str, Path] = {}
    graphs = [g for g in report.graphs]
    if any(g.solve for g in graphs):
        drawn["solve-times"] = save(solve_times(graphs), directory / "solve-times.png")
    if any(g.kernels and any(k.gain_over_baseline is not None for k in g.kernels) for g in graphs):
        drawn["kernel-gains"] = save(kernel_gains(graphs), directory / "kernel-gains.png")
    if any(g.model for g in graphs):
        drawn["model-hits"] = save(model_hits(graphs), directory / "model-hits.png")
    if any(g.values for g in graphs):
        drawn["model-values"] = save(model_values(graphs), directory / "model-values.png")
    for g in graphs:
        if g.grid:
            drawn[f"exhaustive-{g.graph.name}"] = save(exhaustive(g), directory / f"exhaustive-{slug(g.graph.name)}.png")
    if any(g.curves for g in graphs):
        drawn["search-efficiency"] = save(search_efficiency(graphs), directory / "search-efficiency.png")
    if any(g.cpu and g.solve for g in graphs):
        drawn["gpu-cpu"] = save(gpu_cpu(graphs, str(report.inputs.device.get("name", "unknown GPU"))),
                                 directory / "gpu-cpu.png")
    if directory.is_dir():
        for stale in sorted(directory.glob("*.png")):
            if stale not in drawn.values():
                stale.unlink()
    return drawn


MANY_GRAPHS = 10  # past this many graphs a bar figure lays its groups out down the page, not across


def _bar_figure(count: int) -> tuple[Any, bool]:
    """A figure for grouped bars of `count` graphs, and whether they run down the page (horizontal
    bars: a figure of fixed width that grows 0.42 in a graph, readable at 36 graphs and more)."""
    if count > MANY_GRAPHS:
        return new_figure(9.0, 0.42 * count + 1.6), True
    return new_figure(max(7.0, 1.1 * count + 3.5), 4.2), False


def _bars(ax: Any, labels: Sequence[str], series: Sequence[tuple[str, str, Sequence[float | None]]],
          log: bool, horizontal: bool = False) -> None:
    """Grouped bars: one group per label, one bar per series (name, color, values); `horizontal`:
    the groups down the page, the first at the top."""
    count = len(series)
    width = 0.8 / count
    for index, (name, color, values) in enumerate(series):
        xs = [i + (index - (count - 1) / 2) * width for i, v in enumerate(values) if v is not None]
        ys = [v for v in values if v is not None]
        if ys:
            if horizontal:
                ax.barh(xs, ys, height=width, label=name, color=color)
            else:
                ax.bar(xs, ys, width=width, label=name, color=color)
    if horizontal:
        ax.set_yticks(range(len(labels)), labels, fontsize=8)
        ax.set_ylim(len(labels) - 0.5, -0.5)
    else:
        ax.set_xticks(range(len(labels)), labels, rotation=30 if len(labels) > 4 else 0,
                      ha="right" if len(labels) > 4 else "center")
    if log:
        present = [v for _n, _c, values in series for v in values if v is not None]
        log_axis(ax, "x" if horizontal else "y", values=present)
        (ax.set_xlim if horizontal else ax.set_ylim)(min(present) / 2, max(present) * 1.6)  # room for the labels
    ax.grid(axis="x" if horizontal else "y", which="major", alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))


def _label_bar(ax: Any, text: str, position: float, value: float, horizontal: bool) -> None:
    """`text` at the end of the bar at `position` (of its group) and `value`."""
    if horizontal:
        ax.annotate(text, (value, position), textcoords="offset points", xytext=(3, 0), ha="left", va="center",
                    fontsize=7)
    else:
        ax.annotate(text, (position, value), textcoords="offset points", xytext=(0, 3), ha="center", fontsize=8)


def solve_times(graphs: Sequence[GraphReport]) -> Any:
    rows = [g for g in graphs if g.solve]
    fig, horizontal = _bar_figure(len(rows))
    ax = fig.add_subplot()
    series = [("baseline", "#9e9e9e", [g.solve.baseline_ms for g in rows]),
              ("default", "#90caf9", [g.solve.default_ms for g in rows]),
              ("model's prediction", "#ffb74d", [g.solve.model_ms for g in rows]),
              ("tuned best", "#2e7d32", [g.solve.best_ms for g in rows])]
    series = [item for item in series if any(v is not None for v in item[2])]
    _bars(ax, [g.graph.name for g in rows], series, log=True, horizontal=horizontal)
    offset = (len(series) - 1) / 2 * 0.8 / len(series)
    for index, g in enumerate(rows):
        if g.solve.speedup_over_baseline:
            _label_bar(ax, _times(g.solve.speedup_over_baseline), index + offset, g.solve.best_ms, horizontal)
    (ax.set_xlabel if horizontal else ax.set_ylabel)("ms per SSSP (log scale)")
    ax.set_title("Whole solve (label: the best's speedup over the baseline)", fontsize=10)
    return fig


def _times(value: float) -> str:
    """A speedup with two significant digits at least: 0.18x, 3.1x, 26x, 447x."""
    return f"{value:.2f}x" if value < 1 else f"{value:.1f}x" if value < 10 else f"{value:.0f}x"


def kernel_gains(graphs: Sequence[GraphReport]) -> Any:
    rows = [g for g in graphs if g.kernels]
    fig, horizontal = _bar_figure(len(rows))
    ax = fig.add_subplot()
    series = []
    for kernel in THESIS_KERNELS:
        values = []
        for g in rows:
            row = next((k for k in g.kernels if k.kernel == kernel), None)
            gain = row.gain_over_baseline if row else None
            values.append(None if gain is None else 100 * gain)
        series.append((kernel, KERNEL_COLORS[kernel], values))
    (ax.axvspan if horizontal else ax.axhspan)(100 * 0.12, 100 * 0.624, color="#9e9e9e", alpha=0.15,
                                               label="thesis range (Fermi, Kepler)")
    _bars(ax, [g.graph.name for g in rows], series, log=False, horizontal=horizontal)
    low = min([0.0] + [v for _n, _c, values in series for v in values if v is not None])
    (ax.set_xlim if horizontal else ax.set_ylim)(min(low * 1.1, 0), 100)
    (ax.axvline if horizontal else ax.axhline)(0, color="black", linewidth=0.8)
    (ax.set_xlabel if horizontal else ax.set_ylabel)("gain of the kernel's best over the baseline (%)")
    ax.set_title("Per kernel (thesis Table 4.4): 1 − best / baseline")
    return fig


def model_hits(graphs: Sequence[GraphReport]) -> Any:
    from matplotlib.patches import Patch

    rows = [g for g in graphs if g.model]
    columns = [(k, p) for k in THESIS_KERNELS for p in parameters_of(k)]
    colors = {"hit": "#66bb6a", "held": "#d4e157", "missed": "#ef5350", "not searched": "#bdbdbd"}
    fig = new_figure(1.05 * len(columns) + 2.5, 0.45 * len(rows) + 2.0)
    ax = fig.add_subplot()
    for y, g in enumerate(rows):
        checks = {(c.kernel, c.parameter): c for c in g.model.checks}
        for x, key in enumerate(columns):
            check = checks.get(key)
            if check is None:
                continue
            state = "hit" if check.hit else "held" if check.held else "missed" if check.searched else "not searched"
            ax.add_patch(_rectangle(x, y, colors[state]))
            text = f"{check.predicted}" if check.hit else f"{check.predicted}→{check.best}"
            ax.text(x, y, _short(text), ha="center", va="center", fontsize=7)
    ax.set_xlim(-0.5, len(columns) - 0.5)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xticks(range(len(columns)), [f"{k}\n{PARAMETER_TITLES[p]}" for k, p in columns], fontsize=8)
    ax.set_yticks(range(len(rows)), [g.graph.name for g in rows], fontsize=8)
    ax.set_title("Model's value → kernel best's value (colour: hit, held within 2%, missed)")
    ax.legend(handles=[Patch(color=c, label=n) for n, c in colors.items()], loc="upper left",
              bbox_to_anchor=(1.0, 1.0), fontsize="small")
    return fig


def model_values(graphs: Sequence[GraphReport]) -> Any:
    """A panel per algorithm: its graphs' rows, the values of its configurations as columns, each
    cell coloured hit, held, missed or not searched (`model_values.ValueCheck.state`)."""
    from matplotlib.patches import Patch

    colors = {"hit": "#66bb6a", "held": "#d4e157", "missed": "#ef5350", "not searched": "#bdbdbd"}
    by_algorithm: dict[str, list[GraphReport]] = {}
    for g in graphs:
        if g.values:
            by_algorithm.setdefault(g.values[0].algorithm, []).append(g)
    panels = sorted(by_algorithm.items())
    columns = {name: list(dict.fromkeys(c.value for g in rows for c in g.values)) for name, rows in panels}
    width = 1.05 * max(len(c) for c in columns.values()) + 3.0
    fig = new_figure(width, sum(0.42 * len(rows) + 1.2 for _, rows in panels) + 0.6)
    axes = fig.subplots(len(panels), 1, squeeze=False,
                        gridspec_kw={"height_ratios": [len(rows) + 2 for _, rows in panels]})[:, 0]
    for ax, (name, rows) in zip(axes, panels):
        labels = columns[name]
        for y, g in enumerate(rows):
            for check in g.values:
                x = labels.index(check.value)
                ax.add_patch(_rectangle(x, y, colors[check.state]))
                text = check.predicted if check.hit else f"{check.predicted}→{check.best}"
                ax.text(x, y, _short(text), ha="center", va="center", fontsize=6)
        ax.set_xlim(-0.5, len(labels) - 0.5)
        ax.set_ylim(len(rows) - 0.5, -0.5)
        ax.set_xticks(range(len(labels)), [label.replace(" ", "\n") for label in labels], fontsize=7)
        ax.set_yticks(range(len(rows)), [g.graph.name for g in rows], fontsize=7)
        ax.set_title(f"{name}: the model's value → the best's", fontsize=9)
    axes[0].legend(handles=[Patch(color=c, label=n) for n, c in colors.items()], loc="upper left",
                   bbox_to_anchor=(1.0, 1.0), fontsize="small")
    return fig


def _rectangle(x: float, y: float, color: str) -> Any:
    from matplotlib.patches import Rectangle

    return Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor=color, edgecolor="white", linewidth=1.5)


def _short(text: str) -> str:
    return text.replace("prefer_shared", "shared").replace("prefer_l1", "L1").replace("default", "dflt")


def exhaustive(graph: GraphReport) -> Any:
    import matplotlib

    caches = [c for c in CACHE_ORDER if any(s.cache == c for series in graph.grid.values() for s in series)]
    kernels = [k for k in THESIS_KERNELS if k in graph.grid]
    blocks = sorted({s.block_size for series in graph.grid.values() for s in series})
    cmap = matplotlib.colormaps["viridis"]
    span = max(math.log2(blocks[-1]) - math.log2(blocks[0]), 1.0)

    def color(block: int) -> Any:
        return cmap(0.9 * (math.log2(block) - math.log2(blocks[0])) / span)

    fig = new_figure(max(6.5, 2.9 * len(caches) + (1.6 if len(blocks) > 8 else 2.2)), 2.5 * len(kernels) + 0.8)
    axes = fig.subplots(len(kernels), len(caches), sharex=True, sharey="row", squeeze=False)
    for row, kernel in enumerate(kernels):
        series = graph.grid[kernel]
        values = [ms for s in series for _ck, ms in s.points]
        fastest = min(values)
        log = max(values) / fastest > 5
        for column, cache in enumerate(caches):
            ax = axes[row][column]
            for line in (s for s in series if s.cache == cache):
                cks, times = zip(*line.points)
                ax.plot(cks, times, marker="o", markersize=2.5, linewidth=1.0, color=color(line.block_size),
                        label=str(line.block_size))
            ax.axhline(fastest, color="black", linestyle="--", linewidth=0.8)
            best = min(((ms, ck, s.block_size) for s in series if s.cache == cache for ck, ms in s.points),
                       default=None)
            if best is not None and best[0] == fastest:
                ax.plot([best[1]], [best[0]], marker="*", markersize=11, color="red", zorder=5)
                ax.annotate(f"fastest: {best[2]} threads, CK {best[1]}", (0.97, 0.95), xycoords="axes fraction",
                            ha="right", va="top", fontsize=8, color="red",
                            bbox={"boxstyle": "round", "facecolor": "white", "edgecolor": "none", "alpha": 0.8})
            ax.set_xscale("log", base=2)
            if log:
                log_axis(ax, values=values)
            ax.grid(which="major", alpha=0.3)
            if row == 0:
                ax.set_title(f"L1: {cache}", fontsize=10)
            if column == 0:
                ax.set_ylabel(f"{kernel}\nms per SSSP" + (" (log)" if log else ""))
            if row == len(kernels) - 1:
                ax.set_xlabel("concurrent kernels (CK)")
        cks = sorted({ck for s in series for ck, _ms in s.points})
        axes[row][0].set_xticks(cks, [str(c) for c in cks])
    if len(blocks) <= 8:
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, title="block size", loc="outside right upper", fontsize="small")
    else:
        norm = matplotlib.colors.LogNorm(blocks[0], blocks[0] * 2 ** (span / 0.9))
        mappable = matplotlib.cm.ScalarMappable(norm=norm, cmap=cmap)
        bar = fig.colorbar(mappable, ax=axes, location="right", shrink=0.6, label="block size")
        bar.set_ticks([b for b in blocks if b & (b - 1) == 0], labels=[str(b) for b in blocks if b & (b - 1) == 0])
    fig.suptitle(f"{graph.graph.name}: exhaustive search (thesis Fig. 4.1)\ndashed line and red star: the "
                 "kernel's fastest point",
                 fontsize=11)
    return fig


def search_efficiency(graphs: Sequence[GraphReport]) -> Any:
    rows = [g for g in graphs if g.curves]
    columns = min(4, len(rows))
    lines = math.ceil(len(rows) / columns)
    fig = new_figure(max(6.5, 3.3 * columns + 1.0), 2.8 * lines + 1.0)
    axes = fig.subplots(lines, columns, squeeze=False)
    strategies = sorted({c.strategy for g in rows for c in g.curves}, key=strategy_order)
    palette = dict(zip(strategies, ("#1565c0", "#c62828", "#6a1b9a", "#ef6c00", "#00838f")))
    for index, g in enumerate(rows):
        ax = axes[index // columns][index % columns]
        gaps: list[float] = []
        for curve in g.curves:
            points = [(n, _gap(v, curve.reference_ms)) for n, v in enumerate(curve.best_so_far_ms, start=1)
                      if v is not None]
            if not points:
                continue
            xs, ys = zip(*points)
            gaps += ys
            ax.step(xs, ys, where="post", color=palette.get(curve.strategy), label=curve.strategy, linewidth=1.3)
            reached = curve.evaluations_within(TOLERANCES[0])
            if reached is not None:
                ax.plot([reached], [_gap(curve.best_so_far_ms[reached - 1], curve.reference_ms)], marker="o",
                        color=palette.get(curve.strategy), markersize=4)
        for tolerance, style in zip(TOLERANCES, (":", "-.")):
            ax.axhline(tolerance, color="gray", linestyle=style, linewidth=0.8)
        log_axis(ax, "x", values=[1, max(c.evaluations for c in g.curves)], max_labels=6)
        log_axis(ax, "y", values=gaps + [GAP_FLOOR], percent=True)
        ax.set_title(g.graph.name, fontsize=10)
        ax.grid(which="major", alpha=0.3)
        ax.set_xlabel("evaluations (log)")
        if index % columns == 0:
            ax.set_ylabel("best so far: gap to the optimum (log)")
    for index in range(len(rows), lines * columns):
        axes[index // columns][index % columns].set_visible(False)
    handles = [axes[0][0].plot([], [], color=palette[s], label=s)[0] for s in strategies]
    handles += [axes[0][0].plot([], [], color="gray", linestyle=style, label=f"within {round(100 * t)}%")[0]
                for t, style in zip(TOLERANCES, (":", "-."))]
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize="small")
    fig.suptitle("Search efficiency: best so far against evaluations\n(gap = best so far / optimum − 1, floored at "
                 f"{100 * GAP_FLOOR:g}%; dot: first within 5%)", fontsize=11)
    return fig


def _gap(value: float, reference: float) -> float:
    return max(value / reference - 1.0, GAP_FLOOR)


def gpu_cpu(graphs: Sequence[GraphReport], gpu: str = "unknown GPU") -> Any:
    rows = [g for g in graphs if g.cpu and g.solve]
    cpus = sorted({str(t.machine.get("cpu") or "unknown CPU") for g in rows for t in g.cpu})
    fig, horizontal = _bar_figure(len(rows))
    ax = fig.add_subplot()
    series = [("GPU, tuned", "#2e7d32", [g.solve.best_ms for g in rows])]
    colors = {"dijkstra": "#5c6bc0", "crauser": "#8d6e63"}
    for solver in CPU_SOLVERS:
        values = [next((t.ms_per_sssp for t in g.cpu if t.solver == solver), None) for g in rows]
        series.append((f"CPU, {SOLVER_TITLES[solver].replace('CPU ', '')}", colors[solver], values))
    _bars(ax, [g.graph.name for g in rows], series, log=True, horizontal=horizontal)
    for index, g in enumerate(rows):
        dijkstra = next((t.ms_per_sssp for t in g.cpu if t.solver == "dijkstra"), None)
        if dijkstra:
            _label_bar(ax, _times(dijkstra / g.solve.best_ms), index, dijkstra, horizontal)
    (ax.set_xlabel if horizontal else ax.set_ylabel)("ms per SSSP (log scale)")
    fig.suptitle(f"GPU against CPU\nGPU: {gpu}; CPU: {' / '.join(cpus)}, one thread\n"
                 "(label: GPU speedup over scipy Dijkstra)", fontsize=10)
    return fig
