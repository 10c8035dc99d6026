"""What the report compares with the thesis: the report analyzes sweeps of the thesis's kernels
(GPU Crauser and GPU Martín share them), so its kernel gains, grids and model check are per relax,
minimum and update."""
from __future__ import annotations

from autotune.algorithms import get
from autotune.launch import DEFAULT_ALGORITHM

THESIS_KERNELS = get(DEFAULT_ALGORITHM).kernels
