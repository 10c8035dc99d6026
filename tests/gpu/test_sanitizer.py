"""The kernels' main paths under compute-sanitizer's memcheck (`scripts/sanitize_kernels.py`; run AJ of
docs/notes/delta-kernels.md has every case and tool): the grid's one query, delta_lanes' batch and PHAST's batch,
each solve checked against scipy by the command it runs."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
CASES = ("grid", "lanes", "phast-batch")


@pytest.mark.skipif(shutil.which("compute-sanitizer") is None, reason="compute-sanitizer is not on the PATH")
def test_the_main_paths_have_no_memory_error(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "graphs"))  # rome99's hierarchy is built there
    rows_file = tmp_path / "rows.jsonl"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "sanitize_kernels.py"), str(rows_file), "--only",
                    ",".join(CASES), "--tools", "memcheck", "--jobs", "3"], check=True, cwd=ROOT)
    rows = [json.loads(line) for line in rows_file.read_text().splitlines()]
    assert sorted(row["case"] for row in rows) == sorted(CASES)
    for row in rows:
        assert row["returncode"] == 0 and row["summary"] == "ERROR SUMMARY: 0 errors", row
