"""The options that, with a spec, fix a graph bit for bit: the seed and the weight range."""
from __future__ import annotations

import re
from dataclasses import dataclass

from autotune.errors import InputError

INT32_MAX = 2**31 - 1
DEFAULT_SEED = 0

_RANGE = re.compile(r"\s*(\d+)\s*-\s*(\d+)\s*")


@dataclass(frozen=True)
class WeightRange:
    """Inclusive range of uniformly drawn integer arc weights, `lo..hi`.

    Args:
        lo: smallest weight, >= 0.
        hi: largest weight, lo <= hi <= 2**31 - 1.

    Example:
        >>> WeightRange.parse("1-100")
        WeightRange(lo=1, hi=100)
    """

    lo: int
    hi: int

    def __post_init__(self) -> None:
        if not (0 <= self.lo <= self.hi <= INT32_MAX):
            raise InputError(
                f"--weights: {self.lo}-{self.hi} is not a range LO-HI with "
                f"0 <= LO <= HI <= {INT32_MAX}. Try 1-100."
            )

    @classmethod
    def parse(cls, text: str) -> WeightRange:
        """Parse `LO-HI` (for example `1-100`, or `1-1` for unit weights).

        Raises:
            InputError: if `text` is not two non-negative integers joined by `-`, or LO > HI.
        """
        match = _RANGE.fullmatch(text)
        if not match:
            raise InputError(
                f"--weights: expected LO-HI with integers 0 <= LO <= HI (e.g. 1-100), found {text!r}"
            )
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.lo}-{self.hi}"


DEFAULT_WEIGHTS = WeightRange(1, 100)  # the thesis's range (3.3.2)


@dataclass(frozen=True)
class GraphOptions:
    """How to turn a spec into a graph, besides the spec itself.

    Args:
        seed: seeds every random choice (topology, vertex permutation, weights); >= 0.
        weights: explicit weight range. `None` keeps the weights a file stores and draws
            `DEFAULT_WEIGHTS` (1-100) for inputs without weights; a range replaces the weights of
            every input, files with weights included (so `1-1` always gives unit weights).

    Example:
        >>> GraphOptions.from_values(seed=3, weights="1-1").weights
        WeightRange(lo=1, hi=1)
    """

    seed: int = DEFAULT_SEED
    weights: WeightRange | None = None

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise InputError(f"--seed: expected a non-negative integer, found {self.seed!r}")

    @property
    def drawn_weights(self) -> WeightRange:
        """The range weights are drawn from where they are drawn."""
        return self.weights if self.weights is not None else DEFAULT_WEIGHTS

    @classmethod
    def from_values(
        cls, seed: int | str | None = None, weights: WeightRange | str | None = None
    ) -> GraphOptions:
        """Build options from command-line style values (strings are parsed).

        Raises:
            InputError: if the seed is not a non-negative integer or the weights not `LO-HI`.
        """
        if seed is None:
            seed = DEFAULT_SEED
        elif isinstance(seed, str):
            if not (seed.strip().isascii() and seed.strip().isdigit()):
                raise InputError(f"--seed: expected a non-negative integer, found {seed!r}")
            seed = int(seed)
        if isinstance(weights, str):
            weights = WeightRange.parse(weights)
        return cls(seed=seed, weights=weights)
