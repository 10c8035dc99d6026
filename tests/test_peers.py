"""Suite `kernels`'s peer, Gunrock (benchmarks/peers.py): the graph file it reads, the command, and its
rows from a stand-in binary that answers as Gunrock's SSSP does."""
import argparse
import io
import stat
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.io
from hypothesis import given, strategies as st

from autotune.cli import main
from autotune.graphs.csr import CSRGraph
from benchmarks import kernels, peers

FAKE = """#!{python}
import json, sys
args = sys.argv[1:]
value = lambda flag: args[args.index(flag) + 1]
sources = value("-s").split(",")
with open(value("-m")) as graph:
    assert graph.readline().startswith("%%MatrixMarket matrix coordinate real general")
times = [{first}] + [0.5 + 0.1 * i for i in range(len(sources) - 1)]
json.dump({{"process_times": times, "srcs": [int(s) for s in sources]}}, open(value("-d") + "/" + value("-f"), "w"))
print("GPU Elapsed Time : 0.5 (ms)")
print("Number of errors : {errors}")
"""


def fake_gunrock(folder, errors=0, first=9.0):
    path = folder / f"gunrock-{errors}"
    path.write_text(FAKE.format(python=sys.executable, errors=errors, first=first))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def small_graph():
    return CSRGraph("g", np.array([0, 2, 3, 3], dtype=np.int32), np.array([1, 2, 2], dtype=np.int32),
                    np.array([4, 0, 9], dtype=np.int32))


def test_the_market_file_holds_every_arc_and_weight(tmp_path):
    out = io.BytesIO()
    peers.write_market(small_graph(), out)
    path = tmp_path / "g.mtx"
    path.write_bytes(out.getvalue())
    matrix = scipy.io.mmread(str(path)).tocsr()
    assert matrix.shape == (3, 3)
    # scipy's nonzero() skips the zero-weight arc; the file holds it (the lines below)
    assert sorted(zip(*matrix.nonzero())) == [(0, 1), (1, 2)] and matrix[0, 1] == 4 and matrix[1, 2] == 9
    assert out.getvalue().decode().splitlines()[1:] == ["3 3 3", "1 2 4", "1 3 0", "2 3 9"]


def test_a_row_times_the_solves_after_the_first_and_trusts_only_a_clean_check():
    ok = peers.gunrock_result("Number of errors : 0", {"process_times": [9.0, 1.0, 3.0, 2.0]}, [5, 6, 7, 8])
    assert ok["status"] == "ok" and ok["ms"] == 2.0 and ok["checked_source"] == 8
    wrong = peers.gunrock_result("Number of errors : 12", {"process_times": [1.0, 1.0]}, [1, 2])
    assert wrong["status"] == "wrong" and wrong["ms"] is None and "12 vertices" in wrong["reason"]
    unchecked = peers.gunrock_result("GPU Elapsed Time : 1 (ms)", {"process_times": [1.0]}, [1])
    assert unchecked["status"] == "failed" and "no check" in unchecked["reason"]
    short = peers.gunrock_result("Number of errors : 0", {"process_times": [1.0]}, [1, 2])
    assert short["status"] == "failed" and "1 times for 2 sources" in short["reason"]


def test_a_run_of_the_binary_gives_its_row_and_a_failing_one_its_reason(tmp_path):
    row = peers.gunrock_row(fake_gunrock(tmp_path), small_graph(), [0, 1, 2])
    assert row["status"] == "ok" and row["times_ms"][0] == 9.0 and row["ms"] == 0.55
    assert peers.gunrock_row(fake_gunrock(tmp_path, errors=3), small_graph(), [0, 1])["status"] == "wrong"
    broken = tmp_path / "broken"
    broken.write_text("#!/bin/sh\necho 'no device' >&2\nexit 1\n")
    broken.chmod(broken.stat().st_mode | stat.S_IEXEC)
    failed = peers.gunrock_row(broken, small_graph(), [0])
    assert failed["status"] == "failed" and failed["reason"] == "exit 1: no device"
    assert peers.peer_binary(tmp_path / "absent") is None and peers.peer_binary(broken) == broken


def test_a_gunrock_named_and_absent_is_a_usage_error_and_the_default_is_the_repositorys(tmp_path, capsys):
    from benchmarks.__main__ import main as benchmarks_main

    with pytest.raises(SystemExit) as exit_:
        benchmarks_main(["run", "kernels", "--gunrock", str(tmp_path / "absent")])
    assert exit_.value.code == 2
    assert f"argument --gunrock: {tmp_path / 'absent'}: no such file" in capsys.readouterr().err
    assert peers.GUNROCK == Path(peers.__file__).resolve().parents[1] / ".peers" / "gunrock-sssp"


def test_the_kernels_suite_times_gunrock_beside_the_one_query(fake_gpu, tmp_path):
    table = tmp_path / "t.json"
    assert main(["sweep", "--graph", "rmat8", "--algorithm", "crauser", "--trials", "6", "--block-sizes", "64,128",
                 "--ck", "1,2", "--lanes", "1", "--repetitions", "2", "--storage", "memory", "-o", str(table),
                 "-q"]) == 0
    args = argparse.Namespace(graphs="rmat8", table=table, repetitions=2, cpu_sources=2, cpu_all_sources=0,
                              results=tmp_path, gunrock=fake_gunrock(tmp_path, first=1e6))
    found = kernels.run(args)
    [row] = found.measurements
    assert row["gunrock"]["status"] == "ok" and len(row["gunrock"]["times_ms"]) == 32
    assert row["one_query_vs_gunrock"] == row["gunrock"]["ms"] / row["one_query"]["ms_per_sssp"]
    assert found.summary["peers"].startswith("Gunrock (its own timer and check, benchmarks/peers.py) on 1 of 1")
    text = "\n".join(kernels.render([found]))
    assert "| Gunrock (ms) | one query vs Gunrock |" in text and f"{row['one_query_vs_gunrock']:.1f}x" in text


@given(st.lists(st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1), st.integers(0, 9)), max_size=40))
def test_ascii_lines_are_the_numbers_python_writes(rows):
    columns = [np.array([row[k] for row in rows], dtype=np.int64) for k in range(3)]
    assert peers.ascii_lines(columns) == "".join(f"{a} {b} {c}\n" for a, b, c in rows).encode()
