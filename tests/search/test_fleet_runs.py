"""`autotune sweep --devices`: worker processes sharing one storage, on a CPU-only machine. Each
worker replays the committed synthetic records (`--replay`) with a delay per measurement, so the
workers really measure at the same time. The suite runs on every storage a fleet may use: the
default journal file and a real PostgreSQL server (started by the `postgres_url`
fixture; skipped where PostgreSQL is not installed, required in CI)."""
from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections import Counter
from pathlib import Path

import jsonschema
import optuna
import pytest
from optuna.trial import TrialState

from autotune.cli import main
from autotune.search import open_storage, read_records
from autotune.search.fleet import Run, run_names
from autotune.search.run.storage import trial_measurement
from autotune.search.run.trials import ATTR_WORKER, ATTRS

from search_shared import SYNTHETIC_RECORDS

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "autotune" / "schemas" / "table-3.json").read_text())
# A heartbeat of 2 s: a worker silent for 8 s is taken for dead (shorter is flaky on a busy 2-core CI machine).
# one end of the queries curve, so that every grid point is one measurement
REPLAY = ["sweep", "--objective", "throughput", "--replay", str(SYNTHETIC_RECORDS), "-q", "--no-prune", "--heartbeat-s", "2"]
# what differs between two sweeps of the same measurements: times, the study, the run
TIMES = {"tuning_seconds"}
X_TIMES = {"measure_seconds", "host_share", "study"}


def _table(path: Path) -> dict:
    table = json.loads(path.read_text())
    jsonschema.validate(table, SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    return table


def _comparable(table: dict) -> list[dict]:
    entries = []
    for entry in table["entries"]:
        entry = {k: v for k, v in entry.items() if k not in TIMES}
        entry["x-sweep"] = {k: v for k, v in entry["x-sweep"].items() if k not in X_TIMES}
        entries.append(entry)
    return entries


def _graph_study(storage: str, table: dict) -> optuna.Study:
    opened, _ = open_storage(storage)
    return optuna.load_study(study_name=table["entries"][0]["x-sweep"]["study"]["name"], storage=opened)


GRID_PHASES = ("fixed", "search")  # the specials and the grid: what a worker's death must not change


def _measured_once(study: optuna.Study, phases: tuple[str, ...] = ("fixed", "search", "compose")) -> Counter:
    """Real measurements per configuration in `phases` (by default all but the re-measurements of
    the finalists)."""
    counts: Counter = Counter()
    for trial in study.trials:
        attrs = trial.user_attrs.get(ATTRS, {})
        if trial_measurement(trial) is not None and not attrs["cached"] and attrs["phase"] in phases:
            counts[json.dumps(attrs["config"], sort_keys=True)] += 1
    return counts


@pytest.fixture(scope="module")
def single(tmp_path_factory) -> tuple[dict, Counter, Counter]:
    """The one-process exhaustive replay: its table and the configurations it measured."""
    tmp = tmp_path_factory.mktemp("single")
    storage = str(tmp / "s.journal")
    assert main([*REPLAY[:7], "--strategy", "exhaustive", "--storage", storage, "-o", str(tmp / "t.json")]) == 0
    table = _table(tmp / "t.json")
    study = _graph_study(storage, table)
    return table, _measured_once(study), _measured_once(study, GRID_PHASES)


@pytest.fixture(params=["journal", "postgres"])
def storage(request, tmp_path) -> str:
    """The storage a test's run uses (a fresh database on the session's PostgreSQL server)."""
    if request.param == "postgres":
        import uuid

        import psycopg

        server = request.getfixturevalue("postgres_url")
        base, _, _ = server.rpartition("/")
        database = f"run_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(base + "/postgres", autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {database}")
        return f"{base}/{database}"
    return str(tmp_path / "s.journal")


def test_three_workers_measure_every_grid_point_once_and_merge_the_one_process_table(tmp_path, single, storage):
    table_path, records_path = tmp_path / "t.json", tmp_path / "r.jsonl"
    status = main([*REPLAY, "--strategy", "exhaustive", "--devices", "0,1,2", "--replay-delay-ms", "25",
                   "--storage", storage, "-o", str(table_path), "--records", str(records_path)])
    assert status == 0
    table = _table(table_path)
    single_table, single_counts, _ = single
    assert [e["best"]["config"] for e in _comparable(table)] == [e["best"]["config"] for e in _comparable(single_table)]
    assert _comparable(table)[0]["default"] == _comparable(single_table)[0]["default"]
    assert table["entries"][0]["evaluations"] == single_table["entries"][0]["evaluations"]
    assert "x-partial" not in table and table["x-run"]["graphs_left"] == 0
    workers = table["x-workers"]
    assert len(workers) == 3 and {w["state"] for w in workers} == {"finished"}
    assert sum(w["measured"] for w in workers) == table["entries"][0]["evaluations"]
    assert sum(1 for w in workers if w["measured"] > 0) >= 2  # the work was shared out
    counts = _measured_once(_graph_study(storage, table))
    assert counts == single_counts and set(counts.values()) == {1}
    records = read_records(records_path)
    assert len(records) == table["entries"][0]["evaluations"]
    assert Counter(r.measurement.config.key() for r in records if r.phase != "remeasure").most_common(1)[0][1] == 1


def _kill_when_busy(storage: str, device_index: int, after: int, killed: dict) -> None:
    """Kill -9 the worker of `device_index` once it has measured `after` trials and holds a trial."""
    deadline = time.monotonic() + 60
    run = None  # opened once: reopening a PostgreSQL storage at every look let a loaded machine miss the window
    while time.monotonic() < deadline:
        if run is None:
            try:
                opened, shown = open_storage(storage)
                names = run_names(opened)
            except Exception:  # the storage is being created
                names = []
            run = Run.open(opened, shown, names[0]) if names else None
        if run is not None:
            for worker, record in run.workers().items():
                if record.get("device_index") != device_index or record.get("measured", 0) < after:
                    continue
                for sweep in run.sweeps():
                    held = [t for t in sweep.study.get_trials(states=(TrialState.RUNNING,))
                            if t.user_attrs.get(ATTR_WORKER, {}).get("pid") == record["pid"]]
                    if not held:
                        continue
                    # Stopped first, so that the trial cannot finish between this look and the kill.
                    os.kill(record["pid"], signal.SIGSTOP)
                    if sweep.study.get_trials(deepcopy=False)[held[0].number].state == TrialState.RUNNING:
                        os.kill(record["pid"], signal.SIGKILL)
                        killed.update(worker=worker, trial=held[0].number, study=sweep.study.study_name)
                        return
                    os.kill(record["pid"], signal.SIGCONT)
        time.sleep(0.02)


def test_a_killed_worker_loses_only_its_trial_in_flight(tmp_path, single, storage):
    killed: dict = {}
    killer = threading.Thread(target=_kill_when_busy, args=(storage, 1, 4, killed))
    killer.start()
    status = main([*REPLAY, "--strategy", "exhaustive", "--devices", "0,1,2", "--replay-delay-ms", "60",
                   "--storage", storage, "-o", str(tmp_path / "t.json")])
    killer.join()
    assert status == 0 and killed, "the worker was not killed"
    table = _table(tmp_path / "t.json")
    _, _, single_grid = single
    assert "x-partial" not in table and table["entries"][0]["best"]["verified"]
    # Each point of the grid measured once, none lost. (Not necessarily the one process's winner: a
    # replay serves a configuration's recordings in turn in each process, so after a kill the
    # re-measurements and the composed candidates may read other recordings than one process does.)
    assert _measured_once(_graph_study(storage, table), GRID_PHASES) == single_grid
    states = {w["worker"]: w["state"] for w in table["x-workers"]}
    assert states.pop(killed["worker"]) == "dead" and set(states.values()) == {"finished"}
    study = _graph_study(storage, table)
    # its trial in flight, and no other, was failed (by Optuna's heartbeat on PostgreSQL, by its dead
    # process id on a journal file) and enqueued again, and that copy measured
    retried = [t for t in study.trials if t.system_attrs.get("failed_trial") is not None]
    assert [t.system_attrs["failed_trial"] for t in retried] == [killed["trial"]], \
        [(t.number, t.state, t.system_attrs) for t in study.trials if t.state == TrialState.FAIL or t in retried]
    assert retried[0].state == TrialState.COMPLETE and study.trials[killed["trial"]].state == TrialState.FAIL


def test_the_trial_budget_holds_across_workers_and_a_plain_worker_joins(tmp_path, storage):
    argv = [*REPLAY, "--strategy", "bayes", "--trials", "14", "--devices", "0,1", "--replay-delay-ms", "40",
            "--storage", storage, "--run", "shared", "-o", str(tmp_path / "t.json")]
    status: list[int] = []
    coordinator = threading.Thread(target=lambda: status.append(main(argv)))
    coordinator.start()
    opened, _ = open_storage(storage)
    while coordinator.is_alive() and "shared" not in run_names(opened):
        time.sleep(0.02)
    joined = main(["sweep-worker", "--storage", storage, "--run", "shared", "--device-index", "7", "-q"])
    coordinator.join()
    assert joined == 0 and status == [0]
    table = _table(tmp_path / "t.json")
    study = _graph_study(storage, table)
    search = [t for t in study.trials if t.user_attrs.get(ATTRS, {}).get("phase") == "search"]
    assert 14 <= len(search) <= 14 + 2 and all(t.state.is_finished() for t in study.trials)
    assert {w["device_index"] for w in table["x-workers"]} <= {0, 1, 7}
    assert main(["sweep", "--merge", "--run", "shared", "--storage", storage, "-q",
                 "-o", str(tmp_path / "merged.json")]) == 0
    merged = _table(tmp_path / "merged.json")
    assert [e["best"] for e in _comparable(merged)] == [e["best"] for e in _comparable(table)]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([*REPLAY, "--devices", "0,x"], "--devices: 'x' is not a GPU index"),
        ([*REPLAY, "--devices", "1,1"], "--devices: GPU 1 is listed twice"),
        ([*REPLAY, "--devices", ""], "--devices: expected all or GPU indexes"),
        ([*REPLAY, "--devices", "all"], "--devices all: a replay has no GPUs to count"),
        ([*REPLAY, "--devices", "0,1", "--storage", "memory"], "memory cannot be shared"),
        ([*REPLAY, "--devices", "0,1", "--storage", "s.db"], "SQLite cannot hand a queued trial to one worker only"),
        ([*REPLAY[:-2], "--run", "x"], "--run applies to --devices"),
        (["sweep", "--graph", "rmat8", "--devices", "all"], "PyCUDA"),
        (["sweep", "--merge"], "--merge: name the run with --run NAME"),
    ],
)
def test_bad_devices_and_run_options_are_one_line_and_exit_status_2(argv, message, capsys, monkeypatch, tmp_path):
    import autotune.gpu.device

    def no_pycuda():
        from autotune.errors import GpuUnavailable

        raise GpuUnavailable("PyCUDA is not installed (No module named 'pycuda')")

    monkeypatch.setattr(autotune.gpu.device, "driver", no_pycuda)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.fixture
def started_workers(monkeypatch):
    """The worker processes the coordinator starts, kept for the test to look at."""
    import autotune.cli.sweep_fleet as sweep_fleet

    started = []
    start = sweep_fleet._start_worker
    monkeypatch.setattr(sweep_fleet, "_start_worker", lambda *a: started.append(start(*a)) or started[-1])
    return started


def test_a_bad_graph_is_refused_before_a_storage_or_a_worker_exists(tmp_path, capsys, started_workers):
    assert main([*REPLAY, "--graph", "rmat9", "--devices", "0,1", "--storage", str(tmp_path / "s.journal")]) == 2
    assert started_workers == [] and not (tmp_path / "s.journal").exists()
    err = capsys.readouterr().err
    assert "rmat9" in err and err.count("\n") == 1


def test_a_coordinator_that_fails_before_its_run_begins_stops_the_workers_it_started(tmp_path, capsys, monkeypatch,
                                                                                      started_workers):
    from autotune.cli.sweep_request import CheckedJobs
    from autotune.errors import GpuUnavailable

    def no_gpu(self, stack):  # the workers are started before the coordinator describes the GPU
        raise GpuUnavailable("no CUDA device responds (test)")

    monkeypatch.setattr(CheckedJobs, "jobs", no_gpu)
    assert main([*REPLAY, "--devices", "0,1", "--storage", str(tmp_path / "s.journal")]) == 2
    assert len(started_workers) == 2 and all(p.poll() is not None for p in started_workers)
    err = capsys.readouterr().err
    assert err == "autotune: no CUDA device responds (test)\n"


def test_a_worker_of_an_unknown_run_is_one_line_and_exit_status_2(tmp_path, capsys):
    assert main(["sweep-worker", "--storage", str(tmp_path / "s.journal"), "--run", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "--run nosuch: no such run in " in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("url", "expected", "where"),
    [
        ("postgresql://me:s3cret@db.example:5432/autotune",
         "--storage postgresql://me:PASSWORD@db.example:5432/autotune", "another host joins with"),
        ("postgresql://me@db.example/autotune", "--storage postgresql://me@db.example/autotune",
         "another host joins with"),
        ("sqlite:////data/s.db", "--storage sqlite:////data/s.db", "another worker on this host joins with"),
        ("/data/run.log", "--storage /data/run.log", "another worker on this host joins with"),
    ],
)
def test_the_join_hint_can_be_pasted_and_says_who_can_join(url, expected, where):
    from autotune.cli.sweep_fleet import join_hint
    from autotune.search.run.storage import hide_password

    hint = join_hint(hide_password(url), "r1")
    assert hint.startswith(where) and f"autotune sweep-worker {expected} --run r1 --device-index I" in hint
    assert "***" not in hint and "s3cret" not in hint
    assert ("replace PASSWORD with the storage's password" in hint) == ("s3cret" in url)
    assert ("docs/multi-gpu.md" in hint) == where.startswith("another worker on this host")


def test_a_fleet_names_the_command_that_adds_a_worker_on_this_host(tmp_path, capsys):
    storage = tmp_path / "s.journal"
    argv = [a for a in REPLAY if a != "-q"]
    assert main([*argv, "--strategy", "model", "--devices", "0,1", "--storage", str(storage), "--run", "hint",
                 "-o", str(tmp_path / "t.json")]) == 0
    err = capsys.readouterr().err
    assert (f"another worker on this host joins with: autotune sweep-worker --storage {storage} "
            "--run hint --device-index I") in err
