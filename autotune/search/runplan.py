"""A *run*: one sweep that several worker processes share (`autotune sweep --devices ...`).

The run's plan says everything a worker needs, so that a worker started on another host with only
the storage URL and the run's name can join: the strategy, the space, the measurement protocol,
the GPU, how to get a timer (records to replay, or graph specs to load), and per graph its Optuna
study, its special configurations and what is left to measure. It is kept as JSON in the run's
own study (`workqueue.RunStudy`).

The plan expands into an ordered list of *tasks*; the i-th task is what the i-th ticket of the
run's queue does (`workqueue`):

- `fixed`: measure a special configuration (prediction, default, baseline candidate) as a trial
  of its own, as `Runner.measure_fixed` does in a one-process sweep;
- `grid`: measure one point of the exhaustive strategy's uniform grid (a `search` trial);
- `enqueued`: a Bayesian search trial with fixed parameters: the specials inside the joint space,
  then the strategy's initial design (`strategies.initial_design`), the trials a one-process sweep
  enqueues first (`Bayes.enqueue`), in the same order;
- `sample`: a Bayesian search trial whose configuration the worker's sampler chooses;
- `finalize`: once every other task of the graph is done, compose (exhaustive), re-measure the
  finalists in interleaved rounds and mark the graph done; one worker does it, as one process
  would.

Graphs are worked on in turn by every worker (graph 1's tasks, then graph 2's, ...); the finalize
task of a graph runs on one worker while the others go on with the next graph.

Example:
    >>> plan = RunPlan.from_json(json.loads(text))        # doctest: +SKIP
    >>> [task.kind for task in plan.tasks][:3]            # doctest: +SKIP
    ['fixed', 'fixed', 'grid']
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Mapping, Sequence

from autotune.errors import InputError
from autotune.search.results import GraphInfo
from autotune.search.space import GRID_PARAMS, SearchSpace
from autotune.search.strategies import Bayes, Exhaustive, ModelOnly, Strategy, initial_design
from autotune.search.sweep import Specials, SweepSettings
from autotune.space import LaunchConfig

RUN_FORMAT = "autotune.run/1"
FIXED, GRID, ENQUEUED, SAMPLE, FINALIZE = "fixed", "grid", "enqueued", "sample", "finalize"


@dataclass(frozen=True)
class Task:
    """One unit of work of a run.

    Args:
        index: its place in the run's task list (the ticket number that claims it first).
        graph: the index of its graph in the plan.
        kind: fixed, grid, enqueued, sample or finalize.
        config: the configuration to measure (fixed, grid, enqueued).
        params: the trial's parameters (grid: the uniform grid's; enqueued: the joint space's).
    """

    index: int
    graph: int
    kind: str
    config: LaunchConfig | None = None
    params: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Timing:
    """How often workers beat and poll, and when a silent worker counts as gone.

    Args:
        heartbeat_s: seconds between a worker's heartbeats.
        grace_s: a worker whose heartbeat has not changed for this long (as the observer's clock
            sees it, so clocks of different hosts need not agree) is gone; its tickets are re-run.
        poll_s: seconds a waiting worker or the coordinator sleeps between looks at the queue.
    """

    heartbeat_s: float = 2.0
    grace_s: float = 30.0
    poll_s: float = 0.5

    @classmethod
    def from_heartbeat(cls, heartbeat_s: float) -> Timing:
        if not heartbeat_s > 0:
            raise InputError(f"--heartbeat-s: expected a positive number of seconds, found {heartbeat_s}")
        return cls(heartbeat_s=heartbeat_s, grace_s=max(15.0 * heartbeat_s, 1.0), poll_s=min(0.5, heartbeat_s))


@dataclass(frozen=True)
class GraphPlan:
    """One graph of a run.

    Args:
        info: the graph (classified on the run's GPU).
        study: the name of its Optuna study (the trials, as a one-process sweep keeps them).
        source: how a worker gets its timer: the `--graph` spec (GPU) or the records' graph key
            (replay).
        specials: prediction, default, baseline candidates.
        fixed: specials still to measure as trials of their own.
        enqueued: (bayes) the first search trials still to measure: the specials inside the joint
            space, then the initial design (`bayes_first_trials`).
        grid_skip: (exhaustive) indexes of uniform grid points not to measure (the specials,
            and points a resumed study has measured).
        samples: (bayes) sampler trials still to run.
        resumed: its study existed before the run.
        elapsed_before_s: wall time its study had accumulated before the run.
    """

    info: GraphInfo
    study: str
    source: str
    specials: Specials = Specials()
    fixed: tuple[LaunchConfig, ...] = ()
    enqueued: tuple[LaunchConfig, ...] = ()
    grid_skip: tuple[int, ...] = ()
    samples: int = 0
    resumed: bool = False
    elapsed_before_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "info": {**dataclasses.asdict(self.info), "classes": dict(self.info.classes or {}) or None},
            "study": self.study,
            "source": self.source,
            "specials": specials_json(self.specials),
            "fixed": [c.to_json() for c in self.fixed],
            "enqueued": [c.to_json() for c in self.enqueued],
            "grid_skip": list(self.grid_skip),
            "samples": self.samples,
            "resumed": self.resumed,
            "elapsed_before_s": self.elapsed_before_s,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "run plan") -> GraphPlan:
        configs = lambda key: tuple(LaunchConfig.from_json(c, f"{where}: {key}") for c in data.get(key, ()))  # noqa: E731
        return cls(info=GraphInfo(**data["info"]), study=str(data["study"]), source=str(data["source"]),
                   specials=specials_from_json(data.get("specials", {}), where), fixed=configs("fixed"),
                   enqueued=configs("enqueued"), grid_skip=tuple(int(i) for i in data.get("grid_skip", ())),
                   samples=int(data.get("samples", 0)), resumed=bool(data.get("resumed", False)),
                   elapsed_before_s=float(data.get("elapsed_before_s", 0.0)))


def specials_json(specials: Specials) -> dict[str, Any]:
    return {
        "default": specials.default.to_json(),
        "baseline_candidates": [c.to_json() for c in specials.baseline_candidates],
        "prediction": None if specials.prediction is None else specials.prediction.to_json(),
        "prediction_details": None if specials.prediction_details is None else dict(specials.prediction_details),
    }


def specials_from_json(data: Mapping[str, Any], where: str = "run plan") -> Specials:
    prediction = data.get("prediction")
    return Specials(
        default=LaunchConfig.from_json(data["default"], f"{where}: default") if "default" in data
        else LaunchConfig.default(),
        baseline_candidates=tuple(LaunchConfig.from_json(c, f"{where}: baseline") for c in
                                  data.get("baseline_candidates", ())),
        prediction=None if prediction is None else LaunchConfig.from_json(prediction, f"{where}: prediction"),
        prediction_details=data.get("prediction_details"),
    )


def strategy_json(strategy: Strategy) -> dict[str, Any]:
    return {"name": strategy.name, **strategy.parameters()}


def strategy_from_json(data: Mapping[str, Any]) -> Strategy:
    name = data.get("name")
    if name == "exhaustive":
        return Exhaustive(compose_top=int(data.get("compose_top", 3)))
    if name == "bayes":
        return Bayes(trials=int(data["trials"]), sampler_name=str(data.get("sampler", "tpe")), seed=data.get("seed"))
    if name == "model":
        return ModelOnly()
    raise InputError(f"run plan: unknown strategy {name!r}")


def grid_points(space: SearchSpace) -> list[dict[str, Any]]:
    """The uniform grid's points as trial parameters, in the exhaustive strategy's order."""
    grid = space.uniform_grid()
    return [dict(zip(GRID_PARAMS, point)) for point in itertools.product(*(grid[name] for name in GRID_PARAMS))]


def bayes_first_trials(specials: Sequence[LaunchConfig], space: SearchSpace,
                       measured: Callable[[LaunchConfig], bool]) -> tuple[LaunchConfig, ...]:
    """The trials a Bayesian sweep enqueues first, as `Bayes.enqueue` does in one process: the
    specials inside the space, then `initial_design(space)`; each configuration once, and none
    the study has measured."""
    first: dict[str, LaunchConfig] = {}
    for config in [c for c in specials if space.contains(c)] + initial_design(space):
        first.setdefault(config.key(), config)
    return tuple(c for c in first.values() if not measured(c))


def plan_graph(info: GraphInfo, study: str, source: str, specials: Specials, strategy: Strategy,
               space: SearchSpace, measured: Callable[[LaunchConfig], bool], search_trials: int = 0,
               resumed: bool = False, elapsed_before_s: float = 0.0) -> GraphPlan:
    """What is left to do on one graph, given what its study has measured (nothing, unless resumed).

    Args:
        measured: whether the study holds a measurement of a configuration.
        search_trials: finished search trials of the study (the Bayesian budget already spent).
    """
    configs = specials.ordered()
    common = dict(info=info, study=study, source=source, specials=specials, resumed=resumed,
                  elapsed_before_s=elapsed_before_s)
    if isinstance(strategy, Bayes):
        outside = tuple(c for c in configs if not space.contains(c) and not measured(c))
        first = bayes_first_trials(configs, space, measured)
        samples = max(0, strategy.trials - search_trials - len(first))
        return GraphPlan(**common, fixed=outside, enqueued=first, samples=samples)
    fixed = tuple(c for c in configs if not measured(c))
    skip: tuple[int, ...] = ()
    if isinstance(strategy, Exhaustive):
        keys = {c.key() for c in configs}
        skip = tuple(i for i, point in enumerate(grid_points(space))
                     if (config := space.from_grid_params(point)).key() in keys or measured(config))
    return GraphPlan(**common, fixed=fixed, grid_skip=skip)


@dataclass(frozen=True)
class RunPlan:
    """Everything the workers of a run share.

    Args:
        name: the run's name (`--run`).
        algorithm: crauser or martin.
        strategy: exhaustive, bayes or model.
        space: the search space.
        settings: finalists and rounds.
        protocol: how each configuration is measured (part of the graph studies' names).
        device: the table's device object; every worker's GPU must have its name.
        timer: `{"kind": "cuda", "repetitions", "sources", "seed", "weights"}` or
            `{"kind": "replay", "records": PATH, "delay_ms": N}`.
        graphs: the graphs, in order.
        timing: heartbeat, grace and poll intervals.
        command: the command line that started the run.
        created: ISO 8601 UTC time.
    """

    name: str
    algorithm: str
    strategy: Strategy
    space: SearchSpace
    settings: SweepSettings
    protocol: Mapping[str, Any]
    device: Mapping[str, Any]
    timer: Mapping[str, Any]
    graphs: tuple[GraphPlan, ...]
    timing: Timing = Timing()
    command: str | None = None
    created: str = ""

    @cached_property
    def tasks(self) -> tuple[Task, ...]:
        """Every task, graph by graph; each graph's last task is its finalize task."""
        points = grid_points(self.space) if isinstance(self.strategy, Exhaustive) else []
        out: list[Task] = []
        for g, graph in enumerate(self.graphs):
            out += [Task(len(out) + k, g, FIXED, c) for k, c in enumerate(graph.fixed)]
            skip = set(graph.grid_skip)
            for i, point in enumerate(points):
                if i not in skip:
                    out.append(Task(len(out), g, GRID, self.space.from_grid_params(point), point))
            out += [Task(len(out) + k, g, ENQUEUED, c, self.space.to_params(c)) for k, c in enumerate(graph.enqueued)]
            out += [Task(len(out) + k, g, SAMPLE) for k in range(graph.samples)]
            out.append(Task(len(out), g, FINALIZE))
        return tuple(out)

    def graph_tasks(self, graph: int) -> tuple[Task, ...]:
        return tuple(t for t in self.tasks if t.graph == graph)

    def planned_trials(self) -> int:
        """Measurements the run plans (compositions and finalists' rounds included)."""
        compose = self.strategy.compose_top if isinstance(self.strategy, Exhaustive) else 0
        per_graph = compose + self.settings.finalists * self.settings.rounds
        return sum(1 for t in self.tasks if t.kind != FINALIZE) + per_graph * len(self.graphs)

    def key(self) -> str:
        """A digest of what a joining sweep must agree on (not the timing, the command or the time)."""
        data = {"algorithm": self.algorithm, "strategy": strategy_json(self.strategy),
                "space": self.space.to_json(), "settings": dataclasses.asdict(self.settings),
                "protocol": dict(self.protocol), "device": self.device.get("name"),
                "graphs": [g.info.sha256 or g.info.name for g in self.graphs],
                "timer": {k: v for k, v in self.timer.items() if k in ("kind", "records")}}
        return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def differences(self, other: RunPlan) -> list[str]:
        """Which of the things `key` covers differ between two plans (for an error message)."""
        pairs = {"algorithm": (self.algorithm, other.algorithm),
                 "strategy": (strategy_json(self.strategy), strategy_json(other.strategy)),
                 "space": (self.space.to_json(), other.space.to_json()),
                 "finalists and rounds": (self.settings, other.settings),
                 "measurement protocol": (dict(self.protocol), dict(other.protocol)),
                 "GPU": (self.device.get("name"), other.device.get("name")),
                 "graphs": ([g.info.sha256 for g in self.graphs], [g.info.sha256 for g in other.graphs]),
                 "timer": (self.timer.get("kind"), other.timer.get("kind"))}
        return [name for name, (a, b) in pairs.items() if a != b]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": RUN_FORMAT,
            "name": self.name,
            "algorithm": self.algorithm,
            "strategy": strategy_json(self.strategy),
            "space": self.space.to_json(),
            "settings": dataclasses.asdict(self.settings),
            "protocol": dict(self.protocol),
            "device": dict(self.device),
            "timer": dict(self.timer),
            "graphs": [g.to_json() for g in self.graphs],
            "timing": dataclasses.asdict(self.timing),
            "command": self.command,
            "created": self.created,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "run plan") -> RunPlan:
        """Read a plan.

        Raises:
            InputError: another format, or a malformed plan (naming `where`).
        """
        if data.get("format") != RUN_FORMAT:
            raise InputError(f"{where}: unknown run format {data.get('format')!r}; this autotune reads {RUN_FORMAT}")
        try:
            return cls(
                name=str(data["name"]), algorithm=str(data["algorithm"]),
                strategy=strategy_from_json(data["strategy"]), space=SearchSpace(**data["space"]),
                settings=SweepSettings(**data["settings"]), protocol=dict(data["protocol"]),
                device=dict(data["device"]), timer=dict(data["timer"]),
                graphs=tuple(GraphPlan.from_json(g, where) for g in data["graphs"]),
                timing=Timing(**data.get("timing", {})), command=data.get("command"),
                created=str(data.get("created", "")),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise InputError(f"{where}: malformed run plan ({type(error).__name__}: {error})") from None


def plan_tasks_done(plan: RunPlan, done: set[int], graph: int) -> bool:
    """Whether every task of `graph` except its finalize task is in `done`."""
    return all(t.index in done for t in plan.graph_tasks(graph) if t.kind != FINALIZE)


def graph_names(plan: RunPlan) -> Sequence[str]:
    return [g.info.name for g in plan.graphs]
