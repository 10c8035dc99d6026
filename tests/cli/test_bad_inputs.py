"""The defects issue 30 found by hand, each with its test, and the rules behind them: an output
that is an input is refused, an existing records file is never overwritten (a resumed sweep
appends), and every reader turns a decoding error into the one-line error naming the file (exit 2)
(distances past 32 bits: tests/test_distance_width.py)."""
from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest

from autotune.cli import main
from autotune.errors import InputError

DATA = Path(__file__).parents[1] / "data"
RECORDS = DATA / "records" / "synthetic-rmat12.jsonl"


def _replay(tmp_path: Path, *extra: str) -> list[str]:
    return ["sweep", "--replay", str(tmp_path / "rec.jsonl"), "--strategy", "model", "-q", *extra]


@pytest.fixture
def records(tmp_path: Path) -> Path:
    target = tmp_path / "rec.jsonl"
    target.write_bytes(RECORDS.read_bytes())
    return target


def test_a_replay_refuses_to_write_its_table_over_its_records(tmp_path, records, capsys):
    before = records.read_bytes()
    assert main(_replay(tmp_path, "-o", str(records))) == 2
    assert "also --replay" in capsys.readouterr().err
    assert records.read_bytes() == before


def test_an_existing_records_file_is_never_overwritten(tmp_path, records, capsys):
    kept = tmp_path / "kept.jsonl"
    kept.write_text("# hours of measurements\n")
    assert main(_replay(tmp_path, "-o", str(tmp_path / "t.json"), "--records", str(kept))) == 2
    assert "never overwritten" in capsys.readouterr().err
    assert kept.read_text() == "# hours of measurements\n"
    assert not (tmp_path / "t.json").exists()


def test_a_resumed_sweep_appends_to_its_records(tmp_path, records):
    storage, out = tmp_path / "s.db", tmp_path / "new.jsonl"
    argv = _replay(tmp_path, "-o", str(tmp_path / "t.json"), "--records", str(out), "--storage", str(storage))
    assert main(argv) == 0
    first = out.read_text().splitlines()
    out.write_text("\n".join(first + ['{"format": "autotune.records/1", "note": "a line only this file has"}']) + "\n")
    assert main([*argv, "--resume"]) == 0
    again = out.read_text().splitlines()
    assert again[: len(first) + 1] == first + ['{"format": "autotune.records/1", "note": "a line only this file has"}']
    assert len(again) == len(first) + 1  # the resumed study measured nothing new: nothing written twice


def test_a_table_is_not_written_over_another_kind_of_file(tmp_path, records, capsys):
    other = tmp_path / "notes.json"
    other.write_text('{"mine": true}')
    assert main(_replay(tmp_path, "-o", str(other))) == 2
    assert "is not an autotune table" in capsys.readouterr().err
    assert other.read_text() == '{"mine": true}'


@pytest.mark.parametrize("argv", [
    ["table", "show", "{f}"], ["sssp", "--graph", "rmat8", "--table", "{f}"], ["sssp", "--graph", "rmat8", "--config", "{f}"],
    ["predict", "--graph", "rmat8", "--device", "{f}"], ["predict", "--graph", "rmat8", "--device", "hopper-h100", "--model", "{f}"],
    ["sweep", "--replay", "{f}"], ["table", "merge", "{f}", "-o", "{d}/m.json"], ["report", "{f}", "-o", "{d}/r"],
    ["model", "fit", "{f}", "--features", "{f}", "-o", "{d}/m.toml"]])
@pytest.mark.parametrize("content", [b"\xff\xfe{\x00}\x00", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"])
def test_every_reader_names_a_file_it_cannot_decode(argv, content, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    status = main([a.replace("{f}", str(bad)).replace("{d}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.count("\n") == 1 and str(bad) in err and "UTF-8" in err


@pytest.mark.parametrize("bad", [dict(vertices=math.nan, mean_degree=2.0), dict(vertices=10, mean_degree=math.inf),
                                 dict(vertices=10, mean_degree=2.0, degree_cv=math.nan), dict(vertices="10", mean_degree=2)])
def test_lookup_refuses_features_that_are_not_finite_numbers(bad):
    from autotune.table.lookup import Table

    table = Table({"schema": "autotune.table/2", "device": {"name": "x"}, "entries": []})
    with pytest.raises(InputError, match="finite number"):
        table.lookup(device=None, **bad)


def test_report_refuses_a_file_as_its_directory(tmp_path, capsys):
    existing = tmp_path / "out"
    existing.write_text("mine")
    assert main(["report", str(RECORDS), "--no-figures", "-o", str(existing)]) == 2
    assert "is a file" in capsys.readouterr().err
    assert existing.read_text() == "mine"


def test_report_leaves_a_readme_it_did_not_write(tmp_path, capsys):
    (tmp_path / "README.md").write_text("# my project\n")
    assert main(["report", str(RECORDS), "--no-figures", "-o", str(tmp_path)]) == 2
    assert "not a README written by autotune report" in capsys.readouterr().err
    assert (tmp_path / "README.md").read_text() == "# my project\n"


@pytest.mark.parametrize(("option", "value"), [("--noise", "-1"), ("--max-repetitions", "2"), ("--finalists", "0"),
                                               ("--rounds", "0"), ("--noise", "nan"), ("--prune-factor", "inf")])
def test_sweep_refuses_meaningless_measurement_options(option, value, tmp_path, records, capsys):
    assert main(_replay(tmp_path, "--repetitions", "3", option, value, "-o", str(tmp_path / "t.json"))) == 2
    assert option in capsys.readouterr().err


def test_a_torn_last_record_is_skipped_with_a_note(tmp_path, records, capsys):
    whole = records.read_text()
    records.write_text(whole + whole.splitlines()[1][:150])  # a line cut short, no newline: a killed append
    assert main(_replay(tmp_path, "-o", str(tmp_path / "t.json"))) == 0
    assert "cut short" in capsys.readouterr().err


def test_a_torn_line_inside_the_file_is_still_an_error(tmp_path, records, capsys):
    lines = records.read_text().splitlines()
    records.write_text("\n".join([lines[0], lines[1][:150], *lines[2:]]) + "\n")
    assert main(_replay(tmp_path, "-o", str(tmp_path / "t.json"))) == 2
    assert "rec.jsonl:2: invalid JSON" in capsys.readouterr().err


@pytest.mark.parametrize(("line", "message"), [
    ("a 1 2 1.5", "weight '1.5' is not an integer"),
    ("a 1 2 99999999999999999999", "weight too large (past 64 bits)"),
    ("a 1 2 x", "weight 'x' is not a number")])
def test_dimacs_weights_are_blamed_for_what_is_wrong_with_them(line, message, tmp_path, capsys):
    graph = tmp_path / "g.gr"
    graph.write_text(f"p sp 3 2\n{line}\na 2 3 1\n")
    assert main(["graph", "info", str(graph)]) == 2
    err = capsys.readouterr().err
    assert f"g.gr:2: {message}" in err


def test_a_gz_that_is_not_gzip_says_so(tmp_path, capsys):
    fake = tmp_path / "g.gr.gz"
    fake.write_bytes(b"p sp 3 0\n")
    assert main(["graph", "info", str(fake)]) == 2
    assert "named .gz but not gzip data" in capsys.readouterr().err
    real = tmp_path / "h.gr.gz"
    real.write_bytes(gzip.compress(b"p sp 2 1\na 1 2 3\n"))
    assert main(["graph", "info", str(real)]) == 0


def test_an_output_that_cannot_be_written_is_exit_2(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["predict", "--graph", "rmat8", "--device", "hopper-h100", "-o", str(blocker / "t.json")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_the_fitted_model_keeps_ck_within_the_gpus_concurrent_kernels(capsys):
    assert main(["predict", "--graph", "rmat10", "--device", "fermi-gf100", "--model", "fitted", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert table["entries"][0]["predicted"]["config"]["concurrent_kernels"] <= 16


def test_an_error_message_is_one_line_whatever_the_input_holds(capsys):
    assert main(["graph", "info", "bad\nspec\r"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad\\nspec\\r" in err


def test_reference_cache_rows_round_trip_as_int32(tmp_path):
    from autotune.graphs import build_csr
    from autotune.reference.cache import ReferenceCache

    graph = build_csr("g", 3, np.array([0, 1]), np.array([1, 2]), np.array([4, 0]))
    cache = ReferenceCache(tmp_path)
    assert cache.distances(graph, [0])[0].dtype == np.int32
    assert ReferenceCache(tmp_path).distances(graph, [0])[0].tolist() == [0, 4, 4]
