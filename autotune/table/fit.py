"""The choice model fitted on a tuned table (`autotune model fit-choice TABLE`): the table's entries
as values (`autotune.table.entry`) handed to `autotune.predict.choice`, with the table's digest, GPU
and graphs recorded, and Delta-stepping's one-query rules where the graphs' shapes are given."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from autotune.algorithms.delta.latency import fit as fit_latency, table_samples as latency_samples
from autotune.algorithms.delta.latency_prices import read_bins_prices, read_prices
from autotune.algorithms.thesis.fitted import file_digest
from autotune.errors import InputError
from autotune.model.shape import read_shapes
from autotune.predict.choice import ChoiceModel, fit_admitted, shape_depths
from autotune.table.lookup import Table


def fit_table(path: str | Path, shapes: str | Path | None = None, latency_rows: Sequence[str | Path] = (),
              latency_from: str | Path | None = None) -> ChoiceModel:
    """The tree fitted on a table file (its digest, GPU and graphs recorded), with Delta-stepping's
    one-query rules where `shapes` (a JSON file: `shapes`, graph name: `GraphShape.to_json()`)
    gives the graphs' level widths; `latency_rows`: files of the one-query probes' rows
    (`scripts/probe_latency_grid.py`, `probe_latency_bins.py`; their digests recorded), which
    price the one-query Delta and the grid's bins (`autotune.algorithms.delta.latency_prices`);
    `latency_from`: a choice model whose one-query rules are taken as they are (its digest recorded).

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
    device = table.device
    graphs = sorted({e.name for e in entries if e.curve})
    depths = shape_depths(shapes) if shapes is not None else None
    fitted_on = {"table": str(path), "table_sha256": file_digest(path), "device": str(device.get("name", "")),
                 "compute_capability": str(device.get("compute_capability", "")),
                 "sm_count": int(device.get("sm_count") or 0), "graphs": len(graphs),
                 **({"shapes": str(shapes)} if shapes is not None else {}),
                 **({"latency_rows": ", ".join(f"{row} ({file_digest(row)})" for row in latency_rows)}
                    if latency_rows else {}),
                 **({"latency_from": f"{latency_from} ({file_digest(latency_from)})"} if latency_from else {})}
    return fit_admitted(entries, depths, fitted_on, latency)


__all__ = ["fit_table"]
