"""scripts/cpu_baseline.py, in-process on tiny graphs: the sweep's pool (default, --sources, or read
from a sweep table), what is timed, the machine, the format the report reads."""
from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

from autotune.graphs import load_graph
from autotune.measure import choose_sources
from autotune.report.cpu import pool_size
from autotune.report.cpu import read_cpu_times

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "cpu_baseline.py"
TABLE = ROOT / "tests" / "data" / "report" / "exhaustive.json"  # rmat10 and rmat12, CK 1, 4, 16


def _script():
    spec = importlib.util.spec_from_file_location("cpu_baseline", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _table(tmp_path: Path, command: str | None) -> Path:
    """The committed synthetic table of rmat10 and rmat12, as if `command` had written it."""
    table = json.loads(TABLE.read_text())
    table["command"] = command
    path = tmp_path / "sweeps" / "rmat.exhaustive.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(table))
    return path


def test_by_default_it_times_the_first_sources_of_the_evidence_sweeps_pool(tmp_path, capsys):
    out = tmp_path / "cpu.jsonl"
    argv = ["rmat10", "--budget-s", "0", "--min-sources", "5", "--batch", "2", "--date", "2026-01-02", "-o", str(out)]
    assert _script().main(argv) == 0
    timings = read_cpu_times(out)
    assert [t.solver for t in timings] == ["dijkstra", "crauser"]
    graph = load_graph("rmat10")
    pool = choose_sources(graph, pool_size(3, 64), 0)  # what `autotune sweep --repetitions 3` draws up to CK 64
    dijkstra, crauser = timings
    assert dijkstra.sources == pool[:6] and len(dijkstra.times_ms) == 3 and dijkstra.sources_per_call == 2
    assert crauser.sources == pool[:5] and len(crauser.times_ms) == 5 and crauser.sources_per_call == 1
    assert "indices=<up to 2 sources>" in dijkstra.timed and "built once beforehand (untimed)" in dijkstra.timed
    assert 0 < dijkstra.call_overhead_ms and crauser.call_overhead_ms is None
    assert "crauser(graph, source)" in crauser.timed
    for timing in timings:
        assert (timing.pool, timing.pool_seed, timing.pool_from) == (320, 0, "default: pool_size(3, 64)")
        assert timing.graph["sha256"] == graph.sha256 and timing.graph["weights"] == "1-100"
        assert timing.machine["cores"] >= 1 and timing.machine["cpu"] and timing.date == "2026-01-02"
        assert {"python", "numpy", "scipy"} <= set(timing.machine)
        assert timing.command == "python3 scripts/cpu_baseline.py " + " ".join(argv)
    err = capsys.readouterr().err
    assert "rmat10 crauser" in err and "CPU: " in err


def test_the_pool_is_read_from_the_sweep_table(tmp_path):
    out = tmp_path / "cpu.jsonl"
    script = _script()
    # No --sources in the command: (repetitions + 2) x the largest CK of the table's space (16).
    table = _table(tmp_path, "autotune sweep --graph rmat10 --graph rmat12 --strategy exhaustive --repetitions 2 "
                   "--ck 1,4,16 --seed 0 -o x.json")
    assert script.main(["rmat10", "--sweeps", str(table.parent), "--solvers", "dijkstra", "--budget-s", "0",
                        "--min-sources", "3", "-o", str(out)]) == 0
    (timing,) = read_cpu_times(out)
    assert (timing.pool, timing.pool_seed, timing.pool_from) == (pool_size(2, 16), 0, str(table))
    assert timing.sources == choose_sources(load_graph("rmat10"), 64, 0)[:16]
    table = _table(tmp_path, "autotune sweep --graph rmat10 --graph rmat12 --sources 40 -o x.json")
    assert script.main(["rmat10", "--sweeps", str(table), "--solvers", "dijkstra", "-o", str(out)]) == 0
    (timing,) = read_cpu_times(out)
    assert timing.pool == 40 and timing.sources == choose_sources(load_graph("rmat10"), 40, 0)


@pytest.mark.parametrize("argv, command, message", [
    (["rmat10", "--sources", "100"], "autotune sweep --graph rmat10 --sources 40",
     "--sources 100 is not the sweep's pool"),
    (["rmat8"], "autotune sweep --graph rmat10", "rmat8: no sweep table of this graph among --sweeps"),
    (["rmat10", "--seed", "1"], "autotune sweep --graph rmat10", "swept another graph of that name"),
    (["rmat10"], "tests/data/report/generate.py (exhaustive)", "records no `autotune sweep` command that says its source pool"),
])
def test_a_pool_that_is_not_the_sweeps_is_refused(tmp_path, capsys, argv, command, message):
    table = _table(tmp_path, command)
    assert _script().main([*argv, "--sweeps", str(table), "-o", str(tmp_path / "x.jsonl")]) == 2
    err = capsys.readouterr().err
    assert message in err.splitlines()[-1] and "Traceback" not in err and not (tmp_path / "x.jsonl").exists()


def test_a_crauser_result_unlike_dijkstras_stops_the_run(tmp_path, capsys):
    script = _script()

    class Wrong:
        def __init__(self, graph, source):
            self.distances = np.zeros(graph.n_vertices, dtype=np.int64)

    script.crauser = Wrong
    assert script.main(["rmat8", "--sources", "2", "-o", str(tmp_path / "x.jsonl")]) == 1
    assert "differ from Dijkstra's" in capsys.readouterr().err


def test_append_keeps_other_graphs_and_replaces_its_own(tmp_path):
    out = tmp_path / "cpu.jsonl"
    script = _script()
    assert script.main(["rmat8", "--sources", "2", "--solvers", "dijkstra", "-o", str(out)]) == 0
    assert script.main(["rmat9", "--sources", "2", "--solvers", "dijkstra", "-o", str(out), "--append"]) == 0
    assert script.main(["rmat8", "--sources", "3", "--solvers", "dijkstra", "-o", str(out), "--append"]) == 0
    timings = read_cpu_times(out)
    assert [(t.graph_name, len(t.sources)) for t in timings] == [("rmat9", 2), ("rmat8", 3)]
    assert [len(t.times_ms) for t in timings] == [1, 1]  # one call of up to 16 sources


def test_the_committed_fixture_is_what_the_script_writes():
    """tests/data/report/cpu-times.jsonl: `generate.py cpu` regenerates it with this script."""
    timings = read_cpu_times(ROOT / "tests" / "data" / "report" / "cpu-times.jsonl")
    for timing in timings:
        assert " scripts/cpu_baseline.py rmat10 rmat12 --sources 16 --batch 4 " in timing.command
        assert timing.timed and len(timing.times_ms) == math.ceil(len(timing.sources) / timing.sources_per_call)
        assert timing.sources == choose_sources(load_graph(timing.graph_name), timing.pool, timing.pool_seed)[
            :len(timing.sources)]


def test_a_bad_solver_is_one_line(tmp_path, capsys):
    assert _script().main(["rmat8", "--solvers", "bellman", "-o", str(tmp_path / "x.jsonl")]) == 2
    assert "--solvers" in capsys.readouterr().err
