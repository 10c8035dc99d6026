"""`autotune table export`: the C/C++ header compiles with -Wall -Werror (C++17 and C99) and its
`autotune_lookup` agrees with `Table.lookup` on 1,000 random queries (the model's answer for a graph
the table does not hold, from its three figures); the flat JSON export lists what `Table.lookup`
gives each entry's graph."""
from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from autotune.cli import main
from autotune.table.lookup import Table

ROOT = Path(__file__).resolve().parents[1]
H100_TABLE = ROOT / "benchmarks" / "data" / "h100" / "crauser-table.json.gz"
PROGRAM = Path(__file__).parent / "data" / "export" / "lookup_main.cpp"
COMPILER = shutil.which("g++") or shutil.which("c++")


def _mixed_table(tmp_path: Path) -> Path:
    """The H100 table with two entries of other algorithms (their parameters exported too)."""
    from autotune.algorithms import get

    data = Table.load(H100_TABLE).data
    delta, lanes = get("delta"), get("delta_lanes")
    one = delta.uniform(1024, concurrent_kernels=1, params={"delta": "inf", "loop": "persistent", "blocks": 128,
                                                            "block_threshold": "off"})
    batch = lanes.uniform(512, concurrent_kernels=1024, params={"delta": 4096, "blocks_per_sm": 2})
    extra = []
    for name, vertices, degree, cv in (("roads", 87575, 2.77, 0.3), ("mesh", 65536, 6.0, None)):
        graph = {"name": name, "vertices": vertices, "edges": int(vertices * degree), "mean_degree": degree,
                 "stress_ratio": 0.3, "stress_class": "low", "degree_class": "low"} | ({"degree_cv": cv} if cv else {})
        best = {"config": batch.to_json(), "ms_per_sssp": 0.02, "verified": True}
        extra.append({"graph": graph, "algorithm": "delta_lanes", "best": best,
                      "curve": [{"config": one.to_json(), "ms_per_sssp": 3.7, "verified": True}, best]})
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps({**data, "algorithm": "auto", "entries": [*data["entries"], *extra]}))
    return path


def _python_line(table: Table, v: float, d: float, cv: float, q: int) -> str:
    match = table.lookup(vertices=v, mean_degree=d, degree_cv=None if cv < 0 else cv, queries=q or None, device=None)
    c = match.config
    kernels = " ".join(f"{k}={launch.block_size}:{launch.cache.value}/L{launch.lanes}" for k, launch in c.kernels.items())
    params = "".join(f" {k}={value}" for k, value in sorted(c.params.items()))
    return f"{match.graph_name} {match.source} {c.algorithm} CK{c.concurrent_kernels} {kernels}{params}".rstrip()


def _sorted_params(line: str) -> str:
    """A C program's line with its parameters (the words after the kernels', which hold a colon) in name order."""
    words = line.split()
    head = [w for w in words if "=" not in w or ":" in w]
    return " ".join(head + sorted(w for w in words if "=" in w and ":" not in w))


def _queries(count: int, seed: int = 7) -> list[tuple[float, float, float, int]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        v = 2 ** rng.uniform(6, 26)
        d = 2 ** rng.uniform(-1, 9)
        cv = -1.0 if rng.random() < 0.3 else 2 ** rng.uniform(-5, 3)
        q = rng.choice([0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, rng.randint(1, 2000)])
        out.append((round(v, 3), round(d, 4), round(cv, 4), q))
    return out


@pytest.mark.skipif(COMPILER is None, reason="no C++ compiler on this machine")
@pytest.mark.parametrize("which", ["h100", "mixed"])
def test_the_header_compiles_and_agrees_with_table_lookup(which, tmp_path):
    path = H100_TABLE if which == "h100" else _mixed_table(tmp_path)
    header = tmp_path / "tuned_sssp.h"
    assert main(["table", "export", str(path), "--format", "c-header", "-o", str(header)]) == 0
    for flags in (["-x", "c++", "-std=c++17"], ["-x", "c", "-std=c99"]):
        compiler = COMPILER if flags[1] == "c++" else (shutil.which("gcc") or shutil.which("cc"))
        if compiler:
            subprocess.run([compiler, *flags, "-Wall", "-Wextra", "-Werror", "-fsyntax-only", str(header)], check=True)
    binary = tmp_path / "lookup"
    subprocess.run([COMPILER, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-O2", f"-I{tmp_path}", str(PROGRAM), "-o",
                    str(binary), "-lm"], check=True)
    queries = _queries(1000)
    text = "".join(f"{v!r} {d!r} {cv!r} {q}\n" for v, d, cv, q in queries)
    lines = [_sorted_params(line) for line in
             subprocess.run([str(binary)], input=text, capture_output=True, text=True, check=True).stdout.splitlines()]
    table = Table.load(path)
    expected = [_python_line(table, *query) for query in queries]
    mismatches = [(q, e, c) for q, e, c in zip(queries, expected, lines) if e != c]
    assert len(lines) == len(queries) and not mismatches, mismatches[:3]
    sources = {line.split()[1] for line in lines}
    assert "model" in sources, sources


def test_the_flat_json_lists_each_entry_s_answer_for_every_power_of_two(tmp_path):
    out = tmp_path / "flat.json"
    assert main(["table", "export", str(H100_TABLE), "--format", "json", "-o", str(out)]) == 0
    flat = json.loads(out.read_text())
    table = Table.load(H100_TABLE)
    assert len(flat["entries"]) == len(table.entries)
    first = flat["entries"][0]
    match = table.lookup(first["graph"], queries=1, device=None)
    assert first["queries"]["1"]["config"] == match.config.to_json()
    assert set(first["queries"]) == {str(2**k) for k in range(11)}


def test_export_refuses_to_write_over_its_table(tmp_path, capsys):
    copy = tmp_path / "t.json"
    copy.write_bytes(Path(H100_TABLE).read_bytes())
    assert main(["table", "export", str(copy), "-o", str(copy)]) == 2
    assert "also the table" in capsys.readouterr().err


def test_the_header_s_algorithm_ids_are_fixed_and_never_shared():
    """A program compiled against an older header reads a newer one the same: each algorithm keeps
    its enum value whatever the registration order (`Algorithm.header_id`)."""
    import copy

    from autotune import algorithms
    from autotune.table.export import header_names

    assert {a.name: a.header_id for a in algorithms.all_algorithms()} == {
        "crauser": 0, "martin": 1, "delta": 2, "delta_lanes": 3, "adds": 4, "phast": 5}
    assert header_names() == ["crauser", "martin", "delta", "delta_lanes", "adds", "phast"]
    twin = copy.copy(algorithms.get("phast"))
    twin.name = "phast2"
    with pytest.raises(ValueError, match="header_id 5"):
        algorithms.register(twin)
    assert "phast2" not in algorithms.names()


@pytest.mark.skipif(COMPILER is None, reason="no C++ compiler on this machine")
def test_a_device_or_path_that_closes_a_comment_still_gives_a_header_that_compiles(tmp_path):
    data = Table.load(H100_TABLE).data
    data["device"] = {**data["device"], "name": "GPU */ int broken; /* \"quoted\" \\ ?"}
    odd = tmp_path / "a*" / "t*.json"  # the source path is written into the header's comment too
    odd.parent.mkdir()
    odd.write_text(json.dumps(data))
    header = tmp_path / "tuned_sssp.h"
    assert main(["table", "export", str(odd), "--format", "c-header", "-o", str(header)]) == 0
    source = tmp_path / "use.cpp"
    source.write_text(f'#include "{header}"\nint main() {{ return AUTOTUNE_GPU[0] == \'G\' ? 0 : 1; }}\n')
    subprocess.run([COMPILER, "-std=c++17", "-Wall", "-Werror", "-o", str(tmp_path / "use"), str(source)],
                   check=True, capture_output=True)
    assert subprocess.run([str(tmp_path / "use")]).returncode == 0


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_a_table_holding_a_non_finite_number_is_refused_with_its_line(token, tmp_path, capsys):
    text = json.dumps(Table.load(H100_TABLE).data, indent=1)
    text = text.replace('"mean_degree": ', f'"mean_degree": {token}, "was": ', 1)
    bad = tmp_path / "nan.json"
    bad.write_text(text)
    line = text[:text.index(token)].count("\n") + 1
    assert main(["table", "export", str(bad), "--format", "c-header", "-o", str(tmp_path / "h.h")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("must be finite)") and f"{bad}:{line}: {token} is not a number JSON allows" in err
    assert not (tmp_path / "h.h").exists()


def test_a_table_built_in_memory_with_a_non_finite_feature_is_refused():
    from autotune.errors import InputError
    from autotune.table.export import c_header

    data = Table.load(H100_TABLE).data
    data["entries"][0]["graph"]["mean_degree"] = float("nan")
    with pytest.raises(InputError, match="mean_degree: nan is not a finite number"):
        c_header(Table(data))
