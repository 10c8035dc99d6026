"""The header's `autotune_model` (`autotune.table.export_model`) gives what Python's model gives
(`predict.answer.model_answer` with the table's choice model and GPU, as `Table.lookup` asks it) for
every graph of the shipped tables, with every figure the model reads (their shapes' depths, level
widths and lightest arcs), and for random graphs, at every power-of-two K, without a bound, with and
without a kept hierarchy, with 32-bit and 64-bit distances."""
from __future__ import annotations

import dataclasses
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from autotune.cli import main
from autotune.predict.answer import from_figures, model_answer
from autotune.table.lookup import Table

ROOT = Path(__file__).resolve().parents[1]
PROGRAM = Path(__file__).parent / "data" / "export" / "lookup_main.cpp"  # its `model` mode
COMPILER = shutil.which("g++") or shutil.which("c++")
FIGURES = ("vertices", "mean_degree", "degree_cv", "max_degree", "min_positive_weight", "max_weight", "mean_weight",
           "lightest_weight", "hop_depth", "level_width")


def _graphs(table: Table, count: int, seed: int = 3) -> list[dict]:
    """The table's graphs with their shapes' figures, and `count` random ones (some figures unknown)."""
    from autotune.files import read_json

    shapes = read_json(ROOT / "benchmarks" / "data" / "shapes.json")["shapes"]
    out = []
    for entry in table.entries:
        g, shape = entry.graph, shapes.get(entry.name, {})
        out.append({"vertices": g.vertices, "mean_degree": g.get("mean_degree") or g.edges / g.vertices,
                    **{k: g.get(k) for k in ("degree_cv", "max_degree", "min_positive_weight", "max_weight",
                                             "mean_weight")},
                    **{k: shape.get(k) for k in ("lightest_weight", "hop_depth", "level_width")}})
    rng = random.Random(seed)
    for _ in range(count):
        low = rng.choice([0, 1, 1, 10, 1000])
        high = low + rng.choice([0, 1, 99, 10**4, 10**6])
        figures = {"vertices": int(2 ** rng.uniform(4, 27)), "mean_degree": round(2 ** rng.uniform(-1, 9), 4),
                   "degree_cv": round(2 ** rng.uniform(-5, 3), 4), "max_degree": int(2 ** rng.uniform(1, 17)),
                   "min_positive_weight": low or None, "max_weight": high or None,
                   "mean_weight": (low + high) / 2 or None, "lightest_weight": round(low + (high - low) * 0.1, 3) or None,
                   "hop_depth": round(2 ** rng.uniform(1, 12), 2), "level_width": round(2 ** rng.uniform(2, 17), 2)}
        for key in FIGURES[2:]:
            if rng.random() < 0.2:
                figures[key] = None
        out.append(figures)
    return out


def _python_line(table: Table, figures: dict, hierarchy: bool, wide: bool, queries: int) -> str:
    unseen = dataclasses.replace(from_figures(figures), wide=wide)
    c = model_answer(table.model, unseen, table.model_device, queries or None, ("phast",) if hierarchy else ()).config
    kernels = " ".join(f"{k}={launch.block_size}:{launch.cache.value}/L{launch.lanes}" for k, launch in c.kernels.items())
    params = "".join(f" {k}={value}" for k, value in sorted(c.params.items()))
    return f"{c.algorithm} CK{c.concurrent_kernels} {kernels}{params}"


def _sorted_params(line: str) -> str:
    words = line.split()
    return " ".join([w for w in words if "=" not in w or ":" in w] + sorted(w for w in words if "=" in w and ":" not in w))


@pytest.mark.skipif(COMPILER is None, reason="no C++ compiler on this machine")
@pytest.mark.parametrize("gpu", ["h100", "h200"])
def test_the_header_s_model_gives_python_s_answer(gpu, tmp_path):
    path = ROOT / "tables" / f"{gpu}.json"
    header = tmp_path / "tuned_sssp.h"
    assert main(["table", "export", str(path), "--format", "c-header", "-o", str(header)]) == 0
    c_compiler = shutil.which("gcc") or shutil.which("cc")
    if c_compiler:  # C99 too, as the header promises
        subprocess.run([c_compiler, "-x", "c", "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", str(header)],
                       check=True)
    binary = tmp_path / "model"
    subprocess.run([COMPILER, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-O2", f"-I{tmp_path}", str(PROGRAM), "-o",
                    str(binary), "-lm"], check=True)
    table = Table.load(path)
    rng = random.Random(11)
    cases = []
    for figures in _graphs(table, 150):
        for queries in (0, *(2**k for k in range(11)), rng.randint(2, 2000)):
            cases.append((figures, rng.random() < 0.3, rng.random() < 0.1, queries))
    text = "".join(" ".join(repr(float(-1 if f[k] is None else f[k])) for k in FIGURES)
                   + f" {int(h)} {int(w)} {q}\n" for f, h, w, q in cases)
    lines = [_sorted_params(line) for line in subprocess.run([str(binary), "model"], input=text, capture_output=True,
                                                             text=True, check=True).stdout.splitlines()]
    expected = [_python_line(table, *case) for case in cases]
    mismatches = [(case, e, c) for case, e, c in zip(cases, expected, lines) if e != c]
    assert len(lines) == len(cases) and not mismatches, (len(mismatches), mismatches[:3])
    assert {line.split()[0] for line in lines} >= {"delta", "delta_lanes", "phast", "crauser"}


@pytest.mark.skipif(COMPILER is None, reason="no C++ compiler on this machine")
def test_graph_info_gives_the_header_every_figure_of_a_loaded_graph(tmp_path, capsys, data_dir):
    """What `autotune graph info --json` prints of a graph, handed to the header's `autotune_model`,
    gives what Python's model gives the loaded graph (`predict.answer.from_graph`)."""
    import json

    from autotune.graphs import load_graph
    from autotune.predict.answer import from_graph

    path = ROOT / "tables" / "h200.json"
    header = tmp_path / "tuned_sssp.h"
    assert main(["table", "export", str(path), "--format", "c-header", "-o", str(header)]) == 0
    binary = tmp_path / "model"
    subprocess.run([COMPILER, "-std=c++17", "-O2", f"-I{tmp_path}", str(PROGRAM), "-o", str(binary), "-lm"], check=True)
    capsys.readouterr()
    table, text, expected = Table.load(path), "", []
    for spec in (str(data_dir / "rome99.gr.gz"), str(data_dir / "Email-Enron.txt.gz"), "rmat12"):
        assert main(["graph", "info", spec, "--json"]) == 0
        info = json.loads(capsys.readouterr().out)
        figures = {"vertices": info["vertices"], "mean_degree": info["mean_degree"], "max_degree": info["max_degree"],
                   **info["weights"], **{k: info["shape"][k] for k in ("degree_cv", "lightest_weight", "hop_depth",
                                                                        "level_width")}}
        unseen = from_graph(load_graph(spec))
        for queries in (0, 1, 4, 16, 64, 1024):
            text += " ".join(repr(float(-1 if figures[k] is None else figures[k])) for k in FIGURES) + f" 0 0 {queries}\n"
            c = model_answer(table.model, unseen, table.model_device, queries or None).config
            kernels = " ".join(f"{k}={v.block_size}:{v.cache.value}/L{v.lanes}" for k, v in c.kernels.items())
            expected.append(f"{c.algorithm} CK{c.concurrent_kernels} {kernels}"
                            + "".join(f" {k}={value}" for k, value in sorted(c.params.items())))
    lines = [_sorted_params(line) for line in subprocess.run([str(binary), "model"], input=text, capture_output=True,
                                                             text=True, check=True).stdout.splitlines()]
    assert lines == expected
