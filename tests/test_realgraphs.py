"""The real-graph suite (benchmarks/realgraphs.py): its manifest, each source format's conversion,
and how a source is had (kept, given, downloaded) and refused, all without the network."""
from __future__ import annotations

import dataclasses
import hashlib
import http.server
import io
import lzma
import threading
from pathlib import Path

import numpy as np
import pytest

from benchmarks import data, realgraphs
from benchmarks.realgraphs import RESERVED, RealGraph, SuiteError, convert, markdown_table, source, suite

ROOT = Path(__file__).resolve().parents[1]


def test_the_suite_has_fifteen_graphs_of_10k_to_2m_vertices_and_six_classes_or_more_none_reserved():
    graphs = suite()
    assert sum(10_000 <= g.vertices <= 2_000_000 for g in graphs) >= 15 and len({g.name for g in graphs}) == len(graphs)
    assert len({g.kind for g in graphs}) >= 6
    for g in graphs:
        assert g.vertices <= 2_000_000, g.name
        assert len(g.sha256) == 64 and len(g.commit) == 40
        assert g.format in ("pace", "edges", "metis", "scipy-npz", "matpower")
        text = f"{g.name} {g.path} {g.about} {g.repo}".lower()
        assert not any(reserved in text for reserved in RESERVED), g.name
    assert set(data.real_suite()) == {g.name for g in graphs if g.suite == "real"}
    assert data.spec("rmat17") == "rmat17"


def test_a_suite_graph_is_converted_from_its_kept_source_on_first_use_and_never_fetched(tmp_path, monkeypatch):
    graph = _graph("edges", EDGES, False, 3, 2, name="kept")
    monkeypatch.setattr(realgraphs, "suite", lambda manifest=None: [graph])
    monkeypatch.setattr(realgraphs, "GRAPHS_DIR", tmp_path)
    with pytest.raises(SuiteError, match="--offline forbids fetching"):
        data.spec("kept")
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "kept.src").write_bytes(EDGES)
    assert data.spec("kept") == str(tmp_path / "kept.csr.npz") and realgraphs.prepared(graph, tmp_path)


def test_the_docs_list_the_suite_as_the_manifest_has_it():
    text = (ROOT / "docs" / "real-graphs.md").read_text()
    listed = text.split("<!-- realgraphs -->\n")[1].split("<!-- /realgraphs -->")[0].rstrip("\n").split("\n")
    assert listed == markdown_table(suite())


def _graph(fmt: str, content: bytes, undirected: bool, vertices: int, arcs: int, name: str = "tiny") -> RealGraph:
    return RealGraph(name, "test", "a test graph", "owner/repo", "0" * 40, f"files/{name}.src",
                     hashlib.sha256(content).hexdigest(), fmt, undirected, vertices, arcs)


PACE = lzma.compress(b"c a comment\np tw 4 3\n1 2\n2 3\n3 4\n")
EDGES = b"# Nodes: 3 Edges: 3\nFromNodeId\tToNodeId\n10\t20\n20\t30\n30\t30\n"  # gaps, a header line, a self-loop


def _scipy_npz() -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, indptr=np.array([0, 2, 2, 3]), indices=np.array([1, 2, 0]), data=np.ones(3),
             shape=np.array([3, 3]), format=np.array("csr"))
    return buffer.getvalue()


@pytest.mark.parametrize("fmt,content,undirected,vertices,arcs,offsets", [
    ("pace", PACE, True, 4, 6, [0, 1, 3, 5, 6]),
    ("edges", EDGES, False, 3, 2, [0, 1, 2, 2]),
    ("scipy-npz", _scipy_npz(), False, 3, 3, [0, 2, 2, 3]),
    ("metis", b"3 2\n2 3\n1\n1\n", True, 3, 4, [0, 2, 3, 4]),
])
def test_each_format_converts_to_the_counts_the_manifest_names(tmp_path, fmt, content, undirected, vertices, arcs,
                                                                offsets):
    from autotune.graphs.csr_file import load_csr

    graph = _graph(fmt, content, undirected, vertices, arcs)
    csr = load_csr(convert(graph, content, tmp_path))
    assert csr.row_offsets.tolist() == offsets
    assert csr.weights.min() >= 1 and csr.weights.max() <= 100
    assert realgraphs.prepared(graph, tmp_path)
    with pytest.raises(SuiteError, match="converted to 3 vertices and 2 arcs, the manifest says 3 and 5"):
        convert(dataclasses.replace(_graph("edges", EDGES, False, 3, 5)), EDGES, tmp_path)


def test_an_edge_list_after_a_line_of_counts_or_of_weighted_lines_reads_only_its_arcs(tmp_path):
    from autotune.graphs.csr_file import load_csr

    counted = b"2 3\n0 1\n1 2\n0 0.5\n2 0.25\n"  # `m n`, the arcs, a score per vertex (RKG-kumar's files)
    weighted = b"3\n0 1 1\n1 0 1\n1 2 1\n2 1 1\n-1"  # n, `u v 1` lines both ways, -1 (MC-io's files)
    as_read = dataclasses.replace(_graph("edges", counted, True, 3, 4), skip=1)
    assert realgraphs.int_pairs(counted, skip=1).tolist() == [[0, 1], [1, 2]]
    assert realgraphs.int_pairs(counted).tolist() == [[2, 3], [0, 1], [1, 2]]  # the counts read as an arc
    assert load_csr(convert(as_read, counted, tmp_path)).row_offsets.tolist() == [0, 1, 3, 4]
    assert realgraphs.int_pairs(weighted, columns=3).tolist() == [[0, 1], [1, 0], [1, 2], [2, 1]]
    assert realgraphs.int_pairs(weighted).tolist() == []


MATPOWER = b"""function mpc = tiny
%% bus data
mpc.bus = [
\t7\t3\t0.0\t0.0\t0.0\t0.0\t1\t1.0\t0.0\t380.0\t1\t1.1\t0.9; % a comment
\t9\t1\t0.0\t0.0\t0.0\t0.0\t1\t1.0\t0.0\t380.0\t1\t1.1\t0.9;
\t12\t1\t0.0\t0.0\t0.0\t0.0\t1\t1.0\t0.0\t380.0\t1\t1.1\t0.9;
];
%% branch data
%\tfbus\ttbus\tr\tx\tb\trateA\trateB\trateC\tratio\tangle\tstatus\tangmin\tangmax
mpc.branch = [
\t7\t9\t0.0003\t0.0004\t0.0\t0.0\t0.0\t0.0\t0.0\t0.0\t1\t-30.0\t30.0;
\t9\t12\t0.0\t0.000001\t0.0\t0.0\t0.0\t0.0\t0.0\t0.0\t1\t-30.0\t30.0;
\t7\t12\t0.1\t0.1\t0.0\t0.0\t0.0\t0.0\t0.0\t0.0\t0\t-30.0\t30.0;
];
"""


def test_a_power_grid_keeps_its_branches_impedances_as_weights_and_drops_those_out_of_service(tmp_path):
    from autotune.graphs.csr_file import load_csr, read_meta

    graph = _graph("matpower", MATPOWER, True, 3, 4)
    csr = load_csr(convert(graph, MATPOWER, tmp_path))
    assert csr.row_offsets.tolist() == [0, 1, 3, 4] and csr.columns.tolist() == [1, 0, 2, 1]
    assert csr.weights.tolist() == [50, 50, 1, 1]  # |0.0003 + 0.0004j| = 5e-4 p.u.; 1e-6 p.u. rounds up to 1
    assert "impedance" in read_meta(graph.csr_path(tmp_path))
    with pytest.raises(SuiteError, match="tiny: no mpc.branch table"):
        convert(graph, MATPOWER.split(b"%% branch")[0], tmp_path)
    with pytest.raises(SuiteError, match="tiny: a branch names bus 13, which mpc.bus does not list"):
        convert(graph, MATPOWER.replace(b"\t9\t12\t", b"\t9\t13\t"), tmp_path)


def test_a_source_is_kept_taken_from_a_folder_or_downloaded_and_a_wrong_one_is_refused(tmp_path, monkeypatch):
    graph = _graph("edges", EDGES, False, 3, 2)
    kept = tmp_path / "sources"
    with pytest.raises(SuiteError, match="tiny: .*tiny.src is missing and --offline forbids fetching"):
        source(graph, kept, None, offline=True)
    given = tmp_path / "given"
    given.mkdir()
    (given / "tiny.src").write_bytes(b"not it")
    with pytest.raises(SuiteError, match="missing and --offline"):
        source(graph, kept, given, offline=True)  # a file of that name but another content is not taken
    (given / "tiny.src").write_bytes(EDGES)
    assert source(graph, kept, given, offline=True) == EDGES and (kept / "tiny.src").read_bytes() == EDGES
    (kept / "tiny.src").write_bytes(EDGES[:10])  # torn: dropped, then downloaded
    served = {"/owner/repo/" + "0" * 40 + "/files/tiny.src": EDGES}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            body = served.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setattr(realgraphs, "RAW_URL", f"http://127.0.0.1:{server.server_port}/{{repo}}/{{commit}}/{{path}}")
        assert source(graph, kept, None, offline=False) == EDGES and (kept / "tiny.src").read_bytes() == EDGES
        served[next(iter(served))] = b"tampered"
        (kept / "tiny.src").unlink()
        with pytest.raises(SuiteError, match="is not the file the manifest names"):
            source(graph, kept, None, offline=False)
        with pytest.raises(SuiteError, match="cannot fetch"):
            source(dataclasses.replace(graph, path="files/absent.src"), kept, None, offline=False)
    finally:
        server.shutdown()


def test_the_command_refuses_an_unknown_name_and_a_missing_source_in_one_line(tmp_path, capsys):
    from benchmarks.__main__ import main

    assert main(["graphs", "--only", "nope", "--dir", str(tmp_path)]) == 2
    assert main(["graphs", "--only", "road-NY", "--offline", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0] == "benchmarks graphs: --only: no suite graph nope"
    assert err[1].startswith("benchmarks graphs: road-NY: ") and "--offline forbids fetching" in err[1]
