"""An algorithm's own tuned parameters (Delta, the loop mode, the load-balancing thresholds, ...):
their domains, how the command line gives them, and how they are checked.

A parameter's values are ordered: integers ascending, then its named values in the order given
(`inf` after every integer, `off` after every threshold), so an ordered sampler sees the order. A
domain is fixed, or derived from the graph (Delta from the graph's weights).

Example:
    >>> threshold = Parameter("warp_threshold", "degree a warp expands", default=32,
    ...                       values=(8, 16, 32, 64, "off"), names=("off",))
    >>> threshold.parse("16,off", "--param warp_threshold")
    (16, 'off')
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from autotune.errors import InputError
from autotune.launch import ParamValue


def _ordered(values: Iterable[ParamValue], names: tuple[str, ...]) -> tuple[ParamValue, ...]:
    unique = list(dict.fromkeys(values))
    numbers = sorted(v for v in unique if isinstance(v, int))
    named = [name for name in names if name in unique]
    return tuple(numbers) + tuple(named)


@dataclass(frozen=True)
class Parameter:
    """One tuned parameter of an algorithm.

    Args:
        name: its name in configurations, records and `--param NAME=...`.
        help: one line for `--help` and the docs.
        default: its value in the algorithm's default configuration.
        values: the domain a sweep searches by default (ordered as the module says).
        names: the named values it accepts (`inf`, `off`, or every value of a choice).
        graph_values: derives the domain from a graph's features instead of `values`.
        minimum: the smallest integer it accepts (where integers are accepted at all).
        integers: whether it takes integers besides its names.
    """

    name: str
    help: str
    default: ParamValue
    values: tuple[ParamValue, ...] = ()
    names: tuple[str, ...] = ()
    graph_values: Callable[[Any], tuple[ParamValue, ...]] | None = None
    minimum: int = 1
    integers: bool = True

    def domain(self, graph: Any = None) -> tuple[ParamValue, ...]:
        """The values a sweep tries on `graph` (its features; None: the fixed domain)."""
        if self.graph_values is not None and graph is not None:
            return _ordered(self.graph_values(graph), self.names)
        return _ordered(self.values, self.names)

    def check(self, value: Any, where: str) -> ParamValue:
        """`value` if this parameter accepts it.

        Raises:
            InputError: naming `where`, the value and what is accepted.
        """
        if isinstance(value, str) and value in self.names:
            return value
        if self.integers and isinstance(value, int) and not isinstance(value, bool) and value >= self.minimum:
            return value
        raise InputError(f"{where}: {self.name} must be {self.accepted()}, found {value!r}")

    def accepted(self) -> str:
        parts = [f"an integer >= {self.minimum}"] if self.integers else []
        parts += [repr(name) for name in self.names]
        return " or ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + " or " + parts[-1]

    def parse_one(self, text: str, option: str) -> ParamValue:
        text = text.strip()
        if text in self.names:
            return text
        try:
            value: Any = int(text)
        except ValueError:
            value = text
        return self.check(value, option)

    def parse(self, text: str, option: str) -> tuple[ParamValue, ...]:
        """Parse a comma-separated list (`32,64,inf`) from the command line."""
        values = [self.parse_one(item, option) for item in text.split(",") if item.strip()]
        if not values:
            raise InputError(f"{option}: give at least one value")
        return _ordered(values, self.names)


def choice(name: str, help: str, values: tuple[str, ...], default: str) -> Parameter:
    """A parameter that takes one of a few names (the loop mode)."""
    return Parameter(name, help, default, values=values, names=values, integers=False)


def parse_param_options(texts: Iterable[str], parameters: Iterable[Parameter],
                        algorithm: str) -> dict[str, tuple[ParamValue, ...]]:
    """`--param NAME=V1,V2` options, each a parameter of the algorithm.

    Raises:
        InputError: a malformed option, an unknown parameter (naming the known ones) or a bad value.
    """
    known = {p.name: p for p in parameters}
    out: dict[str, tuple[ParamValue, ...]] = {}
    for text in texts:
        name, sep, values = text.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(f"--param {text!r}: expected NAME=VALUE[,VALUE...], e.g. delta=256,1024,inf")
        if name not in known:
            listed = ", ".join(known) or "none"
            raise InputError(f"--param {name}: {algorithm} has no parameter {name!r}; its parameters: {listed}")
        out[name] = known[name].parse(values, f"--param {name}")
    return out
