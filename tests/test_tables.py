"""The JSON tables: the shipped schema, building, validating, atomic writing, reading."""
from __future__ import annotations

import builtins
import json
import os

import jsonschema
import pytest

from autotune import __version__
from autotune.errors import AutotuneError, InputError
from autotune.model import GraphFeatures, classify, load_device
from autotune.algorithms.thesis.rules import predict
from autotune.algorithms.thesis import CRAUSER
from autotune.table.format import (
    SCHEMA_ID,
    build_table,
    device_section,
    entry_config,
    make_entry,
    measured,
    read_table,
    schema,
    schema_path,
    validate_table,
    write_table,
)

FEATURES = GraphFeatures.from_mean_degree("random24k-d20", 24576, 20)


def _predicted_table(device_name: str = "hopper-h100") -> dict:
    device = load_device(device_name)
    prediction = predict(FEATURES, device)
    entry = make_entry(prediction.graph.to_json(), predicted=prediction.to_json())
    return build_table(device_section(device), [entry], "crauser", command="autotune predict ...")


def _full_validate(table: dict) -> None:
    """Validation straight with jsonschema, as a second opinion on validate_table."""
    jsonschema.Draft202012Validator(schema()).validate(table)


def _sweep_table() -> dict:
    """A table as the sweep writes it: measured parts and every optional entry key."""
    device = load_device("hopper-h100")
    prediction = predict(FEATURES, device)
    default = CRAUSER.default_config()
    best = prediction.config.replace(concurrent_kernels=8)
    entry = make_entry(
        prediction.graph.to_json() | {"sha256": "ab" * 32, "seed": 0, "weights": "1-100", "max_degree": 20},
        predicted=prediction.to_json(),
        best=measured(best, 0.81, True, times_ms=[0.8, 0.81, 0.83], kernel_ms={"relax": 0.5, "minimum": 0.2, "update": 0.1, "other": 0.01},
                      gteps=0.6, iterations=41.5, sources=8, status="ok"),
        baseline=measured(CRAUSER.uniform(1024), 1.9, True),
        default=measured(default, 1.2, True),
        model=measured(prediction.config, 0.9, True),
        strategy="bayes",
        evaluations=120,
        tuning_seconds=93.5,
        speedup_over_default=1.2 / 0.81,
        speedup_over_baseline=1.9 / 0.81,
        model_gap=0.9 / 0.81 - 1,
        partial=False,
        kernel_ms={"relax": 0.5},
    )
    entry["x-note"] = "extensions start with x-"
    section = device_section(device, cuda_version="13.0", driver_version="580.159.04")
    return build_table(section, [entry], "martin", created="2025-01-02T03:04:05+00:00")


def test_schema_is_shipped_in_the_package():
    assert schema_path().is_file()
    assert schema_path().parent.name == "schemas" and schema_path().parent.parent.name == "autotune"
    data = schema()
    assert data["properties"]["schema"]["const"] == SCHEMA_ID
    jsonschema.Draft202012Validator.check_schema(data)


def test_predicted_table_is_valid():
    table = _predicted_table()
    validate_table(table)
    _full_validate(table)
    assert table["schema"] == SCHEMA_ID and table["tool_version"] == __version__
    assert table["device"]["name"] == "hopper-h100" and table["device"]["sm_count"] == 132
    assert table["device"]["compute_capability"] == "9.0" and table["device"]["profile"] == "hopper-h100"
    graph = table["entries"][0]["graph"]
    assert graph["stress_class"] == "low" and graph["degree_class"] == "low"
    assert set(graph) >= {"name", "vertices", "edges", "mean_degree", "stress_ratio", "stress_class", "degree_class"}


def test_sweep_table_with_every_optional_key_is_valid():
    table = _sweep_table()
    validate_table(table)
    _full_validate(table)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t.pop("device"), "'device' is a required property"),
        (lambda t: t["device"].pop("sm_count"), "'sm_count' is a required property"),
        (lambda t: t["entries"][0]["graph"].update(stress_class="extreme"), "entries/0/graph/stress_class"),
        (lambda t: t["entries"][0]["best"].pop("verified"), "'verified' is a required property"),
        (lambda t: t["entries"][0]["best"]["config"]["kernels"]["relax"].update(block_size=100), "block_size"),
        (lambda t: t["entries"][0]["best"]["config"]["kernels"]["minimum"].update(lanes=2), "lanes"),
        (lambda t: t["entries"][0].update(speed=1), "entries/0: unknown key(s) 'speed' (free extensions start with 'x-')"),
        (lambda t: t.update(colour="red"), "(top): unknown key(s) 'colour'"),
        (lambda t: t["entries"][0]["graph"].update(colour="red"), "entries/0/graph: unknown key(s) 'colour'"),
    ],
)
def test_invalid_tables_are_rejected_with_the_path(change, message):
    table = _sweep_table()
    change(table)
    with pytest.raises(InputError) as caught:
        validate_table(table, where="t.json")
    assert str(caught.value).startswith("t.json: ")
    assert message in str(caught.value)


def test_another_schema_version_is_a_clear_error(tmp_path):
    table = _predicted_table() | {"schema": "autotune.table/9"}
    path = tmp_path / "future.json"
    path.write_text(json.dumps(table))
    with pytest.raises(InputError) as caught:
        read_table(path)
    assert "schema 'autotune.table/9' is not supported" in str(caught.value)
    assert SCHEMA_ID in str(caught.value)
    path.write_text(json.dumps({"schema": "something/else"}))
    with pytest.raises(InputError, match="not an autotune table"):
        read_table(path)


def test_write_then_read(tmp_path):
    path = tmp_path / "sub" / "table.json"
    table = _sweep_table()
    assert write_table(path, table) == path
    assert read_table(path) == table
    assert [p.name for p in path.parent.iterdir()] == ["table.json"]  # no temporary file left
    assert path.read_text().endswith("\n")


def test_invalid_table_is_not_written_and_the_old_one_stays(tmp_path):
    path = tmp_path / "table.json"
    write_table(path, _predicted_table())
    before = path.read_text()
    broken = _predicted_table()
    broken["entries"][0]["graph"].pop("vertices")
    with pytest.raises(InputError):
        write_table(path, broken)
    assert path.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.json"]


def test_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    def refuse(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(AutotuneError, match="cannot write the table: No space left on device"):
        write_table(tmp_path / "t.json", _predicted_table())
    assert list(tmp_path.iterdir()) == []


def test_read_errors(tmp_path):
    with pytest.raises(InputError, match="cannot read the table"):
        read_table(tmp_path / "absent.json")
    path = tmp_path / "bad.json"
    path.write_text('{\n  "schema": \n}')
    with pytest.raises(InputError, match=r"bad.json:3: invalid JSON"):
        read_table(path)
    path.write_text("[1, 2]")
    with pytest.raises(InputError, match="must be a JSON object"):
        read_table(path)


def test_entry_config():
    table = _sweep_table()
    entry = table["entries"][0]
    assert entry_config(entry, "default") == CRAUSER.default_config()
    assert entry_config(entry, "baseline") == CRAUSER.uniform(1024)
    assert entry_config(make_entry(entry["graph"]), "best") is None
    with pytest.raises(ValueError):
        entry_config(entry, "worst")


def test_validation_without_jsonschema_checks_the_essentials(monkeypatch):
    real_import = builtins.__import__

    def no_jsonschema(name, *args, **kwargs):
        if name == "jsonschema" or name.startswith("jsonschema."):
            raise ImportError("No module named 'jsonschema'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_jsonschema)
    validate_table(_sweep_table())
    broken = _sweep_table()
    broken["entries"][0]["best"]["config"]["kernels"]["relax"]["block_size"] = 100
    with pytest.raises(InputError, match="not a multiple of the warp size"):
        validate_table(broken)
    broken = _sweep_table()
    del broken["entries"][0]["default"]["ms_per_sssp"]
    with pytest.raises(InputError, match="needs ms_per_sssp and verified"):
        validate_table(broken)
    with pytest.raises(AutotuneError, match="needs the jsonschema package"):
        validate_table(_sweep_table(), require_jsonschema=True)


def test_classify_to_json_matches_the_schema():
    graph = classify(FEATURES, load_device("fermi-gf100")).to_json()
    table = build_table({"name": "x", "compute_capability": "2.0", "sm_count": 15}, [make_entry(graph)], "crauser")
    _full_validate(table)
