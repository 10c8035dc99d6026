"""On-disk cache of generated graphs, one `.csr.npz` file per (spec, seed, weights, generator).

Entries are written atomically (temporary file + `os.replace`, see `io.save_csr`), so a reader
sees a whole entry or none, and concurrent writers of one entry are harmless. An entry that cannot
be read is treated as missing and rewritten.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from autotune.errors import InputError
from autotune.graphs.csr import CSRGraph
from autotune.graphs.generate import GENERATOR_VERSION
from autotune.graphs.csr_file import CSR_FORMAT, CSR_SUFFIX, load_csr, read_meta, save_csr
from autotune.graphs.options import GraphOptions

CACHE_ENV_VAR = "AUTOTUNE_CACHE_DIR"

_log = logging.getLogger(__name__)


def default_cache_dir() -> Path:
    """The user cache directory for graphs: `platformdirs.user_cache_dir("autotune")/graphs`.

    The command line lets the `AUTOTUNE_CACHE_DIR` environment variable override it (see
    `cache_dir_from_env`); the library itself never reads the environment.
    """
    try:
        from platformdirs import user_cache_dir
    except ImportError:  # platformdirs is a dependency; this keeps a bare checkout working
        base = Path(os.path.expanduser("~")) / ".cache" / "autotune"
    else:
        base = Path(user_cache_dir("autotune"))
    return base / "graphs"


def cache_dir_from_env(environ: Mapping[str, str]) -> Path:
    """`$AUTOTUNE_CACHE_DIR` if set and non-empty, else `default_cache_dir()`."""
    value = environ.get(CACHE_ENV_VAR, "")
    return Path(value).expanduser() if value else default_cache_dir()


def kept_dir_from_env(environ: Mapping[str, str], name: str) -> Path:
    """Where what is kept per graph besides the graphs goes (`references`, `hierarchies`, `build`):
    inside `$AUTOTUNE_CACHE_DIR` when it is set (everything the tool keeps under the one directory
    the user gave), else beside the default graph cache, in the user cache directory of autotune.

    Example:
        >>> kept_dir_from_env({CACHE_ENV_VAR: "/tmp/c"}, "hierarchies").as_posix()
        '/tmp/c/hierarchies'
    """
    value = environ.get(CACHE_ENV_VAR, "")
    return (Path(value).expanduser() if value else default_cache_dir().parent) / name


@dataclass(frozen=True)
class CacheKey:
    """What fixes a generated graph: canonical spec, seed, weight range, generator version."""

    spec: str
    seed: int
    weights: str

    def meta(self) -> dict[str, object]:
        return {"spec": self.spec, "seed": self.seed, "weights": self.weights,
                "generator": GENERATOR_VERSION, "format": CSR_FORMAT}

    def meta_json(self) -> str:
        """The JSON stored in an entry, which must match on reading."""
        return json.dumps(self.meta(), sort_keys=True)

    def file_name(self) -> str:
        digest = hashlib.sha256(self.meta_json().encode()).hexdigest()
        return f"{self.spec}-s{self.seed}-w{self.weights}-{digest[:16]}{CSR_SUFFIX}"

    @classmethod
    def of(cls, spec: str, options: GraphOptions) -> CacheKey:
        return cls(spec, options.seed, str(options.drawn_weights))


@dataclass(frozen=True)
class GraphCache:
    """A directory of cached graphs.

    Args:
        directory: where entries live; created on first write.
    """

    directory: Path

    def path(self, key: CacheKey) -> Path:
        return self.directory / key.file_name()

    def get(self, key: CacheKey, name: str) -> CSRGraph | None:
        """The cached graph for `key` (renamed `name`), or None if absent or unreadable."""
        path = self.path(key)
        if not path.is_file():
            return None
        try:
            if read_meta(path) != key.meta_json():
                raise InputError(f"{path}: made for another spec, seed or weight range")
            graph = load_csr(path)
        except InputError as error:
            _log.warning("ignoring unreadable cache entry %s (%s)", path, error)
            return None
        return CSRGraph(name, graph.row_offsets, graph.columns, graph.weights)

    def put(self, key: CacheKey, graph: CSRGraph) -> None:
        """Store `graph` under `key`; on failure log a warning and leave no partial file."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            save_csr(graph, self.path(key), key.meta_json())
        except OSError as error:
            _log.warning("cannot write graph cache entry in %s: %s", self.directory, error)

    def get_or_make(self, key: CacheKey, name: str, make: Callable[[], CSRGraph]) -> CSRGraph:
        """The cached graph for `key`, or `make()`'s graph after storing it."""
        graph = self.get(key, name)
        if graph is None:
            graph = make()
            self.put(key, graph)
        return graph
