"""No command writes over a file that is not its own kind of output (issue 65): each refuses with
one line and exit 2 and leaves the file as it was; its own earlier output it replaces."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autotune.cli import main

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "tables" / "h100.json"
GRAPH = ROOT / "tests" / "data" / "rome99.gr.gz"


@pytest.fixture
def victims(tmp_path):
    """A copy of a table and of a graph file, the files a mistyped -o would hit."""
    table, graph = tmp_path / "table.json", tmp_path / "rome99.gr.gz"
    shutil.copy(TABLE, table)
    shutil.copy(GRAPH, graph)
    return {"table": table, "graph": graph}


def _refused(argv, victim: Path, capsys) -> str:
    before = victim.read_bytes()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert victim.read_bytes() == before and len(err.splitlines()) == 1 and "Traceback" not in err
    return err


@pytest.mark.parametrize("kind", ["table", "graph"])
@pytest.mark.parametrize("fmt", ["c-header", "json"])
def test_table_export_writes_over_no_table_or_graph(victims, kind, fmt, capsys):
    err = _refused(["table", "export", str(TABLE), "--format", fmt, "-o", str(victims[kind])], victims[kind], capsys)
    assert f"{victims[kind]}: exists and is not a" in err


@pytest.mark.parametrize("fmt", ["c-header", "json"])
def test_table_export_replaces_its_own_earlier_export(tmp_path, fmt):
    out = tmp_path / "export"
    assert main(["table", "export", str(TABLE), "--format", fmt, "-o", str(out)]) == 0
    first = out.read_bytes()
    assert main(["table", "export", str(TABLE), "--format", fmt, "-o", str(out)]) == 0
    assert out.read_bytes() == first


@pytest.mark.parametrize("option", ["--save"])
def test_sssp_cpu_save_writes_over_no_table(victims, option, capsys):
    err = _refused(["sssp", "--graph", str(GRAPH), "--cpu", option, str(victims["table"])], victims["table"], capsys)
    assert "is not a .npy array (--save)" in err


def test_sssp_cpu_save_replaces_its_own_distances(tmp_path):
    import numpy as np

    out = tmp_path / "d.npy"
    for source in ("0", "1"):
        assert main(["sssp", "--graph", str(GRAPH), "--cpu", "--source", source, "--save", str(out)]) == 0
    assert np.load(out)[1] == 0


def test_model_fit_choice_writes_over_no_graph(victims, capsys):
    err = _refused(["model", "fit-choice", str(TABLE), "-o", str(victims["graph"])], victims["graph"], capsys)
    assert "is not a choice model" in err


def test_model_fit_writes_over_no_table(victims, capsys):
    records = ROOT / "benchmarks" / "data" / "h100" / "crauser.records.jsonl.gz"
    err = _refused(["model", "fit", str(records), "--features", str(TABLE), "-o", str(victims["table"])],
                   victims["table"], capsys)
    assert "is not a fitted model" in err
