"""The committed measurements the CPU suites, the fits and the tests read (`benchmarks/data/`),
and the graph suite.

- `shapes.json`: every suite graph's shape (depth, level width, weights; `python3 -m benchmarks
  shapes`), which the choice tree and the one-query rules are fitted on.
- `h100/crauser.records.jsonl.gz`, `h100/martin.records.jsonl.gz`: every record of the exhaustive
  and Bayesian sweeps of the 13 generated graphs on the H100 (2026-11-21 to 23), GPU Crauser's and
  GPU Martín's; the fitted models (`characterizations/fitted-h100-*.toml`) are their fit, and suites
  `tuner`, `model` and `lookup` replay them. `h100/crauser-table.json.gz`: those sweeps merged into
  one table (graph features, x-top lists).
- `h100/delta-grid.jsonl.gz`, `h100/delta-grid-power-3415118.jsonl.gz`, `h100/bins-grid-4d19028.jsonl.gz`,
  `h100/ck-bs-grid-e6e4b8e.jsonl.gz`: the model grids of Δ-stepping's batch rules
  (`scripts/probe_delta_grid.py`, `probe_batch_bins.py`, `probe_batch_ck.py`) that
  `algorithms/delta/delta.toml`'s constants are the fit of (`scripts/fit_delta_model.py`).
- `h100/latency-grid-100b87c.jsonl.gz`, `h100/grid-random-4282b74/latency-bins-128.jsonl.gz`: the
  one-query grids' prices (`scripts/probe_latency_grid.py`, `probe_latency_bins.py`) that
  `characterizations/choice-h100.toml`'s latency rules are fitted on.

Every other run's data (the diary's probes, sweeps and suites' raw outputs that tables,
characterizations and docs cite) is in git's history: `git show 68a5795:benchmarks/data/PATH`.
"""
from __future__ import annotations

import contextlib
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterator, Sequence

from autotune.graphs.csr_file import CSR_SUFFIX
from autotune.search.results.records import Record, read_records, write_records

DATA_DIR = Path(__file__).resolve().parent / "data"
RECORDS_GPU = {"name": "NVIDIA H100 80GB HBM3", "records": "benchmarks/data/h100"}  # the GPU the CPU suites' records name
ROOT = Path(__file__).resolve().parents[1]
GRAPH_DIR = ROOT / "tests" / "data"

# The suite's graphs: the generated classes of the thesis's study, and graphs that fill the choice
# model's space where no class did (small dense skewed R-MAT, rmat14 and rmat15, beside the real suite's
# dense social graphs; large sparse graphs that are not R-MAT, random262144-d8 and urand18, beside
# web-Stanford); real graphs of five classes (road network, FEM mesh, geometric, e-mail, road network of a
# city), all in the repository; and the real-graph suite of issue 28 (`real_suite()`, fetched by
# `python3 -m benchmarks graphs`).
GENERATED = ("random24k-d2", "random24k-d20", "random24k-d200", "random49k-d2", "random49k-d20", "random49k-d200",
             "random98k-d2", "random98k-d20", "random98k-d200", "rmat17", "rmat18", "rmat19", "rmat20",
             "rmat14", "rmat15", "random262144-d8", "urand18")
REAL = ("usa-roads.gr.gz", "delaunay_n16.mtx.gz", "rgg_n_2_15_s0.graph.gz", "Email-Enron.txt.gz", "rome99.gr.gz")


CONVERTED = CSR_SUFFIX  # a real-graph suite graph's name in a table: its converted file's


def suite_name(name: str) -> str:
    """A suite graph's name, given it or a table's name for it (its converted file: NAME.csr.npz)."""
    return name.removesuffix(CONVERTED)


REAL_CLASSES = {"usa-roads.gr.gz": "road", "rome99.gr.gz": "road", "delaunay_n16.mtx.gz": "mesh",
                "rgg_n_2_15_s0.graph.gz": "geometric", "Email-Enron.txt.gz": "social"}


def graph_class(name: str) -> str:
    """The class a suite graph belongs to (what a leave-one-class-out check leaves out together):
    the real graphs' (REAL_CLASSES, the real-graph suite's `kind`), `rmat` and `random` (urand too) for
    the generated ones."""
    from benchmarks.realgraphs import suite

    name = suite_name(name)
    if name in REAL_CLASSES:
        return REAL_CLASSES[name]
    kinds = {graph.name: graph.kind for graph in suite()}
    if name in kinds:
        return kinds[name]
    return "rmat" if name.startswith("rmat") else "random" if name.startswith(("random", "urand")) else "other"


def is_real(name: str) -> bool:
    """Whether a suite graph (its name, or a table's name for it) is a real graph, not generated."""
    return name in REAL or suite_name(name) in real_suite()


def real_suite() -> tuple[str, ...]:
    """The names of the real-graph suite (`benchmarks/realgraphs.toml`; `python3 -m benchmarks graphs`
    fetches and converts them)."""
    from benchmarks.realgraphs import suite

    return tuple(graph.name for graph in suite() if graph.suite == "real")


def spec(name: str) -> str:
    """The --graph spec of a suite graph (its name, or a table's name for it: NAME.csr.npz): a
    file of tests/data, a converted graph of the real-graph suite (benchmarks/graphs/NAME.csr.npz,
    converted on first use from the source kept in benchmarks/graphs/sources, never fetched here:
    `python3 -m benchmarks graphs` fetches), or a generator spec.

    Raises:
        realgraphs.SuiteError: a graph of the real-graph suite whose source is not kept.
    """
    from benchmarks import realgraphs

    name = suite_name(name)
    if (GRAPH_DIR / name).is_file():
        return str(GRAPH_DIR / name)
    graph = next((g for g in realgraphs.suite() if g.name == name), None)
    if graph is None:
        return name
    if not realgraphs.prepared(graph):
        realgraphs.convert(graph, realgraphs.source(graph, realgraphs.GRAPHS_DIR / "sources", None, offline=True))
    return str(graph.csr_path())


def gpu_file(gpu_name: str) -> str:
    """The short name a GPU's shipped table and data go by: h100, h200, else its slug."""
    from autotune.files import slug

    name = slug(gpu_name)
    return next((short for short in ("h100", "h200") if short in name), name)


def load_spec(graph_spec: str, seed: object = 0, weights: str | None = None) -> Any:
    """A graph spec loaded as the commands load it (`--seed`, `--weights`), through the graph cache
    that `AUTOTUNE_CACHE_DIR` names (else the user's)."""
    import os

    from autotune.graphs import cache_dir_from_env, load_graph

    return load_graph(graph_spec, seed=seed, weights=weights, cache_dir=cache_dir_from_env(os.environ))


def suite_graphs(names: str | Sequence[str], sample: int) -> Iterator[tuple[str, Any, tuple[int, ...], dict]]:
    """Each graph of `names` (comma-separated, or a list) loaded as the GPU suites load it, with
    its sample of `sample` sources (`choose_sources`, seed 0) and their scipy distances: (name,
    graph, sources, expected)."""
    from autotune.measure import choose_sources
    from autotune.reference.cache import ReferenceCache

    for name in (names.split(",") if isinstance(names, str) else names):
        if name:
            graph = load_spec(spec(name), 0, None)
            sources = choose_sources(graph, sample, 0)
            yield name, graph, sources, ReferenceCache(None).distances(graph, sources)


def shipped_table(gpu_name: str, given: Path | None = None) -> Path:
    """The table a GPU suite looks configurations up in: `given`, else `tables/<gpu>.json`."""
    return given or ROOT / "tables" / f"{gpu_file(gpu_name)}.json"


def load_shipped_table(gpu: dict[str, Any], given: Path | None = None) -> tuple[Path, Any]:
    """`shipped_table` for the GPU a suite runs on (`gpu.device_description`), and the loaded `Table`."""
    from autotune.table.lookup import Table

    path = shipped_table(str(gpu["name"]), given)
    return path, Table.load(path)


def shown(path: Path) -> str:
    """A path as results files name it: relative to the repository when inside it."""
    return str(Path(path).relative_to(ROOT)) if Path(path).is_relative_to(ROOT) else str(path)


def path(gpu: str, name: str) -> Path:
    return DATA_DIR / gpu / name


def records_by(gpu: str, algorithm: str) -> dict[tuple[str, str], list[Record]]:
    """The records of an algorithm's sweeps on a GPU, by (graph, strategy), in their order."""
    grouped: dict[tuple[str, str], list[Record]] = defaultdict(list)
    for record in read_records(path(gpu, f"{algorithm}.records.jsonl.gz")):
        grouped[(record.graph.name, record.strategy)].append(record)
    return dict(grouped)


def records_by_graph(gpu: str, algorithm: str) -> dict[str, list[Record]]:
    grouped: dict[str, list[Record]] = defaultdict(list)
    for (graph, _strategy), records in records_by(gpu, algorithm).items():
        grouped[graph] += records
    return dict(sorted(grouped.items()))


@contextlib.contextmanager
def records_file(records: list[Record]) -> Iterator[Path]:
    """Records written to a temporary JSON Lines file, for a command that reads a file (a replay)."""
    with tempfile.TemporaryDirectory() as scratch:
        yield write_records(Path(scratch) / "records.jsonl", records)
