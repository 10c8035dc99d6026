"""The JSON tables that `predict` and `sweep` write: build, validate, write atomically, read.

A table is one JSON object for one GPU and one algorithm (or `auto`), with one entry per graph;
its format is the JSON Schema `autotune/schemas/table-3.json` ("autotune.table/3"), documented in
`docs/tables.md`. Older tables are read and upgraded in memory (`upgrade`): version 1
(`table-1.json`: every configuration GPU Crauser's or Martín's, named by the table's `algorithm`)
and version 2 (`table-2.json`, whose curves could hold a reference, the default or the baseline,
measured where nothing was tuned: such points are dropped). The library validates against the schemas when `jsonschema` is installed and
otherwise checks the required keys only; the tests validate every table the tool writes.

Example::

    >>> from autotune.model import GraphFeatures, classify, load_device
    >>> from autotune.algorithms.thesis.rules import predict
    >>> device = load_device("hopper-h100")
    >>> prediction = predict(GraphFeatures.from_mean_degree("random98k-d20", 98304, 20), device)
    >>> table = build_table(device_section(device), [make_entry(prediction.graph.to_json(),
    ...                     predicted=prediction.to_json())], algorithm="crauser")
    >>> table["schema"]
    'autotune.table/3'
"""
from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from autotune._version import __version__
from autotune.algorithms import config_from_json
from autotune.errors import AutotuneError, InputError
from autotune.files import atomic_write, read_json
from autotune.launch import DEFAULT_ALGORITHM, LaunchConfig

if TYPE_CHECKING:
    from autotune.model.device import DeviceProfile

SCHEMA_ID = "autotune.table/3"
SCHEMA_FILES = {"autotune.table/1": "table-1.json", "autotune.table/2": "table-2.json", "autotune.table/3": "table-3.json"}
ENTRY_CONFIG_KEYS = ("predicted", "best", "baseline", "default", "model")
MEASURED_KEYS = ("best", "baseline", "default", "model")


@cache
def _schema_text(schema_id: str) -> str:
    return resources.files("autotune").joinpath("schemas", SCHEMA_FILES[schema_id]).read_text(encoding="utf-8")


def schema(schema_id: str = SCHEMA_ID) -> dict[str, Any]:
    """The JSON Schema of a table version (default: the one written, autotune.table/3; a fresh copy)."""
    return json.loads(_schema_text(schema_id))


def schema_path(schema_id: str = SCHEMA_ID) -> Path:
    """Where a schema file is shipped (inside the package)."""
    return Path(str(resources.files("autotune").joinpath("schemas", SCHEMA_FILES[schema_id])))


def upgrade(table: Mapping[str, Any]) -> dict[str, Any]:
    """An older table as version 3; a version 3 table is returned as it is.

    Version 1 -> 2: every configuration names the table's algorithm, every entry its best's.
    Version 2 -> 3: a curve point that is the entry's default or baseline configuration was a
    reference measured for comparison (version 2 sweeps put it there where nothing else was
    measured at its CK): it is dropped, so that no lookup hands it out.
    """
    table = dict(table)
    if table.get("schema") == "autotune.table/1":
        algorithm = table.get("algorithm", DEFAULT_ALGORITHM)
        entries = []
        for entry in table.get("entries", ()):
            entry = dict(entry)
            for key in ENTRY_CONFIG_KEYS:
                if isinstance(entry.get(key), Mapping) and isinstance(entry[key].get("config"), Mapping):
                    entry[key] = {**entry[key], "config": {"algorithm": algorithm, **entry[key]["config"]}}
            if "best" in entry or "predicted" in entry:
                entry.setdefault("algorithm", algorithm)
            entries.append(entry)
        table = {**table, "schema": "autotune.table/2", "entries": entries}
    if table.get("schema") == "autotune.table/2":
        entries = []
        for entry in table.get("entries", ()):
            entry = dict(entry)
            references = [entry[k]["config"] for k in ("default", "baseline") if isinstance(entry.get(k), Mapping)]
            if entry.get("curve"):
                entry["curve"] = [p for p in entry["curve"] if p.get("config") not in references]
            entries.append(entry)
        table = {**table, "schema": SCHEMA_ID, "entries": entries}
    return table


def now_iso() -> str:
    """The current time, ISO 8601 in UTC, to the second."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def device_section(
    device: DeviceProfile,
    cuda_version: str | None = None,
    driver_version: str | None = None,
) -> dict[str, Any]:
    """The `device` object of a table, from a profile (a shipped one, a file, or `auto`).

    Args:
        device: the GPU's profile.
        cuda_version: the CUDA version a measured table ran with.
        driver_version: the driver's version.
    """
    data = device.to_json()
    data["profile"] = device.name if device.origin in ("", "shipped") else device.origin
    if cuda_version is not None:
        data["cuda_version"] = cuda_version
    if driver_version is not None:
        data["driver_version"] = driver_version
    return data


def measured(config: LaunchConfig, ms_per_sssp: float, verified: bool, **extra: Any) -> dict[str, Any]:
    """A measured entry part (`best`, `baseline`, `default`, `model`).

    Args:
        config: the configuration measured.
        ms_per_sssp: its median milliseconds per SSSP.
        verified: whether its distances equal the CPU reference's.
        **extra: optional keys of the schema (`times_ms`, `kernel_ms`, `gteps`, `iterations`,
            `sources`, `status`, `reason`).
    """
    return {"config": config.to_json(), "ms_per_sssp": float(ms_per_sssp), "verified": bool(verified), **extra}


def make_entry(
    graph: Mapping[str, Any],
    *,
    predicted: Mapping[str, Any] | None = None,
    best: Mapping[str, Any] | None = None,
    baseline: Mapping[str, Any] | None = None,
    default: Mapping[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """One table entry: a graph and any of its configurations.

    Args:
        graph: `GraphClasses.to_json()` (name, vertices, edges, mean_degree, stress_ratio,
            stress_class, degree_class; optionally sha256, max_degree, seed, weights, degree_cv
            and the weight figures).
        predicted: `Prediction.to_json()`.
        best, baseline, default: `measured(...)` parts.
        **extra: the sweep's keys (`algorithm`, `model`, `strategy`, `evaluations`, `tuning_seconds`,
            `speedup_over_default`, `speedup_over_baseline`, `model_gap`, `partial`, `kernel_ms`,
            `curve`, `by_algorithm`).
    """
    entry: dict[str, Any] = {"graph": dict(graph)}
    for key, value in (("predicted", predicted), ("best", best), ("baseline", baseline), ("default", default)):
        if value is not None:
            entry[key] = dict(value)
    entry.update(extra)
    return entry


def build_table(
    device: Mapping[str, Any],
    entries: Iterable[Mapping[str, Any]],
    algorithm: str,
    *,
    created: str | None = None,
    tool_version: str | None = None,
    command: str | None = None,
    characterization: Mapping[str, Any] | None = None,
    objective: str | None = None,
) -> dict[str, Any]:
    """A whole table (not yet validated; `write_table` validates).

    Args:
        device: `device_section(...)`.
        entries: `make_entry(...)` objects.
        algorithm: the algorithm tuned (a registered name, or "auto").
        created: ISO 8601 time (default: now).
        tool_version: default: this autotune's version.
        command: the command line, for the record.
        characterization: {"path", "source", "arch"} of the characterization used.
        objective: what a sweep tuned for (curve, throughput, latency, pareto).
    """
    table: dict[str, Any] = {
        "schema": SCHEMA_ID,
        "tool_version": tool_version or __version__,
        "created": created or now_iso(),
        "algorithm": algorithm,
        "device": dict(device),
        "entries": [dict(entry) for entry in entries],
    }
    if command is not None:
        table["command"] = command
    if characterization is not None:
        table["characterization"] = dict(characterization)
    if objective is not None:
        table["objective"] = objective
    return table


def validate_table(table: Any, where: str = "table", require_jsonschema: bool = False) -> None:
    """Check a table against the shipped schema of its version.

    With `jsonschema` installed, a full validation; without it, the schema id and the required keys,
    unless `require_jsonschema` asks for the full one. Either way every configuration is checked
    against its algorithm (`algorithms.config_from_json`: its kernels, lanes and parameters).

    Raises:
        InputError: naming `where`, the path inside the table and what is wrong.
        AutotuneError: `require_jsonschema` without jsonschema installed.
    """
    if not isinstance(table, Mapping):
        raise InputError(f"{where}: a table must be a JSON object, found {type(table).__name__}")
    _check_schema_id(table, where)
    try:
        import jsonschema
    except ImportError:
        if require_jsonschema:
            raise AutotuneError("validating a table needs the jsonschema package (pip install jsonschema)") from None
        _check_minimal(table, where)
        _check_configs(table, where)
        return
    version = schema(table["schema"])
    validator_class = jsonschema.validators.validator_for(version)
    validator = validator_class(version, format_checker=validator_class.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(table), key=lambda error: list(error.absolute_path))
    if errors:
        error = errors[0]
        at = "/".join(str(part) for part in error.absolute_path) or "(top)"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise InputError(f"{where}: {at}: {_error_message(error)}{more}; see docs/tables.md")
    _check_configs(table, where)


def _error_message(error: Any) -> str:
    """jsonschema's message, with unknown keys named as such."""
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        known = error.schema.get("properties", {})
        patterns = error.schema.get("patternProperties", {})
        unknown = [
            key for key in error.instance
            if key not in known and not any(re.search(pattern, key) for pattern in patterns)
        ]
        if unknown:
            extension = " (free extensions start with 'x-')" if patterns else ""
            return f"unknown key(s) {', '.join(map(repr, unknown))}{extension}"
    return error.message


def _check_schema_id(table: Mapping[str, Any], where: str) -> None:
    found = table.get("schema")
    if found not in SCHEMA_FILES:
        readable = " and ".join(SCHEMA_FILES)
        if isinstance(found, str) and found.startswith("autotune.table/"):
            raise InputError(
                f"{where}: schema {found!r} is not supported; this autotune {__version__} reads {readable}. "
                "Use the autotune version that wrote it, or write the table again."
            )
        raise InputError(f"{where}: not an autotune table (its \"schema\" is {found!r}, expected {SCHEMA_ID!r})")


def _check_minimal(table: Mapping[str, Any], where: str) -> None:
    for key in ("tool_version", "created", "device", "algorithm", "entries"):
        if key not in table:
            raise InputError(f"{where}: missing key {key!r}; see docs/tables.md")
    for key in ("name", "compute_capability", "sm_count"):
        if key not in table["device"]:
            raise InputError(f"{where}: device: missing key {key!r}")
    if not isinstance(table["entries"], list):
        raise InputError(f"{where}: entries must be a list")
    for index, entry in enumerate(table["entries"]):
        if not isinstance(entry, Mapping) or "graph" not in entry:
            raise InputError(f"{where}: entries/{index}: needs a graph")
        for key in MEASURED_KEYS:
            if key in entry and not {"ms_per_sssp", "verified"} <= set(entry[key]):
                raise InputError(f"{where}: entries/{index}/{key}: needs ms_per_sssp and verified")


def _check_configs(table: Mapping[str, Any], where: str) -> None:
    for index, entry in enumerate(table["entries"]):
        for key in ENTRY_CONFIG_KEYS:
            if isinstance(entry.get(key), Mapping):
                config_from_json(entry[key].get("config"), f"{where}: entries/{index}/{key}/config",
                                 str(table["algorithm"]))


def write_table(path: str | Path, table: Mapping[str, Any], validate: bool = True) -> Path:
    """Validate `table` and write it as JSON, atomically (a temporary file, then `os.replace`).

    Raises:
        InputError: the table is not valid (nothing is written).
        AutotuneError: the file cannot be written.
    """
    if validate:
        validate_table(table, where=str(path))
    return atomic_write(path, json.dumps(table, indent=2, ensure_ascii=False) + "\n", "the table")


def read_table(path: str | Path, validate: bool = True) -> dict[str, Any]:
    """Read a table written by `write_table` (version 1 or 2), as version 2.

    Raises:
        InputError: unreadable file, invalid JSON (with its line), an unknown schema version, or
            an invalid table.
    """
    table = read_json(path, "table")
    if not isinstance(table, dict):
        raise InputError(f"{path}: a table must be a JSON object")
    _check_schema_id(table, str(path))
    if validate:
        validate_table(table, where=str(path))
    return upgrade(table)


def entry_config(entry: Mapping[str, Any], key: str, where: str = "table") -> LaunchConfig | None:
    """The `LaunchConfig` of an entry's `predicted`, `best`, `baseline`, `default` or `model`
    part, or None when the entry lacks it."""
    if key not in ENTRY_CONFIG_KEYS:
        raise ValueError(f"key must be one of {ENTRY_CONFIG_KEYS}")
    part = entry.get(key)
    if part is None:
        return None
    return config_from_json(part.get("config"), f"{where}: {entry['graph']['name']}: {key}",
                            str(entry.get("algorithm", DEFAULT_ALGORITHM)))
