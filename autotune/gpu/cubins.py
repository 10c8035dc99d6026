"""The kernels' builds kept on disk, found again without running nvcc.

PyCUDA's own cache keys a build on nvcc's preprocessed source, so every load of a build, kept or
not, runs `nvcc --preprocess` first (0.36 s for a part of kernels/delta.cu on this project's VM):
in a cold sweep on the H200 host each first load of a build, all of them built already, took
0.45-0.57 s of the main thread, about 4 s over the run (docs/notes/scale.md). Here the key is
what a build reads that can change: the source and the headers of the directories it includes
(their `*.cuh`), the options, the architecture, and the nvcc that builds it (its path, size and
modification time; CUDA's own headers come with it).

Entries are written atomically (a temporary file, then `os.replace`): concurrent builders of one
entry are harmless, and an entry that cannot be read, or that the driver refuses to load
(`gpu.compile`), is built again.
"""
from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
from functools import cache
from pathlib import Path
from typing import Sequence

VERSION = 1  # of the key: a change of what it covers starts new entries

_log = logging.getLogger(__name__)


@cache
def nvcc_identity(nvcc: str = "nvcc") -> str:
    """The nvcc on PATH as its resolved path, size and modification time ("" where none is found:
    the build itself then fails with PyCUDA's message)."""
    found = shutil.which(nvcc)
    if found is None:
        return ""
    path = Path(found).resolve()
    stat = path.stat()
    return f"{path}:{stat.st_size}:{stat.st_mtime_ns}"


def key(text: str, options: Sequence[str], arch: str, include_dirs: Sequence[str], nvcc: str = "") -> str:
    """The entry's name: a digest of everything the build reads that can change (`text`: the
    source's).

    Example::

        >>> import tempfile
        >>> d, k = Path(tempfile.mkdtemp()), "__global__ void k() {}"
        >>> a = key(k, ["-DX=1"], "sm_90", [str(d)], "nvcc:1:2")
        >>> a == key(k, ["-DX=2"], "sm_90", [str(d)], "nvcc:1:2"), len(a)
        (False, 64)
        >>> (d / "h.cuh").write_text("#define Y 1")  # a header beside it changes the key too
        11
        >>> a == key(k, ["-DX=1"], "sm_90", [str(d)], "nvcc:1:2")
        False
    """
    digest = hashlib.sha256(f"autotune.cubin/{VERSION}\0{arch}\0{nvcc}\0".encode())
    digest.update("\0".join(options).encode() + b"\0\0")
    digest.update(text.encode())
    for directory in dict.fromkeys(include_dirs):
        for header in sorted(Path(directory).glob("*.cuh")):
            digest.update(f"\0{header.name}\0".encode() + header.read_bytes())
    return digest.hexdigest()


def cubin(source: Path, options: Sequence[str], arch: str, include_dirs: Sequence[str],
          directory: Path | None, fresh: bool = False) -> bytes:
    """The build of `source` with `options` for `arch` (`sm_90`): read from `directory` when kept
    there (unless `fresh`: the kept one would not load), else compiled by nvcc (through PyCUDA) and
    kept. None: nothing kept, compiled each time."""
    from pycuda.compiler import compile as nvcc

    text = source.read_text()
    kept = None if directory is None else directory / (key(text, options, arch, include_dirs, nvcc_identity()) + ".cubin")
    if kept is not None and not fresh:
        try:
            return kept.read_bytes()
        except OSError:
            pass
    built = nvcc(text, options=list(options), no_extern_c=True, arch=arch,
                 include_dirs=list(include_dirs), cache_dir=False)
    if kept is not None:
        _keep(kept, built)
    return built


def _keep(path: Path, data: bytes) -> None:
    """Write `path` whole or not at all; a directory that cannot be written only costs the next
    start a build."""
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except OSError as error:
        _log.warning("could not keep a kernel build in %s: %s", path.parent, error)
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
