"""autotune's own graph file format, `.csr.npz`: the CSR arrays in an uncompressed numpy archive.

Members: `format` ("autotune.csr/1"), `name`, `meta` (a JSON string: how the graph was made),
`row_offsets`, `columns`, `weights` (int32). Files are written atomically, so a reader sees a whole
file or none.
"""
from __future__ import annotations

import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from autotune.errors import InputError
from autotune.graphs._text import display_name
from autotune.graphs.build import replace_weights
from autotune.graphs.csr import CSRGraph
from autotune.graphs.options import GraphOptions

CSR_FORMAT = "autotune.csr/1"
CSR_SUFFIX = ".csr.npz"


def load_csr(path: Path, options: GraphOptions = GraphOptions()) -> CSRGraph:
    """Read a graph saved by `save_csr` (weights replaced if `options.weights` is given).

    Raises:
        InputError: if the file is unreadable, not an autotune graph, of another format version,
            or breaks the CSR invariants.
    """
    where = display_name(path)
    try:
        with open(path, "rb") as file:
            if file.read(4) != b"PK\x03\x04":
                raise InputError(f"{where}: not an autotune graph file (a .csr.npz is a zip archive, "
                                 "written by the graph cache)")
        with np.load(path, allow_pickle=False) as archive:
            fmt = str(archive["format"]) if "format" in archive.files else "none"
            if fmt != CSR_FORMAT:
                raise InputError(f"{where}: graph file format '{fmt}', expected '{CSR_FORMAT}'")
            graph = CSRGraph(str(archive["name"]), archive["row_offsets"], archive["columns"],
                             archive["weights"])
    except InputError:
        raise
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise InputError(f"{where}: not a readable autotune graph file ({error})") from None
    graph.validate(where)
    if options.weights is not None:
        graph = replace_weights(graph, options)
    return graph


def read_meta(path: Path) -> str:
    """The `meta` JSON string stored in a `.csr.npz` file ("{}" if none).

    Raises:
        InputError: if the file is not a readable archive.
    """
    try:
        with np.load(path, allow_pickle=False) as archive:
            return str(archive["meta"]) if "meta" in archive.files else "{}"
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise InputError(f"{display_name(path)}: not a readable autotune graph file "
                         f"({error})") from None


def save_csr(graph: CSRGraph, path: Path, meta: str = "{}") -> None:
    """Write `graph` to `path` (`.csr.npz`) atomically: a temporary file, then `os.replace`.

    Args:
        graph: the graph.
        path: destination; its directory must exist.
        meta: a JSON string stored alongside (the cache records how the graph was made).

    Raises:
        OSError: if the file cannot be written; no partial file is left behind.
    """
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            np.savez(stream, format=np.array(CSR_FORMAT), name=np.array(graph.name),
                     meta=np.array(meta), row_offsets=graph.row_offsets, columns=graph.columns,
                     weights=graph.weights)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
