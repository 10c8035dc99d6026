"""Graph files -> `CSRGraph`: DIMACS 9 `.gr`, METIS `.graph`, MatrixMarket `.mtx`, SNAP edge lists
(`.txt`, `.el`, `.wel`), each optionally gzip-compressed, and autotune's own `.csr.npz`
(see `csr_file`).

Each text reader returns an `EdgeList` (0-based ids, weights if the file has them, and whether the
file describes an undirected graph); `build_csr` turns it into a graph. Errors name the file and
line: `rome99.gr:17: expected an arc line 'a u v w', found 'e 3 4'`.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from autotune.errors import InputError
from autotune.graphs._text import (
    Rows,
    blank_lines,
    check_ids,
    check_declared_sizes,
    check_vertex_count,
    check_weights,
    count_lines,
    display_name,
    is_int,
    is_number,
    line_at,
    numbers,
    parse_rows,
    read_bytes,
    shown,
    tokenize,
)
from autotune.graphs.build import build_csr
from autotune.graphs.csr import CSRGraph
from autotune.graphs.csr_file import CSR_SUFFIX, load_csr
from autotune.graphs.options import INT32_MAX, GraphOptions


@dataclass(frozen=True)
class EdgeList:
    """Arcs as a file stores them.

    Args:
        n_vertices: number of vertices; ids are 0..n_vertices-1.
        sources: int64 source id of each arc (0-based).
        targets: int64 target id of each arc (0-based).
        weights: int64 weight of each arc, or None if the file has no weights (or they were not
            asked for).
        undirected: True if each arc stands for an edge both ways.
    """

    n_vertices: int
    sources: np.ndarray
    targets: np.ndarray
    weights: np.ndarray | None
    undirected: bool


Reader = Callable[..., EdgeList]


def read_dimacs(path: Path, *, with_weights: bool = True) -> EdgeList:
    """Read a DIMACS 9th challenge `.gr` file: `c` comments, `p sp n m`, arcs `a u v w` (1-based).

    Raises:
        InputError: for a missing or malformed problem line, a malformed arc line, a vertex id
            outside 1..n, a negative weight, or fewer/more arcs than the problem line says.
    """
    where = display_name(path)
    data = read_bytes(path)
    problem = re.search(rb"(?m)^p[^\n]*", data)
    if problem is None:
        raise InputError(f"{where}: no problem line 'p sp n m'; is this a DIMACS .gr file?")
    problem_line = data.count(b"\n", 0, problem.start()) + 1
    second = re.compile(rb"(?m)^p").search(data, problem.end())
    if second is not None:
        second_line = data.count(b"\n", 0, second.start()) + 1
        raise InputError(f"{where}:{second_line}: a second problem line (the first is "
                         f"line {problem_line}); a DIMACS .gr file has one")
    fields = problem.group().split()
    if len(fields) != 4 or fields[1] != b"sp" or not (fields[2].isdigit() and fields[3].isdigit()):
        raise InputError(
            f"{where}:{problem_line}: expected a problem line 'p sp n m', "
            f"found {shown(problem.group())}"
        )
    n_vertices, n_arcs = int(fields[2]), int(fields[3])
    check_vertex_count(f"{where}:{problem_line}", n_vertices)
    check_declared_sizes(f"{where}:{problem_line}", n_vertices, n_arcs, "arcs", len(b"a 1 2 0\n"), len(data))

    def check(line: bytes) -> str | None:
        parts = line.split()
        if not parts or line[:1] in (b"c", b"p"):
            return None
        if line[:1] != b"a" or parts[0] != b"a" or len(parts) != 4 or not all(map(is_int, parts[1:3])):
            return "expected an arc line 'a u v w' (DIMACS .gr arcs start with 'a')"
        if not is_int(parts[3]):
            what = "is not an integer" if is_number(parts[3]) else "is not a number"
            return (f"weight {parts[3].decode('utf-8', 'replace')!r} {what}; DIMACS weights are integers "
                    "(--weights LO-HI draws integer weights instead)")
        return None

    body = re.sub(rb"(?m)^a(?=[ \t])", b" ", blank_lines(data, rb"[cp]"))
    rows = parse_rows(
        body, where, widths=(3,), dtype=np.int64, check=check, original=data,
        expected="an arc line 'a u v w' (DIMACS .gr arcs start with 'a')",
    )
    if len(rows.values) != n_arcs:
        state = "the file is truncated" if len(rows.values) < n_arcs else "too many arcs"
        raise InputError(
            f"{where}:{count_lines(data)}: the problem line says {n_arcs} arcs, "
            f"found {len(rows.values)}: {state}"
        )
    check_ids(where, rows, slice(0, 2), 1, n_vertices, "the problem line's n")
    weights = check_weights(where, rows, 2) if with_weights else None
    return EdgeList(n_vertices, rows.values[:, 0] - 1, rows.values[:, 1] - 1, weights, False)


def _first_content_line(data: bytes, comment: bytes) -> tuple[int, int, bytes]:
    """(line number, end offset, text) of the first line neither blank nor a comment."""
    start, number = 0, 1
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        line = data[start:end]
        if line.strip() and not line.startswith(comment):
            return number, end, line
        start, number = end + 1, number + 1
    return number, len(data), b""


def read_matrix_market(path: Path, *, with_weights: bool = True) -> EdgeList:
    """Read a MatrixMarket `coordinate` file (`pattern`, `integer` or `real`; `general` or
    `symmetric`). Rows are sources, columns targets; `symmetric` means undirected.

    Raises:
        InputError: for a bad banner or size line, a non-square matrix, a malformed entry, an id
            out of range, a negative or non-integer weight, or fewer/more entries than stated.
    """
    where = display_name(path)
    data = read_bytes(path)
    banner = data.split(b"\n", 1)[0].lower().split()
    expected_banner = "'%%MatrixMarket matrix coordinate pattern|integer|real general|symmetric'"
    if len(banner) != 5 or banner[0] != b"%%matrixmarket" or banner[1] != b"matrix":
        raise InputError(f"{where}:1: expected {expected_banner}, found {shown(line_at(data, 0))}")
    layout, field, symmetry = (token.decode("ascii", "replace") for token in banner[2:])
    if layout != "coordinate" or field not in ("pattern", "integer", "real"):
        raise InputError(
            f"{where}:1: autotune reads {expected_banner} matrices, found {layout} {field}"
        )
    if symmetry not in ("general", "symmetric"):
        raise InputError(
            f"{where}:1: symmetry '{symmetry}' is not supported (negative or complex weights); "
            "expected general or symmetric"
        )
    size_line, end, size = _first_content_line(data, b"%")
    dims = size.split()
    if len(dims) != 3 or not all(token.isdigit() for token in dims):
        raise InputError(f"{where}:{size_line}: expected a size line 'rows cols entries', "
                         f"found {shown(size)}")
    n_rows, n_cols, n_entries = map(int, dims)
    check_vertex_count(f"{where}:{size_line}", n_rows)
    check_declared_sizes(f"{where}:{size_line}", n_rows, n_entries, "entries", len(b"1 1\n"), len(data))
    if n_rows != n_cols:
        raise InputError(f"{where}:{size_line}: a graph needs a square matrix, found {n_rows} x "
                         f"{n_cols}")
    width = 2 if field == "pattern" else 3
    expected = "an entry 'row col'" if width == 2 else f"an entry 'row col {field}-value'"

    def check(line: bytes) -> str | None:
        parts = line.split()
        if not parts or line.startswith(b"%"):
            return None
        if len(parts) != width or not all(map(is_int, parts[:2])) or not all(map(is_number, parts)):
            return f"expected {expected}"
        return None

    body = blank_lines(data[end + 1:], rb"%")
    rows = parse_rows(
        body, where, widths=(width,), dtype=np.float64 if field == "real" else np.int64,
        expected=expected, check=check, original=data[end + 1:], first_line=size_line + 1,
    )
    if len(rows.values) != n_entries:
        state = "the file is truncated" if len(rows.values) < n_entries else "too many entries"
        raise InputError(f"{where}:{count_lines(data)}: the size line says {n_entries} entries, "
                         f"found {len(rows.values)}: {state}")
    if field == "real":
        ids = rows.values[:, :2]
        bad = np.flatnonzero((ids != np.floor(ids)).any(axis=1))
        if len(bad):
            raise InputError(f"{where}:{rows.line_of(int(bad[0]))}: row and column must be "
                             "integers")
    check_ids(where, rows, slice(0, 2), 1, n_rows, "the size line's rows")
    weights = check_weights(where, rows, 2) if with_weights and width == 3 else None
    ids = rows.values[:, :2].astype(np.int64) - 1
    return EdgeList(n_rows, ids[:, 0], ids[:, 1], weights, symmetry == "symmetric")


def _metis_format(where: str, line: int, header: list[bytes]) -> tuple[int, int, bool]:
    """(tokens to skip per vertex line, vertex-size flag, edge-weight flag) from a METIS header."""
    fmt = header[2].decode("ascii", "replace") if len(header) > 2 else "0"
    if len(fmt) > 3 or any(digit not in "01" for digit in fmt):
        raise InputError(f"{where}:{line}: METIS fmt must be up to 3 digits 0/1, found '{fmt}'")
    fmt = fmt.zfill(3)
    has_sizes, has_vertex_weights, has_edge_weights = (digit == "1" for digit in fmt)
    ncon = int(header[3]) if len(header) > 3 else 1
    skip = int(has_sizes) + (ncon if has_vertex_weights else 0)
    return skip, int(has_sizes), has_edge_weights


def read_metis(path: Path, *, with_weights: bool = True) -> EdgeList:
    """Read a METIS `.graph` file: header `n m [fmt [ncon]]`, then one line per vertex listing its
    1-based neighbours (with edge weights after each neighbour when fmt ends in 1). Undirected.

    Raises:
        InputError: for a bad header, a malformed vertex line, an id out of range, fewer vertex
            lines than n (truncated), or an adjacency count other than 2m.
    """
    where = display_name(path)
    data = read_bytes(path)
    header_line, end, header_text = _first_content_line(data, b"%")
    header = header_text.split()
    if not 2 <= len(header) <= 4 or not all(token.isdigit() for token in header):
        raise InputError(f"{where}:{header_line}: expected a METIS header 'n m [fmt [ncon]]', "
                         f"found {shown(header_text)}")
    n_vertices, n_edges = int(header[0]), int(header[1])
    check_vertex_count(f"{where}:{header_line}", n_vertices)
    lines_after = data.count(b"\n", end + 1) + 1
    if n_vertices > lines_after:  # a line per vertex: checked before anything is allocated
        raise InputError(f"{where}:{header_line}: the header says {n_vertices} vertices, but the file has "
                         f"{lines_after} lines after it (one a vertex): truncated, or the header mistyped")
    skip, _, has_edge_weights = _metis_format(where, header_line, header)
    original = data[end + 1:]
    body = blank_lines(original, rb"%")
    comment_starts = [match.start() for match in re.finditer(rb"(?m)^%", original)]
    tokens = tokenize(body)
    counts = tokens.line_counts
    is_vertex = np.ones(len(counts), dtype=bool)
    newlines = np.flatnonzero(np.frombuffer(original, dtype=np.uint8) == 10)
    comment_lines = np.searchsorted(newlines, comment_starts).astype(np.int64)
    is_vertex[comment_lines[comment_lines < len(counts)]] = False
    vertex_lines = np.flatnonzero(is_vertex)
    first = header_line + 1
    if len(vertex_lines) < n_vertices:
        raise InputError(f"{where}:{count_lines(data)}: the header says {n_vertices} vertices, "
                         f"found {len(vertex_lines)} vertex lines: the file is truncated")
    extra = vertex_lines[n_vertices:]
    if np.any(counts[extra]):
        index = int(extra[np.flatnonzero(counts[extra])[0]])
        raise InputError(f"{where}:{first + index}: the header says {n_vertices} vertices, "
                         f"found more vertex lines: {shown(line_at(original, index))}")
    vertex_of_line = np.full(len(counts), -1, dtype=np.int64)
    vertex_of_line[vertex_lines[:n_vertices]] = np.arange(n_vertices)
    entries = counts - skip
    bad = (entries < 0) | ((entries % 2 == 1) if has_edge_weights else False)
    bad = np.flatnonzero(bad & is_vertex & (vertex_of_line >= 0))
    if len(bad):
        index = int(bad[0])
        what = "neighbour/weight pairs" if has_edge_weights else "neighbours"
        raise InputError(f"{where}:{first + index}: expected a vertex line of {what}, "
                         f"found {shown(line_at(original, index))}")
    values = numbers(body, len(tokens.token_lines), np.int64)
    if values is None:
        for index, line in enumerate(original.split(b"\n")):
            if not line.startswith(b"%") and not all(map(is_int, line.split())):
                raise InputError(f"{where}:{first + index}: expected integers, "
                                 f"found {shown(line)}")
        raise InputError(f"{where}: expected only integers after the header")
    first_token = np.cumsum(counts) - counts
    position = np.arange(len(values)) - first_token[tokens.token_lines] - skip
    is_neighbour = position >= 0
    if has_edge_weights:
        is_neighbour &= position % 2 == 0
    neighbour_lines = tokens.token_lines[is_neighbour]
    targets = values[is_neighbour]
    bad = np.flatnonzero((targets < 1) | (targets > n_vertices))
    if len(bad):
        raise InputError(f"{where}:{first + int(neighbour_lines[bad[0]])}: vertex id "
                         f"{targets[bad[0]]} is outside 1..{n_vertices} (the header's n)")
    if len(targets) != 2 * n_edges:
        raise InputError(f"{where}:{header_line}: the header says {n_edges} edges "
                         f"({2 * n_edges} adjacency entries), found {len(targets)} entries")
    weights = None
    if has_edge_weights and with_weights:
        is_weight = (position >= 0) & ~is_neighbour
        weight_rows = Rows(values[is_weight][:, None].astype(np.float64),
                           tokens.token_lines[is_weight] + first)
        weights = check_weights(where, weight_rows, 0)
    return EdgeList(n_vertices, vertex_of_line[neighbour_lines], targets - 1, weights, True)


_SNAP_HEADER = re.compile(rb"(?m)^#\s*Nodes:\s*(\d+)\s*Edges:\s*(\d+)")


def read_edge_list(path: Path, *, with_weights: bool = True) -> EdgeList:
    """Read a SNAP-style edge list: `#` or `%` comments, lines `u v` or `u v w`, 0-based, directed.

    The vertex count is one more than the largest id, or the `# Nodes: N` header's N if larger.

    Raises:
        InputError: for a malformed line, a negative id, a negative weight, or fewer lines than a
            `# Nodes: N Edges: M` header announces (truncated).
    """
    where = display_name(path)
    data = read_bytes(path)

    def check(line: bytes) -> str | None:
        parts = line.split()
        if not parts or line[:1] in (b"#", b"%"):
            return None
        return None if len(parts) in (2, 3) and all(map(is_int, parts)) else "expected 'u v [w]'"

    rows = parse_rows(
        blank_lines(data, rb"[#%]"), where, widths=(2, 3), dtype=np.int64,
        expected="an edge line 'u v' or 'u v w' (every line alike)", check=check, original=data,
    )
    header = _SNAP_HEADER.search(data)
    header_nodes = int(header.group(1)) if header else 0
    if not len(rows.values) and not header_nodes:
        raise InputError(f"{where}: no edges and no '# Nodes: N' header: an empty graph")
    if header and len(rows.values) < int(header.group(2)):
        raise InputError(f"{where}:{count_lines(data)}: the header says {header.group(2).decode()}"
                         f" edges, found {len(rows.values)}: the file is truncated")
    check_ids(where, rows, slice(0, 2), 0, INT32_MAX - 1, "ids are 0-based")
    largest = int(rows.values[:, :2].max()) + 1 if len(rows.values) else 0
    check_declared_sizes(where, max(largest, header_nodes), len(rows.values), "edges", 0, len(data),
                         "its largest id and '# Nodes:' header give" if header_nodes else "its largest id gives")
    weights = None
    if with_weights and rows.values.shape[1] == 3:
        weights = check_weights(where, rows, 2)
    return EdgeList(max(largest, header_nodes), rows.values[:, 0], rows.values[:, 1], weights,
                    False)


READERS: dict[str, Reader] = {
    ".gr": read_dimacs,
    ".graph": read_metis,
    ".mtx": read_matrix_market,
    ".txt": read_edge_list,
    ".el": read_edge_list,
    ".wel": read_edge_list,
}
SUFFIXES = (*READERS, CSR_SUFFIX)


def graph_format(path: Path) -> str | None:
    """The format suffix of `path` (`.gr`, ..., `.csr.npz`), ignoring `.gz` (except on `.csr.npz`,
    a compressed archive already); None if unknown."""
    name = path.name.lower()
    if name.endswith(CSR_SUFFIX):  # a zip archive already: never gzipped
        return CSR_SUFFIX
    if name.endswith(".gz"):
        name = name[:-3]
    suffix = os.path.splitext(name)[1]
    return suffix if suffix in READERS else None


def read_graph_file(path: Path, options: GraphOptions = GraphOptions()) -> CSRGraph:
    """Read any supported graph file into a CSR graph named after the file.

    Args:
        path: the file; its format is chosen by extension (after an optional `.gz`).
        options: seed and weight range for drawn weights (see `GraphOptions`).

    Returns:
        The graph, self-loops dropped, parallel arcs merged (smallest weight kept), undirected
        inputs as arcs both ways.

    Raises:
        InputError: for an unknown extension or any problem with the file (with file:line).

    Example:
        >>> read_graph_file(Path("tests/data/rome99.gr.gz")).n_vertices
        3353
    """
    fmt = graph_format(path)
    if fmt is None:
        raise InputError(f"{display_name(path)}: unknown graph file format; expected one of "
                         f"{', '.join(SUFFIXES)} (optionally .gz)")
    if fmt == CSR_SUFFIX:
        return load_csr(path, options)
    edges = READERS[fmt](path, with_weights=options.weights is None)
    return build_csr(path.name, edges.n_vertices, edges.sources, edges.targets, edges.weights,
                     undirected=edges.undirected, options=options)
