"""The README's later sections: the exhaustive search (Fig. 4.1), search efficiency, GPU against
CPU, and the thesis's conclusions as the data judges them (rendering only: every statement is
filled from the computed data; the interpretation is written by hand in FINDINGS.md, which
`findings.py` includes as section 7)."""
from __future__ import annotations

import statistics
from typing import Mapping, Sequence

from autotune.report.data import GraphReport, Report
from autotune.report.thesis import THESIS_KERNELS
from autotune.report.cpu import CPU_SOLVERS, SOLVER_TITLES, CpuTiming, machine_text
from autotune.report.efficiency import TOLERANCES, budget_verdict
from autotune.report.findings import FINDINGS, FINDINGS_ANCHOR
from autotune.report.grid import panel_minima
from autotune.report.load import strategy_order
from autotune.report.text import figure, ms, pct, share, spread, table, times
from autotune.report.model_check import NEAR, PARAMETER_TITLES, guideline_rows, parameters_of

# Thesis 4.6.6 and Table 4.4: gains over the baseline, (Fermi GF100, Kepler GK104).
THESIS_KERNEL_GAINS = {"relax": ((0.12, 0.472), (0.288, 0.624)), "minimum": ((0.254, 0.485), (0.271, 0.438)),
                       "update": ((0.292, 0.544), (0.273, 0.453))}
THESIS_SOLVE_GAINS = ((0.215, 0.539), (0.3375, 0.5853))
GUIDELINES = {
    "4.6.5 (1)": "the smallest block size that maximizes occupancy (coalesced or medium-coalesced access, low CLr, "
                 "low DSr; (1)iii: medium CLr at high st)",
    "4.6.5 (2)": "a block size below the smallest maximizing one (full-coalesced, medium CLr, low/medium st)",
    "4.6.5 (3)": "the next maximizing block size above the smallest (medium-coalesced, medium/high DSr)",
    "4.6.5 (4)": "increase L1 (prefer_l1) for non-high st or high DSr",
    "4.6.5 (5)": "deactivate L1 (no_l1) at high st with non-high DSr",
    "4.6.4": "fewer concurrent kernels for kernels with many memory accesses (CK 8 / 4 / 1 for low / medium / high)",
}


def render_grids(report: Report, figures: Mapping[str, str], skipped: str | None) -> list[str]:
    lines = ["## 3. The exhaustive search (thesis Fig. 4.1)", "",
             "For each graph, the figure plots each kernel's time per SSSP against CK over the uniform "
             "configurations measured (one block size and L1 state for all kernels): one line per block size, one "
             "panel per L1 state; the dashed line marks the kernel's fastest point. A relax point is relax's "
             "fastest time over L; a minimum or update point is the median over L (these kernels do not use L).", ""]
    drawn = False
    for g in report.graphs:
        if not g.grid:
            continue
        drawn = True
        lines += [f"### {g.graph.name}", ""]
        lines += figure(figures, f"exhaustive-{g.graph.name}", f"exhaustive search on {g.graph.name}", skipped)
        for kernel in THESIS_KERNELS:
            minima = [m for m in panel_minima(g.grid) if m.kernel == kernel]
            if not minima:
                continue
            fastest = min(minima, key=lambda m: m.kernel_ms)
            per_cache = ", ".join(f"{m.cache} {ms(m.kernel_ms)} ({m.block_size}, CK {m.concurrent_kernels})"
                                  for m in minima)
            lines.append(f"- {kernel}: fastest {ms(fastest.kernel_ms)} ms at block size {fastest.block_size}, "
                         f"CK {fastest.concurrent_kernels}, {fastest.cache}. Fastest per L1 state, in ms (block "
                         f"size, CK): {per_cache}.")
        lines.append("")
    if not drawn:
        lines += ["No input holds uniform configurations measured at two or more CK values (as an exhaustive "
                  "sweep's records do), so there is nothing to draw.", ""]
    return lines


def _evals(value: int | None) -> str:
    return "not reached" if value is None else str(value)


def render_efficiency(report: Report, figures: Mapping[str, str], skipped: str | None) -> list[str]:
    lines = ["## 4. Search efficiency", "",
             "For each graph and strategy, the table and the figure follow the best time found so far after each "
             "GPU measurement (evaluation), in the order taken (the special configurations, the search, the "
             "composed candidates, the finalists' re-measurements), and compare it with the exhaustive optimum "
             "(the exhaustive table's best; without one, the fastest best of all runs).", ""]
    curves = [c for g in report.graphs for c in g.curves]
    if not curves:
        return lines + ["No records were given, so there is no search to draw (give the `.jsonl` records that the "
                        "sweeps wrote).", ""]
    rows = [[c.graph, c.strategy, str(c.evaluations), ms(c.table_best_ms if c.table_best_ms is not None else c.final_ms),
             pct(c.final_gap, signed=True)] + [_evals(c.evaluations_within(t)) for t in TOLERANCES] for c in curves]
    lines += table(["graph", "strategy", "evaluations", "best ms", "vs optimum"]
                   + [f"evaluations to within {round(100 * t)}%" for t in TOLERANCES], rows, right=(2, 3, 4, 5, 6))
    for strategy in sorted({c.strategy for c in curves}, key=strategy_order):
        mine = [c for c in curves if c.strategy == strategy]
        parts = []
        for tolerance in TOLERANCES:
            reached = [c.evaluations_within(tolerance) for c in mine if c.evaluations_within(tolerance) is not None]
            median = f", after a median of {statistics.median(reached):g} evaluations" if reached else ""
            parts.append(f"within {round(100 * tolerance)}% of the optimum on {share(len(reached), len(mine))} "
                         f"graphs{median}")
        totals = [c.evaluations for c in mine]
        lines.append(f"- {strategy}: {'; '.join(parts)}; {spread(totals, lambda v: f'{v:g}')} evaluations per graph.")
    lines.append("")
    for strategy in sorted({s for s, _ in report.comparisons}, key=strategy_order):
        rows = [c for s, c in report.comparisons if s == strategy]
        v = budget_verdict(rows)
        lines += [f"The sweep issue's target for {strategy} (a best within {100 * v['tolerance']:.0f}% of the "
                  f"exhaustive optimum, found with at most {100 * v['budget']:.0f}% of the exhaustive search's "
                  f"evaluations, on at least 80% of the graphs) was {'met' if v['met'] else 'not met'}: "
                  f"{share(v['within'], v['graphs'])} graphs qualify. At most "
                  f"{100 * v['max_budget_share']:.0f}% of the exhaustive evaluations were used on any graph.", ""]
    lines += figure(figures, "search-efficiency", "best so far against evaluations, per graph and strategy", skipped)
    return lines


def gpu_text(device: Mapping[str, object]) -> str:
    """`NVIDIA H100 80GB HBM3 (compute capability 9.0, 132 SMs, CUDA 13.0)` from the sweeps' device."""
    facts = [f"compute capability {device['compute_capability']}" if device.get("compute_capability") else "",
             f"{device['sm_count']} SMs" if device.get("sm_count") else "",
             f"CUDA {device['cuda_version']}" if device.get("cuda_version") else ""]
    facts = [f for f in facts if f]
    return str(device.get("name", "unknown GPU")) + (f" ({', '.join(facts)})" if facts else "")


def _unmatched_cpu(report: Report) -> str:
    """The CPU timings given, by graph, and why none matched a swept graph."""
    swept = {g.graph.name: g.graph.sha256 for g in report.graphs}
    by_graph: dict[str, list[str]] = {}
    for timing in report.inputs.cpu:
        by_graph.setdefault(timing.graph_name, []).append(timing.solver)
    parts = []
    for name, solvers in by_graph.items():
        sha = next((t.graph_sha256 for t in report.inputs.cpu if t.graph_name == name), "")
        why = (f"; another graph than the swept {name} (sha256 {sha[:12]} against {swept[name][:12]})"
               if name in swept and sha and swept[name] and sha != swept[name] else "")
        parts.append(f"{name} ({', '.join(solvers)}{why})")
    count = len(report.inputs.cpu)
    return (f"{count} CPU timing{'s were' if count != 1 else ' was'} given, but none is of a swept graph: "
            f"{', '.join(parts)}. The swept graphs are {', '.join(swept) or 'none'}; a timing matches one by name "
            "and sha256, so time those graphs with the sweeps' `--seed` and `--weights`.")


def _pool_cell(g: GraphReport, timings: Sequence[CpuTiming]) -> str:
    """The pool the CPU sources came from, and whether it is the sweep's."""
    pools = sorted({str(t.source_pool) for t in timings if t.source_pool is not None})
    if not pools:
        return "not recorded"
    matches = [g.cpu_pool_matches(t) for t in timings]
    if all(m is True for m in matches):
        return f"{'; '.join(pools)}: the sweep's"
    if any(m is False for m in matches):
        return f"{'; '.join(pools)}: **not** the sweep's ({'; '.join(str(p) for p in g.pools.values())})"
    return f"{'; '.join(pools)} (the sweep's is not recorded)"


def _overhead_line(report: Report) -> list[str]:
    """What scipy Dijkstra's per-call overhead, spread over the sources of a call, adds per source."""
    shares = [t.call_overhead_ms / t.sources_per_call / t.ms_per_sssp for g in report.graphs for t in g.cpu
              if t.solver == "dijkstra" and t.call_overhead_ms is not None and g.solve is not None]
    if not shares:
        return []
    return [f"scipy Dijkstra's per-call overhead (its input checks and output arrays, measured apart with calls "
            f"that settle only the source), spread over the sources of a call, is {spread(shares)} of its time per "
            "source.", ""]


def render_cpu(report: Report, figures: Mapping[str, str], skipped: str | None) -> list[str]:
    lines = ["## 5. GPU against CPU", "",
             "Time per SSSP of the tuned GPU solve (the best configuration's ms per SSSP, solving CK sources at "
             "once) against one CPU thread: scipy's Dijkstra and the numpy CPU Crauser (`autotune.reference`), on "
             "the same graphs and the first sources of the sweep's source pool.", ""]
    given = report.inputs.cpu
    timings = [t for g in report.graphs for t in g.cpu]
    if not given:
        return lines + ["No CPU timings were given. Measure them with `python3 scripts/cpu_baseline.py SPEC ... "
                        "--sweeps SWEEP_DIR -o cpu-times.jsonl` and pass `--cpu-times cpu-times.jsonl`.", ""]
    if not timings:
        return lines + [_unmatched_cpu(report), ""]
    machines = sorted({(machine_text(t.machine), t.date) for t in timings})
    lines += [f"- GPU: {gpu_text(report.inputs.device)}, the sweeps' device.",
              "- CPU: " + "; ".join(f"{text}; one thread; measured {date or '(no date)'}" for text, date in machines)
              + "."]
    for solver in CPU_SOLVERS:
        described = sorted({t.timed for t in timings if t.solver == solver and t.timed})
        if described:
            lines.append(f"- What the clock covered for {SOLVER_TITLES[solver]}: {' / '.join(described)}.")
    lines.append("")
    rows, speedups = [], {s: [] for s in CPU_SOLVERS}
    for g in report.graphs:
        if not g.cpu or g.solve is None:
            continue
        by_solver = {t.solver: t for t in g.cpu}
        cells = [g.graph.name, ms(g.solve.best_ms)]
        for solver in CPU_SOLVERS:
            timing = by_solver.get(solver)
            cells.append(ms(timing.ms_per_sssp) if timing else "–")
        for solver in CPU_SOLVERS:
            timing = by_solver.get(solver)
            speedup = timing.ms_per_sssp / g.solve.best_ms if timing else None
            if speedup:
                speedups[solver].append(speedup)
            cells.append(times(speedup))
        cells.append(", ".join(f"{len(by_solver[s].sources)} ({s})" for s in CPU_SOLVERS if s in by_solver))
        cells.append(_pool_cell(g, list(by_solver.values())))
        rows.append(cells)
    if not rows:
        return lines + ["The graphs with CPU timings have no verified best GPU configuration to compare with.", ""]
    lines += table(["graph", "GPU tuned ms"] + [f"{SOLVER_TITLES[s]} ms" for s in CPU_SOLVERS]
                   + [f"GPU speedup vs {SOLVER_TITLES[s]}" for s in CPU_SOLVERS]
                   + ["CPU sources timed", "their pool"], rows, right=(1, 2, 3, 4, 5))
    lines += [f"GPU speedup over {SOLVER_TITLES[s]}: {spread(v, times)}." for s, v in speedups.items() if v] + [""]
    lines += _overhead_line(report)
    lines += figure(figures, "gpu-cpu", "ms per SSSP on the GPU and the CPU, per graph", skipped)
    return lines


def _verdict(held: int, searched: int, applied: int) -> str:
    if applied == 0:
        return "not applied"
    if searched == 0:
        return "not tested (its values were not searched)"
    if held == searched:
        return "held in every case"
    if held == 0:
        return "held in no case"
    if 2 * held == searched:
        return "held in half of the cases"
    return "held in most cases" if 2 * held > searched else "held in a minority of cases"


def render_thesis(report: Report, findings: bool) -> list[str]:
    lines = ["## 6. The thesis's conclusions on this GPU", "",
             "Every statement in this section is computed from the data above; "
             + (f"what it means is written in [section 7](#{FINDINGS_ANCHOR})." if findings else
                f"what it means belongs in {FINDINGS}, included as [section 7](#{FINDINGS_ANCHOR})."), ""]
    lines += ["### Gains (thesis 4.6.6, Table 4.4)", ""]
    for kernel in THESIS_KERNELS:
        gains = [k.gain_over_baseline for g in report.graphs for k in g.kernels
                 if k.kernel == kernel and k.gain_over_baseline is not None]
        (fermi, kepler) = THESIS_KERNEL_GAINS[kernel]
        lines.append(f"- {kernel}: gain over the baseline {pct(fermi[0])}–{pct(fermi[1])} (Fermi) and "
                     f"{pct(kepler[0])}–{pct(kepler[1])} (Kepler) in the thesis; here {spread(gains)}.")
    solve = [g.solve.gain_over_baseline for g in report.graphs if g.solve and g.solve.gain_over_baseline is not None]
    above = sum(1 for value in solve if value > THESIS_SOLVE_GAINS[1][1])
    (low, _), (_, high) = THESIS_SOLVE_GAINS
    lines += [f"- Whole solve: gain over the baseline {pct(low)}–{pct(high)} (up to 2.4x) in the thesis; here {spread(solve)}, above the thesis's largest gain "
              f"on {share(above, len(solve))} graphs.", ""]
    checks = [c for g in report.graphs if g.model for c in g.model.checks]
    lines += ["### Guidelines (1)–(5) of 4.6.5 and the CK rule of 4.6.4", "",
              f"A guideline *held* on a graph and kernel when the value it chose is the kernel best's value, or makes "
              f"the kernel at most {100 * NEAR:.0f}% slower (section 2).", ""]
    rows = []
    for prefix, title in GUIDELINES.items():
        applied = [c for row in guideline_rows(checks) if row.rule.startswith(prefix) for c in row.checks]
        judged = [c for c in applied if c.searched]
        held = [c for c in judged if c.held]
        where = ", ".join(sorted({f"{c.graph} {c.kernel}" for c in judged if not c.held})) or "–"
        rows.append([prefix, title, str(len(applied)), share(len(held), len(judged)),
                     _verdict(len(held), len(judged), len(applied)), where])
    lines += table(["guideline", "what it says", "applied", "held (of searched)", "verdict", "did not hold on"], rows,
                   right=(2,))
    study = [c for g in report.graphs for c in g.ck_study]
    if study:
        failing = ", ".join(f"{c.graph} {c.kernel} ({c.at_ck1} at CK 1, {c.at_best_ck} at CK {c.best_ck}"
                            + (f"; the CK 1 choice is {100 * c.cost:.1f}% slower there" if c.cost is not None else "")
                            + ")" for c in study if not c.holds)
        lines += [f"Study I (4.6.4: CK does not change the best block size and L1 state) held in "
                  f"{share(sum(c.holds for c in study), len(study))} kernel-graph cases (the best block size and L1 "
                  f"state at CK 1 are the best at the kernel's best CK, or at most {100 * NEAR:.0f}% slower there)"
                  + (f". It did not hold in: {failing}." if failing else "."), ""]
    lines += ["Best CK per kernel and graph (thesis: 8 for update everywhere, 1 for relax on d200):", ""]
    for kernel in THESIS_KERNELS:
        values = [f"{k.best.config.concurrent_kernels} ({g.graph.name})" for g in report.graphs for k in g.kernels
                  if k.kernel == kernel]
        if values:
            lines.append(f"- {kernel}: {', '.join(values)}.")
    lines += [""] + _what_matters(report)
    return lines


def _what_matters(report: Report) -> list[str]:
    rows, largest = [], []
    for kernel in THESIS_KERNELS:
        cells = [kernel]
        for parameter in parameters_of("relax"):
            costs = [s.cost for g in report.graphs for s in g.sensitivity if s.kernel == kernel and s.parameter == parameter]
            cells.append(f"{pct(statistics.median(costs), True)} (max {pct(max(costs), True)})" if costs else "–")
            if costs:
                largest.append((statistics.median(costs), kernel, parameter))
        rows.append(cells)
    if not largest:
        return []
    lines = ["### What matters most", "",
             "For each kernel and tuned parameter: how much slower the kernel runs with the worst measured value of "
             "that parameter, the other parameters tuned but CK (and L, for relax) held at the kernel best's (the "
             "median over graphs, and the largest):", ""]
    lines += table(["kernel"] + [PARAMETER_TITLES[p] for p in parameters_of("relax")], rows)
    top = sorted(largest, reverse=True)[:3]
    lines += ["Largest medians: " + "; ".join(f"{PARAMETER_TITLES[p]} for {k} ({pct(v, True)})" for v, k, p in top)
              + ".", ""]
    return lines
