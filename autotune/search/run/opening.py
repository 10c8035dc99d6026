"""How a study's timer is opened: afresh at each of the study's turns (`Reentrant`; on a GPU, a
solver with the graph in its memory), and only once the turn measures (`OpenedOnUse`)."""
from __future__ import annotations

from typing import Any, Callable, ContextManager

from autotune.measure import Timer





class OpenedOnUse:
    """A timer whose context (`Job.timer`: on a GPU, the solver with the graph in its memory) is
    entered at its first use, not before: a study taken up again after it was held may find nothing
    left to measure. `ready()` enters it (`trials.Trials` asks before it starts a measurement's
    clock); the context is left on exit. Use as a context manager."""

    def __init__(self, context: ContextManager[Timer]) -> None:
        self.context = context
        self._timer: Timer | None = None

    def ready(self) -> Timer:
        if self._timer is None:
            self._timer = self.context.__enter__()
        return self._timer

    def measure(self, config: Any, stop: Any = None, **options: Any) -> Any:
        return self.ready().measure(config, stop, **options)

    def __getattr__(self, name: str) -> Any:  # what the opened timer has besides `measure` (a replay's stats)
        if name.startswith("_") or self._timer is None:
            raise AttributeError(name)
        return getattr(self._timer, name)

    def __enter__(self) -> OpenedOnUse:
        return self

    def __exit__(self, *exc: Any) -> Any:
        if self._timer is not None:
            self._timer = None
            return self.context.__exit__(*exc)
        return None


class Reentrant:
    """A context manager that opens a fresh one of `factory`'s each time it is entered (a study is
    measured in several turns: its ends, its curve and rounds once every study's ends are measured,
    and again where the budget cut its search short, `search.resume`); with `keep`, the first one
    at every entry (a replay's: its timer serves the records in order over the study's turns)."""

    def __init__(self, factory: Callable[[], ContextManager[Timer]], keep: bool = False) -> None:
        self.factory = factory
        self.keep = keep
        self._kept: ContextManager[Timer] | None = None
        self._open: list[ContextManager[Timer]] = []

    def __enter__(self) -> Timer:
        if self.keep and self._kept is None:
            self._kept = self.factory()
        self._open.append(self._kept if self.keep and self._kept is not None else self.factory())
        return self._open[-1].__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self._open.pop().__exit__(*exc)


__all__ = ["OpenedOnUse", "Reentrant"]
