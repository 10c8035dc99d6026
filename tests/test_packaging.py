"""The wheel ships kernels/ and characterizations/, and the code finds them in a regular install."""
from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from autotune.resources import algorithm_file, characterizations_dir, kernels_dir

ROOT = Path(__file__).resolve().parents[1]

READ_BOTH = (
    "import autotune.resources as r, sys; "
    "k = r.kernels_dir() / 'sssp.cu'; c = r.algorithm_file('thesis', 'sssp.toml'); "
    "print(k); print(c); "
    "sys.exit(0 if '__global__' in k.read_text() and '[kernels' in c.read_text() else 1)"
)


def test_source_checkout_finds_both_directories():
    assert (kernels_dir() / "sssp.cu").is_file()
    assert (characterizations_dir() / "devices" / "hopper-h200.toml").is_file()
    assert algorithm_file("thesis", "sssp.toml").is_file()


@pytest.mark.slow
def test_wheel_installed_in_a_fresh_venv_reads_a_file_from_each(tmp_path):
    import hatchling  # noqa: F401  (in the test extra: a missing one must fail, not skip)
    wheel_dir = tmp_path / "wheel"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheel_dir), str(ROOT)],
        check=True,
    )
    (wheel,) = wheel_dir.glob("autotune-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "autotune/_data/kernels/sssp.cu" in names
    assert "autotune/_data/characterizations/devices/hopper-h200.toml" in names
    assert "autotune/algorithms/thesis/sssp.toml" in names  # an algorithm's characterization is in its package

    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True)
    result = subprocess.run([python, "-c", READ_BOTH], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    kernel_path, characterization_path = result.stdout.split()
    site = str(env_dir)
    assert kernel_path.startswith(site) and characterization_path.startswith(site)
