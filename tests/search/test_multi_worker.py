"""`autotune sweep --devices`: worker processes coordinating through one storage, on a CPU-only
machine. Each worker replays the committed synthetic records (`--replay`) with a delay per
measurement, so the workers really measure at the same time."""
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
from autotune.search.runner import ATTRS
from autotune.search.runplan import ENQUEUED
from autotune.search.shared import trial_task
from autotune.search.study import trial_measurement
from autotune.search.workqueue import RunStudy, run_names
from autotune.space import LaunchConfig

from conftest import SYNTHETIC_RECORDS

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "autotune" / "schemas" / "table-1.json").read_text())
REPLAY = ["sweep", "--replay", str(SYNTHETIC_RECORDS), "-q", "--heartbeat-s", "0.2"]
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


def _graph_study(storage_path: Path, table: dict) -> optuna.Study:
    storage, _ = open_storage(str(storage_path))
    return optuna.load_study(study_name=table["entries"][0]["x-sweep"]["study"]["name"], storage=storage)


def _measured_once(study: optuna.Study) -> Counter:
    """Real measurements per configuration, re-measurements of the finalists left out."""
    counts: Counter = Counter()
    for trial in study.trials:
        attrs = trial.user_attrs.get(ATTRS, {})
        if trial_measurement(trial) is not None and not attrs["cached"] and attrs["phase"] != "remeasure":
            counts[json.dumps(attrs["config"], sort_keys=True)] += 1
    return counts


@pytest.fixture(scope="module")
def single(tmp_path_factory) -> tuple[dict, Counter]:
    """The one-process exhaustive replay: its table and the configurations it measured."""
    tmp = tmp_path_factory.mktemp("single")
    assert main([*REPLAY[:4], "--strategy", "exhaustive", "--storage", str(tmp / "s.db"),
                 "-o", str(tmp / "t.json")]) == 0
    table = _table(tmp / "t.json")
    return table, _measured_once(_graph_study(tmp / "s.db", table))


def test_three_workers_measure_every_grid_point_once_and_merge_the_one_process_table(tmp_path, single):
    table_path, records_path = tmp_path / "t.json", tmp_path / "r.jsonl"
    status = main([*REPLAY, "--strategy", "exhaustive", "--devices", "0,1,2", "--replay-delay-ms", "25",
                   "--storage", str(tmp_path / "s.db"), "-o", str(table_path), "--records", str(records_path)])
    assert status == 0
    table = _table(table_path)
    single_table, single_counts = single
    assert _comparable(table) == _comparable(single_table)  # same best, baseline, default, counts, replay
    assert "x-partial" not in table and table["x-run"]["tasks_left"] == 0
    workers = table["x-workers"]
    assert len(workers) == 3 and {w["state"] for w in workers} == {"finished"}
    assert sum(w["measured"] for w in workers) == table["entries"][0]["evaluations"]
    assert sum(1 for w in workers if w["measured"] > 0) >= 2  # the work was shared out
    counts = _measured_once(_graph_study(tmp_path / "s.db", table))
    assert counts == single_counts and set(counts.values()) == {1}
    records = read_records(records_path)
    assert len(records) == table["entries"][0]["evaluations"]
    assert Counter(r.measurement.config.key() for r in records if r.phase != "remeasure").most_common(1)[0][1] == 1


def _kill_when_busy(storage_path: Path, device_index: int, after_tasks: int, killed: dict) -> None:
    """Kill -9 the worker of `device_index` once it has done `after_tasks` tasks and holds a ticket."""
    storage, _ = open_storage(str(storage_path))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        names = run_names(storage) if storage_path.exists() else []
        if names:
            run = RunStudy.open(storage, names[0])
            for worker, record in run.workers().items():
                if record.get("device_index") != device_index or record.get("tasks", 0) < after_tasks:
                    continue
                held = [t for t in run.tickets((TrialState.RUNNING,)) if t.worker == worker]
                if held:
                    os.kill(record["pid"], signal.SIGKILL)
                    killed.update(worker=worker, tickets=[t.number for t in held])
                    return
        time.sleep(0.02)


def test_a_killed_worker_loses_only_its_trial_in_flight(tmp_path, single):
    storage_path = tmp_path / "s.db"
    killed: dict = {}
    killer = threading.Thread(target=_kill_when_busy, args=(storage_path, 1, 4, killed))
    killer.start()
    status = main([*REPLAY, "--strategy", "exhaustive", "--devices", "0,1,2", "--replay-delay-ms", "60",
                   "--storage", str(storage_path), "-o", str(tmp_path / "t.json")])
    killer.join()
    assert status == 0 and killed, "the worker was not killed"
    table = _table(tmp_path / "t.json")
    single_table, single_counts = single
    assert "x-partial" not in table
    assert _comparable(table)[0]["best"] == _comparable(single_table)[0]["best"]
    assert table["entries"][0]["evaluations"] == single_table["entries"][0]["evaluations"]
    assert _measured_once(_graph_study(storage_path, table)) == single_counts  # each point once, none lost
    states = {w["worker"]: w["state"] for w in table["x-workers"]}
    assert states.pop(killed["worker"]) == "dead" and set(states.values()) == {"finished"}
    storage, _ = open_storage(str(storage_path))
    run = RunStudy.open(storage, table["x-run"]["name"])
    failed = [t for t in run.tickets() if t.state == TrialState.FAIL]
    assert len(failed) == 1 and failed[0].worker == killed["worker"]  # its trial in flight, and no other
    redone = [t for t in run.tickets((TrialState.COMPLETE,)) if t.task == failed[0].task]
    assert len(redone) == 1 and redone[0].worker != killed["worker"]


def test_the_trial_budget_holds_across_workers_and_a_plain_worker_joins(tmp_path):
    storage_path = tmp_path / "s.db"
    argv = [*REPLAY, "--strategy", "bayes", "--trials", "14", "--devices", "0,1", "--replay-delay-ms", "40",
            "--storage", str(storage_path), "--run", "shared", "-o", str(tmp_path / "t.json")]
    status: list[int] = []
    coordinator = threading.Thread(target=lambda: status.append(main(argv)))
    coordinator.start()
    storage, _ = open_storage(str(storage_path))
    while coordinator.is_alive() and not (storage_path.exists() and run_names(storage)):
        time.sleep(0.02)
    joined = main(["sweep-worker", "--storage", str(storage_path), "--run", "shared", "--device-index", "7", "-q"])
    coordinator.join()
    assert joined == 0 and status == [0]
    table = _table(tmp_path / "t.json")
    study = _graph_study(storage_path, table)
    search = [t for t in study.trials if t.user_attrs.get(ATTRS, {}).get("phase") == "search"]
    assert len(search) == 14 and all(t.state.is_finished() for t in study.trials)
    assert {w["device_index"] for w in table["x-workers"]} == {0, 1, 7}
    plan = RunStudy.open(storage, "shared").plan
    first = {f"shared#{t.index}": t.config for t in plan.tasks if t.kind == ENQUEUED}
    assert {trial_task(t): _config(t) for t in search if trial_task(t) in first} == first
    assert list(first.values()) == _one_process_first_search(tmp_path, len(first))
    assert main(["sweep", "--merge", "--run", "shared", "--storage", str(storage_path), "-q",
                 "-o", str(tmp_path / "merged.json")]) == 0
    assert _comparable(_table(tmp_path / "merged.json")) == _comparable(table)


def _config(trial: optuna.trial.FrozenTrial) -> LaunchConfig:
    return LaunchConfig.from_json(trial.user_attrs[ATTRS]["config"])


def _one_process_first_search(tmp_path: Path, count: int) -> list[LaunchConfig]:
    """The configurations of the first `count` search trials of the one-process Bayes replay."""
    assert main([*REPLAY[:4], "--strategy", "bayes", "--trials", "14", "--storage", str(tmp_path / "one.db"),
                 "-o", str(tmp_path / "one.json")]) == 0
    study = _graph_study(tmp_path / "one.db", _table(tmp_path / "one.json"))
    trials = sorted(study.trials, key=lambda t: t.number)
    return [_config(t) for t in trials if t.user_attrs.get(ATTRS, {}).get("phase") == "search"][:count]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([*REPLAY, "--devices", "0,x"], "--devices: 'x' is not a GPU index"),
        ([*REPLAY, "--devices", "1,1"], "--devices: GPU 1 is listed twice"),
        ([*REPLAY, "--devices", ""], "--devices: expected all or GPU indexes"),
        ([*REPLAY, "--devices", "all"], "--devices all: a replay has no GPUs to count"),
        ([*REPLAY, "--devices", "0,1", "--storage", "memory"], "memory cannot be shared"),
        ([*REPLAY, "--run", "x"], "--run applies to --devices"),
        (["sweep", "--graph", "rmat8", "--devices", "all"], "PyCUDA"),
        (["sweep", "--merge"], "--merge: name the run with --run NAME"),
    ],
)
def test_bad_devices_and_run_options_are_one_line_and_exit_status_2(argv, message, capsys, monkeypatch, tmp_path):
    import autotune.gpu.launcher

    def no_pycuda():
        from autotune.errors import GpuUnavailable

        raise GpuUnavailable("PyCUDA is not installed (No module named 'pycuda')")

    monkeypatch.setattr(autotune.gpu.launcher, "_driver", no_pycuda)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_worker_of_an_unknown_run_is_one_line_and_exit_status_2(tmp_path, capsys):
    assert main(["sweep-worker", "--storage", str(tmp_path / "s.db"), "--run", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "--run nosuch: no such run in sqlite:///" in err and err.count("\n") == 1


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
    from autotune.cli.sweep_fleet import _join_hint
    from autotune.search.study import _hide_password

    hint = _join_hint(_hide_password(url), "r1")
    assert hint.startswith(where) and f"autotune sweep-worker {expected} --run r1 --device-index I" in hint
    assert "***" not in hint and "s3cret" not in hint
    assert ("replace PASSWORD with the storage's password" in hint) == ("s3cret" in url)
    assert ("docs/multi-gpu.md" in hint) == where.startswith("another worker on this host")


def test_a_fleet_names_the_command_that_adds_a_worker_on_this_host(tmp_path, capsys):
    storage_path = tmp_path / "s.db"
    argv = [a for a in REPLAY if a != "-q"]
    assert main([*argv, "--strategy", "model", "--devices", "0,1", "--storage", str(storage_path), "--run", "hint",
                 "-o", str(tmp_path / "t.json")]) == 0
    err = capsys.readouterr().err
    assert (f"another worker on this host joins with: autotune sweep-worker --storage sqlite:///{storage_path} "
            "--run hint --device-index I") in err
