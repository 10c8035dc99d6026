"""How a sweep process meets the outside world while it measures: SIGTERM turned into the same
clean stop as Ctrl-C, and Optuna's own warnings silenced (a sweep reports failed trials itself)."""
from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any, Iterator

import optuna


@contextlib.contextmanager
def stop_on_sigterm() -> Iterator[None]:
    """Turn SIGTERM into KeyboardInterrupt for the block (main thread only), so both stop cleanly."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def quiet_optuna() -> Iterator[None]:
    """Optuna logs every failed trial as a warning; a sweep reports them itself."""
    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    try:
        yield
    finally:
        optuna.logging.set_verbosity(verbosity)
