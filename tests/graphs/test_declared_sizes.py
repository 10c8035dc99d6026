"""A file's declared sizes are checked against the file before anything is allocated (issue 65):
a 23-byte .gr that declares 2^31 vertices is refused at once, with its line, not after minutes."""
from __future__ import annotations

import time

import pytest

from autotune.errors import InputError
from autotune.graphs import GraphOptions, read_graph_file
from autotune.graphs._text import ISOLATED_LIMIT


@pytest.mark.parametrize("name, text, message", [
    ("huge.gr", "p sp 2147483647 0\n", "huge.gr:1: the header says 2147483647 vertices and 0 arcs"),
    ("huge.gr", "c x\np sp 400000000 1\na 1 2 3\n", "huge.gr:2: the header says 400000000 vertices and 1 arcs"),
    ("short.gr", "p sp 4 1000000\na 1 2 3\n", "short.gr:1: the header says 1000000 arcs, but a file of 23 bytes holds at most 2"),
    ("huge.mtx", "%%MatrixMarket matrix coordinate pattern general\n300000000 300000000 1\n1 2\n",
     "huge.mtx:2: the header says 300000000 vertices and 1 entries"),
    ("short.mtx", "%%MatrixMarket matrix coordinate pattern general\n4 4 90000\n1 2\n",
     "short.mtx:2: the header says 90000 entries, but a file of"),
    ("huge.graph", "300000000 1\n2\n1\n", "huge.graph:1: the header says 300000000 vertices, but the file has 3 lines"),
    ("huge.txt", "0 2147483000\n", "huge.txt: its largest id gives 2147483001 vertices and 1 edges"),
])
def test_a_size_the_file_cannot_hold_is_refused_at_once(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    start = time.perf_counter()
    with pytest.raises(InputError) as raised:
        read_graph_file(path, GraphOptions())
    assert time.perf_counter() - start < 2.0  # nothing of the declared size was allocated
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_isolated_vertices_up_to_the_limit_are_a_graph(tmp_path):
    path = tmp_path / "sparse.gr"
    path.write_text(f"p sp {ISOLATED_LIMIT + 2} 1\na 1 2 5\n")
    graph = read_graph_file(path, GraphOptions())
    assert graph.n_vertices == ISOLATED_LIMIT + 2 and graph.n_edges == 1


def test_a_second_problem_line_is_refused_with_its_line(tmp_path):
    path = tmp_path / "two.gr"
    path.write_text("c\np sp 3 2\na 1 2 3\np sp 5 1\na 2 3 4\n")
    with pytest.raises(InputError, match=r"two\.gr:4: a second problem line \(the first is line 2\)"):
        read_graph_file(path, GraphOptions())


@pytest.mark.parametrize("name", ["g.gr", "g.txt", "g.mtx", "g.graph"])
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32"])
def test_utf16_and_utf32_text_is_named_as_such(tmp_path, name, encoding):
    path = tmp_path / name
    path.write_bytes("p sp 3 1\na 1 2 3\n".encode(encoding))
    with pytest.raises(InputError, match=r"is UTF-16 or UTF-32 text; graph files are ASCII"):
        read_graph_file(path, GraphOptions())


@pytest.mark.parametrize("name", ["g.gr", "g.txt", "g.mtx", "g.graph"])
def test_binary_data_is_named_as_such_with_its_line(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"0 1\n1 2\n\x7fELF\x00\x01garbage")
    with pytest.raises(InputError, match=r":3: binary data \(a NUL byte at byte 12\): not a text graph file"):
        read_graph_file(path, GraphOptions())
