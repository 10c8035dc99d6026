"""The sweep's study in memory, mirrored trial by trial into the persistent storage."""
from __future__ import annotations

import signal
import subprocess
import sys
import time

import optuna
import pytest
from optuna.distributions import CategoricalDistribution, IntDistribution
from optuna.trial import TrialState, create_trial

from autotune.errors import AutotuneError
from autotune.search import open_storage
from autotune.search.mirror import PACKED_PARAMS, MirroredStorage, mirrored, pack_params, unpack_params
from autotune.search.storewriter import TrialWriter
from autotune.search.study import storage_url


def test_packed_parameters_come_back_as_they_were():
    trial = create_trial(value=1.5, params={"ck_log2": 3, "relax_cache": "no_l1"},
                         distributions={"ck_log2": IntDistribution(0, 6),
                                        "relax_cache": CategoricalDistribution(["default", "no_l1"])},
                         user_attrs={"autotune": {"phase": "search"}})
    packed = pack_params(trial)
    assert packed.params == {} and packed.distributions == {} and PACKED_PARAMS in packed.system_attrs
    assert trial.params == {"ck_log2": 3, "relax_cache": "no_l1"}  # the original is untouched
    back = unpack_params(packed)
    assert back.params == trial.params and back.distributions == trial.distributions
    assert PACKED_PARAMS not in back.system_attrs and back.user_attrs == trial.user_attrs


def test_the_writer_process_stores_every_trial_in_order_by_close(tmp_path):
    path = tmp_path / "w.db"
    backend, shown = open_storage(str(path))
    storage = mirrored(backend, storage_url(str(path)), shown)
    assert isinstance(storage, MirroredStorage) and storage.writer is not None
    study = optuna.create_study(storage=storage, study_name="w")
    study.optimize(lambda trial: trial.suggest_int("x", 0, 99), n_trials=30)
    storage.close()
    stored = backend.get_all_trials(backend.get_study_id_from_name("w"))
    assert [unpack_params(t).params for t in stored] == [t.params for t in study.trials]
    assert [t.value for t in stored] == [t.value for t in study.trials]


def test_a_failing_writer_is_reported(tmp_path):
    path = tmp_path / "f.db"
    backend, shown = open_storage(str(path))
    storage = MirroredStorage(backend, TrialWriter(storage_url(str(path)), shown))
    optuna.create_study(storage=storage, study_name="f")
    storage.writer.put(10**6, create_trial(value=1.0))  # into a study the backend does not have
    with pytest.raises(AutotuneError, match="could not be kept"):
        storage.close()


def test_each_finished_trial_is_stored_when_it_finishes(tmp_path):
    backend, _ = open_storage(str(tmp_path / "s.db"))
    storage = MirroredStorage(backend)
    study = optuna.create_study(storage=storage, study_name="s")
    seen_in_backend = []

    def objective(trial):
        seen_in_backend.append(len(backend.get_all_trials(backend.get_study_id_from_name("s"))))
        return trial.suggest_int("x", 0, 9)

    study.optimize(objective, n_trials=4)
    # while trial k ran, the k trials before it were stored, and it was not (never left RUNNING)
    assert seen_in_backend == [0, 1, 2, 3]
    stored = backend.get_all_trials(backend.get_study_id_from_name("s"))
    assert [t.state for t in stored] == [TrialState.COMPLETE] * 4
    study.set_user_attr("finalists", [1, 2])
    assert backend.get_study_user_attrs(backend.get_study_id_from_name("s"))["finalists"] == [1, 2]

    reopened = optuna.load_study(study_name="s", storage=MirroredStorage(open_storage(str(tmp_path / "s.db"))[0]))
    assert [(t.params, t.value) for t in reopened.trials] == [(t.params, t.value) for t in study.trials]


KILLED_SWEEP = """
import sys, time
from autotune.search import Bayes, SearchSpace, StudyKey, open_storage, open_study, sweep_graph
from autotune.search.mirror import mirrored
from autotune.search.study import storage_url
from autotune.search.synthetic import SyntheticTimer, synthetic_device, synthetic_graph
from autotune.search.sweep import Specials

class Slow(SyntheticTimer):
    def measure(self, config):
        time.sleep(0.05)
        return super().measure(config)

space = SearchSpace.from_options(block_sizes="64,128,256", caches="default,prefer_l1,no_l1", ck="1,2,4", lanes="1,4")
graph, device = synthetic_graph(), synthetic_device()
storage, url = open_storage(sys.argv[1])
storage = mirrored(storage, storage_url(sys.argv[1]), url)  # as `autotune sweep`: a writer process
key = StudyKey(graph.sha256, "crauser", device["name"], "bayes-tpe", space.digest(), {})
handle = open_study(storage, url, key, Bayes(trials=200).sampler(space), resume=False)
sweep_graph(Slow(), space, Bayes(trials=200), handle, graph, "crauser", device, Specials())
"""


def test_a_killed_sweep_loses_only_its_trial_in_flight(tmp_path):
    path = tmp_path / "killed.db"
    process = subprocess.Popen([sys.executable, "-c", KILLED_SWEEP, str(path)])
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            if path.exists() and len(_stored(path)) >= 6:
                break
            time.sleep(0.02)
        assert process.poll() is None, "the sweep ended before it could be killed"
        process.send_signal(signal.SIGKILL)
        process.wait()
    finally:
        process.kill()
    stored = _settled(path)  # the writer process writes what reached it, then exits
    assert len(stored) >= 6 and all(t.state.is_finished() for t in stored)  # nothing left RUNNING
    backend, url = open_storage(str(path))
    resumed = optuna.load_study(study_name=optuna.get_all_study_names(backend)[0], storage=MirroredStorage(backend))
    assert [(t.params, t.value) for t in resumed.trials] == [(t.params, t.value) for t in map(unpack_params, stored)]


def _settled(path, quiet_s: float = 1.5):
    """The stored trials once their number has not changed for `quiet_s` seconds."""
    stored, since = _stored(path), time.monotonic()
    while time.monotonic() - since < quiet_s:
        time.sleep(0.1)
        now = _stored(path)
        if len(now) != len(stored):
            stored, since = now, time.monotonic()
    return stored


def _stored(path):
    backend, _ = open_storage(str(path))
    names = optuna.get_all_study_names(backend)
    return backend.get_all_trials(backend.get_study_id_from_name(names[0])) if names else []
