"""Interruptions (Ctrl-C, SIGTERM, a killed process) and `--resume`: nothing finished is measured
again, and the resumed sweep ends where an uninterrupted one ends."""
from __future__ import annotations

import json
import os
import signal
from collections import Counter

import optuna
import pytest
from optuna.trial import TrialState

from autotune.errors import InputError
from autotune.search import Bayes, Exhaustive, ModelOnly, StudyKey, SweepSettings, open_storage, open_study
from autotune.search.run.storage import storage_url, trial_measurement
from autotune.search.run.trials import ATTRS
from autotune.search.timers.synthetic import SyntheticTimer


def _non_remeasure_keys(handle) -> Counter:
    keys = Counter()
    for trial in handle.study.trials:
        attrs = trial.user_attrs.get(ATTRS, {})
        if trial.state.is_finished() and attrs and not attrs["cached"] and attrs["phase"] != "remeasure" \
                and not trial.user_attrs.get("interrupted"):
            keys[trial_measurement(trial).config.key()] += 1
    return keys


@pytest.mark.parametrize("interrupt_after", [5, 40, 62])  # in the specials, the grid, the finalists
def test_exhaustive_resume_measures_nothing_twice_and_ends_like_an_uninterrupted_run(
        tmp_path, small_space, run_sweep, interrupt_after):
    reference, _ = run_sweep(SyntheticTimer(noise=0.02), small_space, Exhaustive())
    storage = str(tmp_path / "studies.db")

    first_timer = SyntheticTimer(noise=0.02, interrupt_after=interrupt_after)
    partial, handle = run_sweep(first_timer, small_space, Exhaustive(), storage=storage)
    assert partial.partial and partial.evaluations == interrupt_after - 1
    assert partial.best is not None and partial.best.ok

    second_timer = SyntheticTimer(noise=0.02)
    second_timer._count = Counter(c.key() for c in first_timer.calls)  # same noise stream as one run
    resumed, handle = run_sweep(second_timer, small_space, Exhaustive(), storage=storage, resume=True)
    assert handle.resumed and not resumed.partial
    assert set(_non_remeasure_keys(handle).values()) == {1}
    rounds = [(t.user_attrs[ATTRS]["round"], json.dumps(t.user_attrs[ATTRS]["config"], sort_keys=True))
              for t in handle.study.trials if t.user_attrs.get(ATTRS, {}).get("phase") == "remeasure"]
    assert len(rounds) == len(set(rounds)) == 9  # 3 rounds x 3 finalists, none twice
    assert len(first_timer.calls) + len(second_timer.calls) == reference.evaluations
    assert resumed.evaluations == reference.evaluations
    assert resumed.best.config == reference.best.config
    assert resumed.best.ms_per_sssp == pytest.approx(reference.best.ms_per_sssp)
    assert resumed.tuning_seconds >= partial.tuning_seconds


def test_bayes_resume_completes_the_trial_budget(tmp_path, small_space, run_sweep):
    storage = str(tmp_path / "studies.db")
    strategy = Bayes(trials=30, seed=3)
    partial, _ = run_sweep(SyntheticTimer(interrupt_after=12), small_space, strategy, storage=storage)
    assert partial.partial
    timer = SyntheticTimer()
    resumed, handle = run_sweep(timer, small_space, strategy, storage=storage, resume=True)
    search = [t for t in handle.study.trials if t.user_attrs.get(ATTRS, {}).get("phase") == "search"]
    assert len(search) == 30
    assert set(_non_remeasure_keys(handle).values()) == {1}
    interrupted = [t for t in handle.study.trials if t.user_attrs.get("interrupted")]
    assert len(interrupted) == 1 and interrupted[0].state is TrialState.FAIL
    climbed = [t for t in handle.study.trials if t.user_attrs.get(ATTRS, {}).get("phase") == "refine"]
    assert resumed.trials == 30 + len(climbed) + 9 and not resumed.partial


def test_sigterm_stops_like_ctrl_c(small_space, run_sweep):
    class Terminating(SyntheticTimer):
        def measure(self, config, stop=None, **options):
            if len(self.calls) == 7:
                os.kill(os.getpid(), signal.SIGTERM)
            return super().measure(config)

    previous = signal.getsignal(signal.SIGTERM)
    result, _ = run_sweep(Terminating(), small_space, Exhaustive())
    assert result.partial and result.evaluations == 7
    assert signal.getsignal(signal.SIGTERM) == previous


def test_a_killed_run_s_running_trial_is_failed_as_interrupted_and_enqueued_again_on_resume(
        tmp_path, small_space, device, graph):
    storage, url = open_storage(str(tmp_path / "killed.db"))
    strategy = ModelOnly()
    key = StudyKey(graph.sha256, "crauser", device["name"], strategy.label, small_space.digest(), {})
    handle = open_study(storage, url, key, strategy.sampler(small_space), resume=False)
    handle.study.enqueue_trial({}, user_attrs={"autotune:task": {"config": {}, "phase": "fixed"}})
    handle.study.ask()  # the process dies here: the trial stays RUNNING
    again = open_study(storage, url, key, strategy.sampler(small_space), resume=True)
    assert again.name == handle.name and again.resumed
    (trial, retry) = again.study.trials
    assert trial.state is TrialState.FAIL and trial.user_attrs["interrupted"] is True
    assert retry.state is TrialState.WAITING and "interrupted" not in retry.user_attrs
    assert retry.user_attrs["autotune:task"] == trial.user_attrs["autotune:task"]


def test_without_resume_a_new_study_starts(tmp_path, small_space, run_sweep):
    storage = str(tmp_path / "studies.db")
    _, first = run_sweep(SyntheticTimer(), small_space, ModelOnly(), storage=storage)
    timer = SyntheticTimer()
    _, second = run_sweep(timer, small_space, ModelOnly(), storage=storage)
    assert first.name != second.name and not second.resumed and len(timer.calls) > 0
    timer = SyntheticTimer()
    _, third = run_sweep(timer, small_space, ModelOnly(), storage=storage, resume=True)
    assert third.name == second.name and timer.calls == []
    names = optuna.study.get_all_study_names(open_storage(storage)[0])
    assert len(names) == 2 and all(name.startswith("autotune/") for name in names)


def test_finalists_are_kept_so_a_resume_finishes_the_same_rounds(tmp_path, small_space, run_sweep):
    storage = str(tmp_path / "studies.db")
    settings = SweepSettings(finalists=2, rounds=3)
    first = SyntheticTimer(interrupt_after=9)  # 4 specials, 2 finalists x 3 rounds: stops in round 2
    run_sweep(first, small_space, ModelOnly(), storage=storage, settings=settings)
    timer = SyntheticTimer()
    result, handle = run_sweep(timer, small_space, ModelOnly(), storage=storage, resume=True, settings=settings)
    assert len(handle.study.user_attrs["finalists"]) == 2
    assert all(c.measurements == 4 for c in result.finalists)


def test_storage_urls(tmp_path):
    assert storage_url("memory") == "memory"
    assert storage_url("postgresql://u:p@host/db") == "postgresql+psycopg://u:p@host/db"  # psycopg 3
    assert storage_url("postgresql+psycopg://u:p@host/db") == "postgresql+psycopg://u:p@host/db"
    assert storage_url(str(tmp_path / "a.db")) == f"sqlite:///{tmp_path / 'a.db'}"
    assert storage_url(str(tmp_path / "run.log")) == str(tmp_path / "run.log")
    assert storage_url(None).endswith("studies.journal")  # safe for several processes of one host
    storage, shown = open_storage(str(tmp_path / "run.log"))
    assert type(storage).__name__ == "JournalStorage" and shown.endswith("run.log")
    with pytest.raises(InputError, match="--storage"):
        open_storage("nosuchdialect://x")


def test_journal_storage_resumes_too(tmp_path, small_space, run_sweep):
    storage = str(tmp_path / "run.log")
    run_sweep(SyntheticTimer(interrupt_after=4), small_space, ModelOnly(), storage=storage)
    timer = SyntheticTimer()
    result, handle = run_sweep(timer, small_space, ModelOnly(), storage=storage, resume=True)
    assert handle.resumed and not result.partial
    assert len(timer.calls) == len(result.log) - 3  # the three measured before the interruption
