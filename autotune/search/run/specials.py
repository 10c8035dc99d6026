"""What a sweep measures besides its search (`Specials`: the default, the baseline candidates and
the model's prediction, from the algorithm's entry in the registry); and the graph and device
descriptions a table and a replay need.

The baseline of thesis 4.6.1 is "of the block sizes that maximize occupancy, the slowest; default
cache; CK 1": `Algorithm.baseline_candidates` gives the candidates, the sweep measures them and
the slowest is the baseline.
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from autotune import algorithms
from autotune.errors import InputError
from autotune.launch import DEFAULT_ALGORITHM, LaunchConfig
from autotune.search.results.records import ONE_QUERY, Record
from autotune.search.results import GraphInfo


@dataclass(frozen=True)
class Specials:
    """The configurations every strategy measures.

    Args:
        default: the default configuration.
        baseline_candidates: uniform, default cache, CK 1, L 1, for each block size that
            maximizes occupancy.
        prediction: the model's predicted configuration (None without a model).
        prediction_details: the model's account of it (`Prediction.to_json()`: config, rules,
            classes), for the table's `predicted`.
        leads: the prediction is the model's for this end of the curve (Delta-stepping's one-query
            rules), not a batch prediction capped: the search measures it first (`first`).
        one_query: the one-query rules' configuration at CK 1, measured too by a study of the least
            time per SSSP over every CK (`--objective throughput`), whose best may be one instance's
            (urand22: CK 1's 5.22 ms against 6.83 at CK 1,024, a shape the batch prediction's
            neighbourhood never reaches); None elsewhere.
    """

    default: LaunchConfig
    baseline_candidates: tuple[LaunchConfig, ...] = ()
    prediction: LaunchConfig | None = None
    prediction_details: Mapping[str, Any] | None = None
    leads: bool = False
    one_query: LaunchConfig | None = None

    def first(self, trials: Sequence[LaunchConfig], neighbours: Sequence[LaunchConfig] = ()) -> list[LaunchConfig]:
        """A strategy's first trials, the prediction moved to the front where it `leads`, and where
        it is then first, its `neighbours` (`search.neighbours.neighbourhood`) right after it and the
        one-query prediction (a single instance's solve: cheap beside a batch's) between them."""
        trials = list(trials)
        if self.prediction not in trials or not (self.leads or trials[0] == self.prediction):
            return trials
        single = [self.one_query] if self.one_query in trials else []
        return list(dict.fromkeys([self.prediction, *single, *neighbours, *trials]))

    def ordered(self) -> list[LaunchConfig]:
        """Prediction, one-query prediction, default, baseline candidates; each configuration once."""
        configs = [c for c in (self.prediction, self.one_query) if c] + [self.default, *self.baseline_candidates]
        return list({c.key(): c for c in configs}.values())

    def roles(self) -> dict[str, tuple[str, ...]]:
        roles: dict[str, list[str]] = {}
        if self.prediction is not None:
            roles.setdefault(self.prediction.key(), []).append("prediction")
        if self.one_query is not None:
            roles.setdefault(self.one_query.key(), []).append(ONE_QUERY)
        roles.setdefault(self.default.key(), []).append("default")
        for config in self.baseline_candidates:
            roles.setdefault(config.key(), []).append("baseline_candidate")
        return {key: tuple(dict.fromkeys(names)) for key, names in roles.items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "default": self.default.to_json(),
            "baseline_candidates": [c.to_json() for c in self.baseline_candidates],
            "prediction": None if self.prediction is None else self.prediction.to_json(),
            "prediction_details": None if self.prediction_details is None else dict(self.prediction_details),
            "leads": self.leads,
            **({} if self.one_query is None else {"one_query": self.one_query.to_json()}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], algorithm: str, where: str = "run plan") -> Specials:
        read = algorithms.config_from_json
        prediction = data.get("prediction")
        return cls(
            default=read(data["default"], f"{where}: default", algorithm),
            baseline_candidates=tuple(read(c, f"{where}: baseline", algorithm) for c in data.get("baseline_candidates", ())),
            prediction=None if prediction is None else read(prediction, f"{where}: prediction", algorithm),
            prediction_details=data.get("prediction_details"),
            leads=bool(data.get("leads", False)),
            one_query=None if data.get("one_query") is None else read(data["one_query"], f"{where}: one query",
                                                                      algorithm),
        )


def device_json(profile: Any, cuda_version: str | None = None, driver_version: str | None = None) -> dict[str, Any]:
    """The table's device object of a `DeviceProfile` (what records keep too)."""
    from autotune.table.format import device_section

    return device_section(profile, cuda_version=cuda_version, driver_version=driver_version)


def profile_from_json(data: Mapping[str, Any], where: str = "records") -> Any | None:
    """The `DeviceProfile` of a table's or record's device object; None when it lacks a
    profile's keys (records that only name the GPU)."""
    from autotune.model.device import OPTIONAL_KEYS, REQUIRED_KEYS, profile_from_mapping

    if not all(key in data for key in REQUIRED_KEYS):
        return None
    fields = {key: value for key, value in data.items() if key in REQUIRED_KEYS or key in OPTIONAL_KEYS}
    return profile_from_mapping(fields, f"{where}: device", origin=str(data.get("profile", "")))


def graph_info(graph: Any, seed: int | None = None, weights: str | None = None) -> GraphInfo:
    """The `GraphInfo` of a loaded `CSRGraph` (its degree skew, weight figures, distances' width and
    whether it is renumbered by in-degree included)."""
    from autotune.graphs.order import hub_order
    from autotune.model.features import graph_statistics
    from autotune.reference.distance_range import width_for

    return GraphInfo(name=graph.name, sha256=graph.sha256, n_vertices=graph.n_vertices, n_edges=graph.n_edges,
                     max_degree=graph.max_degree, seed=seed, weights=weights, **graph_statistics(graph),
                     distance_bits=width_for(graph).bits, hub_ordered=hub_order(graph) is not None)


def features(graph: GraphInfo) -> Any:
    """The model's `GraphFeatures` of a graph description."""
    from autotune.model import GraphFeatures

    return GraphFeatures(name=graph.name, n_vertices=max(graph.n_vertices, 1), n_edges=graph.n_edges,
                         max_degree=graph.max_degree, sha256=graph.sha256 or None, degree_cv=graph.degree_cv,
                         min_positive_weight=graph.min_positive_weight, max_weight=graph.max_weight,
                         mean_weight=graph.mean_weight, lightest_weight=graph.lightest_weight)


def classify_graph(graph: GraphInfo, profile: Any | None) -> GraphInfo:
    """`graph` with the model's classes on the GPU (stress ratio, degree and stress classes)."""
    if profile is None or graph.n_vertices < 1:
        return graph
    from autotune.model import classify

    return dataclasses.replace(graph, classes=classify(features(graph), profile).to_json())


def model_specials(graph: GraphInfo, profile: Any | None, algorithm: str = DEFAULT_ALGORITHM, fitted: Any = None,
                   space: Any = None, level_width: Callable[[], float] | None = None,
                   with_one_query: bool = False) -> Specials:
    """Prediction, default and baseline candidates of an algorithm from the model (the thesis's
    rules, or `fitted`, a `FittedModel`, which predicts within `space`'s values when given); without
    a profile only the default (the table then lacks `predicted`, `model` and `baseline`). For the
    curve's latency end (a space of CK 1 alone), Delta-stepping's prediction is its one-query
    rules' where the GPU's shipped choice model has them (`one_query`), given the graph's
    `level_width` (a callable: the breadth-first searches run only then), and it leads the search.
    `with_one_query` (a study of the least time per SSSP over every CK): those rules' configuration
    at CK 1 as well (`Specials.one_query`), where `space` holds CK 1 and more.

    Raises:
        InputError: the model cannot predict for this GPU (e.g. a kernel cannot launch).
    """
    entry = algorithms.get(algorithm)
    if profile is None:
        return Specials(entry.default_config())
    if fitted is not None:
        config, details = fitted_prediction(graph, fitted, space, profile)
        return Specials(entry.default_config(), entry.baseline_candidates(profile), config, details)
    level_width = None if level_width is None else functools.cache(level_width)  # searched once, if asked
    prediction = entry.predict(entry.with_level_width(features(graph), level_width), profile)
    config, details = within_ck(prediction.config, prediction.to_json(), space)
    latency = one_query(config, details, graph, profile, space, level_width)
    single = None
    if with_one_query and space is not None and 1 in space.concurrent_kernels and len(space.concurrent_kernels) > 1:
        found = one_query(config.replace(concurrent_kernels=1), details, graph, profile,
                          dataclasses.replace(space, concurrent_kernels=(1,)), level_width)
        single = None if found is None else found[0]
    return Specials(entry.default_config(), entry.baseline_candidates(profile), *(latency or (config, details)),
                    leads=latency is not None, one_query=single)


def one_query(config: LaunchConfig, details: dict[str, Any], graph: GraphInfo, profile: Any, space: Any,
              level_width: Callable[[], float] | None) -> tuple[LaunchConfig, dict[str, Any]] | None:
    """The one-query prediction of an algorithm with latency rules of its own (`model_specials`;
    `Algorithm.with_latency_rules`, fitted with the GPU's choice model), None where it has none,
    they do not apply, or their configuration falls outside `space`."""
    if level_width is None or space is None or not space.concurrent_kernels or max(space.concurrent_kernels) != 1:
        return None
    from autotune.predict.choice import shipped_choice

    chooser = shipped_choice(profile)
    if chooser is None or chooser.latency is None:
        return None
    entry = algorithms.get(config.algorithm)
    changed, decisions = entry.with_latency_rules(config, (), features(graph), level_width, chooser.latency)
    if not decisions:
        return None
    rules = {**dict(details.get("rules") or {}), **{d.parameter: d.rule for d in decisions}}
    changed, rules = nearest_in_space(changed, rules, space)
    if not space.contains(changed):
        return None
    return changed, {**details, "config": changed.to_json(), "rules": rules}


def nearest_in_space(config: LaunchConfig, rules: dict[str, Any], space: Any) -> tuple[LaunchConfig, dict[str, Any]]:
    """`config` with each numeric parameter the space does not hold at the space's nearest value
    (the lower of two as near), its rule saying so: the one-query rules' grid of one block a SM
    (132 on an H100) where the space's blocks are powers of two, so that the sweep still leads from
    the prediction's neighbourhood. Other parameters unchanged."""
    moved = {}
    for name, values in space.params:
        value = config.param(name)
        numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if value in values or not isinstance(value, (int, float)) or not numbers:
            continue
        moved[name] = min(numbers, key=lambda v: (abs(v - value), v))
        rules[name] = f"{rules.get(name, 'the model')}; {value} is outside the sweep's space: {moved[name]}"
    return (config.replace(**moved) if moved else config), rules


def within_ck(config: LaunchConfig, details: dict[str, Any], space: Any = None) -> tuple[LaunchConfig, dict[str, Any]]:
    """A prediction whose CK is above every CK of `space` (a `SearchSpace`: `--objective latency`
    keeps CK 1, `--queries K` at most K), at the space's largest CK instead, its details saying so;
    otherwise unchanged. A prediction at a CK the objective does not allow would set the best
    the search is pruned against, and could never be the table's winner."""
    if space is None or not space.concurrent_kernels or config.concurrent_kernels <= max(space.concurrent_kernels):
        return config, details
    allowed = max(space.concurrent_kernels)
    capped = config.replace(concurrent_kernels=allowed)
    rules = dict(details.get("rules") or {})
    rules["concurrent_kernels"] = (f"{rules.get('concurrent_kernels', 'the model')}; capped at {allowed}, "
                                   "the most the sweep's objective allows")
    return capped, {**details, "config": capped.to_json(), "rules": rules}


def fitted_prediction(graph: GraphInfo, fitted: Any, space: Any = None, profile: Any = None
                      ) -> tuple[LaunchConfig, dict[str, Any]]:
    """A fitted model's configuration for a graph (within `space`'s values, a `SearchSpace`, when
    given; on the GPU of `profile`, when given) and its table part (config and rules)."""
    from autotune.algorithms.thesis.fitted import Choices

    choices = None if space is None else Choices(space.uniform_block_sizes, tuple(c.value for c in space.caches),
                                                 space.concurrent_kernels, space.lanes)
    mean_degree = graph.n_edges / graph.n_vertices if graph.n_vertices else 0.0
    config, decisions = fitted.predict({"vertices": max(graph.n_vertices, 1), "mean_degree": mean_degree,
                                        "degree_cv": graph.degree_cv}, choices, profile)
    return config, {"config": config.to_json(), "rules": {d.parameter: d.rule for d in decisions}}


def recorded_specials(records: Sequence[Record], graph: GraphInfo, profile: Any | None,
                      algorithm: str = DEFAULT_ALGORITHM, fitted: Any = None, use_model: bool = False,
                      space: Any = None) -> Specials:
    """The specials of a replay: the prediction and baseline candidates the records were measured
    as (their `roles`), so a replay repeats the live sweep; where the records hold no roles, the
    model's (as in a live sweep). With `use_model` (a replay asked for `--model`), the model's
    prediction instead of the recorded one: `fitted`'s (a `FittedModel`), else the thesis's. Within
    `space`'s CK, as in a live sweep (`within_ck`); the one-query prediction a throughput study
    measured, where its records hold one (`Specials.one_query`)."""
    try:
        from_model = model_specials(graph, profile, algorithm, fitted) if profile is not None else None
    except InputError:
        from_model = None
    predictions = [r.measurement.config for r in records if "prediction" in r.roles]
    prediction = predictions[0] if predictions else (from_model.prediction if from_model else None)
    if use_model and from_model is not None:
        prediction = from_model.prediction
    if from_model is not None and from_model.prediction == prediction:
        details = from_model.prediction_details
    else:
        details = {"config": prediction.to_json()} if prediction is not None else None
    if prediction is not None:
        prediction, details = within_ck(prediction, dict(details or {}), space)
    candidates = tuple(dict.fromkeys(r.measurement.config for r in records if "baseline_candidate" in r.roles))
    if not candidates and from_model is not None:
        candidates = from_model.baseline_candidates
    single = next((r.measurement.config for r in records if ONE_QUERY in r.roles), None)
    return Specials(algorithms.get(algorithm).default_config(), candidates, prediction, details, one_query=single)
