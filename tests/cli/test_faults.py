"""Faults beyond Ctrl-C (issue 65): a full disk while the table is written leaves the previous
table as it was and says so in one line. (A sweep killed with SIGKILL and resumed:
tests/search/test_search_storage.py; a fleet worker killed: tests/search/test_fleet_runs.py.)"""
from __future__ import annotations

import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "tests" / "data" / "records" / "synthetic-rmat12.jsonl"


def _sweep(out: Path, max_file_bytes: int | None = None) -> subprocess.CompletedProcess:
    """A replayed sweep writing its table to `out`, in a process whose files may not grow past
    `max_file_bytes` (the kernel refuses the write with EFBIG, as a full disk refuses with ENOSPC)."""
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails instead of the process dying
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_file_bytes, max_file_bytes))

    argv = [sys.executable, "-m", "autotune", "sweep", "--replay", str(RECORDS), "--strategy", "model",
            "--storage", "memory", "-q", "-o", str(out)]
    return subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=300,
                          preexec_fn=None if max_file_bytes is None else limit)


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_FSIZE"), reason="no file-size limit on this system")
def test_a_full_disk_while_writing_the_table_leaves_the_previous_one_intact(tmp_path):
    out = tmp_path / "table.json"
    assert _sweep(out).returncode == 0
    previous = out.read_bytes()
    assert len(previous) > 2048
    done = _sweep(out, max_file_bytes=1024)
    assert done.returncode in (1, 2) and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"autotune: {out}: cannot write the table"), done.stderr
    assert out.read_bytes() == previous  # the previous table, whole
    assert [p.name for p in tmp_path.iterdir()] == ["table.json"]  # no temporary file left behind


def _finished_trials(url: str) -> int:
    import optuna

    from autotune.search import open_storage

    storage, _ = open_storage(url)
    return sum(len([t for t in storage.get_all_trials(storage.get_study_id_from_name(name)) if t.state.is_finished()])
               for name in optuna.get_all_study_names(storage))


def test_a_postgresql_restart_mid_sweep_is_carried_on_or_one_line_and_resumed(tmp_path, postgres_server):
    import time

    out = tmp_path / "table.json"
    argv = [sys.executable, "-m", "autotune", "sweep", "--replay", str(RECORDS), "--replay-delay-ms", "40",
            "--trials", "60", "--storage", postgres_server.url, "-q", "-o", str(out)]
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None and _finished_trials(postgres_server.url) < 8:
            time.sleep(0.1)
        assert process.poll() is None, "the sweep ended before the server could be restarted"
        before = _finished_trials(postgres_server.url)
        postgres_server.restart()
        _, err = process.communicate(timeout=240)
    finally:
        process.kill()
    assert "Traceback" not in err, err
    if process.returncode != 0:  # stopped in the middle of a query: one line, then --resume
        lines = err.strip().splitlines()
        assert process.returncode == 1 and len(lines) == 1 and "the study's storage stopped answering" in lines[0], err
        assert "--resume" in lines[0]
        done = subprocess.run([*argv, "--resume"], cwd=ROOT, capture_output=True, text=True, timeout=240)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert out.exists() and _finished_trials(postgres_server.url) >= before  # nothing finished was lost
