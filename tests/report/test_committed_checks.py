"""The committed H100 checks are reproducible: scripts/lookup_check.py and scripts/model_check.py,
run again on the committed table and records (no GPU), print exactly the committed reports."""
from __future__ import annotations

import contextlib
import importlib.util
import io
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
H100 = ROOT / "reports" / "h100"


def _run(script: str, argv: list[str]) -> str:
    spec = importlib.util.spec_from_file_location(script, ROOT / "scripts" / f"{script}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert module.main(argv) == 0
    return out.getvalue()


@pytest.mark.parametrize(("script", "report", "records"), [("lookup_check", "lookup-check.md", "sweeps"),
                                                         ("model_check", "model-check.md", "sweeps"),
                                                         ("model_check", "model-check-martin.md", "sweeps-martin")])
def test_a_committed_check_prints_its_committed_report(script, report, records, monkeypatch):
    monkeypatch.chdir(ROOT)
    printed = _run(script, ["reports/h100/table.json", f"reports/h100/{records}"])
    assert printed == (H100 / report).read_text()


@pytest.mark.parametrize("algorithm", ["crauser", "martin"])
def test_the_shipped_fitted_models_are_the_fit_of_their_committed_records(algorithm, monkeypatch, tmp_path):
    from autotune.cli import main

    monkeypatch.chdir(ROOT)
    records = {"crauser": "reports/h100/sweeps", "martin": "reports/h100/sweeps-martin"}[algorithm]
    out = tmp_path / "fitted.toml"
    assert main(["model", "fit", records, "--features", "reports/h100/table.json", "-o", str(out)]) == 0
    assert out.read_text() == (ROOT / "characterizations" / f"fitted-h100-{algorithm}.toml").read_text()


DELTA_RUNS = [f"reports/h100/delta/{run}" for run in (
    "run-a", "run-b", "run-c", "run-d", "run-h/grid", "run-h/grid-rmat20-1", "run-h/grid-rmat20-2", "run-h/grid-rome99")]


def test_the_delta_model_s_constants_are_the_fit_of_the_committed_records(monkeypatch, tmp_path):
    """scripts/fit_delta_model.py prints the committed check, and writing its constants into a copy
    of the characterization changes nothing: the shipped constants are the records' fit."""
    monkeypatch.chdir(ROOT)
    shipped = ROOT / "characterizations" / "delta.toml"
    copy = tmp_path / "delta.toml"
    copy.write_text(shipped.read_text())
    printed = _run("fit_delta_model", [*DELTA_RUNS, "--write", str(copy)])
    assert printed == (H100 / "delta" / "model-check.md").read_text()
    assert copy.read_text() == shipped.read_text()
