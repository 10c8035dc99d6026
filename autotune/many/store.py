"""Where a many-source run keeps what it finished (`sssp --sources ... --save-dir DIR`).

DIR holds:

* `manifest.json`: what the run is (graph, sources, shard size, what is kept, configuration) and
  each finished shard with its files' sha256; rewritten (atomically) as each shard finishes.
* `sources.npy`: every source in solve order (int64); shard `k` holds `sources[k * S:(k + 1) * S]`
  for the manifest's `shard_size` S.
* `distances-KKKKK.npy`: shard k's rows (int64, -1 for unreachable), when distances are kept.
* `summaries-KKKKK.npy`: shard k's per-source summaries (reached, farthest, total; int64), with
  `--reduce`; and once every shard is done, `<reduction>.npy` (float64, in the order of sources.npy).

Every file is written to a temporary name and renamed, so a file that exists is whole. A run
started again with the same options and directory solves only the shards it does not find
(`pending`); a directory of another run is refused rather than mixed.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from autotune.errors import InputError, OutputError
from autotune.files import atomic_write, file_sha256
from autotune.many.plan import ShardPlan
from autotune.many.reductions import reduce_summaries
from autotune.many.work import shard_path, write_array

FORMAT = "autotune.shards/1"
MANIFEST = "manifest.json"
IDENTITY = ("format", "graph", "sources", "shard_size", "distances", "summaries")


class ShardStore:
    """A run's directory (see the module's doc), or the memory of a run that saves nothing.

    Args:
        directory: DIR, or None to keep the summaries in memory only.
        plan: the run's shards.
        graph: what identifies the graph (name, vertices, edges, sha256).
        keep_rows: whether the distances are written.
        reductions: the reductions asked for (their summaries are kept).
        config: the configuration's JSON (recorded, not part of the identity: a run may go on
            with another device's configuration, whose distances are the same).

    Raises:
        OutputError: DIR is a file, is not empty and not a run's, or holds a run of other options.
    """

    def __init__(self, directory: Path | None, plan: ShardPlan, graph: Mapping[str, Any], keep_rows: bool,
                 reductions: Sequence[str], config: Any = None) -> None:
        self.directory = None if directory is None else Path(directory)
        self.plan = plan
        self.keep_rows = keep_rows
        self.reductions = tuple(reductions)
        self.summaries: dict[int, np.ndarray] = {}
        self.manifest: dict[str, Any] = {
            "format": FORMAT, "graph": dict(graph), "sources": len(plan.order), "shard_size": plan.size,
            "shards": len(plan), "distances": keep_rows, "summaries": bool(self.reductions),
            "reductions": list(self.reductions), "config": config, "done": {}}
        if self.directory is not None:
            self._open()

    def _open(self) -> None:
        directory = self.directory
        if directory.exists() and not directory.is_dir():
            raise OutputError(f"--save-dir {directory}: is a file, not a directory")
        manifest_path = directory / MANIFEST
        if manifest_path.exists():
            from autotune.files import read_json

            earlier = read_json(manifest_path, "--save-dir manifest")
            differs = [key for key in IDENTITY if earlier.get(key) != self.manifest[key]]
            order = directory / "sources.npy"
            if not differs and (not order.exists() or not np.array_equal(np.load(order), self.plan.order)):
                differs = ["sources.npy"]
            if differs:
                raise OutputError(f"--save-dir {directory}: holds a run of other options ({', '.join(differs)} "
                                  "differ); give another directory, or the earlier run's options to go on with it")
            self.manifest["done"] = dict(earlier.get("done", {}))
            self.manifest["reductions"] = sorted(set(earlier.get("reductions", [])) | set(self.reductions))
        elif directory.exists() and any(directory.iterdir()):
            raise OutputError(f"--save-dir {directory}: not empty and not a run's directory (no {MANIFEST}); "
                              "give a new or empty directory")
        else:
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise OutputError(f"--save-dir {directory}: {error.strerror or error}") from None
            write_array(directory / "sources.npy", np.asarray(self.plan.order, dtype=np.int64))
        from autotune.files import unfinished_writes

        for stale in unfinished_writes(directory):  # a killed writer's shard or manifest, never renamed: not whole
            stale.unlink(missing_ok=True)
        self._adopt_whole_files()
        self._write_manifest()

    def _kinds(self) -> list[str]:
        return [kind for kind, kept in (("distances", self.keep_rows), ("summaries", bool(self.reductions))) if kept]

    def _adopt_whole_files(self) -> None:
        """Shards whose files a run wrote but did not record (it was killed in between): whole
        files (renamed into place) are recorded with their checksums instead of being solved again."""
        done = self.manifest["done"]
        for k in range(len(self.plan)):
            if f"{k:05d}" in done:
                continue
            paths = {kind: shard_path(self.directory, kind, k) for kind in self._kinds()}
            if paths and all(path.exists() for path in paths.values()):
                done[f"{k:05d}"] = {"rows": len(self.plan.shard(k)),
                                    "sha256": {kind: file_sha256(path) for kind, path in paths.items()}}

    def _write_manifest(self) -> None:
        self.manifest["done"] = dict(sorted(self.manifest["done"].items()))  # the same bytes in any finishing order
        atomic_write(self.directory / MANIFEST, json.dumps(self.manifest, indent=1) + "\n", "the run's manifest")

    def pending(self) -> list[int]:
        """The shards still to solve (all of them without a directory)."""
        done = self.manifest["done"]
        return [k for k in range(len(self.plan)) if f"{k:05d}" not in done]

    def finished(self, result: Mapping[str, Any]) -> None:
        """Record a solved shard (`autotune.many.work.solve_shard`'s result)."""
        k = int(result["shard"])
        if result.get("summaries") is not None:
            self.summaries[k] = result["summaries"]
        self.manifest["done"][f"{k:05d}"] = {"rows": int(result["rows"]), "sha256": dict(result["sha256"])}
        if self.directory is not None:
            self._write_manifest()

    def shard_summaries(self, k: int) -> np.ndarray:
        if k in self.summaries:
            return self.summaries[k]
        return np.load(shard_path(self.directory, "summaries", k))

    def reduced(self) -> dict[str, np.ndarray]:
        """Every asked reduction over all sources (in plan order), once every shard is done; with a
        directory, also written there as `<reduction>.npy`."""
        if not self.reductions:
            return {}
        summaries = np.concatenate([self.shard_summaries(k) for k in range(len(self.plan))])
        values = reduce_summaries(summaries, self.reductions)
        out = {name: values[:, i] for i, name in enumerate(self.reductions)}
        if self.directory is not None:
            for name, column in out.items():
                write_array(self.directory / f"{name}.npy", column)
        return out


def load_distances(directory: Path) -> tuple[np.ndarray, np.ndarray]:
    """A finished run's sources (solve order) and distances (a row per source, int64, -1 for
    unreachable), read back from its shards.

    Raises:
        InputError: not a finished run's directory with distances.
    """
    from autotune.files import read_json

    directory = Path(directory)
    manifest = read_json(directory / MANIFEST, "a run's manifest")
    if not manifest.get("distances") or len(manifest.get("done", {})) != manifest.get("shards"):
        raise InputError(f"{directory}: not a finished run with distances ({len(manifest.get('done', {}))} of "
                         f"{manifest.get('shards')} shards)")
    sources = np.load(directory / "sources.npy")
    rows = [np.load(shard_path(directory, "distances", k)) for k in range(int(manifest["shards"]))]
    return sources, np.concatenate(rows) if rows else np.empty((0, 0), dtype=np.int64)


__all__ = ["FORMAT", "MANIFEST", "ShardStore", "load_distances"]
