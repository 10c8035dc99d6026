"""The report's pure computations on hand-made inputs."""
from __future__ import annotations

import json

import pytest

DEFAULT_REPETITIONS = 5  # the repetitions of the sweeps before the fixed sample
from autotune.errors import InputError
from autotune.measure import Measurement, Status
from autotune.report.cpu import pool_size
from autotune.report.analysis import gain, kernel_gains, solve_gain
from autotune.report.cpu import sweep_source_pool
from autotune.report.efficiency import Curve
from autotune.report.findings import findings_lines, findings_section
from autotune.report.load import GraphSummary, Run, load_inputs, natural_key
from autotune.report.model_check import NEAR, ParameterCheck, guideline_rows, rates_by_parameter
from autotune.search.results.records import Record
from autotune.search.results import GraphInfo
from autotune.launch import LaunchConfig
from autotune.algorithms.thesis import CRAUSER


def _record(config: LaunchConfig, relax_ms: float, roles: tuple[str, ...] = ()) -> Record:
    kernel_ms = {"relax": relax_ms, "minimum": 0.5, "update": 0.25}
    measurement = Measurement(config, Status.OK, times_ms=(relax_ms + 1.0,), kernel_ms=kernel_ms)
    return Record(GraphInfo("g", "abc", 10, 20), "crauser", {"name": "GPU"}, "exhaustive", measurement, roles=roles)


def test_gain_and_curve_thresholds():
    assert gain(1.0, 4.0) == 0.75 and gain(None, 4.0) is None
    curve = Curve("g", "bayes-tpe", (None, 3.0, 2.1, 2.05, 2.03), 2.0, "exhaustive")
    assert curve.evaluations_within(0.05) == 3 and curve.evaluations_within(0.02) == 5
    assert curve.evaluations_within(0.01) is None
    assert curve.final_gap == pytest.approx(0.015)


def test_kernel_gains_take_each_kernels_best_and_its_slowest_baseline_candidate():
    fast = CRAUSER.uniform(128, "prefer_l1", 8, 4)
    slow_a, slow_b = CRAUSER.uniform(256), CRAUSER.uniform(512)
    records = [_record(fast, 1.0), _record(fast, 1.4), _record(slow_a, 6.0, ("default", "baseline_candidate")),
               _record(slow_b, 8.0, ("baseline_candidate",))]
    runs = [Run(GraphSummary("g", "abc"), "exhaustive", None, tuple(records))]
    solve = solve_gain(runs)
    assert solve.best_config == fast and solve.baseline_config == slow_b and solve.default_ms == 7.0
    relax = next(k for k in kernel_gains(runs, solve) if k.kernel == "relax")
    assert relax.best.kernel_ms == pytest.approx(1.2)  # the median of its two measurements
    assert relax.best.label == "128-8-prefer_l1-L4"
    assert relax.gain_over_baseline == pytest.approx(1 - 1.2 / 8.0)
    assert relax.gain_over_default == pytest.approx(1 - 1.2 / 6.0)


def test_a_value_held_when_it_hits_or_costs_at_most_near():
    checks = [ParameterCheck("g", "relax", "block_size", 256, 256),
              ParameterCheck("g", "relax", "cache", "prefer_l1", "no_l1", cost=NEAR / 2),
              ParameterCheck("g", "relax", "concurrent_kernels", 1, 64, cost=3.0, rule="4.6.4"),
              ParameterCheck("g", "relax", "lanes", 16, 4)]  # not searched
    assert [c.held for c in checks] == [True, True, False, False]
    assert [c.searched for c in checks] == [True, True, True, False]
    overall = rates_by_parameter(checks)[-1]
    assert (overall.total, overall.searched, overall.hits, overall.held) == (4, 3, 1, 2)
    rows = guideline_rows(checks)
    ck_rule = next(r for r in rows if r.rule == "4.6.4")
    assert ck_rule.parameter == "concurrent_kernels" and ck_rule.failed == (checks[2],)
    assert {r.parameter for r in rows if r.rule == "(no rule recorded)"} == {"block_size", "cache", "lanes"}


def test_graphs_sort_naturally():
    names = ["rmat20", "random98k-d2", "random24k-d20", "rmat9", "random24k-d2", "random24k-d200"]
    assert sorted(names, key=natural_key) == ["random24k-d2", "random24k-d20", "random24k-d200", "random98k-d2",
                                             "rmat9", "rmat20"]


def test_unknown_files_and_empty_inputs_are_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(InputError, match="expected a table"):
        load_inputs([tmp_path / "notes.txt"])
    cpu = tmp_path / "cpu.jsonl"
    cpu.write_text(json.dumps({"format": "autotune.cpu-times/1", "graph": {"name": "g"}, "solver": "dijkstra",
                               "times_ms": [1.0]}) + "\n")
    with pytest.raises(InputError, match="no sweep table or records"):
        load_inputs([cpu])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="holds no .json tables"):
        load_inputs([tmp_path / "empty"])


def test_gzipped_records_read_like_plain_ones(tmp_path):
    import gzip
    from pathlib import Path

    data = Path(__file__).resolve().parents[1] / "data" / "report"
    plain = (data / "bayes.records.jsonl").read_bytes()
    (tmp_path / "bayes.records.jsonl.gz").write_bytes(gzip.compress(plain))
    (tmp_path / "bayes.json").write_bytes((data / "bayes.json").read_bytes())
    zipped = load_inputs([tmp_path])
    assert [f.kind for f in zipped.files] == ["table", "records"]
    assert sum(len(r.records) for r in zipped.runs) == len(load_inputs([data / "bayes.records.jsonl"]).runs[0].records
                                                           + load_inputs([data / "bayes.records.jsonl"]).runs[1].records)


@pytest.mark.parametrize("command, pool", [
    ("autotune sweep --graph rmat17 --strategy exhaustive --ck 1,4,16,64 --repetitions 3 --quiet -o x.json", (320, 0)),
    ("autotune sweep --graph rmat17 --repetitions 3 --sources 128 --seed 4 -o x.json", (128, 4)),
    ("python3 -m autotune sweep --graph rmat17 --sources=96", (96, 0)),
    ("autotune sweep --graph rmat17", (pool_size(DEFAULT_REPETITIONS, 64), 0)),
    ("autotune sweep --replay r.jsonl -o x.json", None),
    ("autotune sweep --graph rmat17 --no-such-option", (pool_size(DEFAULT_REPETITIONS, 64), 0)),
    ("tests/data/report/generate.py (exhaustive)", None),
    (None, None),
])
def test_the_sweeps_source_pool_is_read_from_its_command(command, pool):
    entry = {"x-sweep": {"space": {"concurrent_kernels": [1, 4, 16, 64]}}}
    found = sweep_source_pool(command, entry)
    assert (None if found is None else (found.size, found.seed)) == pool


def test_findings_headings_move_below_section_7_but_not_in_code():
    text = "Intro.\n\n# Part\n\n```\n# a comment\n```\n\n## Detail\n"
    assert findings_lines(text) == ["Intro.", "", "### Part", "", "```", "# a comment", "```", "", "#### Detail"]
    assert findings_section("  \n") == findings_section(None) and "Not written yet" in findings_section(None)[2]


def test_bar_figures_of_many_graphs_run_down_the_page_at_a_readable_size(tmp_path):
    """36 graphs: the whole-solve figure is bars down the page, 900 px wide (it was 4,310 across)."""
    from types import SimpleNamespace

    pytest.importorskip("matplotlib")
    from autotune.report import figures
    from autotune.report.plotting import DPI, save

    graphs = [SimpleNamespace(graph=SimpleNamespace(name=f"graph-{i:02d}"),
                              solve=SimpleNamespace(baseline_ms=2.0 + i, default_ms=1.5 + i, model_ms=None,
                                                    best_ms=0.5 + i / 10, speedup_over_baseline=4.0))
              for i in range(36)]
    fig = figures.solve_times(graphs)
    width, height = fig.get_size_inches() * DPI
    assert width == 900 and 1200 < height < 1800
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels[0] == "graph-00" and labels[-1] == "graph-35"  # the first graph on top
    save(fig, tmp_path / "solve.png")
    few = figures.solve_times(graphs[:4])
    assert few.get_size_inches()[0] * DPI < 1000
    assert [t.get_text() for t in few.axes[0].get_xticklabels()] == [f"graph-0{i}" for i in range(4)]  # across
