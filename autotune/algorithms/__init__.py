"""The algorithm registry: every SSSP algorithm the tuner can launch is one registered value, and
each lives in a package of its own (its `Algorithm` value, `rules`, `reference`, `engine`, and
whatever else only it needs).

* `base`: `Algorithm`, what an algorithm carries (kernels and compile options, parameters and
  their domains, CPU reference, GPU engine, characterization and model rules, and the hooks where
  algorithms differ).
* `parameters`: `Parameter`, an algorithm's own tuned parameter.
* `thesis`: GPU Crauser and GPU Martín (`kernels/sssp.cu`).
* `delta`: near-far Delta-stepping (`kernels/delta.cu`).
* `delta_lanes`: near-far Delta-stepping of 32 instances interleaved in warp lanes (`kernels/lanes.cu`).
* `adds`: asynchronous Delta-stepping without barriers (`kernels/adds.cu`).
* `phast`: level sweeps over a contraction hierarchy (`kernels/phast.cu`).

Adding an algorithm adds its package, its kernel file, its characterization and one line to
`BUILT_IN`; nothing outside the packages tests names (`tests/test_architecture.py`).

Example:
    >>> get("delta").kernels
    ('advance', 'split')
    >>> config = config_from_json({"concurrent_kernels": 1, "kernels": {
    ...     "relax": {"block_size": 64}, "minimum": {"block_size": 64}, "update": {"block_size": 64}}})
    >>> config.algorithm, str(config.relax)
    ('crauser', '64:default')
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable

from autotune.algorithms.adds import ADDS
from autotune.algorithms.base import Algorithm
from autotune.algorithms.delta import DELTA
from autotune.algorithms.delta_lanes import DELTA_LANES
from autotune.algorithms.parameters import Parameter, parse_param_options
from autotune.algorithms.phast import PHAST
from autotune.algorithms.thesis import CRAUSER, MARTIN
from autotune.errors import InputError
from autotune.launch import DEFAULT_ALGORITHM, LaunchConfig

BUILT_IN: tuple[Algorithm, ...] = (CRAUSER, MARTIN, DELTA, DELTA_LANES, ADDS, PHAST)
AUTO = "auto"  # `--algorithm auto`: tune every algorithm, keep the fastest
DIJKSTRA = "dijkstra"  # the CPU oracle, a CPU solver of its own

_REGISTRY: dict[str, Algorithm] = {}


def register(algorithm: Algorithm) -> Algorithm:
    """Add an algorithm (its name and its `header_id` must be new)."""
    if not algorithm.name or algorithm.name in _REGISTRY or algorithm.name in (AUTO, DIJKSTRA):
        raise ValueError(f"cannot register an algorithm named {algorithm.name!r}")
    if algorithm.header_id < 0 or any(a.header_id == algorithm.header_id for a in _REGISTRY.values()):
        raise ValueError(f"{algorithm.name}: its header_id {algorithm.header_id} is not a new one of its own")
    _REGISTRY[algorithm.name] = algorithm
    return algorithm


for _algorithm in BUILT_IN:
    register(_algorithm)


def names() -> tuple[str, ...]:
    """The registered algorithms, in registration order."""
    return tuple(_REGISTRY)


def all_algorithms() -> tuple[Algorithm, ...]:
    return tuple(_REGISTRY.values())


def get(name: str, option: str = "--algorithm") -> Algorithm:
    """The algorithm called `name`.

    Raises:
        InputError: no such algorithm (naming the registered ones).
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise InputError(f"{option}: unknown algorithm {name!r}; choose from {', '.join(_REGISTRY)}") from None


def resolve(name: str, option: str = "--algorithm") -> tuple[Algorithm, ...]:
    """The algorithms a name stands for: for `auto` every one that `Algorithm.in_auto` admits,
    else the one."""
    return tuple(a for a in all_algorithms() if a.in_auto) if name == AUTO else (get(name, option),)


def open_solver(graph: Any, algorithm: str, **options) -> Any:
    """The GPU engine the registry names for `algorithm` (its `engine`, imported only now), on
    `graph`; use inside `autotune.gpu.gpu_session()`, as a context manager.

    Raises:
        InputError: no such algorithm.
    """
    import importlib

    entry = get(algorithm)
    module, _, name = entry.engine.partition(":")
    return getattr(importlib.import_module(module), name)(graph, entry, **options)


def cpu_solver(name: str) -> Callable[..., Any]:
    """The CPU solver `autotune sssp --cpu --algorithm NAME` runs: scipy's Dijkstra (the oracle) or
    an algorithm's CPU reference; called as solver(graph, source, params)."""
    if name == DIJKSTRA:
        from autotune.reference.oracle import dijkstra

        return lambda graph, source, params=None: dijkstra(graph, source)
    return get(name).solve_cpu


def cpu_solver_names() -> tuple[str, ...]:
    return (DIJKSTRA, *names())


def config_from_json(data: Any, where: str = "config", default_algorithm: str = DEFAULT_ALGORITHM) -> LaunchConfig:
    """Read a configuration's JSON and check it against its algorithm (canonical form).

    Raises:
        InputError: bad shape, unknown algorithm, or kernels and parameters not its algorithm's.
    """
    config = LaunchConfig.from_json(data, where, default_algorithm)
    return get(config.algorithm, f"{where}: algorithm").validate(config, where)


def load_config(text_or_path: str, default_algorithm: str = DEFAULT_ALGORITHM) -> LaunchConfig:
    """A configuration given on the command line: a JSON text or the path of a JSON file.

    Raises:
        InputError: unreadable file, invalid JSON (with line), or an invalid configuration.
    """
    import json

    from autotune.files import read_json

    if text_or_path.lstrip().startswith("{"):
        where = "--config"
        try:
            data = json.loads(text_or_path)
        except json.JSONDecodeError as error:
            raise InputError(f"--config:{error.lineno}: invalid JSON: {error.msg}") from None
    else:
        where = str(Path(text_or_path))
        data = read_json(text_or_path, "configuration")
    return config_from_json(data, where, default_algorithm)


def parse_params(algorithm: Algorithm, texts: Iterable[str]) -> dict[str, tuple[Any, ...]]:
    """`--param NAME=V1,V2` options of one algorithm."""
    return parse_param_options(texts, algorithm.parameters, algorithm.name)


__all__ = [
    "AUTO",
    "Algorithm",
    "BUILT_IN",
    "DIJKSTRA",
    "Parameter",
    "all_algorithms",
    "config_from_json",
    "cpu_solver",
    "cpu_solver_names",
    "get",
    "load_config",
    "names",
    "open_solver",
    "parse_params",
    "register",
    "resolve",
]
