"""Where trials are kept: a sweep killed with SIGKILL loses only its trial in flight (each trial
is written to the storage as it finishes), on the default journal file and on SQLite, and the
resumed sweep measures that trial's task again."""
from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from autotune.search import open_storage
from autotune.search.run.storage import ATTR_INTERRUPTED
from autotune.search.run.trials import ATTRS

KILLED_SWEEP = """
import sys, time
from autotune.algorithms.thesis import CRAUSER
from autotune.search import Exhaustive, GraphPlan, SearchSpace, Specials, StudyKey, open_storage, open_study, sweep_graph
from autotune.search.timers.synthetic import SyntheticTimer, synthetic_device, synthetic_graph

class Slow(SyntheticTimer):
    def measure(self, config, stop=None, **options):
        time.sleep(0.05)
        return super().measure(config, stop)

space = SearchSpace.from_options("crauser", block_sizes="64,128,256", caches="default,prefer_l1,no_l1", ck="1,2,4",
                                 lanes="1,4")
graph, device = synthetic_graph(), synthetic_device()
storage, url = open_storage(sys.argv[1])
key = StudyKey(graph.sha256, "crauser", device["name"], "exhaustive", space.digest(), {})
handle = open_study(storage, url, key, Exhaustive().sampler(space), resume=sys.argv[2] == "resume")
plan = GraphPlan(graph, space, Exhaustive(), Specials(CRAUSER.default_config()))
result = sweep_graph(Slow(), plan, handle, device)
print(result.evaluations, result.partial)
"""


def _trials(path: Path) -> list[optuna.trial.FrozenTrial]:
    storage, _ = open_storage(str(path))
    names = optuna.get_all_study_names(storage)
    return storage.get_all_trials(storage.get_study_id_from_name(names[0])) if names else []


def _measured(path: Path) -> list[optuna.trial.FrozenTrial]:
    """The finished trials whose measurement counts: not one that a kill interrupted after it had
    recorded its measurement but before it was told (a resume fails it and measures its task again)."""
    return [t for t in _trials(path) if t.state.is_finished() and ATTRS in t.user_attrs
            and not t.user_attrs.get(ATTR_INTERRUPTED)]


@pytest.mark.parametrize("name", ["killed.journal", "killed.db"])
def test_a_killed_sweep_loses_only_its_trial_in_flight_and_a_resume_redoes_it(tmp_path, name):
    path = tmp_path / name
    process = subprocess.Popen([sys.executable, "-c", KILLED_SWEEP, str(path), "new"])
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            if path.exists() and len(_measured(path)) >= 6:
                break
            time.sleep(0.02)
        assert process.poll() is None, "the sweep ended before it could be killed"
        process.send_signal(signal.SIGKILL)
        process.wait()
    finally:
        process.kill()
    measured = _measured(path)
    running = [t for t in _trials(path) if t.state is TrialState.RUNNING]
    assert len(measured) >= 6 and len(running) <= 1  # every finished trial kept; at most one in flight
    done = subprocess.run([sys.executable, "-c", KILLED_SWEEP, str(path), "resume"], capture_output=True, text=True,
                          check=True)
    evaluations, partial = done.stdout.split()
    assert partial == "False"
    configs = [t.user_attrs[ATTRS]["config"] for t in _measured(path) if t.user_attrs[ATTRS]["phase"] != "remeasure"
               and not t.user_attrs[ATTRS]["cached"]]
    keys = [str(sorted(c.items())) for c in configs]
    assert len(keys) == len(set(keys))  # nothing measured twice, the killed trial's task once after all
    whole = tmp_path / ("whole" + path.suffix)
    subprocess.run([sys.executable, "-c", KILLED_SWEEP, str(whole), "new"], capture_output=True, check=True)
    assert int(evaluations) == len(_measured(whole)) and len(keys) + 9 == int(evaluations)  # 9: the finalists' rounds
