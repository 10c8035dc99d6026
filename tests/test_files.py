"""autotune.files: atomic writes (no GPU)."""
from __future__ import annotations

import os
import stat

import pytest

from autotune.errors import AutotuneError
from autotune.files import atomic_write


def test_a_file_is_replaced_whole(tmp_path):
    target = tmp_path / "sub" / "t.json"
    atomic_write(target, "one")
    atomic_write(target, b"two")
    assert target.read_text() == "two" and [p.name for p in target.parent.iterdir()] == ["t.json"]


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_dev_null_is_written_to_never_replaced():
    """`-o /dev/null` (a script that wants no table) must not replace the device, even as root."""
    atomic_write("/dev/null", "{}")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_an_unwritable_place_is_one_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(AutotuneError, match="cannot write the table"):
        atomic_write(blocker / "t.json", "{}", "the table")


def test_a_gz_name_is_written_gzip_once_and_read_back(tmp_path):
    import gzip

    from autotune.files import read_text

    target = tmp_path / "t.jsonl.gz"
    atomic_write(target, "{}\n")
    assert target.read_bytes()[:2] == b"\x1f\x8b" and read_text(target) == "{}\n"
    atomic_write(target, gzip.compress(b"[]\n"))  # gzip already: not compressed twice
    assert read_text(target) == "[]\n"
    atomic_write(tmp_path / "t.jsonl", "{}\n")
    assert (tmp_path / "t.jsonl").read_text() == "{}\n"
