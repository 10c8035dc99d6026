"""Reports: what a sweep gained, whether the model can be trusted on this GPU, whether the search
was worth it, as Markdown tables and PNG figures (`autotune report`).

* `load`: read tables, records and CPU timings; group them into runs by graph and strategy.
* `analysis`: gains of the tuned solve and of each kernel's best (thesis Table 4.4).
* `model_check`: the model's values against the kernel bests, the rules judged, Study I.
* `efficiency`: best-so-far curves, evaluations to within 5 % and 2 % of the exhaustive optimum.
* `grid`: the exhaustive search as thesis Fig. 4.1 draws it.
* `cpu`: CPU timings per SSSP (`autotune.cpu-times/1`, written by `scripts/cpu_baseline.py`).
* `build`: the whole report's data, and `write_report`.
* `markdown`, `sections`: the README (rendering only).
* `figures`: the PNG figures (matplotlib, the extra `plot`, imported only when drawing).

Example (no GPU)::

    >>> from autotune.report import write_report
    >>> written = write_report(["tests/data/report"], "/tmp/report")  # doctest: +SKIP
    >>> written.readme.read_text().splitlines()[0]                     # doctest: +SKIP
    '# Tuning report: Synthetic GPU (hopper-h100 profile, no hardware) (crauser)'
"""
from __future__ import annotations

from autotune.report.build import FINDINGS, README, Report, WrittenReport, build_report, write_report
from autotune.report.cpu import CPU_TIMES_FORMAT, CpuTiming, read_cpu_times
from autotune.report.load import ReportInputs, Run, load_inputs

__all__ = [
    "CPU_TIMES_FORMAT",
    "FINDINGS",
    "README",
    "CpuTiming",
    "Report",
    "ReportInputs",
    "Run",
    "WrittenReport",
    "build_report",
    "load_inputs",
    "read_cpu_times",
    "write_report",
]
