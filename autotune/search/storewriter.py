"""Write finished trials to an Optuna storage from a separate process, in order.

A SQLite write of one trial costs milliseconds of Python (SQLAlchemy) work (about 5 ms with its
parameters packed, 20 ms without, on the 2-core development machine); done in the sweep's own
process it would be host time between two GPU measurements, and done in a thread it would hold
the interpreter lock while the launch loop of the next measurement runs (launch overhead is part
of what is timed). `TrialWriter` hands each finished trial to a child process that owns its own
connection to the storage, so the sweep's process spends a pickle per trial.

What is kept when things go wrong:
- Ctrl-C or SIGTERM: the sweep closes the writer, which writes everything queued before exiting.
  The child ignores SIGINT, so a Ctrl-C at the terminal does not cut it short.
- The sweep's process killed: the child writes what already reached it, notices that its parent
  is gone, and exits; at most the trial being handed over is lost.
- The child fails (a full disk, a lost database server): the sweep learns it at its next trial
  or at `close`, as an `AutotuneError` naming the storage and the cause.
"""
from __future__ import annotations

import atexit
import multiprocessing
import os
import queue as queue_module
import signal
from typing import Any

from optuna.trial import FrozenTrial

from autotune.errors import AutotuneError

_POLL_S = 0.5  # how often the child checks that its parent is alive while idle


def _write_trials(url: str, shown: str, trials: Any, errors: Any, parent: int) -> None:
    """The child: create each queued (backend study id, trial) in the storage at `url`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    from autotune.search.study import open_storage

    try:
        storage, _ = open_storage(url)
    except Exception as error:
        errors.put(f"cannot open {shown}: {error}")
        return
    while True:
        try:
            item = trials.get(timeout=_POLL_S)
        except queue_module.Empty:
            if os.getppid() != parent:  # the parent died: nothing more will come
                return
            continue
        if item is None:
            return
        study_id, trial = item
        try:
            storage.create_new_trial(study_id, template_trial=trial)
        except Exception as error:
            errors.put(f"writing trial {trial.number} to {shown}: {error}")
            return


class TrialWriter:
    """A child process that writes finished trials to the storage at `url`, in the order given.

    Args:
        url: the storage's full URL or journal path (`study.storage_url`), password included.
        shown: the same with the password hidden, for messages.
    """

    def __init__(self, url: str, shown: str) -> None:
        context = multiprocessing.get_context("spawn")  # never fork a process that holds a CUDA context
        self.shown = shown
        self._trials = context.Queue()
        self._errors = context.Queue()
        self._process = context.Process(target=_write_trials, name="autotune-storage-writer",
                                        args=(url, shown, self._trials, self._errors, os.getpid()))
        self._process.start()
        self._closed = False
        atexit.register(self.close)

    def put(self, study_id: int, trial: FrozenTrial) -> None:
        """Queue a finished trial for the backend study `study_id`."""
        self._raise_failure()
        if self._closed:
            raise AutotuneError(f"the storage writer of {self.shown} is closed")
        self._trials.put((study_id, trial))

    def close(self, timeout: float = 120.0) -> None:
        """Write everything queued, then stop the child; raises if it failed."""
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self.close)
        if self._process.is_alive():
            self._trials.put(None)
            self._process.join(timeout)
        if self._process.is_alive():
            self._process.terminate()
            raise AutotuneError(f"the storage writer of {self.shown} did not finish within {timeout:.0f} s")
        self._raise_failure()

    def _raise_failure(self) -> None:
        try:
            message = self._errors.get_nowait()
        except queue_module.Empty:
            if self._closed or self._process.is_alive():
                return
            message = f"the storage writer of {self.shown} exited (status {self._process.exitcode})"
        self._closed = True
        raise AutotuneError(f"the measurements could not be kept: {message}")
