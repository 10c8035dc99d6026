"""A model's prediction for K sources solved at once (`autotune predict --queries K`).

The models predict for batches: as many concurrent SSSPs as pay. For K sources at once the
prediction is the same configuration at the largest of the algorithm's CK values of at most K,
the rule behind CK saying so: the configuration a sweep for K (`sweep --queries K`, or the queries
curve's latency end for K = 1) measures first (`search.specials.within_ck`).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from autotune.errors import InputError
from autotune.launch import LaunchConfig
from autotune.model.decision import Decision

CK = "concurrent_kernels"


def queries_ck(algorithm: Any, queries: int) -> int:
    """The largest CK of `algorithm` (a registered `Algorithm`) with at most `queries` SSSPs at once.

    Raises:
        InputError: the algorithm solves more sources than that at once at least (delta_lanes: 32).

    Example:
        >>> from autotune import algorithms
        >>> queries_ck(algorithms.get("delta"), 100), queries_ck(algorithms.get("delta"), 1)
        (64, 1)
    """
    if queries < 1:
        raise InputError(f"--queries: expected a number of sources of at least 1, found {queries}")
    allowed = [ck for ck in algorithm.concurrent_kernels if ck <= queries]
    if not allowed:
        raise InputError(f"--queries {queries}: {algorithm.name} solves {min(algorithm.concurrent_kernels)} sources "
                         "at once at least; give more, or another --algorithm")
    return max(allowed)


def capped(config: LaunchConfig, decisions: Sequence[Decision], ck: int, queries: int
           ) -> tuple[LaunchConfig, tuple[Decision, ...]]:
    """`config` with CK at most `ck`, and the decisions with the CK rule saying so (unchanged when
    the model's CK is already that small)."""
    if config.concurrent_kernels <= ck:
        return config, tuple(decisions)
    note = f"; capped at {ck}, the largest CK for {queries} source{'s' if queries != 1 else ''} at once"
    changed = tuple(Decision(d.parameter, ck, d.rule + " (capped)", d.reason + note) if d.parameter == CK else d
                    for d in decisions)
    return config.replace(concurrent_kernels=ck), changed


def for_queries(prediction: Any, algorithm: Any, queries: int) -> Any:
    """A rules model's prediction (a frozen dataclass with `config` and `decisions`) for K sources."""
    config, decisions = capped(prediction.config, prediction.decisions, queries_ck(algorithm, queries), queries)
    return dataclasses.replace(prediction, config=config, decisions=decisions)


def spread(algorithm: Any, config: LaunchConfig, decisions: Sequence[Decision], queries: int
           ) -> tuple[LaunchConfig, tuple[Decision, ...]]:
    """One query's configuration for K sources at once in its shape (`Algorithm.spread_over`: CK
    raised to the largest of the algorithm's with at most K; Delta-stepping's grid shared out over
    them), the rules of what changed saying so."""
    ck = queries_ck(algorithm, queries)
    if ck == config.concurrent_kernels:
        return config, tuple(decisions)
    spread_config = algorithm.spread_over(config, ck)
    note = f"the one-query shape for {queries} sources at once, at the largest CK of at most {queries}"
    changed = [Decision(CK, ck, "one-query shape", note)]
    changed += [Decision(name, value, "one-query shape", f"one query's {config.param(name)}, shared out over {ck} "
                         "instances") for name, value in spread_config.params.items() if value != config.param(name)]
    kept = tuple(d for d in decisions if d.parameter not in {c.parameter for c in changed})
    return spread_config, (*changed, *kept)


def at_queries(prediction: Any, algorithm: Any, queries: int) -> Any:
    """A one-query prediction (`Algorithm.predict_one_query`) for K sources at once in its shape (`spread`)."""
    config, decisions = spread(algorithm, prediction.config, prediction.decisions, queries)
    if config is prediction.config:
        return prediction
    return dataclasses.replace(prediction, config=config, decisions=decisions)


def rules_for_queries(algorithm: Any, graph: Any, device: Any, characterization: Any, queries: int | None,
                      one_query_rules: bool = True) -> Any:
    """An algorithm's rules' prediction for a graph, for K sources at once when `queries` is given:
    up to `Algorithm.one_query_shape_up_to` sources, the algorithm's one-query rules' shape where it
    has them and `one_query_rules` (not with the thesis's model), CK raised (`at_queries`); else the
    batch end's, CK capped (`for_queries`)."""
    one = None
    if queries is not None and one_query_rules and queries <= algorithm.one_query_shape_up_to(characterization):
        one = algorithm.predict_one_query(graph, device, characterization)
    if one is not None:
        return at_queries(one, algorithm, queries)
    prediction = algorithm.predict(graph, device, characterization)
    return prediction if queries is None else for_queries(prediction, algorithm, queries)
