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


@pytest.mark.parametrize(("script", "report"), [("lookup_check", "lookup-check.md"), ("model_check", "model-check.md")])
def test_a_committed_check_prints_its_committed_report(script, report, monkeypatch):
    monkeypatch.chdir(ROOT)
    printed = _run(script, ["reports/h100/table.json", "reports/h100/sweeps"])
    assert printed == (H100 / report).read_text()
