"""What `autotune sweep` writes and prints: the table, the records, the T4 files, the summary."""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from autotune.files import check_outputs, check_replaceable, is_json_with, slug
from autotune.search.results.entries import sweep_table, write_sweep_table
from autotune.search.results.records import kept_records, records_of, write_records
from autotune.search.results import GraphResult
from autotune.search.results.t4 import write_t4

INTERRUPTED = 130


@dataclass(frozen=True)
class Outputs:
    """Where a sweep writes, and what it prints.

    Args:
        table: the table's path.
        records: the records' path (None: none).
        kept_records: the lines of an earlier records file at that path, which stay (a resumed
            sweep appends; `records.kept_records`).
        objective: what the sweep tunes for (the table's `objective`).
        t4: the T4 files' directory (None: none).
        algorithm: what the table names as its algorithm (a registered one, or auto).
        command: the command line, for the record.
        show: print the summary (not --quiet, not --json).
        json: print the table as JSON.
    """

    table: Path
    records: Path | None
    t4: str | None
    algorithm: str
    command: str | None
    show: bool
    json: bool
    kept_records: tuple[str, ...] = ()
    objective: str | None = None


def checked_outputs(table: Path, records: Path | None, t4: str | None, algorithm: str, command: str | None,
                    show: bool, json_: bool, inputs: Sequence[tuple[str, Any]] = (), resume: bool = False,
                    objective: str | None = None) -> Outputs:
    """The outputs of a sweep, checked before anything is measured: none of them is an input
    (`inputs`: option and path pairs), the table replaces nothing but a table, and an existing
    records file is kept and appended to when the sweep resumes, refused otherwise.

    Raises:
        OutputError: naming the output and why.
    """
    check_outputs({"--output": table, "--records": records, "--t4": t4}, inputs)
    check_replaceable(table, lambda path: is_json_with(path, "schema", "autotune.table/"), "an autotune table")
    kept = kept_records(records, resume) if records is not None else ()
    return Outputs(table, records, t4, algorithm, command, show, json_, kept, objective)


def default_output(graph_names: Sequence[str], device_name: str, algorithm: str) -> Path:
    names = "+".join(slug(Path(name).name) for name in graph_names)[:80]
    return Path(f"sweep-{names}-{slug(device_name)}-{algorithm}.json")


def write_outputs(results: Sequence[GraphResult], device: dict[str, Any], outputs: Outputs, partial: bool = False,
                  extra: dict[str, Any] | None = None) -> list[str]:
    """Write the table, the records and the T4 files of every graph so far; returns the paths."""
    table = {**sweep_table(results, device, outputs.algorithm, outputs.command, partial=partial,
                           objective=outputs.objective), **(extra or {})}
    written = [str(write_sweep_table(outputs.table, table))]
    if outputs.records is not None:
        records = [record for result in results for record in records_of(result)]
        header = ("autotune sweep records (synthetic measurements, no GPU)" if "Synthetic" in str(device.get("name"))
                  else None)
        written.append(str(write_records(outputs.records, records, header=header, kept=outputs.kept_records)))
    if outputs.t4:
        written += [str(write_t4(outputs.t4, result)) for result in results]
    return written


def report_outcome(results: Sequence[GraphResult], device: dict[str, Any], outputs: Outputs, written: Sequence[str],
                   interrupted: bool, extra: dict[str, Any] | None = None, partial: bool = False) -> int:
    """Print the table (`--json`) or the summary; returns the exit status."""
    if outputs.json:
        table = sweep_table(results, device, outputs.algorithm, outputs.command, partial=interrupted or partial,
                            objective=outputs.objective)
        print(json.dumps({**table, **(extra or {})}, indent=2))
    elif outputs.show:
        from rich.console import Console

        from autotune.search.results.summary import render_summary

        console = Console(file=sys.stdout, highlight=False, width=None if sys.stdout.isatty() else 120)
        render_summary(results, console, written)
        for worker in (extra or {}).get("x-workers", ()):
            console.print(f"worker {worker['worker']}: {worker['measured']} measurements ({worker['state']})",
                          highlight=False, markup=False)
    if interrupted:
        print(f"autotune: interrupted; wrote the partial table {outputs.table}" if results else
              "autotune: interrupted before any graph was measured", file=sys.stderr)
        return INTERRUPTED
    by_graph: dict[str, list[GraphResult]] = {}  # an auto sweep: a graph needs a best of any of its algorithms
    for result in results:
        by_graph.setdefault(result.graph.key, []).append(result)
    unverified = [studies for studies in by_graph.values() if all(r.best is None for r in studies)]
    if unverified:
        from autotune.search.results.summary import why_none_verified

        for studies in unverified:
            print(f"autotune: {why_none_verified(studies)}", file=sys.stderr)
    return 1 if unverified else 0
