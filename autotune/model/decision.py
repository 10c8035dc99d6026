"""`Decision`: one value a model's rule chose and why, the unit every algorithm's rules explain
themselves in (`predict --explain`)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Decision:
    """One predicted value and the rule that chose it.

    Args:
        parameter: `block_size`, `cache`, `lanes` or `concurrent_kernels`.
        value: the value chosen.
        rule: the rule's name, e.g. "4.6.5 (1)ii".
        reason: one sentence with the numbers that applied it.
    """

    parameter: str
    value: object
    rule: str
    reason: str
