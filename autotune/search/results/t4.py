"""Sweep results in the T4 autotuning results format, so Kernel Tuner and BAT users can read them.

Follows `results-schema.json` version 1.0.0 of the TuningSchema project (odgaard/TuningSchema, the
"Open Autotuning Results Schema"), in the variant Kernel Tuner ships
(`kernel_tuner/schema/T4/1.0.0/results-schema.json`), whose `invalidity` also allows `"correct"`
for a valid result. A file is `{"schema_version": "1.0.0", "results": [...]}`; each result is one
GPU measurement, in the order taken::

    {"timestamp": "2025-01-01T12:00:00.000+00:00",
     "configuration": {"concurrent_kernels": 8, "relax_block_size": 256, "relax_cache": "prefer_l1",
                       "relax_lanes": 8, "minimum_block_size": 128, "minimum_cache": "default",
                       "update_block_size": 128, "update_cache": "no_l1"},
     "objectives": ["ms_per_sssp"],
     "times": {"runtimes": [1.21, 1.19, 1.20], "benchmark": 412.0},
     "invalidity": "correct", "correctness": 1,
     "measurements": [{"name": "ms_per_sssp", "value": 1.2, "unit": "ms"},
                      {"name": "relax_ms", "value": 0.8, "unit": "ms"}, ...]}

`runtimes` are the repetitions' milliseconds per SSSP; `benchmark` the milliseconds the whole
measure call took (warm-up, repetitions, profiled solve and verification). `invalidity` is
`correct`, `runtime` (the GPU refused or failed the launch), `correctness` (distances differ from
the CPU reference; `correctness` is then 0, else 1) or `timeout` (pruned: stopped early, already
far slower than the best so far; `runtimes` are what it timed). Configurations a replay could not answer were
never measured and are left out.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from autotune.algorithms import get
from autotune.files import atomic_write, slug
from autotune.launch import LaunchConfig
from autotune.measure import Status
from autotune.search.results.records import NOT_RECORDED
from autotune.search.results import GraphResult

T4_VERSION = "1.0.0"
OBJECTIVE = "ms_per_sssp"
INVALIDITY = {Status.OK: "correct", Status.INVALID: "runtime", Status.WRONG: "correctness", Status.PRUNED: "timeout"}


def flat_configuration(config: LaunchConfig) -> dict[str, Any]:
    """A configuration as T4's flat parameter object: the algorithm, CK, each kernel's block size,
    cache state and (for the kernels that take them) lanes, and the algorithm's own parameters."""
    lanes_kernels = get(config.algorithm).lanes_kernels
    data: dict[str, Any] = {"algorithm": config.algorithm, "concurrent_kernels": config.concurrent_kernels}
    for name, launch in config.kernels.items():
        data[f"{name}_block_size"] = launch.block_size
        data[f"{name}_cache"] = launch.cache.value
        if name in lanes_kernels:
            data[f"{name}_lanes"] = launch.lanes
    data.update(config.params)
    return data


def t4_results(result: GraphResult) -> dict[str, Any]:
    """The T4 results object of one graph's sweep."""
    out = []
    for evaluation in result.log:
        m = evaluation.measurement
        if m.status is Status.INVALID and (m.reason or "").startswith(NOT_RECORDED):
            continue
        measurements = []
        if m.ok:
            measurements.append({"name": OBJECTIVE, "value": m.ms_per_sssp, "unit": "ms"})
            measurements += [{"name": f"{kernel}_ms", "value": value, "unit": "ms"}
                             for kernel, value in sorted(m.kernel_ms.items())]
            if m.gteps is not None:
                measurements.append({"name": "gteps", "value": m.gteps, "unit": "GTEPS"})
            measurements.append({"name": "iterations", "value": m.iterations, "unit": ""})
        elif m.reason:
            measurements.append({"name": "reason", "value": m.reason, "unit": ""})
        out.append({
            "timestamp": evaluation.timestamp,
            "configuration": flat_configuration(m.config),
            "objectives": [OBJECTIVE],
            "times": {"runtimes": list(m.times_ms), "benchmark": evaluation.wall_s * 1e3},
            "invalidity": INVALIDITY[m.status],
            "correctness": 0 if m.status is Status.WRONG else 1,
            "measurements": measurements,
        })
    return {"schema_version": T4_VERSION, "results": out}


def t4_file_name(result: GraphResult) -> str:
    return f"{slug(Path(result.graph.name).name, 'graph')}-{result.algorithm}-T4-results.json"


def write_t4(directory: str | Path, result: GraphResult) -> Path:
    """Write one graph's T4 results file into `directory`, atomically; returns its path."""
    return atomic_write(Path(directory) / t4_file_name(result), json.dumps(t4_results(result), indent=1) + "\n",
                        "the T4 results")
