"""`autotune sweep`, in-process: replays of the committed synthetic records, and the GPU path with
its GPU replaced by the synthetic timer."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from autotune.cli import main
from autotune.errors import GpuUnavailable
from autotune.search import read_records
from autotune.search.timers.replay import ReplayTimer

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "tests" / "data" / "records" / "synthetic-rmat12.jsonl"
SCHEMA = json.loads((ROOT / "autotune" / "schemas" / "table-3.json").read_text())


def _valid_table(path: Path) -> dict:
    table = json.loads(path.read_text())
    jsonschema.validate(table, SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    return table


@pytest.mark.parametrize("strategy", ["exhaustive", "bayes", "model"])
def test_a_replay_writes_a_table_that_validates(tmp_path, strategy, capsys):
    extra = ["--trials", "25"] if strategy == "bayes" else []
    status = main(["sweep", "--replay", str(RECORDS), "--strategy", strategy, *extra, "-o", str(tmp_path / "t.json"),
                   "--t4", str(tmp_path / "t4"), "--records", str(tmp_path / "r.jsonl"), "--quiet"])
    assert status == 0, capsys.readouterr().err
    table = _valid_table(tmp_path / "t.json")
    (entry,) = table["entries"]
    assert entry["graph"]["name"] == "rmat12" and entry["strategy"].startswith(strategy)
    assert entry["best"]["verified"] and entry["speedup_over_default"] > 1
    assert {"predicted", "model", "baseline", "default", "model_gap", "speedup_over_baseline"} <= set(entry)
    assert table["device"]["name"].startswith("Synthetic GPU")
    assert read_records(tmp_path / "r.jsonl")[0].graph.name == "rmat12"
    (t4,) = (tmp_path / "t4").iterdir()
    assert json.loads(t4.read_text())["schema_version"] == "1.0.0"
    assert capsys.readouterr().out == ""


def test_json_prints_the_table_and_nothing_else(tmp_path, capsys):
    status = main(["sweep", "--replay", str(RECORDS), "--strategy", "model", "-o", str(tmp_path / "t.json"), "--json"])
    assert status == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["entries"][0]["best"] == _valid_table(tmp_path / "t.json")["entries"][0]["best"]


def test_the_default_output_is_named_after_graph_and_device(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["sweep", "--replay", str(RECORDS), "--graph", "rmat12", "--strategy", "model"]) == 0
    out = capsys.readouterr().out
    assert "autotune sweep on Synthetic GPU" in out and "rmat12" in out
    (written,) = tmp_path.iterdir()  # a replay writes no records unless asked
    assert written.name == "sweep-rmat12-synthetic-gpu-hopper-h100-profile-no-hardware-auto.json"
    _valid_table(written)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["sweep"], "no graph given"),
        (["sweep", "--replay", str(RECORDS), "--block-sizes", "48"], "--block-sizes: 48 is not a multiple"),
        (["sweep", "--replay", "missing.jsonl"], "missing.jsonl: cannot read the records"),
        (["sweep", "--replay", str(RECORDS), "--graph", "rmat20"], "--graph rmat20: not in"),
        (["sweep", "--replay", str(RECORDS), "--resume"], "--resume needs a storage"),
        (["sweep", "--replay", str(RECORDS), "--strategy", "exhaustive", "--trials", "5"], "--trials applies to"),
        (["sweep", "--replay", str(RECORDS), "--algorithm", "martin"], "no records of algorithm martin"),
        (["sweep", "--replay", str(RECORDS), "--queries", "0"], "--queries: expected a number >= 1"),
        (["sweep", "--replay", str(RECORDS), "--objective", "latency", "--queries", "4"], "contradicts --objective"),
        (["sweep", "--replay", str(RECORDS), "--queries", "2", "--ck", "4,8"], "are all above 2"),
    ],
)
def test_bad_input_is_one_line_and_exit_status_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(("options", "most"), [(["--objective", "latency"], 1), (["--queries", "3"], 3),
                                               (["--objective", "throughput"], None)])
def test_the_objective_bounds_the_concurrent_sssps_of_the_best_and_its_curve(tmp_path, options, most):
    out = tmp_path / "t.json"
    assert main(["sweep", "--replay", str(RECORDS), "--strategy", "exhaustive", "-q", "-o", str(out), *options]) == 0
    entry = json.loads(out.read_text())["entries"][0]
    cks = [p["config"]["concurrent_kernels"] for p in entry["curve"]]
    recorded = sorted({r.measurement.config.concurrent_kernels for r in read_records(RECORDS)})
    assert cks == [ck for ck in recorded if most is None or ck <= most]
    assert entry["best"]["config"]["concurrent_kernels"] <= (most or max(recorded))
    assert entry["x-sweep"]["space"]["concurrent_kernels"] == cks


def test_interrupting_writes_the_partial_table_and_exits_130(tmp_path, monkeypatch, capsys):
    class Interrupting(ReplayTimer):
        def measure(self, config, stop=None, **options):
            if self.stats.recorded == 10:
                raise KeyboardInterrupt
            return super().measure(config, stop)

    monkeypatch.setattr("autotune.search.timers.replay.ReplayTimer", Interrupting)
    status = main(["sweep", "--replay", str(RECORDS), "--strategy", "exhaustive", "-o", str(tmp_path / "t.json"), "-q"])
    assert status == 130
    assert "interrupted; wrote the partial table" in capsys.readouterr().err
    table = _valid_table(tmp_path / "t.json")
    assert table["x-partial"] is True and table["entries"][0]["partial"] is True
    assert table["entries"][0]["evaluations"] == 10


def test_resume_continues_the_study_in_the_storage(tmp_path, monkeypatch):
    storage = str(tmp_path / "studies.db")
    argv = ["sweep", "--replay", str(RECORDS), "--strategy", "exhaustive", "--storage", storage,
            "-o", str(tmp_path / "t.json"), "-q"]

    batch_end = []

    class Interrupting(ReplayTimer):  # interrupted in the batch end's study (the latency end's is done)
        def measure(self, config, stop=None, **options):
            if config.concurrent_kernels > 1:  # the records' CK: 1 and 4; the middle comes last
                batch_end.append(config)
                if len(batch_end) == 10:
                    raise KeyboardInterrupt
            return super().measure(config, stop)

    with monkeypatch.context() as patch:
        patch.setattr("autotune.search.timers.replay.ReplayTimer", Interrupting)
        assert main(argv) == 130
    assert main([*argv, "--resume"]) == 0
    entry = _valid_table(tmp_path / "t.json")["entries"][0]
    assert entry["x-sweep"]["study"]["resumed"] is True
    whole = ["sweep", "--replay", str(RECORDS), "--strategy", "exhaustive", "--storage", "memory",
             "-o", str(tmp_path / "whole.json"), "-q"]
    assert main(whole) == 0
    uninterrupted = _valid_table(tmp_path / "whole.json")["entries"][0]
    assert entry["evaluations"] == uninterrupted["evaluations"]  # the same measurements as one run
    assert entry["best"]["config"] == uninterrupted["best"]["config"]


def test_the_gpu_path_sweeps_each_graph_and_writes_table_and_records(tmp_path, fake_gpu, capsys):
    table_path = tmp_path / "out" / "table.json"
    status = main(["sweep", "--graph", "rmat8", "--graph", "random200-d4", "--algorithm", "crauser", "--strategy",
                   "bayes", "--trials", "12",
                   "--block-sizes", "64,128,256", "--ck", "1,2", "--lanes", "1,4", "--repetitions", "2",
                   "--no-prune", "--storage", str(tmp_path / "s.db"), "-o", str(table_path), "-q"])
    assert status == 0, capsys.readouterr().err
    table = _valid_table(table_path)
    assert [e["graph"]["name"] for e in table["entries"]] == ["rmat8", "random200-d4"]
    assert table["device"]["name"] == "Fake H100 (test)" and table["device"]["cuda_version"] == "12.4"
    # per graph the curve's three ends, each timer opened again for the end's curve and rounds, and only when
    # it measures (`jobs.OpenedOnUse`)
    assert 6 <= len(fake_gpu) <= 12 and all(len(t.calls) > 0 for t in fake_gpu)
    records = read_records(table_path.with_name("table.records.jsonl"))
    assert len(records) == sum(len(t.calls) for t in fake_gpu)
    assert {r.graph.name for r in records} == {"rmat8", "random200-d4"}
    assert all(len(r.measurement.times_ms) == 2 for r in records if r.measurement.ok)


def test_no_gpu_is_one_line_and_exit_status_2(monkeypatch, tmp_path, capsys):
    import autotune.gpu

    def unavailable(index):
        raise GpuUnavailable("PyCUDA is not installed (No module named 'pycuda')")

    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(autotune.gpu, "device_handle", unavailable, raising=False)
    assert main(["sweep", "--graph", "rmat8", "--storage", str(tmp_path / "never.db")]) == 2
    assert not (tmp_path / "never.db").exists()
    assert capsys.readouterr().err == "autotune: PyCUDA is not installed (No module named 'pycuda')\n"


def test_the_engine_benchmark_s_h100_records_replay_with_a_device_profile(tmp_path, monkeypatch, capsys):
    engine = ROOT / "tests" / "data" / "engine-records.jsonl"
    if not engine.exists():
        pytest.skip("no engine benchmark records")
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "graph-cache"))
    status = main(["sweep", "--replay", str(engine), "--graph", "random98k-d20", "--device", "hopper-h100",
                   "--strategy", "exhaustive", "-o", str(tmp_path / "t.json"), "-q"])
    assert status == 0, capsys.readouterr().err
    entry = _valid_table(tmp_path / "t.json")["entries"][0]
    assert entry["graph"]["vertices"] == 98304 and entry["graph"]["sha256"]
    assert entry["best"]["config"]["concurrent_kernels"] == 64  # the engine report's finding
    assert entry["speedup_over_default"] > 10
    assert main(["sweep", "--replay", str(engine), "--graph", "random98k-d20", "-q", "-o", str(tmp_path / "u.json")]) == 2
    assert "the records do not describe the GPU" in capsys.readouterr().err


def test_bayes_and_exhaustive_tables_compare(tmp_path):
    from autotune.search.strategies.climb import MAX_CENTRES
    from autotune.search.results.compare import compare_tables, verdict
    from autotune.table.format import read_table

    common = ["sweep", "--replay", str(RECORDS), "-q", "--objective", "throughput"]
    assert main([*common, "--strategy", "exhaustive", "-o", str(tmp_path / "e.json")]) == 0
    assert main([*common, "--strategy", "bayes", "--trials", "20", "-o", str(tmp_path / "b.json")]) == 0
    (row,) = compare_tables(read_table(tmp_path / "e.json"), read_table(tmp_path / "b.json"))
    probes = 4  # at most one per baseline candidate, measured on its warm-up before it is measured whole
    assert row.graph == "rmat12" and 0 <= row.reference_evaluations - len(read_records(RECORDS)) <= probes
    # trials, re-measurements, specials outside the space, and the climb: at most MAX_CENTRES
    # centres of 4 neighbours each (GPU Crauser: its block size halved and doubled, 2 other L1 states)
    assert row.candidate_evaluations <= 20 + 9 + 2 + MAX_CENTRES * 4
    result = verdict([row], budget=1.0)
    assert result["graphs"] == 1 and result["met"] == (row.gap <= 0.03)


def test_an_auto_sweep_succeeds_when_each_graph_has_a_best_of_any_algorithm(tmp_path):
    """An auto sweep's later algorithms may have every trial pruned (no best of their own)."""
    from types import SimpleNamespace

    from autotune.search.results.outputs import Outputs, report_outcome

    outputs = Outputs(tmp_path / "t.json", None, None, "auto", None, False, False)
    graph_a = SimpleNamespace(key="a")
    won, pruned = object(), None
    results = [SimpleNamespace(graph=graph_a, best=won), SimpleNamespace(graph=graph_a, best=pruned)]
    assert report_outcome(results, {}, outputs, [], False) == 0
    unverified = SimpleNamespace(graph=SimpleNamespace(key="b", name="b"), best=None, log=(), protocol={})
    assert report_outcome([*results, unverified], {}, outputs, [], False) == 1


def test_a_graph_without_a_verified_configuration_is_explained_on_stderr(tmp_path, capsys):
    """Even with --quiet: what was measured, how it failed, and what the budget cut."""
    from types import SimpleNamespace

    from autotune.algorithms import get
    from autotune.search.results.outputs import Outputs, report_outcome
    from autotune.measure import Measurement, Status
    from autotune.search.run.trials import Evaluation

    config = get("delta").default_config()
    log = (Evaluation(Measurement(config, Status.OK, (5.0,)), "search", 0, "t", 1.0, roles=("default",)),
           Evaluation(Measurement(config, Status.PRUNED, reason="slower than the best"), "search", 1, "t", 1.0),
           Evaluation(Measurement(config, Status.INVALID, reason="too many registers"), "search", 2, "t", 1.0),
           Evaluation(Measurement(config, Status.INVALID, reason="too many registers"), "search", 3, "t", 1.0))
    studies = [SimpleNamespace(graph=SimpleNamespace(key="g", name="road"), best=None, log=log[:2],
                               protocol={"cut_by_budget": ["search", "curve"]}),
               SimpleNamespace(graph=SimpleNamespace(key="g", name="road"), best=None, log=log[2:], protocol={})]
    outputs = Outputs(tmp_path / "t.json", None, None, "auto", None, False, False)
    assert report_outcome(studies, {}, outputs, [], False) == 1
    err = capsys.readouterr().err.strip()
    assert err == ("autotune: road: no configuration verified: 4 measurements (2 invalid, 1 ok, 1 pruned); 1 of the "
                   "verified ones references (measured to compare with, never a winner); most common failure (2x): "
                   "too many registers; the budget cut curve, search")


@pytest.mark.parametrize("strategy", ["bayes", "exhaustive"])
def test_a_pareto_sweep_searches_both_objectives_and_lists_the_front(tmp_path, strategy):
    out = tmp_path / "t.json"
    trials = ["--trials", "10"] if strategy == "bayes" else []
    assert main(["sweep", "--replay", str(RECORDS), "--strategy", strategy, *trials, "--objective", "pareto", "-q",
                 "-o", str(out), "--storage", str(tmp_path / "s.db")]) == 0
    entry = json.loads(out.read_text())["entries"][0]
    front = [(p["ms_per_sssp"], p["ms_per_sssp"] * p["config"]["concurrent_kernels"]) for p in entry["x-pareto"]]
    curve = [(p["ms_per_sssp"], p["ms_per_sssp"] * p["config"]["concurrent_kernels"]) for p in entry["curve"]]
    assert front and all(not (o[0] <= f[0] and o[1] <= f[1] and o != f) for f in front for o in curve)
    assert all(c in front or any(f[0] <= c[0] and f[1] <= c[1] for f in front) for c in curve)
    assert entry["x-sweep"]["protocol"]["objectives"] == 2 and not entry["x-sweep"]["replay"].get("pruned")
    import optuna

    (name,) = optuna.get_all_study_names(f"sqlite:///{tmp_path / 's.db'}")
    study = optuna.load_study(study_name=name, storage=f"sqlite:///{tmp_path / 's.db'}")
    assert len(study.directions) == 2 and study.best_trials


def test_an_entry_lists_its_fastest_configurations_inside_the_space(tmp_path):
    out = tmp_path / "t.json"
    assert main(["sweep", "--replay", str(RECORDS), "--strategy", "exhaustive", "-q", "-o", str(out), "--ck", "1,2"]) == 0
    entry = json.loads(out.read_text())["entries"][0]
    times = [p["ms_per_sssp"] for p in entry["x-top"]]
    assert 1 < len(times) <= 12 and times == sorted(times) and times[0] == pytest.approx(min(
        p["ms_per_sssp"] for p in entry["curve"]))
    assert all(p["config"]["concurrent_kernels"] in (1, 2) and p["verified"] for p in entry["x-top"])


def test_a_budget_stops_the_search_and_still_writes_a_whole_table(tmp_path):
    """Each replayed measurement takes 20 ms: a 1-second budget cuts the 100-trial search short, the
    studies' waiting trials are dropped, and the table holds a verified best per graph (exit 0)."""
    import time

    out = tmp_path / "t.json"
    start = time.monotonic()
    assert main(["sweep", "--replay", str(RECORDS), "--replay-delay-ms", "20", "--budget", "1", "--trials", "100",
                 "--patience", "0",
                 "-q", "-o", str(out)]) == 0
    assert time.monotonic() - start < 10
    entry = _valid_table(out)["entries"][0]
    assert entry["best"]["verified"] and "search" in entry["x-sweep"]["protocol"]["cut_by_budget"]
    assert entry["evaluations"] < 100


def test_the_default_sweep_tunes_both_ends_of_the_queries_curve(tmp_path):
    out = tmp_path / "t.json"
    assert main(["sweep", "--replay", str(RECORDS), "-q", "-o", str(out)]) == 0
    table = _valid_table(out)
    entry = table["entries"][0]
    assert table["objective"] == "curve" and table["algorithm"] == "auto"
    cks = [p["config"]["concurrent_kernels"] for p in entry["curve"]]
    assert cks[0] == 1 and cks == sorted(cks)
    references = [entry[k]["config"] for k in ("default", "baseline") if k in entry]
    assert all(p["config"] not in references or p["config"]["concurrent_kernels"] > 1 for p in entry["curve"])


def test_time_the_studies_leave_over_goes_back_to_a_search_its_slice_cut_short(tmp_path, monkeypatch):
    """The batch end's slice is made 0.3 s: its search stops early, the other studies take their
    trials in less than their slices, and the batch end then searches on (`search.resume`)."""
    import autotune.cli.sweep as sweep_cli
    from autotune.search.run.plan import Budget

    def sweep(out):
        shares = []

        class FirstSliceShort(Budget):
            def share(self, weight, weights_left):
                super().share(weight, weights_left)
                shares.append(weight)
                if len(shares) == 1:
                    self.slice_end = self.clock() + 0.3

        monkeypatch.setattr(sweep_cli, "Budget", FirstSliceShort)
        assert main(["sweep", "--replay", str(RECORDS), "--replay-delay-ms", "20", "--budget", "60", "--trials", "30",
                     "--patience", "0", "-q", "-o", str(out)]) == 0  # a slice, not convergence, ends the search
        return _valid_table(out)["entries"][0], len(shares)

    resumed, slices = sweep(tmp_path / "resumed.json")
    monkeypatch.setattr(sweep_cli, "cut_short", lambda handle: False)
    alone, slices_alone = sweep(tmp_path / "alone.json")
    # a search the budget stopped early is marked so (docs/tables.md); `x-sweep` is the fastest
    # study's, which on a loaded machine need not be the batch end cut short: the entry says partial
    assert resumed["partial"] is True and alone["partial"] is True
    assert slices == slices_alone + 1  # the three studies, then the batch end again
    assert resumed["evaluations"] > alone["evaluations"]


class _Landscape:
    """A fake GPU timer for every algorithm: Δ-stepping of 32 lanes takes half Δ-stepping's time at
    every CK both have, the thesis's algorithms 8 times it."""

    def __init__(self, *args, **kwargs):
        self.calls = []

    def measure(self, config, stop=None, **options):
        import time
        import zlib

        from autotune.measure import Measurement, Status, asked_along

        self.calls.append(config)
        time.sleep(0.002)  # the records' timestamps (to the millisecond) then give the order of measurement
        ck = config.concurrent_kernels
        scale = {"delta": 1.0, "delta_lanes": 0.5}.get(config.algorithm, 8.0)
        ms = scale * (1 + 4 / ck) * (1 + zlib.crc32(config.key().encode()) % 50 / 1000)
        return asked_along(Measurement(config, Status.OK, times_ms=(ms, ms, ms), warm_up_ms=ms), stop)


def test_every_algorithm_s_ends_are_measured_before_any_curve_or_round(fake_gpu, tmp_path, monkeypatch):
    """Issue 68: an auto sweep holds each study after its ends (`search.sweep`'s `held` stage) until
    every algorithm's ends are measured; the curves' bridges and the finalists' rounds come after, and
    a finalist that another algorithm's point at its CK beats by more than 1.1x is not measured again."""
    import autotune.gpu

    monkeypatch.setattr(autotune.gpu, "CudaEventTimer", _Landscape, raising=False)
    out, records = tmp_path / "t.json", tmp_path / "r.jsonl"
    assert main(["sweep", "--graph", "rmat8", "--trials", "8", "--storage", "memory", "-o", str(out), "--records",
                 str(records), "-q"]) == 0
    lines = sorted(read_records(records), key=lambda r: r.timestamp)  # written study by study
    later = [i for i, r in enumerate(lines) if r.phase in ("curve", "compose", "remeasure")]
    ends = [i for i, r in enumerate(lines) if r.phase in ("search", "refine", "probe")]
    assert {"delta", "delta_lanes"} <= {r.algorithm for r in lines}
    assert later and ends and max(ends) < min(later)
    lanes = {r.measurement.config.concurrent_kernels for r in lines if r.algorithm == "delta_lanes" and r.measurement.ok}
    again = {(r.algorithm, r.measurement.config.concurrent_kernels) for r in lines if r.phase == "remeasure"}
    assert ("delta_lanes", 1024) in again and ("delta", 1) in again  # where nothing else beats them
    assert not any(algorithm == "delta" and ck in lanes for algorithm, ck in again)
    assert _valid_table(out)["entries"][0]["curve"][0]["config"]["concurrent_kernels"] == 1


def test_the_summary_names_each_study_and_prints_the_graph_s_curve(fake_gpu, tmp_path, monkeypatch, capsys):
    import autotune.gpu

    monkeypatch.setattr(autotune.gpu, "CudaEventTimer", _Landscape, raising=False)
    monkeypatch.setenv("COLUMNS", "120")
    assert main(["sweep", "--graph", "rmat8", "--trials", "8", "--storage", "memory", "-o", str(tmp_path / "t.json")]) == 0
    shown = capsys.readouterr()
    assert "rmat8 delta_lanes CK 32-1024" in shown.err and "rmat8 delta CK 1 " in shown.err  # a bar per study
    assert "delta_lanes" in shown.out and "crauser" in shown.out  # a row per study
    assert "pruned: slower than the" in shown.out and "none verified" not in shown.out  # the thesis's: 8x slower
    curve = [line for line in shown.out.splitlines() if line.startswith("rmat8: ms per SSSP by SSSPs at once: 1: ")]
    assert len(curve) == 1 and "out-of-thread" not in shown.err


def test_a_reference_outside_the_space_is_measured_after_the_search(fake_gpu, tmp_path):
    """The default (CK 1) lies outside a `--ck 16` sweep's space: it is measured whole once the
    search is done, not before it (first, it took a road network's whole budget)."""
    out, records = tmp_path / "t.json", tmp_path / "r.jsonl"
    assert main(["sweep", "--graph", "rmat8", "--algorithm", "crauser", "--objective", "throughput", "--ck", "16",
                 "--trials", "8", "--repetitions", "2", "--storage", "memory", "-o", str(out), "--records",
                 str(records), "-q"]) == 0
    lines = read_records(records)
    default = [i for i, r in enumerate(lines) if "default" in r.roles]
    search = [i for i, r in enumerate(lines) if r.phase == "search" and r.measurement.config.concurrent_kernels == 16]
    assert default and len(search) >= 8 and max(search) < default[0]
    (entry,) = json.loads(out.read_text())["entries"]
    assert entry["best"]["config"]["concurrent_kernels"] == 16 and entry["default"]["config"]["concurrent_kernels"] == 1


def test_a_budget_spent_on_the_search_leaves_out_a_slow_reference_outside_the_space(fake_gpu, tmp_path, monkeypatch):
    """The default outside the space costs more than the whole budget, and the search alone fills
    it: the search finds a best, and the table is written without the default (never measured),
    exit 0. (Measured first, the default left the search no time: no best, exit 1.)"""
    import time

    from autotune.algorithms import get
    from autotune.search.timers.synthetic import SyntheticTimer

    default = get("crauser").default_config()
    measure = SyntheticTimer.measure

    def slow_default(self, config, *args, **kwargs):
        time.sleep(5.0 if config == default else 0.05)  # the default: Δ-stepping's at CK 1 on road-FLA
        return measure(self, config, *args, **kwargs)

    monkeypatch.setattr(SyntheticTimer, "measure", slow_default)
    out = tmp_path / "t.json"
    started = time.monotonic()
    assert main(["sweep", "--graph", "rmat8", "--algorithm", "crauser", "--objective", "throughput", "--ck", "16",
                 "--budget", "3", "--patience", "0", "--storage", "memory", "-o", str(out), "-q"]) == 0
    (entry,) = json.loads(out.read_text())["entries"]  # (patience off: the search fills the budget, as it premises)
    assert entry["best"]["config"]["concurrent_kernels"] == 16 and "default" not in entry
    assert entry["x-sweep"]["protocol"]["cut_by_budget"] and time.monotonic() - started < 5.0


def test_each_entry_records_when_and_by_which_code_it_was_measured_and_a_merge_keeps_it(tmp_path):
    from autotune import __version__
    from autotune.resources import source_commit

    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out in (first, second):
        assert main(["sweep", "--replay", str(RECORDS), "--strategy", "model", "--storage", "memory", "-q",
                     "-o", str(out)]) == 0
    measured = _valid_table(first)["entries"][0]["x-measured"]
    assert measured["tool_version"] == __version__ and measured["commit"] == source_commit()
    assert measured["date"][:4].isdigit() and measured["date"].endswith("+00:00")
    assert main(["table", "merge", str(first), str(second), "--prefer", "newer", "-q", "-o",
                 str(tmp_path / "m.json")]) == 0
    assert _valid_table(tmp_path / "m.json")["entries"][0]["x-measured"] == _valid_table(second)["entries"][0]["x-measured"]


def test_max_memory_keeps_every_batch_within_it_and_the_table_records_each_point_s_memory(tmp_path, fake_gpu):
    """--max-memory: no CK whose workspaces do not fit is tried; each curve point's memory is in x-memory."""
    from autotune import algorithms
    from autotune.cli.options import load_spec
    from autotune.table import Table

    graph = load_spec("random2000-d4")
    crauser = algorithms.get("crauser")
    cap = crauser.memory_bytes(graph.n_vertices, graph.n_edges, 20) / 0.9  # room for about 20 instances
    fit = crauser.instances_that_fit(graph.n_vertices, graph.n_edges, int(cap))
    table_path = tmp_path / "t.json"
    assert main(["sweep", "--graph", "random2000-d4", "--algorithm", "crauser", "--trials", "8", "--repetitions", "2",
                 "--max-memory", str(int(cap)), "--storage", "memory", "-o", str(table_path), "-q"]) == 0
    entry = Table.load(table_path).entries[0]
    cks = [p.ck for p in entry.curve]
    assert cks and max(cks) <= fit < 32
    assert all(entry.memory_at(ck) == crauser.memory_bytes(graph.n_vertices, graph.n_edges, ck) <= cap for ck in cks)
    assert _valid_table(table_path)["device"]["x-max-memory"] == int(cap)


@pytest.mark.parametrize("size", ["lots", "0", "-4G"])
def test_a_bad_max_memory_is_one_line(size, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["sweep", "--graph", "rmat8", f"--max-memory={size}"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "--max-memory" in err and err.count("\n") == 1
