"""Where a sweep keeps its trials: an Optuna storage and one study per (graph, GPU, strategy, space).

- Storage: by default an Optuna `JournalStorage` file under `platformdirs.user_data_dir("autotune")`
  (safe for several processes of one host: they append to one log under a file lock); `--storage`
  takes any Optuna RDB URL (`sqlite:///run.db`, `postgresql://...` through psycopg 3: a server is
  what several hosts share), a file path ending in `.db`, `.sqlite` or `.sqlite3` (a SQLite file there), any other
  file path (a journal file), or `memory` (nothing kept after the process). An RDB storage opened
  with `heartbeat_s` records Optuna's heartbeats, and a trial whose worker stopped beating is failed
  and enqueued again (`RetryHeartbeatStaleTrialCallback`).
- Study name: `autotune/<graph sha256[:16]>/<algorithm>/<device>/<strategy>/<space digest>@<UTC time>`.
  Each sweep starts a new study; `--resume` continues the newest study of the same prefix, so
  only the same graph, algorithm, GPU, strategy, space and measurement protocol resumes.
- Every finished trial keeps its measurement in the user attribute `autotune` (with the
  configuration, phase, wall time of the measure call, timestamp, and the `Measurement` JSON),
  so a resumed sweep re-uses it instead of measuring again; an invalid or wrong one also has
  `fail_reason` (a PRUNED trial in a study of one objective, FAIL in one of two). A trial left
  RUNNING by a killed process is marked FAIL with `interrupted = True` when the study is resumed;
  interrupted trials are neither measurements nor failures of their configuration.
"""
from __future__ import annotations

import contextlib
import copy
import datetime
import hashlib
import json
import re
import sqlite3
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import optuna
from optuna.storages import BaseStorage, InMemoryStorage, RDBStorage, RetryHeartbeatStaleTrialCallback
from optuna.exceptions import UpdateFinishedTrialError
from optuna.trial import FrozenTrial, TrialState

from autotune.algorithms import config_from_json
from autotune.errors import InputError
from autotune.files import slug
from autotune.measure import Measurement

DEFAULT_STORAGE_FILE = "studies.journal"
MEMORY = "memory"
SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
NAME_PREFIX = "autotune"

# Trial user attributes. A trial's bookkeeping is one attribute (one storage write per trial):
# {"config", "phase", "cached", "wall_s", "timestamp", "measurement", ["round"], ["roles"]}.
ATTR_BOOKKEEPING = "autotune"
ATTR_REASON = "fail_reason"  # "invalid: <reason>" or "wrong: <reason>", on FAIL trials
ATTR_INTERRUPTED = "interrupted"  # True on a trial that Ctrl-C, SIGTERM or a kill cut short


def default_storage_path() -> Path:
    """The journal file studies go to when `--storage` is not given."""
    import platformdirs

    return Path(platformdirs.user_data_dir("autotune")) / DEFAULT_STORAGE_FILE


def storage_url(spec: str | None) -> str:
    """The storage URL a `--storage` value stands for (see the module docstring)."""
    if spec is None:
        path = default_storage_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        return str(path)
    if spec.startswith("postgresql://") or spec.startswith("postgres://"):
        # psycopg 3 (the postgres extra), whatever SQLAlchemy's default driver for the scheme is
        return "postgresql+psycopg://" + spec.split("://", 1)[1]
    if spec == MEMORY or "://" in spec:
        return spec
    path = Path(spec).expanduser().resolve()
    if path.suffix in SQLITE_SUFFIXES:
        return f"sqlite:///{path}"
    return str(path)


def open_storage(spec: str | None, heartbeat_s: int | None = None) -> tuple[BaseStorage, str]:
    """Open the storage of a `--storage` value; returns it and its URL with any password hidden.

    Args:
        spec: the `--storage` value (None: the default journal file).
        heartbeat_s: for an RDB storage, record Optuna's heartbeat every this many seconds and
            retry the trials of workers that stopped beating (a journal file has no heartbeat:
            `fleet` judges its workers by their process ids).

    Raises:
        InputError: the storage cannot be opened (naming it and why).
    """
    url = storage_url(spec)
    shown = hide_password(url)
    if url == MEMORY:
        return InMemoryStorage(), MEMORY
    beats: dict[str, Any] = {}
    if heartbeat_s:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            beats = {"heartbeat_interval": int(heartbeat_s), "grace_period": int(4 * heartbeat_s),
                     "heartbeat_stale_trial_callback": RetryHeartbeatStaleTrialCallback()}
    try:
        if "://" not in url:
            from optuna.storages.journal import JournalFileBackend, JournalStorage

            Path(url).parent.mkdir(parents=True, exist_ok=True)
            return JournalStorage(JournalFileBackend(url)), shown
        if url.startswith("sqlite:///") and ":memory:" not in url:
            path = Path(url[len("sqlite:///"):])
            path.parent.mkdir(parents=True, exist_ok=True)
            with _creation_lock(path), warnings.catch_warnings():
                warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                return RDBStorage(url, engine_kwargs={"creator": _sqlite_connector(path)}, **beats), shown
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            # pool_pre_ping: a connection the server dropped (a restart) is replaced before use,
            # so that a sweep carries on once its server is back
            return _retry_creation(lambda: RDBStorage(url, engine_kwargs={"pool_pre_ping": True}, **beats)), shown
    except ImportError as error:
        raise InputError(f"--storage {shown}: the database driver is missing ({error})") from None
    except Exception as error:  # sqlalchemy and driver errors have no common base worth naming
        raise InputError(f"--storage {shown}: cannot open the storage: {error}") from None


@contextlib.contextmanager
def _creation_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `<path>.lock` while Optuna opens the SQLite file: several workers
    that open a new storage at once would otherwise race to create its tables ("table studies
    already exists")."""
    import fcntl

    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _retry_creation(open_: Callable[[], RDBStorage], attempts: int = 5) -> RDBStorage:
    """Open a server storage (PostgreSQL, MySQL), retrying when another worker was creating its
    tables at the same moment (no file to lock there; the loser sees "already exists")."""
    import time

    for attempt in range(attempts):
        try:
            return open_()
        except Exception as error:  # sqlalchemy's errors differ by driver
            if "already exists" not in str(error) or attempt == attempts - 1:
                raise
            time.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")


def _sqlite_connector(path: Path) -> Callable[[], sqlite3.Connection]:
    """Connections in WAL mode with `synchronous=NORMAL`: a commit no longer waits for the disk,
    which keeps the per-trial host time small; a crash or kill of the process loses nothing that
    was committed (only a power loss can lose the last commits)."""

    def connect() -> sqlite3.Connection:
        connection = sqlite3.connect(str(path), timeout=30, check_same_thread=False)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        return connection

    return connect


def hide_password(url: str) -> str:
    return re.sub(r"(://[^:/@]+:)[^@]+@", r"\1***@", url)


@dataclass(frozen=True)
class StudyKey:
    """What identifies a sweep's study: resuming needs all of it to match.

    Args:
        graph_sha256: the graph's digest.
        algorithm: the registered algorithm.
        device: the GPU's name.
        strategy: the strategy label (`exhaustive`, `bayes-tpe`, `model`).
        space_digest: `SearchSpace.digest()`.
        protocol: how each configuration is measured (repetitions, sources, seed): part of the
            name's digest, so measurements taken differently are never mixed.
    """

    graph_sha256: str
    algorithm: str
    device: str
    strategy: str
    space_digest: str
    protocol: Mapping[str, Any]

    @property
    def prefix(self) -> str:
        protocol = json.dumps(dict(self.protocol), sort_keys=True, separators=(",", ":"))
        settings = hashlib.sha256(f"{self.space_digest}:{protocol}".encode()).hexdigest()[:10]
        return "/".join((NAME_PREFIX, self.graph_sha256[:16], self.algorithm, slug(self.device, "unknown"),
                         self.strategy, settings))


@dataclass(frozen=True)
class StudyHandle:
    """An open study and where it lives.

    Args:
        study: the Optuna study.
        storage: its storage object.
        storage_url: the storage's URL, password hidden (what tables show).
        resumed: True when an existing study was continued.
    """

    study: optuna.Study
    storage: BaseStorage
    storage_url: str
    resumed: bool

    @property
    def name(self) -> str:
        return self.study.study_name


def open_study(storage: BaseStorage, storage_url: str, key: StudyKey, sampler: optuna.samplers.BaseSampler,
               resume: bool, attrs: Mapping[str, Any] | None = None,
               now: datetime.datetime | None = None) -> StudyHandle:
    """Create a new study for `key`, or with `resume` continue the newest one of the same prefix.

    With `resume` and no matching study, a new one is created (`resumed` is then False).

    Args:
        storage, storage_url: from `open_storage`.
        key: the study's identity.
        sampler: the strategy's sampler (samplers are not stored; each run passes its own).
        resume: continue an existing study.
        attrs: study user attributes to set on a new study (graph, device, space, ...).
        now: the creation time (for tests).
    """
    with _quiet():
        return _open_study(storage, storage_url, key, sampler, resume, attrs, now)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)  # not "A new study created ..."
    try:
        yield
    finally:
        optuna.logging.set_verbosity(verbosity)


def _open_study(storage: BaseStorage, storage_url: str, key: StudyKey, sampler: optuna.samplers.BaseSampler,
                resume: bool, attrs: Mapping[str, Any] | None, now: datetime.datetime | None) -> StudyHandle:
    prefix = key.prefix
    existing = sorted(name for name in optuna.study.get_all_study_names(storage) if name.startswith(prefix + "@"))
    if resume and existing:
        study = optuna.load_study(study_name=existing[-1], storage=storage, sampler=sampler)
        recover_interrupted(study, storage)
        return StudyHandle(study, storage, storage_url, resumed=True)
    stamp = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y%m%dT%H%M%S.%fZ")
    name = f"{prefix}@{stamp}"
    # two objectives (`sweep --objective pareto`): the time per SSSP and the time a batch takes
    objectives = int(key.protocol.get("objectives", 1))
    study = optuna.create_study(study_name=name, storage=storage, sampler=sampler, directions=["minimize"] * objectives)
    for attr, value in {"graph_sha256": key.graph_sha256, "algorithm": key.algorithm, "device": key.device,
                        "strategy": key.strategy, "protocol": dict(key.protocol), **(attrs or {})}.items():
        study.set_user_attr(attr, value)
    return StudyHandle(study, storage, storage_url, resumed=False)


def recover_interrupted(study: optuna.Study, storage: BaseStorage,
                        gone: Callable[[FrozenTrial], bool] = lambda trial: True, forget: Sequence[str] = ()) -> int:
    """Fail the RUNNING trials whose process is `gone` (default: every one, for a study no other
    process works on), marked `interrupted`, and enqueue each again as Optuna's heartbeat does for
    a stale trial (`RetryHeartbeatStaleTrialCallback`: same parameters and attributes but the user
    attributes `forget` names), so that its task is measured once after all. Returns how many.

    `forget` holds what `gone` reads of the process: a copy that still named the dead process would
    look gone itself once another process takes it, before that process names itself."""
    study_id = storage.get_study_id_from_name(study.study_name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        retry = RetryHeartbeatStaleTrialCallback()
    count = 0
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if not gone(trial):
            continue
        trial_id = storage.get_trial_id_from_study_id_trial_number(study_id, trial.number)
        try:
            frozen = copy.copy(storage.get_trial(trial_id))  # the copy to enqueue, before it is marked
            frozen.user_attrs = {k: v for k, v in frozen.user_attrs.items() if k not in forget}
            storage.set_trial_user_attr(trial_id, ATTR_INTERRUPTED, True)
            if not storage.set_trial_state_values(trial_id, TrialState.FAIL):
                continue
        except UpdateFinishedTrialError:  # it finished, or another process failed it first
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            retry(study, frozen)
        count += 1
    return count


def trial_measurement(trial: FrozenTrial) -> Measurement | None:
    """The measurement a finished trial keeps, or None (interrupted, or never measured)."""
    if trial.user_attrs.get(ATTR_INTERRUPTED) or not trial.state.is_finished():
        return None
    data = trial.user_attrs.get(ATTR_BOOKKEEPING, {}).get("measurement")
    if data is None:
        return None
    return Measurement.from_json(data, f"trial {trial.number}", read_config=config_from_json)
