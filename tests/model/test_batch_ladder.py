"""Delta-stepping's batch block sizes by level width fitted for the choice model's own GPU
(`table.fit.fit_batch_ladder`, `LatencyRules.batch_ladder`): the H200's probe put 256 where the
H100's ladder gave 512 on graphs of level width 631 to 1,841."""
import dataclasses

from autotune.algorithms import get
from autotune.algorithms.delta.rules import ladder_of
from autotune.cli import main
from autotune.model.device import load_device
from autotune.model.features import GraphFeatures
from autotune.predict.auto import predicted
from autotune.predict.choice import ChoiceModel

BINS_ROWS = ("benchmarks/data/h200/bins-grid-da9373b.jsonl.gz", "benchmarks/data/h200/bins-grid-edadc3b.jsonl.gz")


def _social(width: float) -> GraphFeatures:
    return GraphFeatures("social", 20_000, 200_000, max_degree=900, degree_cv=2.0, mean_weight=50.0,
                         min_positive_weight=1, max_weight=100, lightest_weight=20.0, level_width=width)


def test_the_h200_model_s_ladder_gives_its_batch_end_256_where_the_h100_s_gives_512():
    latency = ChoiceModel.from_toml("characterizations/choice-h200.toml").latency
    ladder = {int(size): start for size, start in latency.batch_ladder.items()}
    assert ladder[512] > ladder_of(get("delta").characterization.model)[512]
    device = load_device("hopper-h200")
    config, decisions = predicted("delta", _social(1000.0), device, "auto", None, latency, lambda: 1000.0)
    shipped, _ = predicted("delta", _social(1000.0), device, "auto", None, None, lambda: 1000.0)
    assert config.kernel("advance").block_size == 256 and shipped.kernel("advance").block_size == 512
    assert any("256 from 90" in d.reason for d in decisions if d.parameter == "block_size")
    wide, _ = predicted("delta", _social(20_000.0), device, "auto", None, latency, lambda: 20_000.0)
    assert wide.kernel("advance").block_size == 1024
    without = dataclasses.replace(latency, batch_ladder={})
    assert predicted("delta", _social(1000.0), device, "auto", None, without, lambda: 1000.0)[0] == shipped
    assert ChoiceModel.from_toml("characterizations/choice-h100.toml").latency.batch_ladder == {}  # no H100 rows


def test_the_class_out_refit_of_the_h200_ladder_leaves_the_class_s_graphs_out():
    from autotune.algorithms.delta import fit as delta_fit
    from benchmarks import classout, data

    without = classout.delta_without("social", "h200")
    rows = delta_fit.read_rows(classout.WIDTH_ROWS["h200"], delta_fit.WIDTH_CLASSES)
    widths = {g: w for g, w in classout.shape_widths().items() if data.graph_class(g) != "social"}
    assert ladder_of(without.model) == delta_fit.fit_block_widths(rows, widths, classout.ladder_taken("h200"),
                                                                  data.graph_class)
    assert classout.delta_without("social", "h100").model != without.model  # the H100's rows, for a GPU of its own
    assert "wide_width" not in without.model  # rule 4 on the H100's records at the H100's ladder: none, as shipped


def test_fit_choice_refuses_bins_rows_without_shapes_in_one_line(capsys):
    assert main(["model", "fit-choice", "tables/h200.json", "--bins-rows", BINS_ROWS[0], "-o", "x.toml"]) == 2
    assert capsys.readouterr().err.strip() == ("autotune: fit-choice: --bins-rows prices the block sizes by level "
                                               "width, which need --shapes")


def test_bins_rows_that_price_no_graph_of_the_table_are_refused(tmp_path, capsys):
    empty = tmp_path / "rows.jsonl"
    empty.write_text('{"graph": "no-such-graph", "class": "bins grid", "status": "ok", "ms_per_sssp": 1.0, '
                     '"config": {"kernels": {"advance": {"block_size": 256}}}}\n')
    assert main(["model", "fit-choice", "tables/h200.json", "--shapes", "benchmarks/data/shapes.json",
                 "--latency-from", "characterizations/choice-h100.toml", "--bins-rows", str(empty),
                 "-o", str(tmp_path / "c.toml")]) == 2
    assert "price no graph of the table with a level width" in capsys.readouterr().err
