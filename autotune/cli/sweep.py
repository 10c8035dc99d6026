"""`autotune sweep`: measure and tune the launch configuration of each graph; write the JSON table.

On a GPU (PyCUDA, imported only then and only without `--replay`)::

    autotune sweep --graph rmat17 [--graph rmat20 ...] [--algorithm crauser|martin|delta|auto]

From recorded measurements, on any machine (`--replay`; the graphs are the records' own)::

    autotune sweep --replay tests/data/records/synthetic-rmat12.jsonl --strategy exhaustive -o t.json

Writes the table (`-o`, default `sweep-<graphs>-<device>-<algorithm>.json` here) after every
graph, atomically; the records (JSON Lines, every measurement, `--records`, default next to the
table; a replay writes them only when asked); the T4 results (`--t4 DIR`). Ctrl-C or SIGTERM stops
cleanly: the table so far is written, marked partial, and the exit status is 130. Several GPUs:
`autotune.cli.sweep_fleet`.
"""
from __future__ import annotations

import argparse
import dataclasses
import time
from contextlib import ExitStack
from typing import Any, Iterator

from autotune import algorithms
from autotune.arguments import byte_size
from autotune.cli import sweep_fleet
from autotune.cli.options import GRAPH_HELP
from autotune.search.run.jobs import Job
from autotune.search.run.opening import OpenedOnUse
from autotune.search.run.preparing import admitted, ready
from autotune.search.run.order import batch_winner_guess, first_turns, order_for_auto
from autotune.search.run.specials import profile_from_json
from autotune.search.run.plan import DEFAULT_PATIENCE, graph_budgets_s
from autotune.search.results.outputs import INTERRUPTED, report_outcome, write_outputs
from autotune.cli.sweep_request import CURVE_TRIALS, OBJECTIVES, Request, jobs_of, outputs_of, parse
from autotune.errors import InputError
from autotune.measure import DEFAULT_NOISE, DEFAULT_REPETITIONS, DEFAULT_SAMPLE
from autotune.search.run.interrupts import stop_on_sigterm

from autotune.search.results import GraphResult
from autotune.search.run.resume import cut_short, is_held, reopen
from autotune.search.run.storage import MEMORY, open_storage
from autotune.search.strategies import DEFAULT_TRIALS, SAMPLERS, STRATEGIES
from autotune.search.run.local import SweepProgress, sweep_graph
from autotune.search.run.sweep import Budget, GraphPlan
from autotune.search.run.transfer import complete_trials, fastest_ms_per_ck, fastest_per_ck
from autotune.search.run.pruning import DEFAULT_CONTENDER_FACTOR, DEFAULT_PRUNE_FACTOR


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sweep", help="measure and tune launch configurations on the GPU; write the JSON table",
        description="Find the fastest verified launch configuration of each graph on this GPU, measure "
        "the default, the baseline and the model's prediction, and write the JSON table. Every "
        "measurement is kept in an Optuna study (resumable) and exported as JSON Lines.")
    graphs = parser.add_argument_group("graphs")
    graphs.add_argument("--graph", "-g", metavar="SPEC", action="append", default=None,
                        help=f"{GRAPH_HELP}; repeat for several graphs (with --replay: a graph of the records)")
    graphs.add_argument("--seed", metavar="N", default=None,
                        help="seed of generated graphs, drawn weights and sources (default 0)")
    graphs.add_argument("--weights", metavar="LO-HI", default=None, help="draw uniform integer weights in LO..HI")

    search = parser.add_argument_group("search")
    search.add_argument("--algorithm", choices=(*algorithms.names(), algorithms.AUTO), default=algorithms.AUTO,
                        help="the SSSP algorithm to tune; auto (the default): every one, the fastest wins")
    search.add_argument("--strategy", choices=tuple(STRATEGIES), default="bayes",
                        help="bayes: Optuna over every kernel's own launch (default); exhaustive: every uniform "
                        "configuration, then per-kernel composition (thesis 4.6); model: prediction, default "
                        "and baseline only")
    search.add_argument("--trials", type=int, metavar="N", default=None,
                        help=f"bayes: sampled trials of each study (default {DEFAULT_TRIALS}; {CURVE_TRIALS} for each "
                        "end of the queries curve); the climb from the best and the re-measurements come on top")
    search.add_argument("--budget", metavar="SECONDS|auto|none", default="auto",
                        help="stop searching once the sweep has run this long (start-up included), each study "
                        "taking its share of what is left (the work-efficient algorithms twice the others'), and "
                        "write the table of the best found (exit 0); auto (default): for the queries curve on one "
                        "GPU, by the graph's vertices plus arcs: 55 s up to about 4M, 110 s up to 34M, 165 s up to "
                        "300M, 285 s above; else none")
    search.add_argument("--sampler", choices=SAMPLERS, default="tpe", help="bayes: the Optuna sampler (default tpe)")
    search.add_argument("--sampler-seed", type=int, metavar="N", default=None,
                        help="bayes: the sampler's seed (default: --seed)")
    search.add_argument("--block-sizes", metavar="LIST", default=None,
                        help="block sizes to try: 64,128,256 or 64-512 (default 32-1024)")
    search.add_argument("--caches", metavar="LIST", default=None,
                        help="cache states to try (default all: default,prefer_l1,prefer_shared,no_l1)")
    search.add_argument("--ck", metavar="LIST", default=None,
                        help="concurrent kernels to try (default: the algorithm's, 1,2,4,...)")
    search.add_argument("--max-memory", type=byte_size, metavar="SIZE", default=None,
                        help="the GPU memory the sweep may use, e.g. 80G: no CK whose workspaces do not fit is "
                             "tried (a table for an 80 GB H100 made on an H200); default: the GPU's")
    search.add_argument("--no-hierarchy", action="store_true",
                        help="with --algorithm auto: build no contraction hierarchy for PHAST (by default one is "
                        "built and kept where the graph qualifies, its build time counted in the sweep's)")
    search.add_argument("--model", metavar="thesis|fitted|auto|FILE", default="auto",
                        help="whose prediction is measured (and the first trial): the thesis's rules, the shipped "
                        "fitted model (characterizations/fitted-*.toml), a fitted model's file, or auto (default: "
                        "fitted on compute capability 7.0 and later where the algorithm has one; a replay keeps the "
                        "recorded prediction)")
    search.add_argument("--objective", choices=OBJECTIVES, default="curve",
                        help="curve (default): the queries curve, the best for every power-of-two number of SSSPs "
                        "at once, its batch end, its one-query end (CK 1) and its middle (CK 2-16) each searched, "
                        "the CK values between bridged; throughput: the least time per SSSP at any CK; latency: the "
                        "least time one query waits (CK 1); pareto: both at once through Optuna's multi-objective "
                        "sampling (time per SSSP and time per batch; no pruning), the entry's x-pareto listing the "
                        "front. Every table keeps the best per CK measured (its curve)")
    search.add_argument("--queries", type=int, metavar="K", default=None,
                        help="the least time per SSSP with at most K sources solved at once (CK <= K)")
    search.add_argument("--lanes", metavar="LIST", default=None,
                        help="lanes per vertex to try, for the kernels that take them (default 1,2,4,...,32)")
    search.add_argument("--param", metavar="NAME=LIST", action="append", default=[],
                        help="an algorithm parameter's values, e.g. delta=256,1024,inf or loop=persistent "
                        "(default: its domain; Delta's from the graph's weights); repeatable")
    search.add_argument("--finalists", type=int, metavar="K", default=3,
                        help="best configurations measured again before the winner is chosen (default 3)")
    search.add_argument("--rounds", type=int, metavar="R", default=3,
                        help="interleaved rounds of those re-measurements (default 3)")
    search.add_argument("--patience", type=int, metavar="N", default=None,
                        help=f"a sampling search (bayes) stops once N trials in a row have not bettered its best by "
                             f"1%%, after at least N of its own (default {DEFAULT_PATIENCE}; 0: it samples every trial)")

    measure = parser.add_argument_group("measurement")
    measure.add_argument("--repetitions", type=int, metavar="N", default=DEFAULT_REPETITIONS,
                         help=f"timed repetitions of the sample per measurement, at least (default {DEFAULT_REPETITIONS})")
    measure.add_argument("--max-repetitions", type=int, metavar="N", default=None,
                         help="at most, while the repetitions disagree by more than --noise (default: --repetitions)")
    measure.add_argument("--noise", type=float, metavar="F", default=DEFAULT_NOISE,
                         help=f"enough repetitions once (max - min) / median is at most F (default {DEFAULT_NOISE})")
    measure.add_argument("--sources", type=int, metavar="N", default=DEFAULT_SAMPLE,
                         help=f"the sample of sources every configuration solves (default {DEFAULT_SAMPLE})")
    measure.add_argument("--prune-factor", type=float, metavar="F", default=DEFAULT_PRUNE_FACTOR,
                         help="stop timing a configuration once it is F times slower than the best so far "
                         f"(default {DEFAULT_PRUNE_FACTOR}); the specials are timed whole")
    measure.add_argument("--contender-factor", type=float, metavar="F", default=DEFAULT_CONTENDER_FACTOR,
                         help="a configuration F times slower than the best after one repetition of the sample "
                         f"takes no more (default {DEFAULT_CONTENDER_FACTOR})")
    measure.add_argument("--no-prune", action="store_true",
                         help="time every configuration to the end, with the repetitions the noise bound asks; "
                         "measure every baseline candidate whole and every re-measurement round in full")
    measure.add_argument("--device-index", type=int, metavar="I", default=0, help="the CUDA device (default 0)")
    measure.add_argument("--replay", metavar="RECORDS.jsonl", default=None,
                         help="answer from recorded measurements instead of the GPU; the space defaults to "
                         "what the records cover")
    measure.add_argument("--device", "-d", metavar="NAME|FILE", default=None,
                         help="with --replay: the GPU's profile (autotune devices) where the records lack one")

    keep = parser.add_argument_group("storage and output")
    keep.add_argument("--storage", metavar="URL", default=None,
                      help="Optuna storage: a journal file, a .db/.sqlite file, an RDB URL (postgresql://...) "
                      "or memory (default: a journal file in the user data directory; memory with --replay)")
    keep.add_argument("--resume", action="store_true",
                      help="continue the newest matching study, re-using its measurements")
    keep.add_argument("--output", "-o", metavar="TABLE.json", default=None,
                      help="the table (default: sweep-<graphs>-<device>-<algorithm>.json here)")
    keep.add_argument("--records", metavar="FILE.jsonl", default=None,
                      help="every measurement as JSON Lines (default: next to the table; a replay only if given)")
    keep.add_argument("--t4", metavar="DIR", default=None,
                      help="also write T4 results files (Kernel Tuner, BAT) into DIR")
    keep.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no summary")
    keep.add_argument("--json", action="store_true", help="print the table as JSON on stdout, no progress bar")
    sweep_fleet.add_options(parser)
    parser.set_defaults(run=run)
    sweep_fleet.register_worker(subparsers)


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()  # --budget counts from here: the graphs, references and kernels' start-up included
    if args.merge:
        return sweep_fleet.merge(args)
    request = parse(args)
    # a sampler whose package is missing (gp: torch, cmaes) fails now, before graphs and GPU are loaded
    request.strategy.sampler(request.space.space(algorithms.resolve(request.algorithm)[0].name, None))
    if sweep_fleet.wants_fleet(args, request):
        if isinstance(request.budget_s, float):
            raise InputError("--budget bounds a sweep in one process; a multi-GPU run measures until its trials are done")
        return sweep_fleet.run_fleet(args, request)
    outputs_of(args, request, list(request.graphs), None)  # a bad output is refused before any work
    results: dict[int, GraphResult] = {}  # by the study's index in the sweep's order
    written: list[str] = []
    interrupted = False
    with ExitStack() as stack:
        stack.enter_context(stop_on_sigterm())
        device, jobs, names = jobs_of(request, stack)
        spec = request.storage if request.storage is not None or not request.replay else MEMORY
        storage, storage_url = open_storage(spec)
        outputs = outputs_of(args, request, names, device)
        progress = SweepProgress()  # shows nothing
        if request.show:
            from autotune.search.run.progress import RichProgress  # rich only where it draws

            progress = stack.enter_context(RichProgress())
        best_by_graph: dict[tuple[str, str], float] = {}  # per graph and end: the best so far, to prune against
        ordered = order_for_auto(jobs, batch_winner_guess(profile_from_json(device)))
        budget = Budget(None if (seconds := budget_s(request, jobs)) is None else started + seconds)
        rank = {a.name: a.auto_rank for a in algorithms.all_algorithms()}
        weights = [2.0 if rank[job.algorithm] == 0 else 1.0 for job in ordered]  # the work-efficient get more
        handles: dict[int, Any] = {}  # by the study's index, once opened

        def tune(index: int, weights_left: float, hold: bool) -> GraphResult:
            job = ordered[index]
            plan = GraphPlan(job.graph, job.space, request.strategy, job.specials,
                             dataclasses.replace(request.settings, **job.settings))
            key = (job.graph.key, job.objective)
            budget.share(weights[index], weights_left)
            others = [i for i in handles if i != index and ordered[i].graph.key == job.graph.key]
            study_ids = {i: storage.get_study_id_from_name(handles[i].study.study_name) for i in others}
            siblings = [study_ids[i] for i in others if ordered[i].algorithm == job.algorithm]  # its curve's other ends
            # a replay's timer is kept over the study's turns and costs nothing to open; its stats, read
            # from it for the result, would be missing from a turn that never opened it
            with (job.timer if request.replay else OpenedOnUse(job.timer)) as timer:
                result = sweep_graph(timer, plan, handles[index], device, progress,
                                     best_elsewhere=lambda k=key: best_by_graph.get(k), budget=budget,
                                     siblings=lambda: fastest_per_ck(complete_trials(storage, siblings)),
                                     rivals=lambda: fastest_ms_per_ck(complete_trials(storage, study_ids.values())),
                                     hold=hold)
            if result.best is not None:
                best_by_graph[key] = min(best_by_graph.get(key, result.best.ms_per_sssp), result.best.ms_per_sssp)
            return result

        def turns() -> Iterator[tuple[int, float, bool]]:
            """Each study's first turns (its index, the weights of the turns left, and whether it is
            held after them: `order.first_turns`); then each study's curve and rounds, the fastest
            study of a graph first, so that a slower one's bridges and rounds outpaced at their CK
            are not measured."""

            def opened(i: int) -> None:
                handles[i] = request.open_study(storage, storage_url, ordered[i], device)

            for index, weights_left in first_turns(
                    [job.objective for job in ordered], weights, opened,
                    cut_short=lambda i: cut_short(handles[i]), reopened=lambda i: reopen(handles[i]),
                    run_over=budget.run_over, ready=lambda i: ready(ordered[i].prepared),
                    admitted=lambda i: admitted(ordered[i].prepared)):
                yield index, weights_left, True
            first = {job.graph.key: i for i, job in reversed(list(enumerate(ordered)))}
            held = sorted((i for i, handle in handles.items() if is_held(handle)), key=lambda i: (
                first[ordered[i].graph.key], results[i].best.ms_per_sssp if results[i].best else float("inf"), i))
            for turn, index in enumerate(held):
                yield index, sum(weights[i] for i in held[turn:]), False

        try:
            for index, weights_left, hold in turns():
                results[index] = result = tune(index, weights_left, hold)
                written = write_outputs(in_order(results), device, outputs)
                if result.partial:
                    interrupted = True
                    break
        except KeyboardInterrupt:
            interrupted = True
            if results:
                written = write_outputs(in_order(results), device, outputs, partial=True)
    return report_outcome(in_order(results), device, outputs, written, interrupted)


def in_order(results: dict[int, GraphResult]) -> list[GraphResult]:
    """The studies' results in the sweep's order (a study whose preparation is under way lets the next
    ones go first, `order.first_turns`)."""
    return [results[index] for index in sorted(results)]


def budget_s(request: Request, jobs: list[Job]) -> float | None:
    """The sweep's wall-time bound: `--budget`'s seconds; for `auto`, the default of each graph
    (`plan.default_budget_s`) on a GPU sweep of the queries curve, else none (`plan.graph_budgets_s`)."""
    graphs = {job.graph.key: (job.graph.n_vertices, job.graph.n_edges) for job in jobs}
    parts = graph_budgets_s(request.budget_s, not request.replay and request.objective == "curve", list(graphs.values()))
    return None if parts is None else sum(parts)


__all__ = ["INTERRUPTED", "register", "run"]
