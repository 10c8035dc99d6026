"""`autotune devices [--json]`: the shipped device profiles (usable as `--device NAME`)."""
from __future__ import annotations

import argparse
import json
import sys

from autotune.model.device import DeviceProfile, shipped_devices


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "devices",
        help="list the shipped device profiles",
        description="List the device profiles shipped in characterizations/devices/, the names "
        "`--device` takes. `--device FILE.toml` takes a profile of your own with the same keys "
        "(characterizations/README.md), `--device auto` the live GPU's attributes (PyCUDA).",
    )
    parser.add_argument("--json", action="store_true", help="print the profiles as a JSON list")
    parser.set_defaults(run=run)


def rows(devices: tuple[DeviceProfile, ...]) -> list[dict[str, object]]:
    """What the command shows, one dict per profile."""
    return [device.to_json() | {"max_resident_threads": device.max_resident_threads} for device in devices]


def run(args: argparse.Namespace) -> int:
    devices = shipped_devices()
    if args.json:
        print(json.dumps(rows(devices), indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Device profiles (characterizations/devices/)")
    for column in ("name", "GPU", "cc", "SMs", "threads/SM", "blocks/SM", "regs/SM", "shared/SM", "resident threads"):
        table.add_column(column, justify="left" if column in ("name", "GPU") else "right")
    for device in devices:
        table.add_row(
            device.name,
            device.description,
            device.compute_capability,
            str(device.sm_count),
            str(device.max_threads_per_sm),
            str(device.max_blocks_per_sm),
            str(device.registers_per_sm),
            f"{device.shared_memory_per_sm // 1024} KB",
            f"{device.max_resident_threads:,}",
        )
    console = Console(file=sys.stdout, width=None if sys.stdout.isatty() else 140, highlight=False)
    console.print(table)
    return 0
