"""What a sweep writes: the JSON table (schema autotune.table/1) and the T4 results file."""
from __future__ import annotations

import json

import jsonschema
import pytest

from autotune.table import format as tables
from autotune.measure import Status
from autotune.search import GraphPlan, Exhaustive, ModelOnly, ReplayTimer, SweepSettings, records_of, sweep_table, t4_results, write_t4
from autotune.search.timers.synthetic import SyntheticTimer
from autotune.algorithms.thesis import CRAUSER

from search_shared import default_specials

# The T4 results format's field list (TuningSchema results-schema.json 1.0.0, as Kernel Tuner
# ships it), written out here: required configuration, times, invalidity, correctness.
T4_FIELDS = {
    "type": "object",
    "required": ["schema_version", "results"],
    "properties": {
        "schema_version": {"type": "string", "pattern": r"^[0-9]+\.[0-9]+\.[0-9]+$"},
        "results": {"type": "array", "items": {
            "type": "object",
            "required": ["timestamp", "configuration", "objectives", "times", "invalidity", "correctness",
                         "measurements"],
            "properties": {
                "timestamp": {"type": "string"},
                "configuration": {"type": "object"},
                "objectives": {"type": "array"},
                "times": {"type": "object", "properties": {
                    "compilation_time": {"type": "number"}, "runtimes": {"type": "array"},
                    "framework": {"type": "number"}, "search_algorithm": {"type": "number"},
                    "validation": {"type": "number"}}},
                "invalidity": {"enum": ["timeout", "compile", "runtime", "correctness", "constraints", "correct"]},
                "correctness": {"type": "number"},
                "measurements": {"type": "array", "items": {"type": "object", "required": ["name", "value", "unit"],
                                 "properties": {"name": {"type": "string"}, "value": {"type": ["number", "string", "array"]},
                                                "unit": {"type": "string"}}}},
            },
        }},
    },
}


@pytest.fixture
def exhaustive_result(run_sweep):
    from autotune.search import SearchSpace

    space = SearchSpace.from_options(block_sizes="32,64,1024", caches="prefer_l1,no_l1", ck="1,4", lanes="1")
    flaky = CRAUSER.uniform(64, "no_l1", 4, 1)
    result, _ = run_sweep(SyntheticTimer(flaky=(flaky,)), space, Exhaustive())
    return result


def test_t4_results_follow_the_field_list(exhaustive_result, tmp_path):
    data = t4_results(exhaustive_result)
    jsonschema.validate(data, T4_FIELDS)
    assert len(data["results"]) == exhaustive_result.evaluations
    invalidity = {r["invalidity"] for r in data["results"]}
    assert invalidity == {"correct", "runtime", "correctness"}
    wrong = [r for r in data["results"] if r["invalidity"] == "correctness"]
    assert all(r["correctness"] == 0 for r in wrong)
    ok = next(r for r in data["results"] if r["invalidity"] == "correct")
    assert ok["objectives"] == ["ms_per_sssp"]
    assert set(ok["configuration"]) == {"algorithm", "concurrent_kernels", "relax_block_size", "relax_cache", "relax_lanes",
                                        "minimum_block_size", "minimum_cache", "update_block_size", "update_cache"}
    names = {m["name"] for m in ok["measurements"]}
    assert {"ms_per_sssp", "relax_ms", "minimum_ms", "update_ms", "gteps"} <= names
    path = write_t4(tmp_path / "t4", exhaustive_result)
    assert json.loads(path.read_text()) == data


def test_t4_leaves_out_what_a_replay_could_not_answer(small_space, run_sweep):
    live, _ = run_sweep(SyntheticTimer(), small_space, ModelOnly(), settings=SweepSettings(finalists=1, rounds=0))
    records = [r for r in records_of(live) if r.measurement.config != CRAUSER.uniform(64)]
    replayed, _ = run_sweep(ReplayTimer(records, compose=False), small_space, ModelOnly(),
                            settings=SweepSettings(finalists=1, rounds=0))
    assert replayed.replay["not_recorded"] == 1
    assert len(t4_results(replayed)["results"]) == replayed.evaluations - 1


def test_the_table_validates_against_the_shipped_schema(exhaustive_result, device):
    table = sweep_table([exhaustive_result], device, "crauser", command="autotune sweep ...")
    schema = json.loads(tables.schema_path().read_text())
    jsonschema.validate(table, schema)
    tables.validate_table(table, require_jsonschema=True)
    (entry,) = table["entries"]
    assert entry["best"]["config"] == exhaustive_result.best.config.to_json()
    assert entry["best"]["verified"] is True and entry["best"]["times_ms"]
    assert entry["strategy"] == "exhaustive" and entry["partial"] is False
    assert entry["speedup_over_default"] == pytest.approx(exhaustive_result.speedup_over_default)
    assert entry["x-sweep"]["trials"] == exhaustive_result.trials
    assert "x-partial" not in table


def test_a_partial_sweep_s_table_is_marked_partial(small_space, run_sweep, device, capsys):
    result, _ = run_sweep(SyntheticTimer(interrupt_after=3), small_space, Exhaustive())
    table = sweep_table([result], device, "crauser")
    tables.validate_table(table, require_jsonschema=True)
    assert table["x-partial"] is True and table["entries"][0]["partial"] is True
    said = capsys.readouterr().err  # what was in flight (grid24's sweep was stopped in one, unnamed)
    assert said.startswith("autotune: interrupted ") and " s into measuring crauser CK" in said


def test_specials_that_failed_are_kept_out_of_the_measured_parts(small_space, run_sweep, device):
    broken_default = CRAUSER.uniform(256, "prefer_l1").replace(update=CRAUSER.uniform(32, "prefer_l1").update)
    specials = default_specials()
    specials = type(specials)(default=broken_default, baseline_candidates=specials.baseline_candidates,
                              prediction=specials.prediction)
    result, _ = run_sweep(SyntheticTimer(), small_space, ModelOnly(), specials=specials)
    assert result.default.status is Status.WRONG and result.speedup_over_default is None
    table = sweep_table([result], device, "crauser")
    tables.validate_table(table, require_jsonschema=True)
    entry = table["entries"][0]
    assert "default" not in entry and "speedup_over_default" not in entry
    assert entry["x-sweep"]["failed_specials"]["default"]["status"] == "wrong"


def test_the_progress_bar_and_the_summary_render(small_space, device, graph):
    import io

    from rich.console import Console

    from autotune.search import StudyKey, open_storage, open_study, sweep_graph
    from autotune.search.run.progress import RichProgress
    from autotune.search.results.summary import render_summary

    stream = io.StringIO()
    console = Console(file=stream, width=150, force_terminal=False)
    storage, url = open_storage("memory")
    key = StudyKey(graph.sha256, "crauser", device["name"], "exhaustive", small_space.digest(), {})
    handle = open_study(storage, url, key, Exhaustive().sampler(small_space), resume=False)
    with RichProgress(console) as progress:
        plan = GraphPlan(graph, small_space, Exhaustive(), default_specials())
        result = sweep_graph(SyntheticTimer(), plan, handle, device, progress=progress)
    render_summary([result], console, written=["table.json"])
    text = stream.getvalue()
    assert f"{result.trials}/{result.trials} trials" in text and "best" in text
    assert "autotune sweep on Synthetic GPU" in text and "wrote table.json" in text
    assert f"{result.best.ms_per_sssp:.3f}" in text
