"""The committed models and results are what their committed commands compute from the committed
records (no GPU): the fitted models are the fit of their records, Δ-stepping's constants too, and
the CPU suites' results files hold what the suites compute now."""
from __future__ import annotations

import argparse
import importlib
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "benchmarks" / "data" / "h100"


@pytest.mark.parametrize("algorithm", ["crauser", "martin"])
def test_the_shipped_fitted_models_are_the_fit_of_their_committed_records(algorithm, monkeypatch, tmp_path):
    from autotune.cli import main

    monkeypatch.chdir(ROOT)
    out = tmp_path / "fitted.toml"
    assert main(["model", "fit", f"benchmarks/data/h100/{algorithm}.records.jsonl.gz", "--features",
                 "benchmarks/data/h100/crauser-table.json.gz", "-o", str(out)]) == 0
    assert out.read_text() == (ROOT / "characterizations" / f"fitted-h100-{algorithm}.toml").read_text()


def test_the_delta_model_s_constants_are_the_fit_of_the_committed_records(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("fit_delta_model", ROOT / "scripts" / "fit_delta_model.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    shipped = ROOT / "autotune" / "algorithms" / "delta" / "delta.toml"
    copy = tmp_path / "delta.toml"
    copy.write_text(shipped.read_text())
    assert script.main(["benchmarks/data/h100/delta-grid.jsonl.gz", "benchmarks/data/h100/delta-grid-power-3415118.jsonl.gz",
                        "--width-rows", "benchmarks/data/h100/bins-grid-4d19028.jsonl.gz", "--wide-rows",
                        "benchmarks/data/h100/ck-bs-grid-e6e4b8e.jsonl.gz", "--write", str(copy)]) == 0
    assert copy.read_text() == shipped.read_text()


@pytest.mark.parametrize("suite", ["model", "lookup", "tuner", "choice"])
def test_a_cpu_suite_s_committed_results_are_what_it_computes(suite):
    from benchmarks import SUITES, results

    committed = results.newest(suite)
    assert committed, f"no committed results of suite {suite}"
    module = importlib.import_module(SUITES[suite].module)
    args = argparse.Namespace(records_gpu="h100", no_nested=not committed[0].parameters.get("nested", True),
                              **{k: v for k, v in committed[0].parameters.items() if k in ("trials", "seeds")})
    now = module.run(args)

    def comparable(value):  # as the results file holds it (no Infinity: null)
        from benchmarks.results import json_safe

        return json.loads(json.dumps(json_safe(value)))

    assert comparable(now.summary) == comparable(committed[0].summary)
    assert comparable(list(now.measurements)) == comparable(list(committed[0].measurements))
