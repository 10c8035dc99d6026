"""The model against the measurement for every algorithm (`report.model_values`): value by value,
with costs from what was measured, and the report's section and figure over a table of four
algorithms (issue 67: the thesis's check filled 2 rows of the H100 table's 36)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from autotune.algorithms import get
from autotune.report.model_values import ALGORITHM, value_checks, values_of

ROOT = Path(__file__).resolve().parents[2]


def test_each_value_is_checked_and_a_miss_costs_the_fastest_measured_with_it():
    delta = get("delta")
    best = delta.uniform(512, concurrent_kernels=64, params={"delta": 64})
    predicted = delta.uniform(256, concurrent_kernels=64, params={"delta": 32})
    measured = [(best, 1.0), (delta.uniform(256, concurrent_kernels=64, params={"delta": 64}), 1.25),
                (delta.uniform(256, concurrent_kernels=8, params={"delta": 64}), 1.01),  # another CK: no price
                (delta.uniform(512, concurrent_kernels=64, params={"delta": 32}), 1.015)]
    checks = {c.value: c for c in value_checks("g", predicted, best, 1.0, measured, {"delta": "delta 1"})}
    assert set(checks) == set(values_of(best))
    assert checks["CK"].hit and checks["advance L1"].hit
    block = checks["advance block"]
    assert not block.hit and block.cost == pytest.approx(0.25) and block.state == "missed"
    assert checks["delta"].cost == pytest.approx(0.015) and checks["delta"].held and checks["delta"].rule == "delta 1"
    unpriced = value_checks("g", predicted, best, 1.0, [])
    assert {c.state for c in unpriced if not c.hit} == {"not searched"}


def test_another_algorithm_is_one_miss_of_the_algorithm():
    best = get("phast").default_config()
    (check,) = value_checks("g", get("delta").default_config(), best, 1.0, [])
    assert (check.value, check.predicted, check.best, check.hit) == (ALGORITHM, "delta", "phast", False)


def test_the_report_checks_every_algorithm_of_the_h100_table(tmp_path, capsys):
    from autotune.cli import main

    out = tmp_path / "report"
    assert main(["report", str(ROOT / "tables" / "h100.json"), "-o", str(out), "--json", "-q"]) == 0
    data = json.loads(capsys.readouterr().out)
    table = json.loads((ROOT / "tables" / "h100.json").read_text())
    checked = {g["graph"]["name"]: g["model_values"] for g in data["graphs"] if g["model_values"]}
    algorithms = {values[0]["algorithm"] for values in checked.values()}
    assert len(checked) == len(table["entries"]) and algorithms == {"crauser", "delta", "delta_lanes", "phast"}
    readme = (out / "README.md").read_text()
    assert "### Every algorithm, value by value" in readme
    for name in algorithms:
        assert f"| {name} |" in readme
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    assert (out / "figures" / "model-values.png").is_file()
