"""The committed measurements the CPU suites read (`benchmarks/data/<gpu>/`), and the graph suite.

- `crauser.records.jsonl.gz`, `martin.records.jsonl.gz`: every record of the exhaustive and
  Bayesian sweeps of the 13 generated graphs on the H100 (2026-11-21 to 23), GPU Crauser's and GPU
  Martín's; the fitted models (`characterizations/fitted-h100-*.toml`) are their fit.
- `crauser-table.json.gz`: those sweeps merged into one table (graph features, x-top lists).
- `delta-grid.jsonl.gz`: the verified batched and model-grid measurements of Δ-stepping on the
  H100 (2026-11-23) that `characterizations/delta.toml`'s [model] constants are the fit of.
- `usa-roads-curve-{delta,auto}-5b78775.records.jsonl.gz`: every record of two default sweeps of
  usa-roads at commit 5b78775 (H100, 2026-11-26; `autotune sweep --graph tests/data/usa-roads.gr.gz
  [--algorithm delta] --records R`), the evidence docs/sweep.md quotes for the curve's middle: 8
  blocks per instance at CK 16, and GPU Crauser's default measured whole (45 s) by the middle.
- `road-FLA-latency-0ed4a62.{json,records.jsonl}.gz`: a latency sweep of road-FLA at 0ed4a62 (H100,
  2026-11-26), the cost of Δ-stepping's default at CK 1 that docs/sweep.md quotes.
- `road-FLA-curve-{6224d08,34ddb48,4615021}.records.jsonl.gz`: every record of a default sweep of
  road-FLA at each commit (H100, 2026-11-27; 6224d08: `autotune sweep --graph
  benchmarks/graphs/road-FLA.csr.npz -o T --records R -q`, the others: `python3 -m benchmarks run
  tables --sweep-graphs road-FLA --sweep-option=--records --sweep-option=R`), the evidence
  `DeltaStepping.latency_design` quotes for the order of the curve middle's first trials.
- `road-FLA-curve-2838c44.records.jsonl.gz` and `road-FLA-curve-gpu-check.records.jsonl.gz`: the
  same sweep run under cProfile (`python3 -m cProfile -o P -m autotune sweep --graph
  benchmarks/graphs/road-FLA.csr.npz -q -o T --records R`, H100, 2026-11-27) at 2838c44 (with
  215d271's copy-free graph digest), where
  copying and checking the batches' distances on the CPU took about 27 of its 59 s (27 trials),
  and with the check on the GPU (the code of 215d271 before its change to `search/transfer.py`;
  159 trials in 57 s), whose batch end the budget cut after two trials
  (`autotune.gpu.verify`, `search.resume.requeue_dropped`).
- `road-FLA-curve-75197ef.records.jsonl.gz`: the default sweep of road-FLA at 75197ef (suite
  `tables`, H100, 2026-11-27), whose batch end, sent back to its search, measured the dropped
  neighbours of the prediction first (Δ 256: 0.195 ms per SSSP at CK 1,024, against Δ 128's 0.221).
- `bins-grid-d16ea63.jsonl.gz`: Delta-stepping's batch-end prediction on 29 graphs with every
  block size (128 to 1,024) and warp threshold (32, 64, off), beside the table's batch-end best
  (`python3 scripts/probe_batch_bins.py OUT GRAPHS`, H100, 2026-11-27; the graphs whose curve ends
  in Delta-stepping, rmat17 and sx-askubuntu): the evidence of `delta_rules`' rule 6.
- `ck-grid-1468aa7.jsonl.gz`: Delta-stepping's batch-end prediction held, at CK 64 to 1,024, on
  nine graphs, beside the table's best (`python3 scripts/probe_batch_ck.py OUT` at 1468aa7, which
  moved CK alone; H100, 2026-11-27).
- `ck-bs-grid-93dca1c.jsonl.gz`: the same at every CK and block size (128 to 1,024) on 14 graphs
  (`python3 scripts/probe_batch_ck.py OUT "Email-Enron.txt.gz,sx-askubuntu,random98k-d2,random49k-d20,
  anybeat,ca-CondMat,p2p-Gnutella31,web-Stanford,usa-roads.gr.gz,cit-HepTh,road-NY,delaunay_n16.mtx.gz,
  random24k-d2,random49k-d2"` at 93dca1c; H100, 2026-11-27): the records `delta_rules`' rule 4 was
  fitted on (`delta_fit.fit_wide`) before the engine's bitmaps went beyond the SM count (a9bcd3b).
- `bitmaps-e6e4b8e.jsonl.gz`: the evidence for that change: CK 128 and 1,024 with blocks of 128 to
  1,024 on 17 graphs under three rules for solve_block's shared bitmaps (CK at most the SMs, the
  engine before; where they cost no residency, since; wherever they fit), each pass beside the
  table's batch best (`python3 scripts/probe_batch_bitmaps.py OUT` at e6e4b8e; H100, 2026-11-27).
- `ck-bs-grid-e6e4b8e.jsonl.gz` and `bins-grid-e6e4b8e.jsonl.gz`: the two probes above repeated on
  the engine of a9bcd3b (H100, 2026-11-27; `probe_batch_ck.py` with the 14 graphs above at e6e4b8e,
  `probe_batch_bins.py` with the 29 graphs above, the first 17 at e6e4b8e and the last 12 at
  8895979, which only mends the probe's printing): the records the shipped rules 4 and 5 are
  fitted on.
- `bins-lattice-ec2511a.jsonl.gz`: the bins grid (`python3 scripts/probe_batch_bins.py OUT
  benchmarks/graphs/sources/grid300.gr,usa-roads.gr.gz` at ec2511a; H100, 2026-11-27) of a
  300 x 300 lattice (`python3 scripts/make_lattice.py benchmarks/graphs/sources/grid300.gr 300 0`,
  not in any fit) beside usa-roads: whether rule 5's bitmap step loses on a graph of usa-roads'
  size and narrow levels that is not a road network (it does not: characterizations/README.md).
- `classout-repeat-f5049df.json.gz`: suite `classout` run a second time at f5049df on an H100
  (2026-11-27; asked for an H200 with `--classout-fit-table tables/h100.json`, an H100 came):
  the same counts as the committed results of that commit, every real graph on the same side
  of 15% and 30%.
- `delta-grid-power-3415118.jsonl.gz` and `bins-grid-power-3415118.jsonl.gz`: the model grid
  (`python3 scripts/probe_delta_grid.py OUT power-pegase2869,power-rte6515,power-pegase8387`) and
  the bins grid (`probe_batch_bins.py`, the same graphs) of the three power grids at 3415118 (H100,
  2026-11-27), which rule 1 is fitted on beside the files above (and rule 5's ladder was, until
  the bins grid below replaced it: these bins rows are at the Delta of the mean-weight unit).
- `classout-repeat-9a8341b.json.gz`: suite `classout` at 9a8341b on an H100 (2026-11-27; asked for
  an H200 with `--classout-fit-table tables/h100.json`, the held H100 ran it, after re-sweeping 11
  graphs of its table): K = 1 19 of 23 real graphs within 15%, K = 1,024 17 of 23, against
  20 and 17 in the committed results of f75aed4; the one graph on another side is usa-roads' one
  query (+39% against +12%).
- `bins-grid-4d19028.jsonl.gz`: the bins grid (`python3 scripts/probe_batch_bins.py OUT GRAPHS`
  at 4d19028, H100, 2026-11-27) on the 31 graphs whose H100 curve ends in Delta-stepping, at
  rule 1's Delta of the lightest-arc unit: the records rule 5's ladder is fitted on since. The
  power grids moved (power-pegase2869 now best at blocks of 128, 1.22x at 256); the graphs
  whose Delta did not change keep the e6e4b8e rows' best block sizes.
- `classout-03aaa58.json.gz`: suite `classout` at 03aaa58 (H100, 2026-11-27), the ladder refitted
  on the rows above with every graph weighing the same: K = 1,024 19 of 23 real graphs within
  15% (rome99 from +53% to +5%, p2p-Gnutella04 from +0% to +26%: two roads outvoted it with the
  p2p class out, which 826dd46's class weights mend), 22 within 30%. Its K = 1 is the same model
  as the committed results of 826dd46 and measured 19 of 23 within 15% against their 18:
  anybeat's one query was +13.2% here and +15.3% there.
- `latency-grid-100b87c.jsonl.gz`: the one-query grid (`python3 scripts/probe_latency_grid.py OUT`
  at 100b87c, H100, 2026-11-27, 200 s) on the shipped H100 table's 23 real graphs: Delta-stepping's
  one-query prediction of that commit at every Delta within 64x of its own, beside the table's
  one-query best, 32 sources, every solve checked. The prices the one-query Delta is fitted on
  since (`autotune model fit-choice --latency-rows`, `latency_prices.priced_delta`); only the
  one-block graphs' Delta is, as the grid winners include generated graphs it does not hold.
- `latency-bins-f71269e.jsonl.gz`: the one-query bins grid (`python3 scripts/probe_latency_bins.py
  OUT` at f71269e, H100, 2026-11-27, 259 s) on the 17 graphs whose H100 one-query winner is a
  Delta-stepping grid (7 real, 10 generated): the grid prediction of that commit at every block
  threshold crossed with blocks of 256 to 1,024, and at grids of 32 and 128 blocks, beside the
  table's one-query best. The prices the grid's block size and threshold are fitted on since
  (`latency_prices.priced_bins`). The prediction (672 threads, threshold 256, 64 blocks) was
  1.19x the grid's best on ca-HepPh and 1.38x to 2.48x on rmat17 to rmat20.
- `classout-5b50e8c.json.gz`: suite `classout` on the tree of 5b50e8c (H100, 2026-11-27; its
  `commit` field reads 100b87c, the device copy's stale git HEAD, as `BENCH_COMMIT` was taken
  from it), where the grid's bins split could cut on mean or largest degree as well as level
  width: K = 1 23 of 23 real graphs within 15%, but R-MAT left out cut at mean degree 8.1 and
  gave it threshold 128, +116% to +605% (+42% to +208% with the winners' medians). The split
  is on level width alone since.
- `h200/fleet-1a5fe48-{one,all}-gpu(s).json.gz`: the two tables of suite `fleet` at 1a5fe48 (two
  H200s, 2026-11-27, `--fleet-keep`): one GPU against both; `x-workers` counts each GPU's
  measurements (955 and 846), and every graph's best agrees within 0.6%.
- `h200/fleet-3fdc1a3.results.json`: the same suite repeated at 3fdc1a3 (two H200s, 2026-11-27;
  asked for two H100s, which did not come): one GPU 174.3 s, both 94.1 s, 1.85x.
"""
from __future__ import annotations

import contextlib
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterator, Sequence

from autotune.graphs.csr_file import CSR_SUFFIX
from autotune.search.records import Record, read_records, write_records

DATA_DIR = Path(__file__).resolve().parent / "data"
RECORDS_GPU = {"name": "NVIDIA H100 80GB HBM3", "records": "benchmarks/data/h100"}  # the GPU the CPU suites' records name
ROOT = Path(__file__).resolve().parents[1]
GRAPH_DIR = ROOT / "tests" / "data"

# The suite's graphs: the generated classes of the thesis's study and real graphs of five classes
# (road network, FEM mesh, geometric, e-mail, road network of a city), all in the repository; and
# the real-graph suite of issue 28 (`real_suite()`, fetched by `python3 -m benchmarks graphs`).
GENERATED = ("random24k-d2", "random24k-d20", "random24k-d200", "random49k-d2", "random49k-d20", "random49k-d200",
             "random98k-d2", "random98k-d20", "random98k-d200", "rmat17", "rmat18", "rmat19", "rmat20")
REAL = ("usa-roads.gr.gz", "delaunay_n16.mtx.gz", "rgg_n_2_15_s0.graph.gz", "Email-Enron.txt.gz", "rome99.gr.gz")


CONVERTED = CSR_SUFFIX  # a real-graph suite graph's name in a table: its converted file's


def suite_name(name: str) -> str:
    """A suite graph's name, given it or a table's name for it (its converted file: NAME.csr.npz)."""
    return name.removesuffix(CONVERTED)


REAL_CLASSES = {"usa-roads.gr.gz": "road", "rome99.gr.gz": "road", "delaunay_n16.mtx.gz": "mesh",
                "rgg_n_2_15_s0.graph.gz": "geometric", "Email-Enron.txt.gz": "social"}


def graph_class(name: str) -> str:
    """The class a suite graph belongs to (what a leave-one-class-out check leaves out together):
    the real graphs' (REAL_CLASSES, the real-graph suite's `kind`), `rmat` and `random` for the
    generated ones."""
    from benchmarks.realgraphs import suite

    name = suite_name(name)
    if name in REAL_CLASSES:
        return REAL_CLASSES[name]
    kinds = {graph.name: graph.kind for graph in suite()}
    if name in kinds:
        return kinds[name]
    return "rmat" if name.startswith("rmat") else "random" if name.startswith("random") else "other"


def is_real(name: str) -> bool:
    """Whether a suite graph (its name, or a table's name for it) is a real graph, not generated."""
    return name in REAL or suite_name(name) in real_suite()


def real_suite() -> tuple[str, ...]:
    """The names of the real-graph suite (`benchmarks/realgraphs.toml`; `python3 -m benchmarks graphs`
    fetches and converts them)."""
    from benchmarks.realgraphs import suite

    return tuple(graph.name for graph in suite())


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


def suite_graphs(names: str | Sequence[str], sample: int) -> Iterator[tuple[str, Any, tuple[int, ...], dict]]:
    """Each graph of `names` (comma-separated, or a list) loaded as the GPU suites load it, with
    its sample of `sample` sources (`choose_sources`, seed 0) and their scipy distances: (name,
    graph, sources, expected)."""
    from autotune.cli.options import load_spec
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
    from autotune.lookup import Table

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
