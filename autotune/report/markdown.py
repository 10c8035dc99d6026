"""Render a report's data as Markdown (the README of the report directory); rendering only.

Every number is computed in `analysis`, `model_check`, `efficiency` and `grid`; the same inputs
(and the same FINDINGS.md) give the same text byte for byte (no clock, no host name), so a
committed report regenerates without a diff. The sections of `sections.py` state only what the
computed data shows; the interpretation is written by hand in FINDINGS.md next to the README,
which the README includes, below the figures, as its section 7 (`findings_section`).
"""
from __future__ import annotations

from typing import Mapping, Sequence

from autotune.report.data import GraphReport, Report
from autotune.report.findings import FINDINGS
from autotune.report.text import figure, ms, pct, share, spread, table, times
from autotune.report.findings import FINDINGS_ANCHOR, findings_section
from autotune.report.model_check import (
    NEAR,
    PARAMETER_TITLES,
    ParameterCheck,
    guideline_rows,
    parameters_of,
    rates_by_parameter,
)
from autotune.report.thesis import THESIS_KERNELS
from autotune.report.values_section import render_values

CACHE_NAMES = ("`prefer_l1` is the thesis's *increased* L1, `prefer_shared` its *normal* L1, `no_l1` its "
               "*deactivated* L1 and `default` the driver's choice")
INSTALL_HINT = "install matplotlib (`pip install 'autotune[plot]'` or `pip install matplotlib`) and run the same command"


def render(report: Report, figures: Mapping[str, str], skipped: str | None, findings: str | None) -> str:
    """The README's text.

    Args:
        report: the data.
        figures: figure name -> path relative to the README (those drawn).
        skipped: why figures were not drawn (None when they were).
        findings: the text of FINDINGS.md next to the README (None when there is none).
    """
    from autotune.report.sections import render_cpu, render_efficiency, render_grids, render_thesis

    written = bool(findings and findings.strip())
    lines = _header(report, skipped, written)
    lines += _gains(report, figures, skipped)
    lines += _model(report, figures, skipped)
    lines += render_values(report, figures, skipped)
    lines += render_grids(report, figures, skipped)
    lines += render_efficiency(report, figures, skipped)
    lines += render_cpu(report, figures, skipped)
    lines += render_thesis(report, written)
    lines += findings_section(findings)
    lines += _notes(report)
    return "\n".join(lines).rstrip("\n") + "\n"


def _header(report: Report, skipped: str | None, findings: bool) -> list[str]:
    device, inputs = report.inputs.device, report.inputs
    facts = [f"compute capability {device['compute_capability']}" if device.get("compute_capability") else "",
             f"{device['sm_count']} SMs" if device.get("sm_count") else "",
             f"CUDA {device['cuda_version']}" if device.get("cuda_version") else ""]
    names = ", ".join(g.graph.name for g in report.graphs)
    lines = [f"# Tuning report: {device.get('name', 'unknown GPU')} ({inputs.algorithm})", "",
             f"GPU: {device.get('name', 'unknown')}" + "".join(f", {f}" for f in facts if f) + ". "
             f"Graphs: {len(report.graphs)} ({names}). Strategies: {', '.join(inputs.strategies)}.", "",
             "`autotune report` computed every number and figure in sections 1 to 6 from the input files listed at "
             "the end; the same command on the same inputs writes the same file again.", ""]
    if findings:
        lines += [f"**What the data says** (written by hand in [{FINDINGS}]({FINDINGS})): "
                  f"[section 7](#{FINDINGS_ANCHOR}), below the figures.", ""]
    else:
        lines += [f"*No {FINDINGS} next to this file yet: write the interpretation of these numbers there by hand and "
                  f"run the same command again to include it as [section 7](#{FINDINGS_ANCHOR}).*", ""]
    if skipped:
        lines += [f"*Figures were not drawn: {skipped}. To draw them, {INSTALL_HINT}.*", ""]
    lines += ["Contents: [1. Gains](#1-gains-over-the-baseline-and-the-default) · "
              "[2. Model](#2-the-model-against-the-measurement) · "
              "[3. Exhaustive search](#3-the-exhaustive-search-thesis-fig-41) · "
              "[4. Search efficiency](#4-search-efficiency) · [5. GPU against CPU](#5-gpu-against-cpu) · "
              "[6. The thesis's conclusions](#6-the-thesiss-conclusions-on-this-gpu) · "
              f"[7. What the data says](#{FINDINGS_ANCHOR}) · [Inputs and notes](#inputs-and-notes)", ""]
    return lines


def _graph_facts(report: GraphReport) -> list[str]:
    g = report.graph
    return [g.name, f"{g.vertices:,}" if g.vertices else "–",
            f"{g.mean_degree:.1f}" if g.mean_degree is not None else "–",
            f"{g.stress_ratio:.3g} ({g.stress_class})" if g.stress_ratio is not None else (g.stress_class or "–")]


def _gains(report: Report, figures: Mapping[str, str], skipped: str | None) -> list[str]:
    lines = ["## 1. Gains over the baseline and the default", "",
             "### Whole solve", "",
             "Each graph's best verified configuration (the fastest of the strategies' bests) is compared with the "
             "baseline (thesis 4.6.1: the slowest of the block sizes that maximize occupancy, with the default "
             "cache and CK 1) and with the default (256 threads, default cache, CK 1, L 1). Gain = 1 − best/baseline "
             "(the thesis's percentage); speedup = baseline/best.", ""]
    rows, over_baseline, over_default = [], [], []
    for g in report.graphs:
        s = g.solve
        if s is None:
            continue
        over_baseline += [s.speedup_over_baseline] if s.speedup_over_baseline else []
        over_default += [s.speedup_over_default] if s.speedup_over_default else []
        rows.append(_graph_facts(g) + [f"`{s.best_config}`", s.strategy, ms(s.best_ms), ms(s.baseline_ms),
                                       ms(s.default_ms), times(s.speedup_over_baseline),
                                       times(s.speedup_over_default), pct(s.gain_over_baseline)])
    if over_baseline or over_default:
        lines += [f"Speedup of the tuned solve over the baseline: {spread(over_baseline, times)}; over the "
                  f"default: {spread(over_default, times)}.", ""]
    lines += table(["graph", "n", "d(G)", "st(G)", "best configuration", "found by", "ms/SSSP", "baseline ms",
                    "default ms", "vs baseline", "vs default", "gain vs baseline"], rows,
                   right=(1, 2, 6, 7, 8, 9, 10, 11))
    lines += figure(figures, "solve-times", "ms per SSSP of the baseline, default, model and best per graph", skipped)
    lines += ["### Per kernel (thesis Table 4.4)", "",
              "For each kernel, the tables give its best configuration among all those measured (by the pooled "
              "median of the kernel's own time per SSSP), written `block-CK-L1` as in Table 4.4 (relax adds "
              "`-L<lanes>`), and that configuration's gain over the baseline and over the default; a kernel's "
              "baseline is the baseline candidate that is slowest for that kernel. The kernels of one solve share "
              "CK and L, so the column *in the tuned solve* gives the kernel's configuration and gain within the "
              f"whole solve's best configuration. {CACHE_NAMES}.", ""]
    for letter, kernel in zip("abc", THESIS_KERNELS):
        rows, gains = [], []
        baselines = []
        for g in report.graphs:
            row = next((k for k in g.kernels if k.kernel == kernel), None)
            if row is None:
                continue
            gains += [row.gain_over_baseline] if row.gain_over_baseline is not None else []
            baselines += [row.baseline.label] if row.baseline else []
            rows.append([g.graph.stress_class or "–", g.graph.name, f"{row.best.label} → {pct(row.gain_over_baseline)}",
                         ms(row.best.kernel_ms), ms(row.baseline.kernel_ms if row.baseline else None),
                         pct(row.gain_over_default),
                         f"{row.solve.label} → {pct(row.solve_gain_over_baseline)}" if row.solve else "–"])
        if not rows:
            continue
        lines += [f"#### ({letter}) {kernel} kernel", ""]
        lines += table(["st", "graph", "best → gain vs baseline", "best ms", "baseline ms", "gain vs default",
                        "in the tuned solve → gain vs baseline"], rows, right=(3, 4, 5))
        lines += [f"Baseline configuration(s): {', '.join(dict.fromkeys(baselines)) or '–'}. "
                  f"Gain over the baseline: {spread(gains)}.", ""]
    lines += figure(figures, "kernel-gains", "gain of each kernel's best over the baseline, per graph", skipped)
    return lines


def _check_cell(check: ParameterCheck | None) -> str:
    if check is None:
        return ""
    if check.hit:
        return f"{check.predicted} ✓"
    cost = f" (+{100 * check.cost:.1f}%)" if check.cost is not None else " (not searched)"
    return f"{check.predicted} → {check.best}{cost}" + (" ≈" if check.held else "")


def _model(report: Report, figures: Mapping[str, str], skipped: str | None) -> list[str]:
    lines = ["## 2. The model against the measurement", "",
             "For each graph and kernel, the model's value of each tuned parameter (thesis 4.5, 4.6.4, 4.6.5; the "
             "predicted CK is the kernel's own preference) is compared with the value in the kernel's best "
             "configuration. `✓`: the same value; `a → b (+x%)`: the model said a, the best has b, and the kernel's "
             "fastest configuration with a, at the best's CK (and L, for relax) so that the price is a's own, is "
             f"x% slower than its best; `≈`: within {100 * NEAR:.0f}% (held). *Not searched*: no configuration with "
             "the predicted value was measured there.", ""]
    checks = [c for g in report.graphs if g.model for c in g.model.checks]
    if not checks:
        return lines + ["The inputs hold no prediction (no table with `predicted`, no record measured as the "
                        "prediction).", ""]
    rates = rates_by_parameter(checks)
    lines += table(["value", "predicted", "searched", "hits (of searched)", f"held: hit or within {100 * NEAR:.0f}% "
                    "(of searched)"],
                   [[r.label, str(r.total), str(r.searched), share(r.hits, r.searched), share(r.held, r.searched)]
                    for r in rates], right=(1, 2))
    overall = rates[-1]
    unsearched = overall.total - overall.searched
    lines += [f"Model hit rate: {share(overall.hits, overall.searched)} predicted values that the search measured "
              f"equal the kernel best's value, and {share(overall.held, overall.searched)} are within "
              f"{100 * NEAR:.0f}% of it (held)."
              + (f" {unsearched} of the {overall.total} predicted values were not in the searched space." if unsearched
                 else ""), ""]
    lines += _gap_lines(report)
    rows = []
    for g in report.graphs:
        if g.model is None:
            continue
        for kernel in THESIS_KERNELS:
            cells = {c.parameter: c for c in g.model.checks if c.kernel == kernel}
            if not cells:
                continue
            rows.append([g.graph.name, kernel] + [_check_cell(cells.get(p)) for p in parameters_of("relax")]
                        + [pct(g.model.kernel_gaps.get(kernel), signed=True)])
    lines += ["### Per graph and kernel", ""]
    lines += table(["graph", "kernel", "block size", "L1 state", "CK", "L", "predicted config's kernel time vs best"],
                   rows, right=(6,))
    lines += figure(figures, "model-hits", "where the model's values hit, held or missed", skipped)
    lines += ["### The rules, judged", "",
              "One row per rule the model applied: the parameter it sets, the kernels it set it for, how many "
              "graph-kernel cases it applied to, and whether the value it chose held.", ""]
    rule_rows = []
    for row in guideline_rows(checks):
        failed = "; ".join(f"{c.graph} {c.kernel}: {c.predicted} → {c.best}"
                           + (f" (+{100 * c.cost:.1f}%)" if c.cost is not None else " (not searched)")
                           for c in row.failed)
        rate = row.rate
        rule_rows.append([row.rule, PARAMETER_TITLES[row.parameter], ", ".join(row.kernels), str(rate.total),
                          share(rate.held, rate.searched), share(rate.hits, rate.searched), failed or "–"])
    lines += table(["rule", "value", "kernels", "applied", "held (of searched)", "hit (of searched)",
                    "not held, or not searched"], rule_rows, right=(3,))
    lines += _misses(checks)
    return lines


def _gap_lines(report: Report) -> list[str]:
    gaps = [(g.model.solve_gap, g.graph.name) for g in report.graphs if g.model and g.model.solve_gap is not None]
    with_model = [g for g in report.graphs if g.model]
    if not gaps:
        return [f"The predicted configuration was not measured on any of the {len(with_model)} graph(s) with a "
                "prediction, so its whole-solve time is unknown.", ""]
    values = [gap for gap, _ in gaps]
    worst = max(gaps)
    exact = sum(1 for g in with_model if g.solve and g.model.predicted == g.solve.best_config)
    return [f"Model gap (the predicted configuration's ms per SSSP divided by the best's, minus 1), measured on "
            f"{len(gaps)} of {len(with_model)} graphs: {spread(values, lambda v: pct(v, True))}; worst "
            f"{pct(worst[0], True)} on {worst[1]}. The predicted configuration was the best one on {exact} of "
            f"{len(with_model)} graph(s).", ""]


def _misses(checks: Sequence[ParameterCheck]) -> list[str]:
    lines = ["### Where the model misses", ""]
    found = False
    for kernel in THESIS_KERNELS:
        for parameter in parameters_of(kernel):
            group = [c for c in checks if c.kernel == kernel and c.parameter == parameter and c.searched]
            missed = [c for c in group if not c.held]
            if not missed:
                continue
            found = True
            directions: dict[str, list[str]] = {}
            for check in missed:
                directions.setdefault(check.direction, []).append(check.graph)
            told = "; ".join(("the best is " + (f"{direction} than predicted" if direction in ("larger", "smaller")
                                                 else f"`{direction}`")) + f" on {', '.join(graphs)}"
                             for direction, graphs in sorted(directions.items()))
            by_stress = _by_class(missed, group)
            lines.append(f"- {kernel} {PARAMETER_TITLES[parameter]}: missed (the predicted value costs more than "
                         f"{100 * NEAR:.0f}%) on {share(len(missed), len(group))} graphs; {told}.{by_stress}")
    if not found:
        lines.append(f"- Every predicted value that was searched held (hit, or within {100 * NEAR:.0f}%).")
    unsearched = sorted({f"{c.kernel} {PARAMETER_TITLES[c.parameter]} {c.predicted}" for c in checks if not c.searched})
    if unsearched:
        lines.append(f"- Not searched, so not judged: {', '.join(unsearched)}.")
    return lines + [""]


def _by_class(missed: Sequence[ParameterCheck], group: Sequence[ParameterCheck]) -> str:
    classes = sorted({c.stress_class for c in group if c.stress_class},
                     key=lambda c: ("low", "medium", "high").index(c) if c in ("low", "medium", "high") else 9)
    if not classes:
        return ""
    parts = [f"{name} st {sum(1 for c in missed if c.stress_class == name)} of "
             f"{sum(1 for c in group if c.stress_class == name)}" for name in classes]
    return " Missed by stress class: " + ", ".join(parts) + "."


def _notes(report: Report) -> list[str]:
    lines = ["## Inputs and notes", ""]
    lines += table(["file", "what"], [[f"`{f.path}`", f"{f.kind}: {f.content}"] for f in report.inputs.files])
    if report.command:
        lines += [f"Command: `{report.command}`", ""]
    if report.notes:
        lines += ["Notes on the data:", ""] + [f"- {note}" for note in report.notes] + [""]
    return lines
