"""Property-based fuzzing of every reader and option parser (hypothesis): random bytes, and valid
files mutated (bytes flipped, cut short, re-encoded as UTF-16), never produce a traceback: a
command ends with exit 0 or 1 (a run that did its work, or found nothing) or with the usual error,
exit 2 and one line naming what was wrong, and it never touches a file it did not write."""
from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autotune.cli import main

DATA = Path(__file__).parent / "data"
RECORDS = DATA / "records" / "synthetic-rmat12.jsonl"

VALID_GR = b"c tiny\np sp 4 4\na 1 2 3\na 2 3 4\na 3 4 1\na 4 1 2\n"
VALID_METIS = b"% tiny\n4 4 1\n2 3 4 3\n1 3 3 4\n2 4\n1 2 3 1\n"
VALID_MTX = b"%%MatrixMarket matrix coordinate integer general\n4 4 3\n1 2 5\n2 3 1\n3 4 2\n"
VALID_SNAP = b"# tiny\n0\t1\n1\t2\n2\t3\n3\t0\n"
VALID_DEVICE = (Path(__file__).parents[1] / "characterizations" / "devices" / "hopper-h100.toml").read_bytes()
VALID_FITTED = (Path(__file__).parents[1] / "characterizations" / "fitted-h100-crauser.toml").read_bytes()


def _valid_table() -> bytes:
    """A predicted table of the tiny graph (what `predict -o` writes)."""
    with tempfile.TemporaryDirectory() as work:
        graph, table = Path(work) / "g.gr", Path(work) / "t.json"
        graph.write_bytes(VALID_GR)
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["predict", "--graph", str(graph), "--device", "hopper-h100", "-o", str(table)]) == 0
        return table.read_bytes()


VALID_TABLE = _valid_table()
VALID_CONFIG = json.dumps(json.loads(VALID_TABLE)["entries"][0]["predicted"]["config"]).encode()
VALID_RECORDS = b"\n".join(RECORDS.read_bytes().splitlines()[:40]) + b"\n"
VALID_CPU_TIMES = (DATA / "report" / "cpu-times.jsonl").read_bytes() if (DATA / "report" / "cpu-times.jsonl").exists() \
    else b'{"format": "autotune.cpu-times/1"}\n'


def run(argv: list[str]) -> tuple[int, str]:
    """The command's exit status and what it wrote to stderr; a traceback fails the test."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = main(argv)
        except SystemExit as exit_:  # argparse: usage and one error line, exit 2
            status = exit_.code if isinstance(exit_.code, int) else 2
    return status, err.getvalue()


def digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def check(argv_of: Callable[[Path, Path], list[str]], name: str, content: bytes, outputs: tuple[str, ...] = ()) -> None:
    """Write `content` as `name` in a fresh folder, run the command on it, and check the outcome."""
    work = Path(tempfile.mkdtemp())
    try:
        target = work / name
        target.write_bytes(content)
        (work / "keep.txt").write_text("an existing file no command may touch\n")
        before = digests(work)
        status, err = run(argv_of(target, work))
        assert "Traceback" not in err, err
        assert status in (0, 1, 2), (status, err)
        if status == 2:  # the error is the last line; a note may come before it, or argparse's usage
            lines = [line for line in err.splitlines() if line.strip()]
            assert lines and lines[-1].startswith(("autotune: ", "autotune ")), err
            assert all(line.startswith(("autotune", "usage:", "  ")) for line in lines), err
        after = digests(work)
        for path, digest in before.items():
            assert after.get(path) == digest, f"{path} was changed or removed"
        assert set(after) - set(before) <= set(outputs), set(after) - set(before)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def mutated(valid: bytes) -> st.SearchStrategy[bytes]:
    """`valid` with bytes replaced, inserted or dropped, cut short, gzip-wrapped or as UTF-16;
    or plain random bytes."""
    def flip(data: bytes, edits: list[tuple[int, int, int]]) -> bytes:
        out = bytearray(data)
        for kind, at, value in edits:
            at = at % (len(out) + 1)
            if kind == 0 and at < len(out):
                out[at] = value
            elif kind == 1:
                out.insert(at, value)
            elif at < len(out):
                del out[at]
        return bytes(out)

    edits = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=6)
    return st.one_of(
        st.binary(max_size=300),
        st.builds(flip, st.just(valid), edits),
        st.integers(0, len(valid)).map(lambda n: valid[:n]),
        st.just(valid.decode("utf-8", "replace").encode("utf-16")),
        st.builds(flip, st.just(valid), edits).map(gzip.compress),
    )


FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

READERS = {
    "graph .gr": ("g.gr", VALID_GR, lambda p, w: ["graph", "info", str(p)], ()),
    "graph .gr.gz": ("g.gr.gz", gzip.compress(VALID_GR), lambda p, w: ["graph", "info", str(p)], ()),
    "graph .graph": ("g.graph", VALID_METIS, lambda p, w: ["graph", "info", str(p)], ()),
    "graph .mtx": ("g.mtx", VALID_MTX, lambda p, w: ["graph", "info", str(p)], ()),
    "graph .txt": ("g.txt", VALID_SNAP, lambda p, w: ["graph", "info", str(p)], ()),
    "graph .csr.npz": ("g.csr.npz", b"PK\x03\x04" + bytes(40), lambda p, w: ["graph", "info", str(p)], ()),
    "table show": ("t.json", VALID_TABLE, lambda p, w: ["table", "show", str(p)], ()),
    "table export c-header": ("t.json", VALID_TABLE, lambda p, w: ["table", "export", str(p), "--format", "c-header",
                                                                   "-o", str(w / "h.h")], ("h.h",)),
    "table export json": ("t.json", VALID_TABLE, lambda p, w: ["table", "export", str(p), "--format", "json",
                                                               "-o", str(w / "e.json")], ("e.json",)),
    "table merge": ("t.json", VALID_TABLE, lambda p, w: ["table", "merge", str(p), "-q", "-o", str(w / "m.json")],
                    ("m.json",)),
    "sssp --table": ("t.json", VALID_TABLE, lambda p, w: ["sssp", "--graph", "rmat8", "--table", str(p)], ()),
    "sssp --config": ("c.json", VALID_CONFIG, lambda p, w: ["sssp", "--graph", "rmat8", "--config", str(p)], ()),
    "predict --device": ("d.toml", VALID_DEVICE, lambda p, w: ["predict", "--graph", "rmat8", "--device", str(p)], ()),
    "predict --model": ("m.toml", VALID_FITTED, lambda p, w: ["predict", "--graph", "rmat8", "--device", "hopper-h100",
                                                              "--model", str(p)], ()),
    "sweep --replay": ("r.jsonl", VALID_RECORDS, lambda p, w: ["sweep", "--replay", str(p), "--strategy", "model", "-q",
                                                               "-o", str(w / "t.json")], ("t.json",)),
    "report": ("t.json", VALID_TABLE, lambda p, w: ["report", str(p), "--no-figures", "-q", "-o", str(w / "out")],
               ("out/README.md",)),
    "report --cpu-times": ("c.jsonl", VALID_CPU_TIMES, lambda p, w: ["report", str(RECORDS), "--no-figures", "-q",
                                                                     "--cpu-times", str(p), "-o", str(w / "out")],
                           ("out/README.md",)),
    "model fit": ("r.jsonl", VALID_RECORDS, lambda p, w: ["model", "fit", str(p), "--features", str(p), "-o",
                                                          str(w / "f.toml")], ("f.toml",)),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_reader_never_crashes_nor_touches_files(reader):
    name, valid, argv_of, outputs = READERS[reader]

    @FUZZ
    @given(mutated(valid))
    def fuzz(content: bytes) -> None:
        check(argv_of, name, content, outputs)

    fuzz()


# Option values: what a user may type, and worse. A generated graph spec could name a huge graph
# (rmat30), so spec texts are fuzzed on `predict --graph` only where they cannot be one.
OPTIONS = {
    "--block-sizes": ["sweep", "--block-sizes"],
    "--caches": ["sweep", "--caches"],
    "--ck": ["sweep", "--ck"],
    "--lanes": ["sweep", "--lanes"],
    "--param": ["sweep", "--param"],
    "--noise": ["sweep", "--noise"],
    "--prune-factor": ["sweep", "--prune-factor"],
    "--seed": ["sweep", "--seed"],
    "--weights": ["sweep", "--weights"],
    "--trials": ["sweep", "--trials"],
    "--finalists": ["sweep", "--finalists"],
    "--objective": ["sweep", "--objective"],
    "--queries": ["sweep", "--queries"],
    "--budget": ["sweep", "--budget"],
    "--sources": ["sssp", "--graph", "rmat6", "--sources"],
    "--delta": ["sssp", "--graph", "rmat6", "--cpu", "--algorithm", "delta", "--delta"],
    "--source": ["sssp", "--graph", "rmat6", "--cpu", "--source"],
}
OPTION_TEXT = st.one_of(st.text(max_size=20), st.sampled_from(
    ["-1", "0", "nan", "inf", "1e999", "1,,2", "32-", "-32", "1024-32", "delta=", "=1", "loop=x", "1.5", "0x10",
     "99999999999999999999", "", " ", "1 2", "\x00", "default,nope"]))


@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_an_option_parser_never_crashes(option):
    prefix = OPTIONS[option]

    @FUZZ
    @given(OPTION_TEXT)
    def fuzz(text: str) -> None:
        if prefix[0] == "sweep":
            argv_of = lambda p, w: [*prefix, text, "--replay", str(p), "--strategy", "model", "-q",  # noqa: E731
                                    "-o", str(w / "t.json")]
            check(argv_of, "r.jsonl", VALID_RECORDS, ("t.json",))
        else:
            check(lambda p, w: [*prefix, text], "unused.txt", b"", ())

    fuzz()


@FUZZ
@given(st.text(max_size=24).filter(lambda t: not t.lower().lstrip().startswith(("rmat", "random"))))
def test_a_graph_spec_never_crashes(spec):
    check(lambda p, w: ["predict", "--graph", spec, "--device", "hopper-h100"], "unused.txt", b"", ())


def _valid_hierarchy() -> tuple[bytes, int]:
    import numpy as np

    from autotune.graphs import build_csr
    from autotune.hierarchy.contraction import contract
    from autotune.hierarchy.layout import Hierarchy

    graph = build_csr("g", 6, np.array([0, 1, 2, 3, 4, 0, 2]), np.array([1, 2, 3, 4, 5, 3, 5]),
                      np.array([1, 2, 3, 4, 5, 9, 1]))
    return Hierarchy.from_contraction(*contract(graph)).to_bytes(), graph.n_vertices


VALID_HIERARCHY, HIERARCHY_VERTICES = _valid_hierarchy()


@FUZZ
@given(mutated(VALID_HIERARCHY))
def test_a_kept_hierarchy_is_read_whole_or_refused_as_not_one(content):
    """A kept hierarchy (PHAST's) that a crash or a disk tore is refused with why (its store then
    builds it again), never a traceback nor a hierarchy whose arcs break the level order."""
    from autotune.hierarchy.layout import Hierarchy

    work = Path(tempfile.mkdtemp())
    try:
        path = work / "h.npz"
        path.write_bytes(content)
        try:
            found = Hierarchy.from_file(path, HIERARCHY_VERTICES)
        except ValueError as error:
            assert "\n" not in str(error)
            return
        found.check(HIERARCHY_VERTICES)
    finally:
        shutil.rmtree(work, ignore_errors=True)


BENCHMARK_OPTIONS = ("--repetitions", "--cpu-sources", "--graphs", "--results", "--table")


@FUZZ
@given(st.sampled_from(BENCHMARK_OPTIONS), OPTION_TEXT)
def test_the_benchmarks_command_line_never_crashes(option, text):
    """`python3 -m benchmarks run kernels OPTION TEXT` on this GPU-less machine: one line and an exit
    status, whatever the text (the suite needs a GPU, so nothing is measured or written)."""
    from benchmarks.__main__ import main as benchmarks_main

    work = Path(tempfile.mkdtemp())
    err = io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(work)
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                status = benchmarks_main(["run", "kernels", option, text])
            except SystemExit as exit_:
                status = exit_.code
        lines = [line for line in err.getvalue().splitlines() if line.strip()]
        assert status in (1, 2) and len(lines) == 1 and "Traceback" not in err.getvalue(), err.getvalue()
        assert lines[0].startswith("python3 -m benchmarks"), lines
        assert not any(work.iterdir())  # nothing written
    finally:
        os.chdir(cwd)
        shutil.rmtree(work, ignore_errors=True)

