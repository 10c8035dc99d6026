"""Delta-stepping's rules for a few sources at once (`autotune.algorithms.delta.spread`): fitted on
what the shared-out grid costs, applied after one query's rules."""
import json
import math

import pytest

from autotune.algorithms.delta import DELTA, spread
from autotune.algorithms.delta.latency import LatencySample
from autotune.cli import main
from autotune.launch import KernelLaunch
from autotune.model.features import GraphFeatures
from autotune.predict.choice import ChoiceModel


def _sample(name, degree, unit=64.0):
    return LatencySample(name, 0.0, unit, 100, {}, 0, False, degree)


def _prices(best_delta, slow_768=1.5):
    """A graph's prices: its best Delta costs 1, each octave away 20% more; blocks of 768 cost more."""
    deltas = [2**k for k in range(12)] + ["inf"]
    by = {d: 1.0 + 0.2 * abs(math.log2(2048 if d == "inf" else d) - math.log2(best_delta)) for d in deltas}
    return {1024: by, 768: {d: slow_768 * t for d, t in by.items()}}


def test_the_fit_takes_the_cheaper_block_size_and_a_delta_that_falls_with_the_degree():
    samples = [_sample("sparse", 2.0), _sample("mid", 16.0), _sample("dense", 128.0)]
    prices = {"sparse": _prices(2048), "mid": _prices(64), "dense": _prices(2)}
    vertices = {"sparse": 2**16, "mid": 2**16, "dense": 2**16}
    found = spread.fit(samples, prices, 16, vertices)
    assert found["block_size"] == 1024 and found["graphs"] == 3 and found["queries"] == 16
    assert found["degree_exponent"] > 1  # one query's grid Delta falls as 1 / d (its unit); here faster
    for sample, best in zip(samples, (2048, 64, 2)):
        target = found["delta_ratio"] * sample.unit / sample.mean_degree ** found["degree_exponent"]
        assert abs(math.log2(target) - math.log2(best)) <= 1.0
    assert spread.fit(samples, {}, 16, vertices) == {}  # nothing priced: no rules


def _graph(degree=8.0, vertices=1 << 16):
    return GraphFeatures(name="g", n_vertices=vertices, n_edges=int(vertices * degree), max_degree=64,
                         degree_cv=0.5, min_positive_weight=1, max_weight=100, mean_weight=50.0)


SPREAD_ROWS = "benchmarks/data/h200/spread-grid-76252fe.jsonl.gz"
BINS_ROWS = ("benchmarks/data/h200/bins-grid-da9373b.jsonl.gz", "benchmarks/data/h200/bins-grid-edadc3b.jsonl.gz")
RULES = {"queries": 16, "block_size": 1024, "delta_ratio": 64.0, "degree_exponent": 1.0, "vertices_exponent": 0.0,
         "graphs": 3}


def _grid(blocks, delta=2048):
    config = DELTA.default_config().replace(blocks=blocks, loop="persistent", delta=delta,
                                            concurrent_kernels=max(1, 128 // blocks))
    return config.replace(**{k: KernelLaunch(768, config.kernel(k).cache) for k in DELTA.kernels})


def test_applied_the_delta_goes_log_linearly_from_one_query_s_to_the_rule_s_at_its_k():
    graph = _graph(degree=8.0)  # the rule's Delta: 64 x unit 8 / 8 = 64
    at_16, why = spread.apply(RULES, _grid(8), (), DELTA, graph, 8.0, 16)
    assert at_16.param("delta") == 64 and at_16.kernel("advance").block_size == 1024
    assert {d.rule for d in why} == {"delta spread 1", "delta spread 2"}
    at_4, _ = spread.apply(RULES, _grid(32), (), DELTA, graph, 8.0, 4)
    assert at_4.param("delta") in (256, 512)  # log2 4 / log2 16: halfway between 2^11 and 2^6, 2^8.5
    inf, _ = spread.apply(RULES, _grid(8, "inf"), (), DELTA, graph, 8.0, 16)
    assert inf.param("delta") == 64  # INF one query, the rule's own Delta at its K


def test_one_block_an_instance_and_a_model_without_the_rules_are_left_as_they_are():
    one_block = _grid(1)
    assert spread.apply(RULES, one_block, (), DELTA, _graph(), 8.0, 16)[0] == one_block
    grid = _grid(8)
    assert spread.apply({}, grid, (), DELTA, _graph(), 8.0, 16)[0] == grid


def test_the_shipped_h200_model_holds_rules_fitted_on_the_committed_rows_at_k_16():
    rows = [SPREAD_ROWS]
    assert spread.queries_of(rows) == 16
    assert len(spread.read_prices(rows)) >= 30
    latency = ChoiceModel.from_toml("characterizations/choice-h200.toml").latency
    assert latency.spread["queries"] == 16 and latency.spread["block_size"] == 1024
    assert ChoiceModel.from_toml("characterizations/choice-h100.toml").latency.spread == {}  # no H100 rows


def test_fit_choice_writes_the_shipped_h200_model_spread_rules_and_ladder_included(tmp_path, capsys):
    out = tmp_path / "choice.toml"
    assert main(["model", "fit-choice", "tables/h200.json", "--shapes", "benchmarks/data/shapes.json",
                 "--latency-from", "characterizations/choice-h100.toml", "--spread-rows", SPREAD_ROWS,
                 "--bins-rows", *BINS_ROWS, "-o", str(out)]) == 0
    assert "16 at once: blocks of 1024" in capsys.readouterr().out
    shipped = ChoiceModel.from_toml("characterizations/choice-h200.toml")
    written = ChoiceModel.from_toml(out)
    assert written.nodes == shipped.nodes and written.latency == shipped.latency


def test_the_class_out_refit_leaves_the_class_s_graphs_out_of_the_spread_fit():
    from autotune.algorithms.delta.latency import batch_constants
    from autotune.table import Table
    from autotune.table.fit import fit_spread_rows
    from benchmarks import data

    entries = Table.load("tables/h200.json").entries
    shapes = json.loads(open("benchmarks/data/shapes.json").read())["shapes"]
    everything = fit_spread_rows(entries, [SPREAD_ROWS], shapes, batch_constants())
    social = {e.name for e in entries if data.graph_class(e.name) == "social"}
    priced = set(spread.read_prices([SPREAD_ROWS]))
    left = [e for e in entries if e.name not in social]
    without = fit_spread_rows(left, [SPREAD_ROWS], shapes, batch_constants())
    gone = {name for name in social if name.removesuffix(".csr.npz") in priced}
    assert gone and without["graphs"] == everything["graphs"] - len(gone)


def test_rows_of_several_ks_are_refused(tmp_path):
    path = tmp_path / "rows.jsonl"
    config = _grid(8).to_json()
    path.write_text("".join(json.dumps({"graph": g, "class": "spread grid", "queries": k, "config": config,
                                        "status": "ok", "ms_per_sssp": 1.0}) + "\n" for g, k in (("a", 16), ("b", 8))))
    with pytest.raises(ValueError, match="not of one K"):
        spread.queries_of([path])


def test_fit_choice_refuses_spread_rows_without_shapes_in_one_line(tmp_path, capsys):
    assert main(["model", "fit-choice", "tables/h200.json", "--spread-rows", "rows.jsonl",
                 "-o", str(tmp_path / "c.toml")]) == 2
    assert "need --shapes" in capsys.readouterr().err
