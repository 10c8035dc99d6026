"""What a sweep measures besides its search, from the model (`autotune.model`): the prediction and
the baseline candidates; and the device profile a table and a replay need.

The baseline of thesis 4.6.1 is "of the block sizes that maximize occupancy, the slowest; default
cache; CK 1". `model.baseline_block_sizes` gives the maximizing sizes per kernel; the candidates
are the uniform configurations (default cache, CK 1, L 1) of the sizes that maximize occupancy for
every kernel. Should no size do so for all three, candidate i launches each kernel with its own
i-th maximizing size (the shorter lists repeat their last size). The sweep measures the
candidates and the slowest is the baseline.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence

from autotune.errors import InputError
from autotune.search.records import Record
from autotune.search.results import GraphInfo
from autotune.search.sweep import Specials
from autotune.space import TUNED_KERNELS, CacheState, KernelLaunch, LaunchConfig

def device_json(profile: Any, cuda_version: str | None = None, driver_version: str | None = None) -> dict[str, Any]:
    """The table's device object of a `DeviceProfile` (what records keep too)."""
    from autotune.tables import device_section

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
    """The `GraphInfo` of a loaded `CSRGraph`."""
    return GraphInfo(name=graph.name, sha256=graph.sha256, n_vertices=graph.n_vertices, n_edges=graph.n_edges,
                     max_degree=graph.max_degree, seed=seed, weights=weights)


def _features(graph: GraphInfo) -> Any:
    from autotune.model import GraphFeatures

    return GraphFeatures(name=graph.name, n_vertices=max(graph.n_vertices, 1), n_edges=graph.n_edges,
                         max_degree=graph.max_degree, sha256=graph.sha256 or None)


def classify_graph(graph: GraphInfo, profile: Any | None) -> GraphInfo:
    """`graph` with the model's classes on the GPU (stress ratio, degree and stress classes)."""
    if profile is None or graph.n_vertices < 1:
        return graph
    from autotune.model import classify

    return dataclasses.replace(graph, classes=classify(_features(graph), profile).to_json())


def baseline_candidates(profile: Any) -> tuple[LaunchConfig, ...]:
    """The baseline candidates on a GPU (see the module docstring)."""
    from autotune.model import baseline_block_sizes

    sizes = baseline_block_sizes(profile)
    common = sorted(set.intersection(*(set(sizes[k]) for k in TUNED_KERNELS)))
    if common:
        return tuple(LaunchConfig.uniform(b, CacheState.DEFAULT, 1, 1) for b in common)
    count = max(len(sizes[k]) for k in TUNED_KERNELS)
    candidates = []
    for i in range(count):
        launches = {k: KernelLaunch(sizes[k][min(i, len(sizes[k]) - 1)]) for k in TUNED_KERNELS}
        candidates.append(LaunchConfig(concurrent_kernels=1, **launches))
    return tuple(dict.fromkeys(candidates))


def model_specials(graph: GraphInfo, profile: Any | None) -> Specials:
    """Prediction, default and baseline candidates from the model; without a profile only the
    default (the table then lacks `predicted`, `model` and `baseline`).

    Raises:
        InputError: the model cannot predict for this GPU (e.g. a kernel cannot launch).
    """
    if profile is None:
        return Specials()
    from autotune.model import predict

    prediction = predict(_features(graph), profile)
    return Specials(baseline_candidates=baseline_candidates(profile), prediction=prediction.config,
                    prediction_details=prediction.to_json())


def recorded_specials(records: Sequence[Record], graph: GraphInfo, profile: Any | None) -> Specials:
    """The specials of a replay: the prediction and baseline candidates the records were measured
    as (their `roles`), so a replay repeats the live sweep; where the records hold no roles, the
    model's (as in a live sweep)."""
    try:
        from_model = model_specials(graph, profile) if profile is not None else None
    except InputError:
        from_model = None
    predictions = [r.measurement.config for r in records if "prediction" in r.roles]
    prediction = predictions[0] if predictions else (from_model.prediction if from_model else None)
    if from_model is not None and from_model.prediction == prediction:
        details = from_model.prediction_details
    else:
        details = {"config": prediction.to_json()} if prediction is not None else None
    candidates = tuple(dict.fromkeys(r.measurement.config for r in records if "baseline_candidate" in r.roles))
    if not candidates and from_model is not None:
        candidates = from_model.baseline_candidates
    return Specials(baseline_candidates=candidates, prediction=prediction, prediction_details=details)
