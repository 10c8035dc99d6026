"""`autotune`'s entry point: a command imports its own module only; help lists every command."""
from __future__ import annotations

import subprocess
import sys

import pytest

from autotune.cli import _command_module, main


@pytest.mark.parametrize("argv, module", [
    (["predict", "--graph", "rmat10"], "predict"), (["--debug", "table", "show", "t.json"], "table"),
    (["sweep-worker", "--run", "r"], "sweep"), (["--version"], None), (["predikt"], None), ([], None)])
def test_the_command_names_the_one_module_to_import(argv, module):
    assert _command_module(argv) == module


def test_a_command_leaves_the_other_commands_modules_unimported():
    code = ("import sys, contextlib\nfrom autotune.cli import main\nwith contextlib.suppress(SystemExit): "
            "main(['predict', '--help'])\nprint(sorted(m for m in sys.modules if m.startswith('autotune.cli.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "'autotune.cli.predict'" in loaded and "'autotune.cli.sweep'" not in loaded


def test_help_and_a_mistyped_command_list_every_command(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = capsys.readouterr().out
    assert all(command in listed for command in ("graph", "sssp", "predict", "sweep", "table", "model"))
    with pytest.raises(SystemExit) as exit_:
        main(["predikt"])
    assert exit_.value.code == 2 and "sweep-worker" in capsys.readouterr().err
