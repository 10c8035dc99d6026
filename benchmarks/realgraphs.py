"""The real-graph suite (issue 28): public graphs of ten classes, fetched from the repositories
that hold them at a pinned commit, checked against their sha256 and converted to `.csr.npz` files
the suites read (`benchmarks/graphs/NAME.csr.npz`, not in git).

    python3 -m benchmarks graphs                      # fetch what is missing, convert, list
    python3 -m benchmarks graphs --offline            # convert from benchmarks/graphs/sources only
    python3 -m benchmarks graphs --sources DIR        # take the source files from DIR (by file name)

`benchmarks/realgraphs.toml` names each graph's source (repository, commit, path, sha256), how it
is read (`format`), its class, and the vertices and arcs the conversion must give. The sources are
unweighted but for the power grids: every arc gets a weight drawn uniformly from 1..100 with seed 0,
the same weight both ways on an undirected edge (what `autotune` does with any unweighted file). A
power grid (MATPOWER case, `format = "matpower"`) keeps its own weights: each branch in service is
an edge weighted by its series impedance |r + jx| in units of 1e-5 per unit (at least 1), the
electrical distance of its two buses. Ids are renumbered
0..n-1 where a file leaves gaps (SNAP's collaboration networks), self-loops and parallel arcs
dropped. The five graphs reserved for independent validation (luxembourg_osm, wave, cnr-2000,
soc-Slashdot0902, bremen) are not in the suite, and a test keeps them out.
"""
from __future__ import annotations

import hashlib
import io
import json
import lzma
import re
import shutil
import sys
import tomllib
import urllib.request
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from autotune.arguments import OneLineParser
from autotune.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = Path(__file__).resolve().parent / "realgraphs.toml"
GRAPHS_DIR = ROOT / "benchmarks" / "graphs"
RESERVED = ("luxembourg_osm", "wave", "cnr-2000", "soc-slashdot0902", "bremen")
RAW_URL = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"


class SuiteError(InputError):
    """A source that cannot be had or does not convert as the manifest says (one line, exit 2)."""


@dataclass(frozen=True)
class RealGraph:
    """One graph of the suite, as `realgraphs.toml` describes it."""

    name: str
    kind: str  # its class: road, web, social, collaboration, citation, p2p, mesh, geometric, power, internet
    about: str
    repo: str
    commit: str
    path: str
    sha256: str
    format: str  # pace, edges, metis, scipy-npz, matpower
    undirected: bool
    vertices: int
    arcs: int
    suite: str = "real"  # "large": the large-graph suite's (issue 68), left out of the real-graph suite's checks
    skip: int = 0  # edges: lines of the source's head left out (a line of counts that reads as an arc)
    columns: int = 2  # edges: integers on an arc's line, the first two its ends (`u v 1` lines: 3)

    @property
    def url(self) -> str:
        return RAW_URL.format(repo=self.repo, commit=self.commit, path=self.path)

    @property
    def source_name(self) -> str:
        return Path(self.path).name

    def csr_path(self, directory: Path | None = None) -> Path:
        return (directory or GRAPHS_DIR) / f"{self.name}.csr.npz"


@cache
def suite(manifest: Path = MANIFEST) -> tuple[RealGraph, ...]:
    """The graphs `manifest` lists (read once per process)."""
    with open(manifest, "rb") as file:
        data = tomllib.load(file)
    return tuple(RealGraph(name=name, **fields) for name, fields in data["graph"].items())


def source(graph: RealGraph, sources: Path, given: Path | None, offline: bool) -> bytes:
    """The graph's source file, checked: from `sources` (kept there), else `given`, else downloaded."""
    kept = sources / graph.source_name
    candidates = [kept] + ([given / graph.source_name] if given else [])
    for path in candidates:
        if path.is_file():
            data = path.read_bytes()
            if hashlib.sha256(data).hexdigest() == graph.sha256:
                if path != kept:
                    kept.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(path, kept)
                return data
            if path == kept:
                kept.unlink()  # a stale or torn copy: fetched again below
    if offline:
        raise SuiteError(f"{graph.name}: {kept} is missing and --offline forbids fetching {graph.url}")
    try:
        with urllib.request.urlopen(graph.url, timeout=60) as response:
            data = response.read()
    except OSError as error:
        raise SuiteError(f"{graph.name}: cannot fetch {graph.url} ({error})") from None
    if hashlib.sha256(data).hexdigest() != graph.sha256:
        raise SuiteError(f"{graph.name}: {graph.url} is not the file the manifest names (sha256 differs)")
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_bytes(data)
    return data


def int_pairs(text: bytes, columns: int = 2, skip: int = 0) -> np.ndarray:
    """The first two of each line of exactly `columns` integers after the first `skip` lines, as an
    (arcs, 2) array; every other line (comments, headers, a leading vertex count, a closing -1, a
    vertex's score) is left out."""
    rows = [line.split() for line in text.splitlines()[skip:]]
    pairs = [row[:2] for row in rows if len(row) == columns and all(token.isdigit() for token in row)]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


def matpower_rows(text: str, table: str) -> np.ndarray:
    """The numeric rows of a MATPOWER case's `mpc.<table> = [ ... ];` (comments dropped).

    Raises:
        SuiteError: the case has no such table.
    """
    found = re.search(rf"mpc\.{table}\s*=\s*\[(.*?)\];", text, re.S)
    if found is None:
        raise SuiteError(f"no mpc.{table} table in the MATPOWER case")
    rows = [line.split("%")[0].strip().rstrip(";").split() for line in found.group(1).splitlines()]
    return np.array([[float(x) for x in row] for row in rows if row], dtype=np.float64)


IMPEDANCE_UNIT = 1e-5  # a power grid's weights: series impedance in these per-unit steps


def matpower_arcs(text: str) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """(n, sources, targets, weights) of a MATPOWER case: its buses in the order listed, an edge
    per branch in service (column 11, status) weighted by round(|r + jx| / IMPEDANCE_UNIT), at least 1."""
    buses, branches = matpower_rows(text, "bus"), matpower_rows(text, "branch")
    index = {int(bus): i for i, bus in enumerate(buses[:, 0])}
    branches = branches[branches[:, 10] != 0]
    if missing := {int(b) for b in branches[:, :2].ravel()} - index.keys():
        raise SuiteError(f"a branch names bus {min(missing)}, which mpc.bus does not list")
    sources = np.array([index[int(b)] for b in branches[:, 0]], dtype=np.int64)
    targets = np.array([index[int(b)] for b in branches[:, 1]], dtype=np.int64)
    weights = np.maximum(1, np.rint(np.hypot(branches[:, 2], branches[:, 3]) / IMPEDANCE_UNIT)).astype(np.int64)
    return len(buses), sources, targets, weights


def arcs_of(graph: RealGraph, data: bytes) -> tuple[int, np.ndarray, np.ndarray, np.ndarray | None]:
    """(n, sources, targets, weights) of a source file, ids 0-based and without gaps; weights None
    where the source has none (they are drawn)."""
    if graph.format == "matpower":
        try:
            return matpower_arcs(data.decode())
        except SuiteError as error:
            raise SuiteError(f"{graph.name}: {error}") from None
    if graph.format == "pace":  # PACE 2016 `.gr.xz`: `p tw n m`, then edges `u v`, 1-based
        text = lzma.decompress(data)
        header = next(line.split() for line in text.splitlines() if line.startswith(b"p "))
        pairs = int_pairs(text)
        return int(header[2]), pairs[:, 0] - 1, pairs[:, 1] - 1, None
    if graph.format == "scipy-npz":  # scipy.sparse.save_npz of a CSR adjacency matrix
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            indptr, indices = archive["indptr"].astype(np.int64), archive["indices"].astype(np.int64)
            n = int(archive["shape"][0])
        return n, np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr)), indices, None
    if graph.format == "metis":  # read as autotune reads any METIS file
        import tempfile

        from autotune.graphs.io import read_metis

        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / graph.source_name
            path.write_bytes(data)
            edges = read_metis(path, with_weights=False)
        return edges.n_vertices, edges.sources, edges.targets, None
    if graph.format == "edges":  # an edge list; ids renumbered in order
        pairs = int_pairs(data, graph.columns, graph.skip)
        ids, compact = np.unique(pairs, return_inverse=True)
        compact = compact.reshape(-1, 2)
        return len(ids), compact[:, 0], compact[:, 1], None
    raise SuiteError(f"{graph.name}: unknown format {graph.format!r} in {MANIFEST.name}")


def convert(graph: RealGraph, data: bytes, directory: Path | None = None) -> Path:
    """Write the graph's `.csr.npz` (its own weights, or 1..100 drawn with seed 0) after checking its
    counts."""
    from autotune.graphs.build import build_csr
    from autotune.graphs.csr_file import save_csr

    n, sources, targets, weights = arcs_of(graph, data)
    csr = build_csr(f"{graph.name}.csr.npz", n, sources, targets, weights, undirected=graph.undirected)
    if (csr.n_vertices, csr.n_edges) != (graph.vertices, graph.arcs):
        raise SuiteError(f"{graph.name}: converted to {csr.n_vertices} vertices and {csr.n_edges} arcs, the manifest "
                         f"says {graph.vertices} and {graph.arcs}")
    drawn = {"weights": "1-100", "seed": 0} if weights is None else {"weights": f"impedance / {IMPEDANCE_UNIT:g} p.u."}
    meta = {"source": graph.url, "sha256": graph.sha256, "class": graph.kind, **drawn}
    directory = directory or GRAPHS_DIR
    directory.mkdir(parents=True, exist_ok=True)
    save_csr(csr, graph.csr_path(directory), json.dumps(meta))
    return graph.csr_path(directory)


def prepared(graph: RealGraph, directory: Path | None = None) -> bool:
    """Whether the graph's `.csr.npz` is there and made from the manifest's source."""
    from autotune.errors import InputError
    from autotune.graphs.csr_file import read_meta

    path = graph.csr_path(directory)
    try:
        return path.is_file() and json.loads(read_meta(path)).get("sha256") == graph.sha256
    except (InputError, ValueError):
        return False


def markdown_table(graphs: list[RealGraph]) -> list[str]:
    """The suite as docs/real-graphs.md lists it (a test keeps the two alike)."""
    lines = ["| graph | class | vertices | arcs | directed | source (repository @ commit: path) | what it is |",
             "|---|---|---:|---:|---|---|---|"]
    for g in graphs:
        kind = g.kind if g.suite == "real" else f"{g.kind} ({g.suite}-graph suite)"
        lines.append(f"| {g.name} | {kind} | {g.vertices:,} | {g.arcs:,} | {'no' if g.undirected else 'yes'} | "
                     f"`{g.repo}` @ `{g.commit[:10]}`: `{g.path}` | {g.about} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python3 -m benchmarks graphs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=GRAPHS_DIR, help="where the graphs go (default benchmarks/graphs)")
    parser.add_argument("--sources", type=Path, default=None, help="a folder holding source files (by file name)")
    parser.add_argument("--offline", action="store_true", help="fetch nothing: convert from DIR/sources only")
    parser.add_argument("--only", default="", help="comma-separated names (default: the whole suite)")
    args = parser.parse_args(argv)
    wanted = {name for name in args.only.split(",") if name}
    graphs = [g for g in suite() if not wanted or g.name in wanted]
    if unknown := wanted - {g.name for g in graphs}:
        print(f"benchmarks graphs: --only: no suite graph {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    try:
        for graph in graphs:
            if not prepared(graph, args.dir):
                convert(graph, source(graph, args.dir / "sources", args.sources, args.offline), args.dir)
            print(f"{graph.name:<16} {graph.kind:<14} {graph.vertices:>10,} vertices {graph.arcs:>11,} arcs  "
                  f"{graph.csr_path(args.dir)}", flush=True)
    except SuiteError as error:
        print(f"benchmarks graphs: {error}", file=sys.stderr)
        return 2
    return 0
