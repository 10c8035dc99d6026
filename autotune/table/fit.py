"""The choice model fitted on a tuned table (`autotune model fit-choice TABLE`): the table's entries
as values (`autotune.table.entry`) handed to `autotune.predict.choice`, with the table's digest, GPU
and graphs recorded, and Delta-stepping's one-query rules where the graphs' shapes are given."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Mapping, Sequence

from autotune.algorithms.delta.latency import fit as fit_latency, table_samples as latency_samples
from autotune.algorithms.delta.latency_prices import read_bins_prices, read_prices
from autotune.algorithms.thesis.fitted import file_digest
from autotune.errors import InputError
from autotune.model.shape import read_shapes
from autotune.predict.choice import ChoiceModel, fit_admitted, shape_depths
from autotune.table.lookup import Table


def fit_table(path: str | Path, shapes: str | Path | None = None, latency_rows: Sequence[str | Path] = (),
              latency_from: str | Path | None = None, spread_rows: Sequence[str | Path] = (),
              bins_rows: Sequence[str | Path] = ()) -> ChoiceModel:
    """The tree fitted on a table file (its digest, GPU and graphs recorded), with Delta-stepping's
    one-query rules where `shapes` (a JSON file: `shapes`, graph name: `GraphShape.to_json()`)
    gives the graphs' level widths; `latency_rows`: files of the one-query probes' rows
    (`scripts/probe_latency_grid.py`, `probe_latency_bins.py`; their digests recorded), which
    price the one-query Delta and the grid's bins (`autotune.algorithms.delta.latency_prices`);
    `latency_from`: a choice model whose one-query rules are taken as they are (its digest recorded);
    `spread_rows`: files of the probe's rows at a few sources at once (`scripts/probe_latency_grid.py
    OUT GRAPHS K`; their digests recorded), on which the rules for K at once are fitted
    (`autotune.algorithms.delta.spread`), with the shapes' lightest weights; `bins_rows`: files of the
    batch end's block sizes priced on the table's GPU (`scripts/probe_batch_bins.py`; their digests
    recorded), on which Delta-stepping's ladder of block sizes by level width is fitted
    (`fit_batch_ladder`).

    Raises:
        InputError: an unreadable table or shapes file, or no graph to fit the one-query rules on.
    """
    table = Table.load(path)
    entries = table.entries
    latency = None
    if latency_from is not None:
        latency = ChoiceModel.from_toml(latency_from).latency
        if latency is None:
            raise InputError(f"{latency_from}: a choice model without one-query rules (fitted without --shapes)")
    elif shapes is not None:
        found_shapes = read_shapes(shapes)
        weights = {name: shape.get("lightest_weight") for name, shape in found_shapes.items()}
        widths = {name: shape["level_width"] for name, shape in found_shapes.items()
                  if shape.get("level_width") is not None}
        found = latency_samples(entries, widths, weights=weights)
        if not found:
            raise InputError(f"{shapes}: no graph of {path} whose one-query winner is delta has a level width there")
        latency = fit_latency(found, prices=read_prices(latency_rows), bins_prices=read_bins_prices(latency_rows))
    if latency is not None and spread_rows:
        latency = dataclasses.replace(latency, spread=fit_spread_rows(entries, spread_rows, read_shapes(shapes) if shapes
                                                                      else {}, (latency.unit_skew, latency.unit_spread)))
    device = table.device
    if latency is not None and bins_rows:
        latency = dataclasses.replace(latency, batch_ladder=fit_batch_ladder(entries, bins_rows, read_shapes(shapes)
                                                                             if shapes else {}, table))
    graphs = sorted({e.name for e in entries if e.curve})
    depths = shape_depths(shapes) if shapes is not None else None
    fitted_on = {"table": str(path), "table_sha256": file_digest(path), "device": str(device.get("name", "")),
                 "compute_capability": str(device.get("compute_capability", "")),
                 "sm_count": int(device.get("sm_count") or 0), "graphs": len(graphs),
                 **({"shapes": str(shapes)} if shapes is not None else {}),
                 **({"latency_rows": ", ".join(f"{row} ({file_digest(row)})" for row in latency_rows)}
                    if latency_rows else {}),
                 **({"latency_from": f"{latency_from} ({file_digest(latency_from)})"} if latency_from else {}),
                 **({"spread_rows": ", ".join(f"{row} ({file_digest(row)})" for row in spread_rows)}
                    if spread_rows else {}),
                 **({"bins_rows": ", ".join(f"{row} ({file_digest(row)})" for row in bins_rows)}
                    if bins_rows else {})}
    return fit_admitted(entries, depths, fitted_on, latency)


def fit_spread_rows(entries: Sequence[Any], rows: Sequence[str | Path], shapes: Mapping[str, Any],
                    unit: tuple[float, float]) -> dict[str, Any]:
    """The rules for a few sources at once (`delta.spread.fit`) on the table's entries that the
    probe's rows price, the lightest weights from `shapes` (graph name: shape).

    Raises:
        InputError: the rows are not of one K, or price no graph of the table.
    """
    from autotune.algorithms.delta import spread

    try:
        queries, prices = spread.queries_of(rows), spread.read_prices(rows)
    except ValueError as error:
        raise InputError(f"--spread-rows: {error}") from None
    weights = {name: shape.get("lightest_weight") for name, shape in shapes.items()}
    vertices = {e.name: e.graph.vertices for e in entries}
    found = spread.fit(spread_samples(entries, prices, unit, weights), prices, queries, vertices)
    if not found:
        raise InputError(f"--spread-rows: {', '.join(map(str, rows))} price no graph of the table")
    return found


def fit_batch_ladder(entries: Sequence[Any], rows: Sequence[str | Path], shapes: Mapping[str, Any],
                     table: Any) -> dict[str, float]:
    """Delta-stepping's ladder of block sizes by level width (rule 5 of `delta.rules`, fitted by
    `delta.fit.fit_block_widths`, each graph weighing the same) on the probe's `bins grid` rows of
    the table's graphs whose level width `shapes` has, priced at the size rule 5's second step takes
    on the table's GPU (`table.model.device_of`) at the batch end: block size (as text) -> the width
    from which it is taken.

    Raises:
        InputError: the rows price no graph of the table whose level width is known.
    """
    from autotune import algorithms
    from autotune.algorithms.delta import fit as delta_fit, rules as delta_rules
    from autotune.algorithms.delta.latency_prices import graph_key
    from autotune.table.model import device_of

    delta = algorithms.get("delta")
    vertices = {graph_key(e.name): e.graph.vertices for e in entries}
    widths = {graph_key(name): shape["level_width"] for name, shape in shapes.items()
              if shape.get("level_width") is not None and graph_key(name) in vertices}
    found = {graph_key(g): r for g, r in delta_fit.read_rows(rows, delta_fit.WIDTH_CLASSES).items()
             if graph_key(g) in widths}
    if not found:
        raise InputError(f"--bins-rows: {', '.join(map(str, rows))} price no graph of the table with a level width")
    sizes = sorted({delta_fit.value_of(r, "block_size") for rs in found.values() for r in rs})
    taken = delta_rules.bitmap_sizes_of(vertices, device_of(table), delta.characterization,
                                        max(c for c in delta.concurrent_kernels if c <= 1024), sizes)
    return {str(size): start for size, start in delta_fit.fit_block_widths(found, widths, taken).items()}


def spread_samples(entries: Sequence[Any], prices: Mapping[str, Any], unit: tuple[float, float],
                   weights: Mapping[str, float | None]) -> list[Any]:
    """A `latency.LatencySample` (its unit and mean degree; no winner's values) for each table entry
    (`autotune.table.Entry`) whose graph `prices` has; `unit` and `weights` as `latency.table_samples`
    takes them."""
    from autotune.algorithms.delta.latency import LatencySample, delta_unit
    from autotune.algorithms.delta.latency_prices import graph_key
    from autotune.algorithms.delta.rules import unit_weight

    skew, spread_exponent = unit
    found = []
    for entry in entries:
        graph = entry.graph
        if not prices.get(graph_key(graph.name)):
            continue
        found.append(LatencySample(
            graph.name, 0.0,
            delta_unit(unit_weight(weights.get(graph.name), graph.get("mean_weight")), graph.get("max_weight"),
                       graph.mean_degree, graph.get("degree_cv"), skew, spread_exponent),
            int(graph.get("max_degree") or 0), {}, 0, False, graph.mean_degree, float(graph.get("max_weight") or 0)))
    return found


__all__ = ["fit_batch_ladder", "fit_spread_rows", "fit_table", "spread_samples"]
