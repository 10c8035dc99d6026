"""A sweep's study in memory, each finished trial written once to the persistent storage.

Optuna's RDB storage costs a database round trip for every parameter a trial suggests and every
attribute it sets, and its samplers re-read the study's trials for every parameter: in the H100
sweeps of commit 1f70f72 that was 24-47 ms of host time per trial (their tables' wall time outside
the measurements, per trial), more than the GPU work of a small graph's measurement.
`MirroredStorage` keeps the study in an `InMemoryStorage`, where the sampler works, and writes a
trial to the persistent storage in one transaction when it finishes (or at once, for trials added
finished). Study attributes are written through.

What this keeps: every finished trial goes to the persistent storage the moment it finishes (with
a `storewriter.TrialWriter`, from a separate process, so that the write costs the sweep no host
time), so Ctrl-C, SIGTERM or a kill lose only the trial in flight (never stored, so never left
RUNNING); `--resume` loads the study's trials back into memory. Parameters are packed into one
system attribute of the stored trial (`pack_params`). What it assumes: one process works on a
study at a time. Multi-GPU runs (`search.coordinator`) share their studies and open the storage
directly.

    >>> from optuna.storages import InMemoryStorage
    >>> storage = MirroredStorage(InMemoryStorage())
    >>> study = optuna.create_study(storage=storage, study_name="s")
    >>> study.optimize(lambda trial: trial.suggest_int("x", 0, 3), n_trials=2)
    >>> len(storage.backend.get_all_trials(storage.backend.get_study_id_from_name("s")))
    2
"""
from __future__ import annotations

import copy
from typing import Any, Container, Sequence

import optuna  # noqa: F401  (the module doctest)
from optuna.distributions import BaseDistribution, distribution_to_json, json_to_distribution
from optuna.storages import BaseStorage, InMemoryStorage
from optuna.study import StudyDirection
from optuna.study._frozen import FrozenStudy
from optuna.trial import FrozenTrial, TrialState

from autotune.search.storewriter import TrialWriter


PACKED_PARAMS = "autotune:params"  # backend trials: {name: [internal value, distribution JSON]}


class MirroredStorage(BaseStorage):
    """Reads and trial updates in memory; finished trials and study attributes in `backend` too.

    Args:
        backend: the persistent storage (an `RDBStorage` or `JournalStorage`).
    """

    def __init__(self, backend: BaseStorage, writer: TrialWriter | None = None) -> None:
        self.backend = backend
        self.front = InMemoryStorage()
        self.writer = writer
        self._study: dict[int, int] = {}  # front study id -> backend study id
        self._trial: dict[int, int] = {}  # front trial id -> backend trial id, for trials loaded from it
        self._study_of: dict[int, int] = {}  # front trial id -> backend study id, for trials created here

    def close(self) -> None:
        """Wait until every finished trial is in the backend (with a `writer`); raises if one failed."""
        if self.writer is not None:
            self.writer.close()

    # --- studies: created and named in both, read from memory ----------------------------------

    def create_new_study(self, directions: Sequence[StudyDirection], study_name: str | None = None) -> int:
        back = self.backend.create_new_study(directions, study_name)
        front = self.front.create_new_study(directions, self.backend.get_study_name_from_id(back))
        self._study[front] = back
        return front

    def _load(self, study_name: str) -> int:
        """Copy a study of the backend (attributes and trials) into memory."""
        back = self.backend.get_study_id_from_name(study_name)  # KeyError when there is none
        front = self.front.create_new_study(self.backend.get_study_directions(back), study_name)
        self._study[front] = back
        for key, value in self.backend.get_study_user_attrs(back).items():
            self.front.set_study_user_attr(front, key, value)
        for key, value in self.backend.get_study_system_attrs(back).items():
            self.front.set_study_system_attr(front, key, value)
        for trial in self.backend.get_all_trials(back, deepcopy=False):
            self._trial[self.front.create_new_trial(front, template_trial=unpack_params(trial))] = trial._trial_id
        return front

    def get_study_id_from_name(self, study_name: str) -> int:
        try:
            return self.front.get_study_id_from_name(study_name)
        except KeyError:
            return self._load(study_name)

    def delete_study(self, study_id: int) -> None:
        self.backend.delete_study(self._study.pop(study_id))
        self.front.delete_study(study_id)

    def set_study_user_attr(self, study_id: int, key: str, value: Any) -> None:
        self.backend.set_study_user_attr(self._study[study_id], key, value)
        self.front.set_study_user_attr(study_id, key, value)

    def set_study_system_attr(self, study_id: int, key: str, value: Any) -> None:
        self.backend.set_study_system_attr(self._study[study_id], key, value)
        self.front.set_study_system_attr(study_id, key, value)

    def get_study_name_from_id(self, study_id: int) -> str:
        return self.front.get_study_name_from_id(study_id)

    def get_study_directions(self, study_id: int) -> list[StudyDirection]:
        return self.front.get_study_directions(study_id)

    def get_study_user_attrs(self, study_id: int) -> dict[str, Any]:
        return self.front.get_study_user_attrs(study_id)

    def get_study_system_attrs(self, study_id: int) -> dict[str, Any]:
        return self.front.get_study_system_attrs(study_id)

    def get_all_studies(self) -> list[FrozenStudy]:
        return self.backend.get_all_studies()  # every study, not only the ones in memory

    # --- trials: in memory until finished, then stored whole ------------------------------------

    def _store(self, trial_id: int) -> None:
        """Write a finished trial to the backend in one transaction, its parameters packed; through
        the writer process when there is one (a finished trial never changes again)."""
        study_id = self._study_of.pop(trial_id)
        trial = pack_params(self.front.get_trial(trial_id))
        if self.writer is not None:
            self.writer.put(study_id, trial)
        else:
            self.backend.create_new_trial(study_id, template_trial=trial)

    def create_new_trial(self, study_id: int, template_trial: FrozenTrial | None = None) -> int:
        trial_id = self.front.create_new_trial(study_id, template_trial)
        self._study_of[trial_id] = self._study[study_id]
        if template_trial is not None and template_trial.state.is_finished():
            self._store(trial_id)
        return trial_id

    def set_trial_state_values(self, trial_id: int, state: TrialState, values: Sequence[float] | None = None) -> bool:
        changed = self.front.set_trial_state_values(trial_id, state, values)
        if trial_id in self._trial:  # a trial of the backend, RUNNING when loaded (a killed run's)
            self.backend.set_trial_state_values(self._trial[trial_id], state, values)
        elif state.is_finished():
            self._store(trial_id)
        return changed

    def set_trial_param(self, trial_id: int, param_name: str, param_value_internal: float,
                        distribution: BaseDistribution) -> None:
        self.front.set_trial_param(trial_id, param_name, param_value_internal, distribution)
        if trial_id in self._trial:
            self.backend.set_trial_param(self._trial[trial_id], param_name, param_value_internal, distribution)

    def set_trial_intermediate_value(self, trial_id: int, step: int, intermediate_value: float) -> None:
        self.front.set_trial_intermediate_value(trial_id, step, intermediate_value)
        if trial_id in self._trial:
            self.backend.set_trial_intermediate_value(self._trial[trial_id], step, intermediate_value)

    def set_trial_user_attr(self, trial_id: int, key: str, value: Any) -> None:
        self.front.set_trial_user_attr(trial_id, key, value)
        if trial_id in self._trial:
            self.backend.set_trial_user_attr(self._trial[trial_id], key, value)

    def set_trial_system_attr(self, trial_id: int, key: str, value: Any) -> None:
        self.front.set_trial_system_attr(trial_id, key, value)
        if trial_id in self._trial:
            self.backend.set_trial_system_attr(self._trial[trial_id], key, value)

    def get_trial(self, trial_id: int) -> FrozenTrial:
        return self.front.get_trial(trial_id)

    def get_all_trials(self, study_id: int, deepcopy: bool = True,
                       states: Container[TrialState] | None = None) -> list[FrozenTrial]:
        return self.front.get_all_trials(study_id, deepcopy, states)

    def get_trial_id_from_study_id_trial_number(self, study_id: int, trial_number: int) -> int:
        return self.front.get_trial_id_from_study_id_trial_number(study_id, trial_number)

    def get_trial_number_from_id(self, trial_id: int) -> int:
        return self.front.get_trial_number_from_id(trial_id)


def pack_params(trial: FrozenTrial) -> FrozenTrial:
    """The trial with its parameters in the system attribute `PACKED_PARAMS` instead.

    An RDB storage writes each parameter with two queries (about 2 ms each); packed, a trial is
    one row of attributes more. The trial's configuration is also in its user attributes, so
    tools that read the storage (optuna-dashboard) still see what was measured.
    """
    if not trial.params:
        return trial
    packed = {name: [trial.distributions[name].to_internal_repr(value), distribution_to_json(trial.distributions[name])]
              for name, value in trial.params.items()}
    trial = copy.copy(trial)
    trial.system_attrs = {**trial.system_attrs, PACKED_PARAMS: packed}
    trial.params, trial.distributions = {}, {}
    return trial


def unpack_params(trial: FrozenTrial) -> FrozenTrial:
    """The inverse of `pack_params` (a trial without packed parameters comes back as it is)."""
    packed = trial.system_attrs.get(PACKED_PARAMS)
    if not packed:
        return trial
    trial = copy.copy(trial)
    distributions = {name: json_to_distribution(dist) for name, (_, dist) in packed.items()}
    trial.distributions = {**trial.distributions, **distributions}
    trial.params = {**trial.params, **{name: distributions[name].to_external_repr(value)
                                       for name, (value, _) in packed.items()}}
    trial.system_attrs = {k: v for k, v in trial.system_attrs.items() if k != PACKED_PARAMS}
    return trial


def mirrored(storage: BaseStorage, url: str | None = None, shown: str | None = None) -> BaseStorage:
    """`storage` behind a `MirroredStorage`, unless it is in memory already; with the storage's `url`
    (`study.storage_url`; `shown` with the password hidden) its trials are written by a
    `TrialWriter` process. Close it (`MirroredStorage.close`) when the sweep ends."""
    if isinstance(storage, (InMemoryStorage, MirroredStorage)):
        return storage
    return MirroredStorage(storage, TrialWriter(url, shown or url) if url else None)


__all__ = ["MirroredStorage", "mirrored"]
