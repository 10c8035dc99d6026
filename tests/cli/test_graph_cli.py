"""`autotune graph info`, run in-process."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from autotune.cli import main


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(directory))
    return directory


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["graph", "info", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def assert_one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str],
                          fragment: str) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("autotune: "), captured.err
    assert "Traceback" not in captured.err and fragment in lines[0]
    return lines[0]


def test_rmat17_json(capsys: pytest.CaptureFixture[str], cache_dir: Path) -> None:
    info = run_json(capsys, "rmat17")
    assert info["name"] == "rmat17" and info["vertices"] == 131_072
    assert {"name", "vertices", "edges", "mean_degree", "max_degree"} <= set(info)
    assert info["mean_degree"] == pytest.approx(info["edges"] / info["vertices"])
    assert len(list(cache_dir.glob("*.csr.npz"))) == 1


def test_a_second_info_reads_the_kept_shape(capsys: pytest.CaptureFixture[str], cache_dir: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The shape's breadth-first searches run once per graph (seconds on 100M arcs); a kept shape
    that is torn is computed again."""
    from autotune.model import shape

    first = run_json(capsys, "rmat10")
    (kept,) = (cache_dir / "shapes").glob("*.json")

    def searched(*args, **kwargs):
        raise AssertionError("the kept shape was not read")

    monkeypatch.setattr(shape, "graph_shape", searched)
    assert run_json(capsys, "rmat10") == first
    kept.write_text("{ torn")
    monkeypatch.undo()
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(cache_dir))
    assert run_json(capsys, "rmat10") == first and json.loads(kept.read_text()) == first["shape"]


def test_text_output(capsys: pytest.CaptureFixture[str], data_dir: Path) -> None:
    assert main(["graph", "info", str(data_dir / "rome99.gr.gz")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "rome99.gr.gz"
    for fragment in ("vertices          3,353", "edges             8,859", "max out-degree    5",
                     "no out-edges      0", "mean out-degree   2.64"):
        assert fragment in out


@pytest.mark.parametrize("name, vertices, edges", [
    ("rome99.gr.gz", 3_353, 8_859),
    ("rgg_n_2_15_s0.graph.gz", 32_768, 320_480),
    ("delaunay_n16.mtx.gz", 65_536, 393_150),
    ("Email-Enron.txt.gz", 36_692, 367_662),
])
def test_real_graphs(capsys: pytest.CaptureFixture[str], data_dir: Path, name: str,
                     vertices: int, edges: int) -> None:
    info = run_json(capsys, str(data_dir / name))
    assert (info["name"], info["vertices"], info["edges"]) == (name, vertices, edges)


def test_seed_and_weights(capsys: pytest.CaptureFixture[str]) -> None:
    base = run_json(capsys, "random24k-d2")
    assert base["vertices"] == 24_576 and base["edges"] == 49_152 and base["max_degree"] == 2
    assert base["sinks"] == 0
    assert run_json(capsys, "random24k-d2", "--seed", "0")["sha256"] == base["sha256"]
    assert run_json(capsys, "random24k-d2", "--seed", "1")["sha256"] != base["sha256"]
    assert run_json(capsys, "random24k-d2", "--weights", "1-1")["sha256"] != base["sha256"]


@pytest.mark.parametrize("argv, fragment", [
    (["graph", "info", "rmat"], "unknown graph spec 'rmat'"),
    (["graph", "info", "nothere.gr"], "nothere.gr: no such graph file"),
    (["graph", "info", "rmat40"], "rmat40: the scale must be 1..30"),
    (["graph", "info", "random10-d10"], "random10-d10: need at least 2 vertices"),
    (["graph", "info", "rmat8", "--weights", "9-1"], "--weights"),
    (["graph", "info", "rmat8", "--weights=-1-5"], "--weights"),
    (["graph", "info", "rmat8", "--seed", "abc"], "--seed"),
])
def test_bad_input_is_one_line_with_status_2(capsys: pytest.CaptureFixture[str], argv: list[str],
                                             fragment: str, cache_dir: Path) -> None:
    assert_one_line_error(capsys, argv, fragment)
    assert not cache_dir.exists() or not any(cache_dir.iterdir())


def test_bad_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    truncated = tmp_path / "t.gr"
    truncated.write_text("p sp 3 3\na 1 2 1\na 2 3 1\n")
    assert_one_line_error(capsys, ["graph", "info", str(truncated)], f"{truncated}:3: ")
    malformed = tmp_path / "m.mtx.gz"
    malformed.write_bytes(gzip.compress(
        b"%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 x\n"))
    assert_one_line_error(capsys, ["graph", "info", str(malformed)], f"{malformed}:4: expected")
    out_of_range = tmp_path / "r.txt"
    out_of_range.write_text("0 1\n1 -2\n")
    assert_one_line_error(capsys, ["graph", "info", str(out_of_range)], f"{out_of_range}:2: vertex")
    negative = tmp_path / "n.gr"
    negative.write_text("p sp 2 1\na 1 2 -4\n")
    assert_one_line_error(capsys, ["graph", "info", str(negative)], f"{negative}:2: negative")
    directory = tmp_path / "dir.gr"
    directory.mkdir()
    assert_one_line_error(capsys, ["graph", "info", str(directory)], f"{directory}: is a directory")
    huge = tmp_path / "huge.gr"
    huge.write_text("c a header line\np sp 3000000000 1\na 1 2 3\n")
    assert_one_line_error(capsys, ["graph", "info", str(huge)], f"{huge}:2: 3000000000 vertices do not fit")
    empty = tmp_path / "empty.gr"
    empty.write_text("p sp 0 0\n")
    assert_one_line_error(capsys, ["graph", "info", str(empty)], f"{empty}:1: the header says 0 vertices")
    no_edges = tmp_path / "none.txt"
    no_edges.write_text("# only a comment\n")
    assert_one_line_error(capsys, ["graph", "info", str(no_edges)], f"{no_edges}: no edges")


def test_debug_shows_the_traceback() -> None:
    from autotune.errors import InputError

    with pytest.raises(InputError):
        main(["--debug", "graph", "info", "rmat"])


def test_shared_options_take_several_graphs(data_dir: Path) -> None:
    import argparse

    from autotune.cli.options import add_graph_options, load_graphs, load_one_graph

    parser = argparse.ArgumentParser()
    add_graph_options(parser, multiple=True)
    args = parser.parse_args(["--graph", "rmat8", "-g", str(data_dir / "rome99.gr.gz"),
                              "--seed", "4", "--weights", "1-1"])
    graphs = load_graphs(args)
    assert [g.name for g in graphs] == ["rmat8", "rome99.gr.gz"]
    assert all(set(g.weights.tolist()) == {1} for g in graphs)
    args = parser.parse_args(["--graph", "rmat8", "--graph", "bogus"])
    with pytest.raises(Exception, match="unknown graph spec 'bogus'"):
        load_graphs(args)  # every spec is checked before any graph loads
    args = parser.parse_args(["--graph", "rmat8"])
    assert load_one_graph(args).n_vertices == 256
