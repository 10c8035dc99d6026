"""How one ordered dimension of a search space appears to Optuna.

Arithmetic runs of integers are an `IntDistribution` with a step, runs of powers of two an
`IntDistribution` over the exponent (parameter name `<name>_log2`), and any other ascending set (or
one with named values such as Delta's `inf`) an `IntDistribution` over its positions
(`<name>_index`; CK 1, 4, 16, 64 is 0..3); so ordered samplers (TPE, GP, CMA-ES) always see the
order, which a categorical would hide. Unordered names (the loop mode) are categorical.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from optuna.distributions import BaseDistribution, CategoricalDistribution, IntDistribution


def _integers(values: tuple[Any, ...]) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def _is_arithmetic(values: tuple[Any, ...]) -> bool:
    if len(values) < 2 or not _integers(values):
        return False
    step = values[1] - values[0]
    return step > 0 and all(b - a == step for a, b in zip(values, values[1:]))


def _is_power_of_two_run(values: tuple[Any, ...]) -> bool:
    """1,2,4,8 or 4,8,16: consecutive powers of two."""
    if len(values) < 2 or not _integers(values) or any(v <= 0 or v & (v - 1) for v in values):
        return False
    return all(b == 2 * a for a, b in zip(values, values[1:]))


@dataclass(frozen=True)
class Ordinal:
    """One ordered dimension (see the module docstring)."""

    name: str
    values: tuple[Any, ...]

    @property
    def _kind(self) -> str:
        if _is_power_of_two_run(self.values):
            return "log2"
        return "step" if _is_arithmetic(self.values) else "index"

    @property
    def param(self) -> str:
        return {"log2": f"{self.name}_log2", "step": self.name, "index": f"{self.name}_index"}[self._kind]

    def distribution(self) -> BaseDistribution:
        v = self.values
        if self._kind == "log2":
            return IntDistribution(v[0].bit_length() - 1, v[-1].bit_length() - 1)
        if self._kind == "step":
            return IntDistribution(v[0], v[-1], step=v[1] - v[0])
        return IntDistribution(0, len(v) - 1)

    def encode(self, value: int) -> int:
        kind = self._kind
        if kind == "log2":
            return value.bit_length() - 1
        return value if kind == "step" else self.values.index(value)

    def decode(self, param: Any) -> int:
        kind = self._kind
        if kind == "log2":
            return 1 << int(param)
        return int(param) if kind == "step" else self.values[int(param)]


@dataclass(frozen=True)
class Choice:
    """An unordered dimension: a categorical over its names."""

    name: str
    values: tuple[Any, ...]

    @property
    def param(self) -> str:
        return self.name

    def distribution(self) -> BaseDistribution:
        return CategoricalDistribution(list(self.values))

    def encode(self, value: Any) -> Any:
        return value

    def decode(self, param: Any) -> Any:
        return param


def dimension(name: str, values: tuple[Any, ...], ordered: bool = True) -> Ordinal | Choice:
    """The dimension of a set of values: ordered (integers, or integers then named ends) or not."""
    return Ordinal(name, values) if ordered else Choice(name, values)
