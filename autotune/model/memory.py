"""What bounds the concurrent instances a model predicts: the GPU's memory.

Each instance of a batched solve keeps its own workspace on the GPU (`Algorithm.bytes_per_vertex`
and `bytes_per_instance`); a CK whose workspaces do not fit is refused when it launches. A model
that knows the device's memory (`DeviceProfile.global_memory_bytes`) predicts no more instances
than fit (`Algorithm.instances_that_fit`).

Example::

    >>> from autotune.algorithms import get
    >>> from autotune.model.device import load_device
    >>> memory_bound(get("delta"), 128, (1, 2, 4, 8, 16, 32, 64, 128), 23_947_347, 58_333_344,
    ...              load_device("hopper-h100"))[0]
    64
"""
from __future__ import annotations

from typing import Any, Sequence

MEMORY_SHARE = 0.9  # of a GPU's memory, the most the solves may take (engines check the free memory)


def memory_bound(algorithm: Any, ck: int, choices: Sequence[int], vertices: int, edges: int,
                 device: Any) -> tuple[int, str]:
    """`ck`, or the largest of `choices` whose instances fit in the device's memory (the smallest
    choice when none does), and a sentence saying so (empty when `ck` fits or the device's memory
    is unknown)."""
    memory = getattr(device, "global_memory_bytes", None)
    if not memory:
        return ck, ""
    fit = algorithm.instances_that_fit(vertices, edges, memory)
    if ck <= fit:
        return ck, ""
    bounded = max([c for c in choices if c <= fit] or [min(choices)])
    return bounded, (f"bounded by memory: {fit} instances of {algorithm.name} ({vertices:,} vertices) fit in "
                     f"{memory / 2**30:.1f} GiB beside the graph, CK {bounded}")
