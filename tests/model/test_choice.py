"""The choice model (`autotune.predict.choice`): its samples from a table, the tree it grows, its
TOML, and `autotune predict --algorithm auto` / `autotune model fit-choice` with it."""
from __future__ import annotations

import math

import jsonschema
import pytest

from autotune.cli import main
from autotune.errors import InputError
from autotune.graphs import load_graph
from autotune.predict.choice import (ChoiceModel, admitted_batch_samples, admitted_winners, fit, fit_admitted,
                                     graph_features, table_samples, without_admitted)
from autotune.table.entry import entries_of
from autotune.table.fit import fit_table
from autotune.model.shape import graph_shape
from autotune.table.format import read_table, schema


def _point(algorithm: str, ck: int, ms: float) -> dict:
    return {"config": {"algorithm": algorithm, "concurrent_kernels": ck}, "ms_per_sssp": ms}


def _entry(name: str, vertices: int, mean_degree: float, curve: list[dict]) -> dict:
    return {"graph": {"name": name, "vertices": vertices, "edges": int(vertices * mean_degree),
                      "mean_degree": mean_degree, "degree_cv": 0.5}, "curve": curve}


# dense graphs: crauser for one query, delta for batches; sparse ones: delta throughout
TABLE = {"device": {"name": "GPU X", "compute_capability": "9.0", "sm_count": 132}, "entries": [
    _entry(f"dense{i}", 10_000 * (i + 1), 200.0, [_point("crauser", 1, 1.0), _point("delta", 4, 0.9),
                                                  _point("delta", 16, 0.2)]) for i in range(3)] + [
    _entry(f"sparse{i}", 10_000 * (i + 1), 3.0, [_point("delta", 1, 1.0), _point("crauser", 16, 3.0)])
    for i in range(3)]}


def test_a_table_gives_the_winner_of_each_power_of_two_as_lookup_would():
    samples = table_samples(entries_of(TABLE))
    dense = [(k, winner) for features, k, winner in samples if features["mean_degree"] == 200.0][:5]
    assert dense == [(1, "crauser"), (2, "crauser"), (4, "delta"), (8, "delta"), (16, "delta")]
    sparse = {winner for features, _, winner in samples if features["mean_degree"] == 3.0}
    assert sparse == {"delta"}  # crauser's CK 16 point is slower than delta's CK 1: never the answer
    assert math.isclose(samples[0][0]["log2_vertices"], math.log2(10_000))


def test_the_tree_separates_what_the_table_measured_and_survives_its_toml(tmp_path):
    model = fit(table_samples(entries_of(TABLE)), {"table": "t.json", "compute_capability": "9.0", "sm_count": 132})
    assert model.fitted_on["agreeing"] == model.fitted_on["samples"] == 30
    algorithm, path = model.predict({"log2_vertices": 15.0, "mean_degree": 150.0, "degree_cv": 0.1}, 1)
    assert algorithm == "crauser" and any(p.startswith("mean_degree 150 >=") for p in path)
    assert model.predict({"log2_vertices": 15.0, "mean_degree": 150.0, "degree_cv": 0.1}, 64)[0] == "delta"
    assert model.predict({"log2_vertices": 15.0, "mean_degree": 2.0, "degree_cv": 0.1}, 1)[0] == "delta"
    (tmp_path / "m.toml").write_text(model.to_toml())
    again = ChoiceModel.from_toml(tmp_path / "m.toml")
    assert again.nodes == model.nodes and again.fitted_on == model.fitted_on


def test_a_malformed_or_foreign_model_file_is_one_line(tmp_path):
    (tmp_path / "other.toml").write_text('format = "something/1"\n')
    with pytest.raises(InputError, match="not a choice model"):
        ChoiceModel.from_toml(tmp_path / "other.toml")
    (tmp_path / "loop.toml").write_text('format = "autotune.choice-model/1"\n[[node]]\nsamples = 2\nfeature = '
                                        '"mean_degree"\nthreshold = 1.0\nlow = 0\nhigh = 0\n')
    with pytest.raises(InputError, match="malformed choice model"):
        ChoiceModel.from_toml(tmp_path / "loop.toml")
    with pytest.raises(InputError, match="no measured curve points"):
        fit([], {})


def test_fit_choice_writes_the_model_the_shipped_one_is(tmp_path, capsys):
    out = tmp_path / "choice.toml"
    rows = ["benchmarks/data/h100/latency-grid-100b87c.jsonl.gz",
            "benchmarks/data/h100/grid-random-4282b74/latency-bins-128.jsonl.gz"]
    assert main(["model", "fit-choice", "tables/h100.json", "--shapes", "benchmarks/data/shapes.json",
                 "--latency-rows", *rows, "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "fitted on 36 graphs of tables/h100.json" in printed and "delta one query: one block below" in printed
    # the grid's bins priced on the 17 grid winners with bins prices (not the d200 graphs' grids)
    assert "block Delta: " in printed and "graphs' prices" in printed and "grid block size and threshold" in printed
    assert "grid deferral: from a mean degree of" in printed  # R-MAT's and the random graphs' grids defer
    shipped = ChoiceModel.from_toml("characterizations/choice-h100.toml")
    refitted = fit_table("tables/h100.json", "benchmarks/data/shapes.json", rows)
    assert ChoiceModel.from_toml(out).nodes == shipped.nodes == refitted.nodes
    assert ChoiceModel.from_toml(out).latency == shipped.latency == refitted.latency


@pytest.mark.parametrize("queries", [1, 16, 1024])
def test_predict_auto_names_an_algorithm_per_graph_and_why(tmp_path, capsys, monkeypatch, queries):
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "t.json"
    assert main(["predict", "--graph", "rmat12", "--graph", "random3000-d200", "--device", "hopper-h100",
                 "--algorithm", "auto", "--queries", str(queries), "--explain", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "algorithm = " in text and "[choice tree fitted on 36 graphs of tables/h100.json]" in text
    table = read_table(out)
    jsonschema.Draft202012Validator(schema()).validate(table)
    assert table["algorithm"] == "auto"
    for entry in table["entries"]:
        config = entry["predicted"]["config"]
        assert config["concurrent_kernels"] <= queries
        assert entry["predicted"]["rules"]["algorithm"].startswith("choice tree fitted on 36 graphs")
    shipped = ChoiceModel.from_toml("characterizations/choice-h100.toml")
    for entry, spec in zip(table["entries"], ("rmat12", "random3000-d200")):
        graph = entry["graph"]
        depth = graph_shape(load_graph(spec)).hop_depth  # as predict measures it
        features = graph_features(graph["vertices"], graph["mean_degree"], graph["degree_cv"], depth)
        assert features["depth_ratio"] > 0
        assert entry["predicted"]["config"]["algorithm"] == shipped.predict(features, queries)[0]


def test_predict_auto_refuses_a_gpu_without_a_choice_model_and_a_per_algorithm_model(capsys):
    assert main(["predict", "--graph", "rmat8", "--device", "kepler-gk104", "--algorithm", "auto"]) == 2
    assert "no choice model is fitted for" in capsys.readouterr().err
    assert main(["predict", "--graph", "rmat8", "--device", "hopper-h100", "--algorithm", "auto", "--model",
                 "fitted"]) == 2
    assert "give --model auto or thesis" in capsys.readouterr().err


def test_at_the_batch_end_an_algorithm_near_the_winner_counts_as_an_answer_too():
    entry = _entry("skewed", 10_000, 8.0, [_point("delta", 1, 1.0), _point("delta", 16, 0.2)])
    entry["by_algorithm"] = {"delta": {"ms_per_sssp": 0.2}, "delta_lanes": {"ms_per_sssp": 0.21},
                             "crauser": {"ms_per_sssp": 0.3}}
    samples = table_samples(entries_of({"entries": [entry]}))
    assert [len(s) for s in samples] == [3, 3, 3, 3, 4]  # K = 1 to 8: the winner alone; K = 16 its near rival too
    assert samples[-1][1:] == (16, "delta", frozenset({"delta", "delta_lanes"}))


def test_a_sample_with_two_answers_moves_the_threshold_to_the_side_they_share():
    def sample(cv, answers, winner="delta"):
        return ({"log2_vertices": 16.0, "mean_degree": 8.0, "degree_cv": cv}, 1024, winner, frozenset(answers))

    lanes, delta = {"delta_lanes"}, {"delta"}
    samples = [sample(1.0, delta), sample(2.0, delta), sample(9.0, delta | lanes),
               sample(13.0, lanes, "delta_lanes"), sample(14.0, lanes, "delta_lanes")]
    model = fit(samples, {})
    # the skew of rmat17 (5.6) lies between the near tie (9.0) and the last graph delta alone won (2.0)
    assert model.predict({"log2_vertices": 16.0, "mean_degree": 8.0, "degree_cv": 5.6}, 1024)[0] == "delta_lanes"
    hard = fit([(f, k, w) for f, k, w, _ in samples], {})  # the winners alone put the threshold above 9.0
    assert hard.predict({"log2_vertices": 16.0, "mean_degree": 8.0, "degree_cv": 5.6}, 1024)[0] == "delta"


def test_of_two_splits_as_pure_the_one_with_the_wider_margin_wins_whichever_feature_comes_first():
    def sample(log2_vertices, degree, winner):
        return ({"log2_vertices": log2_vertices, "mean_degree": degree, "degree_cv": 0.0}, 16, winner)

    # uniform dense graphs (crauser) are smaller here than the dense skewed ones (delta), but only
    # just: the vertices separate them by 0.4 of their span of 5.4, the degrees by 170 of 171.6
    samples = [sample(14.6, 200.0, "crauser"), sample(15.6, 200.0, "crauser"), sample(16.6, 200.0, "crauser"),
               sample(17.0, 28.4, "delta"), sample(18.0, 29.0, "delta"), sample(20.0, 29.9, "delta")]
    model = fit(samples, {})
    assert model.nodes[0].feature == "mean_degree" and 29.9 < model.nodes[0].threshold < 200.0
    # a small graph of degree 44 is on the degree's delta side, though the vertices alone would say crauser
    assert model.predict({"log2_vertices": 12.0, "mean_degree": 44.0, "degree_cv": 1.2}, 16)[0] == "delta"


def test_fit_choice_refuses_latency_rows_without_shapes_in_one_line(tmp_path, capsys):
    assert main(["model", "fit-choice", "tables/h100.json", "--latency-rows", "rows.jsonl",
                 "-o", str(tmp_path / "c.toml")]) == 2
    assert capsys.readouterr().err.strip() == "autotune: fit-choice: --latency-rows prices the one-query rules, which need --shapes"
    assert not (tmp_path / "c.toml").exists()


def test_a_conditional_algorithm_that_won_wherever_measured_is_picked_where_admitted(tmp_path):
    # phast measured (admitted) on three sparse graphs and the winner at every K there
    roads = [{**_entry(f"road{i}", 20_000 * (i + 1), 2.5, [_point("phast", 1, 0.1), _point("phast", 16, 0.01)]),
              "by_algorithm": {"phast": _point("phast", 16, 0.01), "delta": _point("delta", 16, 0.02)}}
             for i in range(3)]
    table = {**TABLE, "entries": TABLE["entries"] + roads}
    assert admitted_winners(entries_of(table)) == {"phast": 3}
    model = fit_admitted(entries_of(table))
    assert model.admitted == {"phast": 3}
    sparse = graph_features(20_000, 2.5, 0.5)
    assert model.predict(sparse, 1, {"phast"})[0] == "phast"
    assert model.predict(sparse, 1)[0] == "delta"  # not admitted: the tree, fitted on the other entries
    assert all(winner != "phast" for _, _, winner in table_samples(without_admitted(entries_of(table), {"phast"})))
    path = tmp_path / "choice.toml"
    path.write_text(model.to_toml())
    assert ChoiceModel.from_toml(path).admitted == {"phast": 3}
    # a fourth graph where it lost K = 16: 19 of 20 Ks won, at least ADMIT_SHARE (90%), still picked
    slip = {**roads[0], "curve": [_point("phast", 1, 0.1), _point("delta", 16, 0.001)]}
    assert admitted_winners(entries_of({"entries": table["entries"] + [slip]})) == {"phast": 4}
    # one where it lost from K = 2 on: 16 of 20 (80%): not picked, and the tree, fitted without the
    # graphs that measured it, never names it
    lost = entries_of({**table, "entries": table["entries"] + [{**slip, "curve": [
        _point("phast", 1, 0.1), _point("delta", 2, 0.001), _point("delta", 16, 0.0005)]}]})
    assert admitted_winners(lost) == {}
    assert {fit_admitted(lost).predict(sparse, k)[0] for k in (1, 16)} == {"delta"}
    assert admitted_winners(entries_of({"entries": roads[:1]})) == {}  # one graph is too few


def test_an_admitted_graph_tells_the_tree_its_batch_end_by_the_other_algorithms():
    # three large deep graphs that admit phast, where delta_lanes was measured too and lost to delta
    # (one of them with delta alone: no comparison); large R-MAT-like graphs where delta_lanes wins
    def road(i: int, others: dict) -> dict:
        return {**_entry(f"road{i}", 400_000 * (i + 1), 2.5, [_point("phast", 1, 0.1), _point("phast", 16, 0.01)]),
                "by_algorithm": {"phast": _point("phast", 16, 0.01), **others}}

    lanes_lost = {"delta": _point("delta", 16, 0.02), "delta_lanes": _point("delta_lanes", 16, 0.5)}
    roads = [road(0, lanes_lost), road(1, lanes_lost), road(2, {"delta": _point("delta", 16, 0.02)})]
    skewed = [_entry(f"rmat{i}", 300_000 * (i + 1), 30.0, [_point("delta", 1, 1.0), _point("delta_lanes", 16, 0.1)])
              for i in range(3)]
    table = {**TABLE, "entries": TABLE["entries"] + roads + skewed}
    found = admitted_batch_samples(entries_of(table), {"phast"})
    assert [(k, winner, near) for _, k, winner, near in found] == [(16, "delta", frozenset({"delta"}))] * 2
    assert admitted_batch_samples(entries_of(table), set()) == []  # nothing admitted: every entry is the tree's already
    model = fit_admitted(entries_of(table))
    assert model.fitted_on["samples"] == len(table_samples(without_admitted(entries_of(table), {"phast"}))) + 2
    # a large sparse graph that admits nothing: delta at the batch end, as the deep graphs' batch ends say
    assert model.predict(graph_features(600_000, 2.5, 0.5), 16)[0] == "delta"
    assert model.predict(graph_features(600_000, 30.0, 0.5), 16)[0] == "delta_lanes"
