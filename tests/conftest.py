"""Shared fixtures; GPU tests (`-m gpu`) are skipped with the reason when no GPU responds."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

DATA_DIR = Path(__file__).parent / "data"


def _gpu_unavailable_reason() -> str | None:
    try:
        import pycuda.driver as driver  # noqa: F401
    except Exception as error:  # ImportError, or a broken CUDA install
        return f"PyCUDA is not importable ({type(error).__name__}: {error})"
    try:
        driver.init()
        if driver.Device.count() == 0:
            return "no CUDA device"
    except Exception as error:
        return f"no CUDA device responds ({error})"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not any("gpu" in item.keywords for item in items):
        return
    reason = _gpu_unavailable_reason()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=f"GPU test: {reason}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def data_dir() -> Path:
    return DATA_DIR


def _postgres_bin(name: str) -> str | None:
    """A PostgreSQL server program: on the PATH, or in Debian's versioned directory."""
    import glob
    import shutil

    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


class PostgresServer:
    """A real PostgreSQL server on a free local port, with an empty database (`url`), that a test
    can restart (`restart`). As root the server runs as the `postgres` user (initdb refuses root)."""

    def __init__(self, initdb: str, pg_ctl: str) -> None:
        import os
        import pwd
        import socket
        import subprocess
        import tempfile
        import uuid

        import psycopg

        self.pg_ctl = pg_ctl
        self.base = Path(tempfile.mkdtemp(prefix="autotune-postgres-"))  # outside pytest's 0700 root
        self.data, sockets = self.base / "data", self.base / "sockets"
        sockets.mkdir()
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            for path in (self.base, sockets):
                os.chown(path, user.pw_uid, user.pw_gid)
            os.chmod(self.base, 0o755)
            self.prefix = ["runuser", "-u", "postgres", "--"]
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        subprocess.run([*self.prefix, initdb, "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8"],
                       check=True, capture_output=True)
        self.options = (f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c max_connections=200 "
                        "-c fsync=off")
        self._ctl("start", "-w")
        database = f"autotune_{uuid.uuid4().hex[:8]}"
        connection = psycopg.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres", autocommit=True)
        connection.execute(f"CREATE DATABASE {database}")
        connection.close()
        self.url = f"postgresql://postgres@127.0.0.1:{port}/{database}"

    def _ctl(self, *words: str) -> None:
        import subprocess

        subprocess.run([*self.prefix, self.pg_ctl, "-D", str(self.data), "-o", self.options, "-l",
                        str(self.base / "log"), *words], check=True, capture_output=True)

    def restart(self) -> None:
        """Stop the server at once (every connection dropped) and start it again."""
        self._ctl("restart", "-m", "immediate", "-w")

    def close(self) -> None:
        import shutil
        import subprocess

        subprocess.run([*self.prefix, self.pg_ctl, "-D", str(self.data), "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(self.base, ignore_errors=True)


def _postgres_server() -> PostgresServer:
    """A started `PostgresServer`; skipped where PostgreSQL is not installed, unless
    `AUTOTUNE_REQUIRE_POSTGRES` is set (CI installs it and sets it, so that the suite cannot
    silently skip there)."""
    import os

    initdb, pg_ctl = _postgres_bin("initdb"), _postgres_bin("pg_ctl")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        initdb = None
    if initdb is None or pg_ctl is None:
        if os.environ.get("AUTOTUNE_REQUIRE_POSTGRES"):
            pytest.fail("PostgreSQL (initdb, pg_ctl) and psycopg are required (AUTOTUNE_REQUIRE_POSTGRES)")
        pytest.skip("PostgreSQL is not installed (initdb, pg_ctl, psycopg)")
    return PostgresServer(initdb, pg_ctl)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of an empty database of a real PostgreSQL server of this test session."""
    server = _postgres_server()
    try:
        yield server.url
    finally:
        server.close()


@pytest.fixture
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server of one test's own, which it may restart."""
    server = _postgres_server()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def fake_gpu(monkeypatch, tmp_path):
    """The GPU path of the commands with the GPU replaced: the synthetic timer measures (the timers made, in
    order, are returned)."""
    import contextlib

    import autotune.algorithms
    import autotune.gpu
    import autotune.gpu.device
    from autotune.search.timers.synthetic import SyntheticTimer
    from autotune.model import load_device

    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "graph-cache"))
    timers = []

    @contextlib.contextmanager
    def session(index):
        yield f"device {index}"

    @contextlib.contextmanager
    def open_solver(graph, algorithm):
        yield graph

    def timer(solver, sample, protocol, references=None, expected=None):
        timers.append(SyntheticTimer(repetitions=protocol.min_repetitions))
        return timers[-1]

    monkeypatch.setattr(autotune.gpu, "gpu_session", session, raising=False)
    monkeypatch.setattr(autotune.gpu, "device_handle", lambda index: f"device {index}", raising=False)
    monkeypatch.setattr(autotune.gpu, "device_description", lambda device: {
        "name": "Fake H100 (test)", "compute_capability": "9.0", "sm_count": 132, "cuda_driver_version": "12.4"},
        raising=False)
    monkeypatch.setattr(autotune.algorithms, "open_solver", open_solver)
    monkeypatch.setattr(autotune.gpu, "CudaEventTimer", timer, raising=False)
    monkeypatch.setattr(autotune.gpu.device, "device_from_gpu", lambda index=0: load_device("hopper-h100"))
    return timers
