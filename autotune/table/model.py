"""The model a table answers a graph it does not hold with (`Table.lookup`): the choice model of
that table and the table's GPU as a device profile.

The choice model is the shipped one fitted on this very file (`characterizations/choice-*.toml`,
found by the table's sha256, which the model records: fitted with the graphs' shapes and the
one-query probes), else the tree fitted on the table's entries when first asked
(`predict.choice.fit_admitted`: some 50 ms for 36 graphs, kept with the `Table`; the graphs' depths
where their entries record `hop_depth`, and Delta-stepping's one-query rules those of the choice
model shipped for the GPU, fitted on the one-query probes, which a table does not hold). The device is the
table's `device` section where it holds a whole profile (a sweep's table records the live GPU's
attributes; its memory, which the section lacks, that of the shipped profile naming the GPU, under
the sweep's `--max-memory`), else the shipped profile of the same compute capability and SM count,
its name preferred.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from autotune.errors import InputError
from autotune.model.device import OPTIONAL_KEYS, REQUIRED_KEYS, DeviceProfile, profile_from_mapping, shipped_devices
from autotune.predict.choice import ChoiceModel, fit_admitted, names_device, shipped_choice, shipped_choices


def table_digest(table: Any) -> str | None:
    """The sha256 of the table's file (None for a table built in memory, or less some entries)."""
    from autotune.files import file_sha256

    return file_sha256(table.path) if table.whole and table.path is not None and table.path.is_file() else None


def choice_of(table: Any) -> ChoiceModel:
    """The table's choice model (see the module's doc)."""
    digest = table_digest(table)
    for model in shipped_choices():
        if digest is not None and model.fitted_on.get("table_sha256") == digest:
            return model
    device = table.device
    fitted_on = {"table": str(table.path or "a table in memory"), **({"table_sha256": digest} if digest else {}),
                 "device": str(device.get("name", "")), "compute_capability": str(device.get("compute_capability", "")),
                 "sm_count": int(device.get("sm_count") or 0), "graphs": len({e.name for e in table.entries if e.curve})}
    depths = {e.name: float(e.graph.get("hop_depth")) for e in table.entries if e.graph.get("hop_depth")}
    shipped = shipped_choice(device_of(table))
    latency = shipped.latency if shipped is not None else None  # the one-query probes' rules of this GPU kind
    if latency is not None:
        fitted_on["latency_rules"] = f"{shipped.fitted_on.get('table')}'s (the shipped choice model for the GPU)"
    return fit_admitted(table.entries, depths, fitted_on=fitted_on, latency=latency)


def device_of(table: Any) -> DeviceProfile:
    """The table's GPU as a profile (see the module's doc).

    Raises:
        InputError: the section is partial and no shipped profile has its compute capability and SMs.
    """
    section = table.device
    where = f"{table.path or 'table'}: device"
    same = [d for d in shipped_devices() if (str(d.compute_capability), int(d.sm_count)) ==
            (str(section.get("compute_capability")), int(section.get("sm_count") or 0))]
    named = [d for d in same if names_device(str(section.get("name", "")), d)]
    if all(key in section for key in REQUIRED_KEYS):
        found = profile_from_mapping({k: v for k, v in section.items() if k in (*REQUIRED_KEYS, *OPTIONAL_KEYS)},
                                     where, origin="table")
        # a table does not record the GPU's memory: the named shipped profile's, under the sweep's --max-memory
        memory = [m for m in ((named[0].global_memory_bytes if named else None), section.get("x-max-memory")) if m]
        return dataclasses.replace(found, global_memory_bytes=min(memory)) if memory else found
    if not same:
        raise InputError(f"{where}: the section names no whole profile and no shipped profile has compute capability "
                         f"{section.get('compute_capability')} and {section.get('sm_count')} SMs: the model cannot "
                         "answer a graph the table does not hold")
    return (named or same)[0]


__all__ = ["choice_of", "device_of", "table_digest"]
