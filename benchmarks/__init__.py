"""autotune's benchmarks: one runner, named suites, results as data, documents rendered from them.

    python3 -m benchmarks list
    python3 -m benchmarks run SUITE... [--results DIR] [the suites' options]
    python3 -m benchmarks render [--check]
    python3 -m benchmarks graphs [--offline]    # the real-graph suite (docs/real-graphs.md)

A suite is a module with `add_options(parser)`, `run(args) -> Results` and `render(results) ->
markdown lines`; it measures (or, for a CPU suite, computes from committed records) and returns one
`results.Results`, written to `benchmarks/results/<gpu>/<suite>.json` with the command, GPU,
driver, commit and date. `render` writes the README's and `docs/benchmarks.md`'s tables from the
newest results files, and the tests check that the committed documents are what it writes: no
number in them is typed by hand.

Adding a suite adds a module and one line to `SUITES`.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Suite:
    """A named suite: `gpus` is how many GPUs it needs (0: none, it reads committed records)."""

    name: str
    module: str
    gpus: int
    summary: str


SUITES = {suite.name: suite for suite in (
    Suite("kernels", "benchmarks.kernels", 1, "one query and batches on the GPU against scipy's Dijkstra on one core"),
    Suite("tables", "benchmarks.tables", 1, "the default sweep of every suite graph: wall time, evaluations, the "
          "shipped table"),
    Suite("tuner", "benchmarks.tuner", 0, "Bayesian search replayed on recorded exhaustive sweeps: evaluations to "
          "within 3% of the optimum"),
    Suite("model", "benchmarks.model", 0, "the fitted models checked leaving each graph out, priced from records"),
    Suite("lookup", "benchmarks.lookup", 0, "Table.nearest (the C header's answer to a graph its table does not "
          "hold) checked leaving each graph out, priced from records"),
    Suite("agreement", "benchmarks.agreement", 0, "Table.lookup and predict --algorithm auto --table give one "
          "configuration, each graph left out of its table, K = 1 to 1,024"),
    Suite("choice", "benchmarks.choice", 0, "which algorithm predict --algorithm auto picks, each class of graphs "
          "left out, against the shipped table's winners"),
    Suite("predict", "benchmarks.predict", 0, "how long predict --algorithm auto takes on a graph of 1M vertices "
          "and 31M arcs, on one CPU core"),
    Suite("fleet", "benchmarks.fleet", 2, "the same sweep on one GPU and on all of them: the speed-up"),
    Suite("answers", "benchmarks.answers", 1, "what the shipped table hands K sources at once against a sweep "
          "dedicated to that K (K = 1, 16, 1,024)"),
    Suite("classout", "benchmarks.classout", 1, "predict --algorithm auto, each graph's class left out of the choice "
          "fit, timed against the table's best (K = 1, 16 and 1,024)"),
    Suite("seeded", "benchmarks.seeded", 1, "a sweep of 15 trials seeded by the model against the long sweep's best "
          "(issue 28)"),
    Suite("many", "benchmarks.many", 1, "sssp --sources on one GPU and on all of them, closeness of every source, "
          "a killed run started again"),
    Suite("hierarchy", "benchmarks.hierarchy", 1, "contraction hierarchies built on one core of the GPU's host, "
          "the graphs refused, and PHAST's times on them against an earlier contraction's"),
    Suite("large", "benchmarks.large", 1, "the default sweep of graphs 4-100x the suite's (R-MAT 22-24, urand, road "
          "NE and NW, grids of 2^22 and 2^24), timed whole, against sweeps dedicated to each end"),
    Suite("width", "benchmarks.width", 1, "what the 64-bit distance builds cost, on graphs that do not need them"),
    Suite("queries", "benchmarks.queries", 1, "shortest-path trees and source-target stops: their cost against the "
          "distances alone"),
)}
