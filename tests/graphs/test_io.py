"""Graph file readers: one contract all readers meet, plus the real graphs of tests/data."""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse import csr_array
from scipy.sparse.csgraph import connected_components

from autotune.errors import InputError
from autotune.graphs import GraphOptions, WeightRange, load_csr, read_graph_file, save_csr
from autotune.graphs.io import (
    EdgeList,
    read_dimacs,
    read_edge_list,
    read_matrix_market,
    read_metis,
)

# The sample graph of the contract, 0-based: arcs (u, v, w).
ARCS = {(0, 1, 3), (0, 2, 1), (1, 3, 7), (2, 3, 2), (3, 0, 5)}


def one_line(message: str) -> bool:
    return "\n" not in message


class ReaderContract:
    """What every reader does. Subclasses say how the sample graph and broken files look."""

    reader = staticmethod(read_dimacs)
    suffix = ".gr"
    undirected = False
    weighted = True
    header: list[str] = []

    def lines(self) -> list[str]:
        """The sample graph's lines, header included."""
        raise NotImplementedError

    def bad_line(self) -> str:
        """A malformed data line."""
        raise NotImplementedError

    def out_of_range_line(self) -> str:
        raise NotImplementedError

    def negative_weight_line(self) -> str | None:
        return None

    def truncated(self) -> list[str] | None:
        """The sample with lines cut off, if the format can tell."""
        return self.lines()[:-2]

    def write(self, directory: Path, lines: list[str], *, gz: bool = False, crlf: bool = False,
              name: str = "sample") -> Path:
        text = ("\r\n" if crlf else "\n").join(lines) + ("\r\n" if crlf else "\n")
        path = directory / f"{name}{self.suffix}{'.gz' if gz else ''}"
        path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
        return path

    def arcs(self, edges: EdgeList) -> set[tuple[int, ...]]:
        weights = edges.weights if edges.weights is not None else np.zeros(len(edges.sources))
        return set(zip(edges.sources.tolist(), edges.targets.tolist(), weights.tolist()))

    def expected_arcs(self) -> set[tuple[int, ...]]:
        return ARCS if self.weighted else {(u, v, 0) for u, v, _ in ARCS}

    def test_reads_the_sample(self, tmp_path: Path) -> None:
        edges = self.reader(self.write(tmp_path, self.lines()))
        assert edges.n_vertices == 4
        assert edges.undirected is self.undirected
        assert self.arcs(edges) >= self.expected_arcs()
        assert edges.sources.dtype == np.int64 and edges.targets.dtype == np.int64

    def test_gzip_and_crlf_read_the_same(self, tmp_path: Path) -> None:
        plain = self.arcs(self.reader(self.write(tmp_path, self.lines())))
        assert self.arcs(self.reader(self.write(tmp_path, self.lines(), gz=True))) == plain
        crlf = self.write(tmp_path, self.lines(), crlf=True, name="crlf")
        assert self.arcs(self.reader(crlf)) == plain

    def test_builds_a_valid_graph(self, tmp_path: Path) -> None:
        graph = read_graph_file(self.write(tmp_path, self.lines()))
        graph.validate("sample")
        assert graph.name == f"sample{self.suffix}"
        assert graph.n_vertices == 4 and graph.n_edges == (10 if self.undirected else 5)

    def test_malformed_line_names_file_and_line(self, tmp_path: Path) -> None:
        lines = self.lines()
        lines.insert(len(self.header) + 1, self.bad_line())
        path = self.write(tmp_path, lines)
        with pytest.raises(InputError) as error:
            self.reader(path)
        message = str(error.value)
        assert message.startswith(f"{path}:{len(self.header) + 2}: "), message
        assert one_line(message)

    def test_vertex_id_out_of_range_names_the_line(self, tmp_path: Path) -> None:
        lines = self.lines()
        lines[len(self.header) + 1] = self.out_of_range_line()
        path = self.write(tmp_path, lines)
        with pytest.raises(InputError, match=rf"^{path}:{len(self.header) + 2}: .*outside"):
            self.reader(path)

    def test_negative_weight_names_the_line(self, tmp_path: Path) -> None:
        line = self.negative_weight_line()
        if line is None:
            pytest.skip("format without weights")
        lines = self.lines()
        lines[len(self.header)] = line
        path = self.write(tmp_path, lines)
        with pytest.raises(InputError, match=rf"^{path}:{len(self.header) + 1}: negative weight"):
            self.reader(path)

    def test_negative_weight_is_ignored_when_weights_are_replaced(self, tmp_path: Path) -> None:
        line = self.negative_weight_line()
        if line is None:
            pytest.skip("format without weights")
        lines = self.lines()
        lines[len(self.header)] = line
        graph = read_graph_file(self.write(tmp_path, lines), GraphOptions(weights=WeightRange(1, 1)))
        assert set(graph.weights.tolist()) == {1}

    def test_truncated_file_is_reported(self, tmp_path: Path) -> None:
        lines = self.truncated()
        if lines is None:
            pytest.skip("the format cannot tell")
        path = self.write(tmp_path, lines)
        with pytest.raises(InputError, match=rf"^{path}:\d+: .*truncated"):
            self.reader(path)

    def test_truncated_gzip_is_reported(self, tmp_path: Path) -> None:
        path = self.write(tmp_path, self.lines(), gz=True)
        path.write_bytes(path.read_bytes()[:-12])
        with pytest.raises(InputError, match=rf"^{path}: .*gzip"):
            self.reader(path)

    def test_unreadable_file_is_reported(self, tmp_path: Path) -> None:
        path = tmp_path / f"missing{self.suffix}"
        with pytest.raises(InputError, match=rf"^{path}: cannot read"):
            self.reader(path)


class TestDimacs(ReaderContract):
    reader = staticmethod(read_dimacs)
    suffix = ".gr"
    header = ["c sample", "p sp 4 5"]

    def lines(self) -> list[str]:
        return self.header + [f"a {u + 1} {v + 1} {w}" for u, v, w in sorted(ARCS)]

    def bad_line(self) -> str:
        return "e 3 4"

    def out_of_range_line(self) -> str:
        return "a 1 5 2"

    def negative_weight_line(self) -> str:
        return "a 1 2 -3"

    def test_message_explains_the_arc_format(self, tmp_path: Path) -> None:
        path = self.write(tmp_path, self.lines()[:2] + ["e 3 4"] + self.lines()[2:])
        with pytest.raises(InputError, match=r":3: expected an arc line 'a u v w'.*found 'e 3 4'"):
            read_dimacs(path)

    def test_missing_problem_line(self, tmp_path: Path) -> None:
        path = self.write(tmp_path, ["c nothing", "a 1 2 3"])
        with pytest.raises(InputError, match="no problem line"):
            read_dimacs(path)


class TestMatrixMarket(ReaderContract):
    reader = staticmethod(read_matrix_market)
    suffix = ".mtx"
    header = ["%%MatrixMarket matrix coordinate integer general", "% comment", "4 4 5"]

    def lines(self) -> list[str]:
        return self.header + [f"{u + 1} {v + 1} {w}" for u, v, w in sorted(ARCS)]

    def bad_line(self) -> str:
        return "1 x 2"

    def out_of_range_line(self) -> str:
        return "0 2 2"

    def negative_weight_line(self) -> str:
        return "1 2 -3"

    def test_pattern_symmetric_is_undirected(self, tmp_path: Path) -> None:
        lines = ["%%MatrixMarket matrix coordinate pattern symmetric", "4 4 3", "2 1", "3 1",
                 "4 4"]
        graph = read_graph_file(self.write(tmp_path, lines))
        assert graph.n_edges == 4  # 2 edges both ways, the diagonal entry dropped
        assert graph.columns[graph.row_offsets[0]:graph.row_offsets[1]].tolist() == [1, 2]

    def test_real_weights_must_be_integers(self, tmp_path: Path) -> None:
        lines = ["%%MatrixMarket matrix coordinate real general", "2 2 2", "1 2 3.0", "2 1 0.5"]
        path = self.write(tmp_path, lines)
        with pytest.raises(InputError, match=rf"^{path}:4: weight 0.5 is not an integer"):
            read_matrix_market(path)
        lines[-1] = "2 1 2e1"
        assert self.arcs(read_matrix_market(self.write(tmp_path, lines))) == {(0, 1, 3), (1, 0, 20)}

    @pytest.mark.parametrize("banner", [
        "%%MatrixMarket matrix array real general",
        "%%MatrixMarket matrix coordinate complex general",
        "%%MatrixMarket matrix coordinate real skew-symmetric",
        "not a banner",
    ])
    def test_unsupported_banners(self, tmp_path: Path, banner: str) -> None:
        path = self.write(tmp_path, [banner, "2 2 1", "1 2 1"])
        with pytest.raises(InputError, match=rf"^{path}:1: "):
            read_matrix_market(path)

    def test_non_square_matrix(self, tmp_path: Path) -> None:
        path = self.write(tmp_path, [self.header[0], "2 3 1", "1 2 1"])
        with pytest.raises(InputError, match=rf"^{path}:2: a graph needs a square matrix"):
            read_matrix_market(path)


class TestMetis(ReaderContract):
    reader = staticmethod(read_metis)
    suffix = ".graph"
    undirected = True
    header = ["% comment", "4 5 1"]

    def lines(self) -> list[str]:
        neighbours: dict[int, list[str]] = {v: [] for v in range(4)}
        for u, v, w in sorted(ARCS):
            neighbours[u].append(f"{v + 1} {w}")
            neighbours[v].append(f"{u + 1} {w}")
        return self.header + [" ".join(neighbours[v]) for v in range(4)]

    def bad_line(self) -> str:
        return "2 x"

    def out_of_range_line(self) -> str:
        return "9 3 3 1 4 5"

    def negative_weight_line(self) -> str:
        return "2 -3 3 1 4 5"

    def test_malformed_line_names_file_and_line(self, tmp_path: Path) -> None:
        lines = self.lines()
        lines[len(self.header) + 1] = "1 3 x 7 4 2"  # vertex 2's line, an odd token
        path = self.write(tmp_path, lines)
        with pytest.raises(InputError, match=rf"^{path}:{len(self.header) + 2}: "):
            read_metis(path)

    def test_unweighted_vertex_lines_and_isolated_vertices(self, tmp_path: Path) -> None:
        path = self.write(tmp_path, ["3 1", "2", "1", ""])
        edges = read_metis(path)
        assert edges.n_vertices == 3 and edges.weights is None
        graph = read_graph_file(path)
        assert graph.n_edges == 2 and graph.n_sinks == 1
        assert graph.weights[0] == graph.weights[1]  # one drawn weight per undirected edge

    def test_wrong_edge_count(self, tmp_path: Path) -> None:
        path = self.write(tmp_path, ["3 2", "2", "1", ""])
        with pytest.raises(InputError, match=rf"^{path}:1: the header says 2 edges"):
            read_metis(path)

    def test_vertex_weights_are_skipped(self, tmp_path: Path) -> None:
        path = self.write(tmp_path, ["2 1 11", "7 2 4", "8 1 4"])
        assert self.arcs(read_metis(path)) == {(0, 1, 4), (1, 0, 4)}


class TestEdgeList(ReaderContract):
    reader = staticmethod(read_edge_list)
    suffix = ".txt"
    header = ["# Directed graph", "# Nodes: 4 Edges: 5", "# FromNodeId\tToNodeId\tWeight"]

    def lines(self) -> list[str]:
        return self.header + [f"{u}\t{v}\t{w}" for u, v, w in sorted(ARCS)]

    def bad_line(self) -> str:
        return "1\t2\tz"

    def out_of_range_line(self) -> str:
        return "-1\t2\t2"

    def negative_weight_line(self) -> str:
        return "0\t1\t-3"

    def test_two_columns_mean_no_weights(self, tmp_path: Path) -> None:
        edges = read_edge_list(self.write(tmp_path, ["0 1", "1 2", "", "2 0"]))
        assert edges.weights is None and edges.n_vertices == 3

    def test_rows_must_all_have_one_width(self, tmp_path: Path) -> None:
        path = self.write(tmp_path, ["0 1", "1 2 5"])
        with pytest.raises(InputError, match=rf"^{path}:2: expected an edge line"):
            read_edge_list(path)

    def test_el_suffix(self, tmp_path: Path) -> None:
        path = tmp_path / "g.el"
        path.write_text("0 1\n1 2\n")
        assert read_graph_file(path).n_edges == 2


def test_unknown_extension(tmp_path: Path) -> None:
    path = tmp_path / "graph.xyz"
    path.write_text("0 1\n")
    with pytest.raises(InputError, match="unknown graph file format"):
        read_graph_file(path)


class TestCsrFormat:
    def test_round_trip(self, tmp_path: Path, data_dir: Path) -> None:
        graph = read_graph_file(data_dir / "rome99.gr.gz")
        path = tmp_path / "rome.csr.npz"
        save_csr(graph, path)
        again = read_graph_file(path)
        assert again.name == graph.name and again.sha256 == graph.sha256
        assert [p.name for p in tmp_path.iterdir()] == ["rome.csr.npz"]

    def test_weights_option_replaces_saved_weights(self, tmp_path: Path, data_dir: Path) -> None:
        path = tmp_path / "rome.csr.npz"
        save_csr(read_graph_file(data_dir / "rome99.gr.gz"), path)
        graph = load_csr(path, GraphOptions.from_values(weights="2-2"))
        assert set(graph.weights.tolist()) == {2}

    def test_garbage_is_reported(self, tmp_path: Path) -> None:
        path = tmp_path / "bad.csr.npz"
        path.write_bytes(b"not a zip file")
        with pytest.raises(InputError, match=rf"^{path}: not an autotune graph file \(a .csr.npz is a zip"):
            load_csr(path)

    def test_a_truncated_archive_is_reported(self, tmp_path: Path, data_dir: Path) -> None:
        path = tmp_path / "cut.csr.npz"
        save_csr(read_graph_file(data_dir / "rome99.gr.gz"), path)
        path.write_bytes(path.read_bytes()[:200])
        with pytest.raises(InputError, match=rf"^{path}: not a readable autotune graph file"):
            load_csr(path)

    def test_broken_invariants_are_reported(self, tmp_path: Path) -> None:
        path = tmp_path / "bad.csr.npz"
        np.savez(path, format=np.array("autotune.csr/1"), name=np.array("x"),
                 row_offsets=np.array([0, 1], dtype=np.int32),
                 columns=np.array([3], dtype=np.int32), weights=np.array([1], dtype=np.int32))
        with pytest.raises(InputError, match="column id is outside"):
            load_csr(path)

    def test_other_format_version_is_reported(self, tmp_path: Path) -> None:
        path = tmp_path / "old.csr.npz"
        np.savez(path, format=np.array("autotune.csr/0"))
        with pytest.raises(InputError, match="format 'autotune.csr/0'"):
            load_csr(path)


# name: (stored arcs, vertices, arcs after merging, undirected, weakly connected components,
#        largest component) -- from tests/data/GRAPHS.md.
REAL_GRAPHS = {
    "rome99.gr.gz": (8_870, 3_353, 8_859, False, 1, 3_353),
    "rgg_n_2_15_s0.graph.gz": (320_480, 32_768, 320_480, True, 6, 32_759),
    "delaunay_n16.mtx.gz": (196_575, 65_536, 393_150, True, 1, 65_536),
    "Email-Enron.txt.gz": (367_662, 36_692, 367_662, False, 1_065, 33_696),
}


@pytest.mark.parametrize("name", REAL_GRAPHS)
def test_real_graphs_match_graphs_md(data_dir: Path, name: str) -> None:
    stored, vertices, arcs, undirected, components, largest = REAL_GRAPHS[name]
    reader = {".gr": read_dimacs, ".graph": read_metis, ".mtx": read_matrix_market,
              ".txt": read_edge_list}[Path(name[:-3]).suffix]
    edges = reader(data_dir / name)
    assert (len(edges.sources), edges.n_vertices, edges.undirected) == (stored, vertices, undirected)
    assert not np.any(edges.sources == edges.targets)  # no self-loops
    graph = read_graph_file(data_dir / name)
    graph.validate(name)
    assert (graph.n_vertices, graph.n_edges) == (vertices, arcs)
    matrix = csr_array((graph.weights, graph.columns, graph.row_offsets), shape=(vertices,) * 2)
    count, labels = connected_components(matrix, directed=True, connection="weak")
    assert count == components and np.bincount(labels).max() == largest


def test_rome99_keeps_its_weights(data_dir: Path) -> None:
    graph = read_graph_file(data_dir / "rome99.gr.gz")
    assert (graph.weights.min(), graph.weights.max()) == (1, 12_711)
    matrix = csr_array((graph.weights, graph.columns, graph.row_offsets), shape=(3353, 3353))
    assert connected_components(matrix, directed=True, connection="strong")[0] == 1


def test_rome99_merges_parallel_arcs_keeping_the_smallest_weight(data_dir: Path) -> None:
    edges = read_dimacs(data_dir / "rome99.gr.gz")
    smallest: dict[tuple[int, int], int] = {}
    for u, v, w in zip(edges.sources.tolist(), edges.targets.tolist(), edges.weights.tolist()):
        smallest[(u, v)] = min(w, smallest.get((u, v), w))
    graph = read_graph_file(data_dir / "rome99.gr.gz")
    rows = np.repeat(np.arange(graph.n_vertices), graph.out_degrees)
    assert dict(zip(zip(rows.tolist(), graph.columns.tolist()), graph.weights.tolist())) == smallest


@pytest.mark.parametrize("name", [n for n in REAL_GRAPHS if n != "rome99.gr.gz"])
def test_unweighted_real_graphs_get_seeded_weights_1_to_100(data_dir: Path, name: str) -> None:
    graph = read_graph_file(data_dir / name, GraphOptions(seed=7))
    assert graph.weights.min() >= 1 and graph.weights.max() <= 100
    assert read_graph_file(data_dir / name, GraphOptions(seed=7)).sha256 == graph.sha256
    assert read_graph_file(data_dir / name, GraphOptions(seed=8)).sha256 != graph.sha256
