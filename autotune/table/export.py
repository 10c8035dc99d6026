"""A table for programs without Python (`autotune table export`): a self-contained C/C++ header, or
a flat JSON file.

The header (`--format c-header`) holds the table's entries as constant data (each graph's features,
its queries curve, best and prediction, and the configurations they name),
`autotune_lookup(vertices, mean_degree, degree_cv, queries, &match)`, which answers as
`Table.lookup(vertices=..., mean_degree=..., degree_cv=..., queries=queries)` does (a graph the table
holds, at distance 0 in log2 vertices, log2 mean degree and log2(1 + degree skew), by its own curve
point for `queries`, derived from its smallest tuned CK where it tuned none that small; any other by
the model), and `autotune_model(&graph, queries, &match)`, the model's answer for a graph of every
figure the model reads (`autotune.table.export_model`: the table's choice tree and each algorithm's
rules on its GPU, in C). It needs only the C standard library and compiles as C99 or C++.

The flat JSON (`--format json`): per entry its graph features and, for every power of two K from 1
to 1024, the configuration `Table.lookup` gives that entry's graph for K queries (its own entry's).

Example::

    autotune table export tables/h100.json --format c-header -o tuned_sssp.h
"""
from __future__ import annotations

import json
import math
from typing import Any, Mapping

from autotune import algorithms
from autotune.errors import InputError
from autotune.launch import CacheState, LaunchConfig
from autotune.table.distance import DEFAULT_WEIGHTS, GRAPH_FEATURES
from autotune.table.export_model import model_section
from autotune.table.lookup import Table

FORMATS = ("c-header", "json")
HEADER_START = b"/* Tuned SSSP launch configurations for "  # the header's first bytes (templates/tuned_sssp.h.in)
JSON_FORMAT = "autotune.table-export/"  # the flat JSON export's `format`, less its version
QUERIES = tuple(2**k for k in range(11))  # 1 .. 1024: the flat export's columns
CACHES = tuple(CacheState)
MAX_KERNELS = 3
MAX_PARAMS = max(len(algorithms.get(name).parameters) for name in algorithms.names())  # the header's array


def c_string(text: str) -> str:
    """A C string literal of `text` (escaped; non-ASCII as octal bytes, and `*` too, so that the
    literal can also stand in the header's comment without closing or opening one: a device named
    `x */ y` becomes `"x \\052/ y"`)."""
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        out.append(char if 32 <= byte < 127 and char not in '"\\?*' else f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def c_comment(text: str) -> str:
    """`text` as it may stand inside the header's /* */ comment: printable ASCII, no `*/` or `/*`."""
    printable = "".join(c if 32 <= ord(c) < 127 else "?" for c in text)
    return printable.replace("*/", "* /").replace("/*", "/ *")


def c_double(value: float) -> str:
    """A measured time: -1.0 where there is none (the header's "not measured so")."""
    return repr(float(value)) if math.isfinite(value) else "-1.0"


def c_finite(value: Any, where: str) -> str:
    """A graph feature as a C double.

    Raises:
        InputError: not a finite number (a table that was not read through `autotune.files`).
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise InputError(f"{where}: {value!r} is not a finite number; the header needs one")
    return repr(number)


class _Configs:
    """The distinct configurations an export names, each once (by its JSON)."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.configs: list[LaunchConfig] = []

    def id_of(self, data: Mapping[str, Any], where: str) -> int:
        key = json.dumps(data, sort_keys=True)
        if key not in self.ids:
            self.ids[key] = len(self.configs)
            self.configs.append(algorithms.config_from_json(data, where))
        return self.ids[key]


def header_names() -> list[str]:
    """The algorithms' names by `Algorithm.header_id` (the header's enum), "" where an id is unused."""
    ids = {a.header_id: a.name for a in algorithms.all_algorithms()}
    return [ids.get(i, "") for i in range(max(ids) + 1)]


def _config_c(config: LaunchConfig) -> str:
    kernels = [f"{{{c_string(name)}, {launch.block_size}, {CACHES.index(launch.cache)}, {launch.lanes}}}"
               for name, launch in config.kernels.items()]
    params = [f"{{{c_string(name)}, {value if isinstance(value, int) else -1}, {c_string(str(value))}}}"
              for name, value in config.params.items()]
    if len(kernels) > MAX_KERNELS or len(params) > MAX_PARAMS:
        raise ValueError(f"{config}: more kernels or parameters than the header holds")
    no_param = '{0, 0, ""}'
    return (f"{{{algorithms.get(config.algorithm).header_id}, {config.concurrent_kernels}, {len(kernels)}, "
            f"{{{', '.join(kernels) or '{0, 0, 0, 0}'}}}, {len(params)}, {{{', '.join(params) or no_param}}}}}")


def c_header(table: Table, guard: str = "AUTOTUNE_TUNED_SSSP_H", source: str = "") -> str:
    """The header's text (see the module's doc)."""
    configs = _Configs()
    entries = sorted((e for e in table.entries if table.choice(e) is not None), key=lambda e: e.name)
    rows, curves = [], []
    for entry in entries:
        name = entry.name
        where = f"{source or 'table'}: {name}"
        cv = entry.graph.get("degree_cv")
        curve = [p for p in entry.curve if p.verified]
        curve_at = len(curves)
        curves += [f"{{{configs.id_of(p.config_json, where)}, {p.ck}, {c_double(p.ms_per_sssp)}}}" for p in curve]
        best = configs.id_of(entry.best.config_json, where) if entry.best is not None else -1
        best_ms = float(entry.best.ms_per_sssp) if entry.best is not None else -1.0
        predicted = configs.id_of(entry.predicted.config_json, where) if entry.predicted is not None else -1
        rows.append(f"  {{{c_string(name)}, {c_finite(entry.graph.vertices, where + ': vertices')}, "
                    f"{c_finite(entry.graph.get('mean_degree'), where + ': mean_degree')}, "
                    f"{1 if cv is not None else 0}, {c_finite(cv or 0.0, where + ': degree_cv')}, {curve_at}, {len(curve)}, {best}, "
                    f"{c_double(best_ms)}, {predicted}}}")
    weights = [DEFAULT_WEIGHTS.get(k, 0.0) for k in GRAPH_FEATURES]
    gpu = str(table.device.get("name", "unknown"))
    data = {
        "GPU": c_string(gpu), "SCHEMA": c_string(str(table.data.get("schema"))),
        "CREATED": c_string(str(table.data.get("created", ""))),
        "ALGORITHMS": ", ".join(c_string(n) for n in header_names()),
        "ALGORITHM_ENUM": "\n".join(f"  AUTOTUNE_{n.upper()} = {i}," for i, n in enumerate(header_names()) if n),
        "CACHES": ", ".join(c_string(c.value) for c in CACHES),
        "CONFIGS": ",\n".join(f"  {_config_c(c)}" for c in configs.configs) or "  {0, 0, 0, {{0, 0, 0, 0}}, 0, {{0, 0, \"\"}}}",
        "CURVES": ",\n".join(f"  {c}" for c in curves) or "  {0, 0, 0.0}",
        "ENTRIES": ",\n".join(rows) or "  {0, 0.0, 0.0, 0, 0.0, 0, 0, -1, -1.0, -1}",
        "N_ENTRIES": str(len(rows)), "W_VERTICES": repr(weights[0]), "W_DEGREE": repr(weights[1]),
        "W_SKEW": repr(weights[2]), "MAX_KERNELS": str(MAX_KERNELS),
        "MAX_PARAMS": str(MAX_PARAMS), "GUARD": guard, "SOURCE": c_comment(source or "a table"),
        "MODEL": model_section(table),
    }
    from autotune.resources import header_template

    text = header_template()
    for key, value in data.items():
        text = text.replace(f"@{key}@", value)
    return text


def flat_json(table: Table) -> dict[str, Any]:
    """Per entry: its graph features and, per K in `QUERIES`, what `Table.lookup` gives its graph."""
    out = []
    for entry in sorted(table.entries, key=lambda e: e.name):
        graph = entry.graph.to_json()
        if table.choice(entry) is None:
            continue
        answers = {}
        for queries in QUERIES:
            match = table.lookup(graph, queries=queries, device=None)
            answers[str(queries)] = {"config": match.config.to_json(), "source": match.source,
                                     "ms_per_sssp": match.ms_per_sssp, "entries": list(match.neighbours) or [match.graph_name]}
        out.append({"graph": {k: graph.get(k) for k in ("name", "vertices", "edges", "mean_degree", "degree_cv")},
                    "queries": answers})
    return {"format": f"{JSON_FORMAT}1", "table_schema": table.data.get("schema"),
            "device": dict(table.device), "created": table.data.get("created"), "entries": out}


def export(table: Table, format_: str, source: str = "") -> str:
    """The export's text in `format_` (`FORMATS`)."""
    if format_ == "c-header":
        return c_header(table, source=source)
    return json.dumps(flat_json(table), indent=1) + "\n"
