"""The queries curve's studies per algorithm: the batch end, the latency end and the middle."""
from __future__ import annotations

import dataclasses

from autotune.search.run.jobs import SpaceOptions, end_spaces, jobs_of_algorithm
from autotune.graphs import load_graph
from autotune.search.run import specials as sp


def _graph():
    return sp.graph_info(load_graph("rmat10"))


def test_the_curve_has_three_ends_and_the_batch_end_bridges_only_what_no_other_searches():
    spaces = end_spaces(SpaceOptions(), "curve", "delta", _graph())
    assert [(end.objective, space.concurrent_kernels) for end, space in spaces] == [
        ("throughput", (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)), ("latency", (1,)), ("few", (2, 4, 8, 16))]
    jobs = jobs_of_algorithm(_graph(), "delta", spaces, lambda space: None, lambda: None, "g")
    settings = {job.objective: dict(job.settings) for job in jobs}
    assert settings["throughput"] == {"bridge": True, "searched_elsewhere": (1, 2, 4, 8, 16), "enough": 30}
    assert settings["few"] == {"prune_references": True, "bridge": True}
    assert settings["latency"] == {"prune_references": True, "enough": 30}


def test_a_sweep_of_one_end_without_its_trials_given_samples_on_until_enough_configurations():
    """The reference a default sweep's ends are held to (issue 68) tunes its end as the curve's ends
    are tuned; a search given its trials (`--trials`, the suite `tuner`'s share) keeps to them."""
    from autotune.cli import build_parser
    from autotune.cli.sweep_request import parse
    from autotune.search.run.plan import ENOUGH_AT_END

    def enough(*options: str) -> int:
        return parse(build_parser("sweep").parse_args(["sweep", "--graph", "rmat10", *options])).settings.enough

    assert enough("--objective", "latency") == enough("--objective", "throughput") == ENOUGH_AT_END
    assert enough("--queries", "16") == ENOUGH_AT_END  # K at once: the batch end alone
    assert enough("--objective", "latency", "--trials", "20") == 0
    assert enough("--objective", "throughput", "--strategy", "exhaustive") == 0
    assert enough() == 0  # the curve: its ends' own (`jobs_of_algorithm`), not its middle's


def test_an_algorithm_without_small_ck_values_has_the_batch_end_alone():
    spaces = end_spaces(SpaceOptions(), "curve", "delta_lanes", _graph())
    assert [end.objective for end, _ in spaces] == ["throughput"]
    assert [end.objective for end, _ in end_spaces(SpaceOptions(ck="1,32,64"), "curve", "delta", _graph())] == [
        "throughput", "latency"]


def test_a_replay_of_records_without_the_degree_skew_gets_it_from_the_graph_itself():
    """Older records name the graph without its degree skew, which the fitted rules read (rmat17:
    relax lanes 4 from `predict`, 1 from a replay that lacked it); the replay takes it from the
    graph where that is the graph recorded (same sha256)."""
    from autotune.cli.options import load_spec
    from autotune.search.run.jobs import recorded_graph_features
    from autotune.errors import InputError
    from autotune.search.results import GraphInfo

    graph = load_spec("rmat10", 0, None)
    recorded = GraphInfo("rmat10", graph.sha256, graph.n_vertices, graph.n_edges, seed=0)
    assert recorded.degree_cv is None
    loaded = recorded_graph_features(recorded, lambda name: load_spec(name, 0, None))
    assert loaded.degree_cv > 1.0 and 1 <= loaded.lightest_weight < loaded.mean_weight  # rule 1's unit, never recorded
    assert "lightest_weight" not in loaded.to_json()
    other = GraphInfo("rmat10", "0" * 64, graph.n_vertices, graph.n_edges, seed=0)  # another graph of that name
    assert recorded_graph_features(other, lambda name: load_spec(name, 0, None)) is other

    def missing(name: str):
        raise InputError(f"{name}: no such file")

    assert recorded_graph_features(recorded, missing) is recorded


def test_a_sweep_tunes_every_algorithms_ends_before_any_middle_the_latency_end_first():
    """Issue 68: the one query and the batch end take their turns (and their shares of the budget)
    before the middles; per rank, the latency end, whose trials cost one query each, comes first."""
    from autotune.search.run.order import order_for_auto

    graph = _graph()
    jobs = []
    for name in ("adds", "crauser", "delta_lanes", "delta"):
        jobs += jobs_of_algorithm(graph, name, end_spaces(SpaceOptions(), "curve", name, graph), lambda space: None,
                                  lambda: None, "g")
    order = [(job.algorithm, job.objective) for job in order_for_auto(jobs)]
    assert order == [("delta", "latency"), ("delta", "throughput"), ("delta_lanes", "throughput"),
                     ("crauser", "latency"), ("crauser", "throughput"), ("adds", "latency"), ("adds", "throughput"),
                     ("delta", "few"), ("crauser", "few"), ("adds", "few")]  # delta_lanes: no CK below 32


def test_the_batch_end_expected_to_win_goes_before_the_other_batch_ends():
    """The choice model's algorithm for the batch moves its batch end to the front of the batch ends
    (not before the first latency end): the others' slower trials are then pruned after a warm-up."""
    from autotune.model import load_device
    from autotune.search.run.order import batch_winner_guess, order_for_auto

    graph = _graph()
    jobs = []
    for name in ("crauser", "delta_lanes", "delta"):
        jobs += jobs_of_algorithm(graph, name, end_spaces(SpaceOptions(), "curve", name, graph), lambda space: None,
                                  lambda: None, "g")
    asked = []

    def guess(graph_info, queries, admitted):
        asked.append((graph_info.name, queries, sorted(admitted)))
        return "delta_lanes"

    order = [(job.algorithm, job.objective) for job in order_for_auto(jobs, guess)]
    assert order[:4] == [("delta", "latency"), ("delta_lanes", "throughput"), ("delta", "throughput"),
                         ("crauser", "latency")]
    assert asked == [(graph.name, 1024, ["crauser", "delta", "delta_lanes"])]
    assert [(j.algorithm, j.objective) for j in order_for_auto(jobs, lambda *args: "delta")] == [
        (j.algorithm, j.objective) for j in order_for_auto(jobs)]
    h200 = batch_winner_guess(load_device("hopper-h200"))  # the shipped model's answer for an R-MAT graph's batch
    rmat = dataclasses.replace(graph, n_vertices=4_194_304, n_edges=128_311_109, degree_cv=4.0)
    assert h200(rmat, 1024, {"delta", "delta_lanes"}) == "delta_lanes" and h200(rmat, 1, {"delta"}) == "delta"


def test_the_default_budget_grows_with_the_graphs_vertices_plus_arcs():
    from autotune.search.run.plan import default_budget_s

    assert default_budget_s(131_072, 3_728_785) == 55.0  # rmat17, the README's main job
    assert default_budget_s(1_524_453, 3_868_020) == 110.0  # road-NE: few arcs, many vertices
    assert default_budget_s(1_048_576, 31_402_110) == 110.0  # rmat20
    assert default_budget_s(4_194_304, 128_311_109) == 165.0  # rmat22: issue 68's 180 s, less a margin
    assert default_budget_s(16_777_216, 510_000_000) == 285.0  # rmat24: 300 s


def test_every_graph_s_ends_go_before_any_graph_s_middles():
    from autotune.search.run.order import order_for_auto

    jobs = []
    for graph in (_graph(), dataclasses.replace(_graph(), name="other", sha256="1" * 64)):
        jobs += jobs_of_algorithm(graph, "delta", end_spaces(SpaceOptions(), "curve", "delta", graph),
                                  lambda space: None, lambda: None, "g")
    order = [(job.graph.name, job.objective) for job in order_for_auto(jobs)]
    assert [objective for _, objective in order] == ["latency", "throughput"] * 2 + ["few"] * 2
    assert [name for name, _ in order] == [jobs[0].graph.name] * 2 + ["other"] * 2 + [jobs[0].graph.name, "other"]


def test_ends_cut_short_go_on_before_the_middles_with_the_middles_shares_counted():
    """The ends' first turns, then those cut short (with what is left shared with the middles to
    come), then the middles' first turns and their own cut short: rmat23's batch end had no time
    left once the middles had run."""
    from autotune.search.run.order import first_turns

    objectives = ["latency", "throughput", "latency", "throughput", "few", "few"]
    weights = [2.0, 2.0, 1.0, 1.0, 2.0, 1.0]
    opened, short, over = [], {1, 3, 5}, []
    turns = list(first_turns(objectives, weights, opened.append, short.__contains__,
                             reopened=lambda i: i != 3, run_over=lambda: bool(over)))
    assert opened == [0, 1, 2, 3, 4, 5]
    assert turns == [(0, 9.0), (1, 7.0), (2, 5.0), (3, 4.0),
                     (1, 2.0 + 1.0 + 3.0),  # 1 and 3 were cut short; 3 cannot go on; the middles' 3 to come
                     (4, 3.0), (5, 1.0), (5, 1.0)]
    over.append(True)  # past the run's end nothing is sent back
    assert [t for t in first_turns(objectives, weights, lambda i: None, short.__contains__, lambda i: True,
                                   lambda: bool(over))] == [(0, 9.0), (1, 7.0), (2, 5.0), (3, 4.0), (4, 3.0), (5, 1.0)]


def test_a_study_whose_preparation_is_under_way_lets_the_others_go_first_and_one_left_out_takes_no_turn():
    """PHAST's ends (0, 1) wait for the hierarchy built beside the sweep: Δ-stepping's go first, those
    cut short go on, then PHAST's take their turns once it is ready; its middle (4) is left out
    where the build stopped, its share going to the turns after it."""
    from autotune.search.run.order import first_turns

    objectives = ["latency", "throughput", "latency", "throughput", "few", "few"]
    weights = [2.0, 2.0, 1.0, 1.0, 2.0, 1.0]
    opened, built, waited = [], [], []

    def admitted(index):
        if index < 2:
            waited.append(index)
            built.append(True)  # waiting for it ends the build
        return True

    turns = list(first_turns(objectives, weights, opened.append, {3}.__contains__, lambda i: True, lambda: False,
                             ready=lambda i: i > 1 or bool(built), admitted=admitted))
    assert turns == [(2, 9.0), (3, 8.0),  # PHAST's ends' 4 counted as to come
                     (3, 1.0 + 4.0 + 3.0),  # cut short: sent back before PHAST waits
                     (0, 7.0), (1, 5.0), (4, 3.0), (5, 1.0)]
    assert opened == [2, 3, 0, 1, 4, 5] and waited == [0, 1]
    left_out = list(first_turns(objectives, weights, lambda i: None, lambda i: False, lambda i: True, lambda: False,
                                ready=lambda i: i > 1, admitted=lambda i: i not in (0, 1, 4)))
    assert left_out == [(2, 9.0), (3, 8.0), (5, 1.0)]


def test_a_preparation_beside_the_sweep_says_why_it_leaves_its_algorithm_out_and_is_stopped_at_the_end(capsys):
    """One after the other: a refusal while the sweep runs is said; a build that the sweep's end
    stops says nothing more (its own line said it)."""
    import threading

    from autotune.search.run.preparing import Preparations, admitted, ready

    began, seen = threading.Event(), []

    class Refused:
        name = "phast"

        def admits(self, graph, prepare, within_s, beside):
            seen.append((prepare, within_s))
            return "no contraction hierarchy: densified"

    class Building(Refused):
        def admits(self, graph, prepare, within_s, beside):
            began.set()
            beside.wait(10.0)  # a build that the sweep's end stops
            return "no contraction hierarchy: the sweep ended before its build" if beside.is_set() else None

    graph = _graph()
    with Preparations() as preparations:
        refused = preparations.start(graph, Refused(), 55.0)
        building = preparations.start(graph, Building(), 55.0)
        assert not admitted(refused) and seen == [(True, 55.0)]
        assert began.wait(10.0) and not ready(building)
    assert ready(building) and not admitted(building)
    assert capsys.readouterr().err == f"autotune: {graph.name}: auto leaves phast out: no contraction hierarchy: " \
        "densified\n"
    assert ready(None) and admitted(None)


def test_each_graph_s_part_of_the_budget_bounds_its_preparation():
    from autotune.search.run.plan import PREPARE_BESIDE_SHARE, PREPARE_SHARE, graph_budgets_s, prepare_within_s

    assert graph_budgets_s(120.0, True, [(10, 20), (30, 40)]) == [60.0, 60.0]  # --budget split over the graphs
    assert graph_budgets_s("auto", True, [(4_194_304, 16_769_024)]) == [110.0]  # grid22: 55 s for its hierarchy
    assert graph_budgets_s("auto", False, [(10, 20)]) is None and graph_budgets_s(None, True, [(10, 20)]) is None
    assert 0 < PREPARE_SHARE < PREPARE_BESIDE_SHARE < 1  # beside the sweep, the others are measured meanwhile
    assert prepare_within_s([110.0, 60.0], beside=False) == [110.0 * PREPARE_SHARE, 60.0 * PREPARE_SHARE]
    assert prepare_within_s([110.0], beside=True) == [110.0 * PREPARE_BESIDE_SHARE]
