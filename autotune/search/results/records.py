"""Measurement records as JSON Lines: one line per GPU measurement, written next to a table.

A line holds what was measured (the `Measurement` JSON), on which graph, device and algorithm, by
which strategy, in which trial and phase, when, and how long the `measure` call took::

    {"format": "autotune.records/1",
     "graph": {"name": "rmat17", "vertices": 131072, "edges": 4194304, "sha256": "...", "seed": 0},
     "algorithm": "crauser", "device": {"name": "NVIDIA H100 80GB HBM3", "sm_count": 132, ...},
     "strategy": "bayes-tpe", "trial": 12, "phase": "search", "roles": [],
     "timestamp": "2025-01-01T12:00:00+00:00", "wall_s": 0.41, "measurement": {...}}

`roles` names what the sweep measured the configuration as, besides a search point: `default`,
`baseline_candidate`, `prediction`. A replay (`replay.ReplayTimer`) reads these records back.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from autotune.algorithms import config_from_json
from autotune.errors import InputError, OutputError
from autotune.files import atomic_write, note_torn_tail, read_json_lines, read_text
from autotune.launch import DEFAULT_ALGORITHM
from autotune.measure import Measurement
from autotune.search.results import GraphInfo, GraphResult

NOT_RECORDED = "not recorded in the replayed records"  # a replay's reason for a configuration it cannot answer

RECORDS_FORMAT = "autotune.records/1"
ONE_QUERY = "one_query_prediction"  # a throughput study's one-query prediction (`run.specials.Specials.one_query`)
ROLES = ("default", "baseline_candidate", "prediction", ONE_QUERY)


@dataclass(frozen=True)
class Record:
    """One measurement as the records file keeps it.

    Args:
        graph: the graph (name, sha256, size, and the seed and weights of a generated one).
        algorithm: the registered algorithm.
        device: the table's device object of the GPU it ran on (`tables.device_section`: the
            device profile's fields, so a replay can run the model; at least `name`).
        strategy: the strategy label (`exhaustive`, `bayes-tpe`, `model`).
        measurement: the measurement itself.
        trial: the Optuna trial number, when it was one.
        phase: fixed (specials outside the space), probe (a baseline candidate's warm-up, `search.baseline`),
            search, transfer (a point of the curve's other ends moved to this end's CK, `search.transfer`),
            refine (the climb from the search's best, `search.climb`), curve (a bridged CK), compose or remeasure.
        roles: default, baseline_candidate, prediction: what the sweep measured it as.
        timestamp: ISO 8601 time of the measurement (UTC).
        wall_s: seconds the `measure` call took on the host (None when unknown).
    """

    graph: GraphInfo
    algorithm: str
    device: Mapping[str, Any]
    strategy: str
    measurement: Measurement
    trial: int | None = None
    phase: str = "search"
    roles: tuple[str, ...] = ()
    timestamp: str = ""
    wall_s: float | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def graph_sha256(self) -> str:
        return self.graph.sha256

    @property
    def device_name(self) -> str:
        return str(self.device.get("name", "unknown"))

    def to_json(self) -> dict[str, Any]:
        data = {
            "format": RECORDS_FORMAT,
            "graph": dataclasses.replace(self.graph, classes=None).to_record_json(),
            "algorithm": self.algorithm,
            "device": dict(self.device),
            "strategy": self.strategy,
            "trial": self.trial,
            "phase": self.phase,
            "roles": list(self.roles),
            "timestamp": self.timestamp,
            "wall_s": self.wall_s,
            "measurement": self.measurement.to_json(),
        }
        if self.extra:
            data["extra"] = dict(self.extra)
        return data

    @classmethod
    def from_json(cls, data: Any, where: str = "record") -> Record:
        """Read one line's object.

        Raises:
            InputError: a missing key or a malformed measurement, naming `where`.
        """
        if not isinstance(data, Mapping):
            raise InputError(f"{where}: expected a JSON object, found {type(data).__name__}")
        fmt = data.get("format", RECORDS_FORMAT)
        if fmt != RECORDS_FORMAT:
            raise InputError(f"{where}: unknown records format {fmt!r}; this autotune reads {RECORDS_FORMAT}")
        if "measurement" not in data and "config" in data and isinstance(data.get("graph"), str):
            return cls._from_engine_line(data, where)
        try:
            graph = GraphInfo.from_json(data["graph"])
            algorithm = str(data.get("algorithm", DEFAULT_ALGORITHM))
            measurement = Measurement.from_json(data["measurement"], f"{where}: measurement", algorithm,
                                                   config_from_json)
            return cls(
                graph=graph,
                algorithm=algorithm,
                device=dict(data.get("device") or {"name": "unknown"}),
                strategy=str(data.get("strategy", "")),
                measurement=measurement,
                trial=data.get("trial"),
                phase=str(data.get("phase", "search")),
                roles=tuple(data.get("roles", ())),
                timestamp=str(data.get("timestamp", "")),
                wall_s=data.get("wall_s"),
                extra=dict(data.get("extra", {})),
            )
        except KeyError as error:
            raise InputError(f"{where}: missing key {error.args[0]!r}") from None
        except (TypeError, ValueError) as error:
            raise InputError(f"{where}: {error}") from None


    @classmethod
    def _from_engine_line(cls, data: Mapping[str, Any], where: str) -> Record:
        """A line of the engine benchmark's records (tests/data/engine-records.jsonl): `{"graph": SPEC, **Measurement.to_json()}`.
        It names neither the GPU nor the graph's size: the replay asks for them (`--device`, and
        the graph is loaded from its spec)."""
        try:
            measurement = Measurement.from_json(data, where, read_config=config_from_json)
        except KeyError as error:
            raise InputError(f"{where}: missing key {error.args[0]!r}") from None
        except (TypeError, ValueError) as error:
            raise InputError(f"{where}: {error}") from None
        return cls(graph=GraphInfo(str(data["graph"]), "", 0, measurement.edges), algorithm=DEFAULT_ALGORITHM,
                   device={"name": "unknown"}, strategy="engine-benchmark", measurement=measurement)


def records_of(result: GraphResult) -> list[Record]:
    """The records of every measurement a sweep took (its `log`), in order."""
    return [
        Record(graph=result.graph, algorithm=result.algorithm, device=result.device, strategy=result.strategy,
               measurement=e.measurement, trial=e.trial, phase=e.phase, roles=tuple(e.roles),
               timestamp=e.timestamp, wall_s=e.wall_s)
        for e in result.log
    ]


def read_records(path: str | os.PathLike[str]) -> list[Record]:
    """Read a JSON Lines records file (blank lines and `#` comment lines are skipped).

    Raises:
        InputError: unreadable file, or a bad line (with its number).

    Example:
        >>> records = read_records("tests/data/records/synthetic-rmat12.jsonl")  # doctest: +SKIP
    """
    records = [Record.from_json(data, f"{path}:{number}")
               for number, data in read_json_lines(path, "records", note_torn_tail)]
    if not records:
        raise InputError(f"{path}: holds no records")
    return records


def records_by_graph(directory: str | os.PathLike[str]) -> dict[str, list[Record]]:
    """Every record of a directory's `*.jsonl` files (in name order), grouped by graph name.

    Raises:
        InputError: as `read_records`.
    """
    by_graph: dict[str, list[Record]] = {}
    for path in sorted(Path(directory).glob("*.jsonl")):
        for record in read_records(path):
            by_graph.setdefault(record.graph.name, []).append(record)
    return by_graph


def record_key(data: Mapping[str, Any]) -> tuple[Any, ...]:
    """What tells one measurement's line from another's: graph, algorithm, trial, phase, time."""
    graph = data.get("graph") if isinstance(data.get("graph"), Mapping) else {}
    return (graph.get("sha256") or graph.get("name"), data.get("algorithm"), data.get("trial"), data.get("phase"),
            data.get("timestamp"))


def kept_records(path: str | os.PathLike[str], resume: bool, option: str = "--records") -> tuple[str, ...]:
    """The lines of an existing records file that a sweep must keep: none when there is no file;
    every line when the sweep resumes (the file is appended to, never cut); otherwise the sweep is
    refused, since records are hours of GPU time that a table can be made from again, not the
    reverse.

    Raises:
        OutputError: the file exists and the sweep does not resume.
        InputError: the file exists but cannot be read as text.
    """
    path = Path(path)
    if not path.exists():
        return ()
    if not resume:
        raise OutputError(f"{option} {path}: a records file is there already, and records are never overwritten; "
                          "give another path, remove it, or --resume the sweep that wrote it")
    if path.is_dir():
        raise OutputError(f"{option} {path}: is a directory; give the path of a records file")
    return tuple(line for line in read_text(path, "records").splitlines() if line.strip())


def write_records(path: str | os.PathLike[str], records: Iterable[Record], header: str | None = None,
                  kept: Iterable[str] = ()) -> Path:
    """Write records as JSON Lines, atomically (a temporary file replaced into place; gzip where the
    name ends in `.gz`, `FILE.jsonl.gz`: `atomic_write`).

    Args:
        path: the file to write.
        records: the records, in order.
        header: an optional comment written as the first line (`# ...`).
        kept: lines of an earlier file that stay first, as they were (`kept_records`); a record
            whose measurement one of them holds already is not written again.

    Returns:
        The path written.
    """
    kept = list(kept)
    held = set()
    for line in kept:
        with contextlib.suppress(ValueError):
            data = json.loads(line)
            if isinstance(data, Mapping):
                held.add(record_key(data))
    lines = kept or ([f"# {line}" for line in header.splitlines()] if header else [])
    for record in records:
        data = record.to_json()
        if record_key(data) not in held:
            lines.append(json.dumps(data, separators=(",", ":")))
    return atomic_write(path, "\n".join(lines) + "\n", "the records")
