"""Specs, load_graph and the graph cache (atomic entries, no half-written files)."""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

import autotune.graphs.generate as generate
import autotune.graphs.csr_file as graph_io
from autotune.errors import InputError
from autotune.graphs import (
    CACHE_ENV_VAR,
    FileSpec,
    GraphOptions,
    RandomSpec,
    RmatSpec,
    WeightRange,
    cache_dir_from_env,
    default_cache_dir,
    load_graph,
    parse_spec,
)


class TestParseSpec:
    @pytest.mark.parametrize("text, spec", [
        ("rmat20", RmatSpec(20, 32)),
        ("rmat22-d16", RmatSpec(22, 16)),
        ("random24k-d2", RandomSpec(24_576, 2, "24k")),
        ("random49k-d200", RandomSpec(49_152, 200, "49k")),
        ("random98k-d1000", RandomSpec(98_304, 1000, "98k")),
        ("random5000-d20", RandomSpec(5000, 20, "5000")),
    ])
    def test_generator_specs(self, text: str, spec: object) -> None:
        assert parse_spec(text) == spec

    def test_names(self) -> None:
        assert parse_spec("rmat20").name == "rmat20"
        assert parse_spec("rmat20-d32").name == "rmat20"
        assert parse_spec("rmat20-d8").name == "rmat20-d8"
        assert parse_spec("random24k-d2").name == "random24k-d2"
        assert parse_spec("rmat20").canonical == parse_spec("rmat20-d32").canonical

    def test_file_spec(self, data_dir: Path) -> None:
        spec = parse_spec(str(data_dir / "rome99.gr.gz"))
        assert spec == FileSpec(data_dir / "rome99.gr.gz") and spec.name == "rome99.gr.gz"

    @pytest.mark.parametrize("text, message", [
        ("rmatx", "unknown graph spec 'rmatx': expected rmat<S>"),
        ("random24k", "unknown graph spec 'random24k'"),
        ("random12k-d2", "unknown graph spec 'random12k-d2'"),
        ("nothere.gr", "nothere.gr: no such graph file"),
    ])
    def test_bad_specs(self, text: str, message: str) -> None:
        with pytest.raises(InputError, match=message):
            parse_spec(text)

    def test_existing_file_of_unknown_format(self, tmp_path: Path) -> None:
        path = tmp_path / "graph.csv"
        path.write_text("0,1\n")
        with pytest.raises(InputError, match=rf"^{path}: unknown graph file format"):
            parse_spec(str(path))


def cache_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


class TestLoadGraph:
    def test_generated_graphs_are_cached_once(self, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
        first = load_graph("rmat10", seed=3, cache_dir=tmp_path)
        (entry,) = cache_files(tmp_path)
        assert entry.startswith("rmat10-d32-s3-w1-100-") and entry.endswith(".csr.npz")

        def fail(*args: object, **kwargs: object) -> None:
            raise AssertionError("generated again instead of read from the cache")

        monkeypatch.setattr(generate, "rmat", fail)
        monkeypatch.setattr("autotune.graphs.spec.rmat", fail)
        again = load_graph("rmat10-d32", seed=3, cache_dir=tmp_path)
        assert again.sha256 == first.sha256 and again.name == "rmat10"
        assert cache_files(tmp_path) == [entry]

    def test_key_includes_seed_and_weights(self, tmp_path: Path) -> None:
        graphs = [load_graph("random300-d3", seed=s, weights=w, cache_dir=tmp_path)
                  for s, w in [(0, None), (1, None), (0, "1-1"), (0, WeightRange(1, 100))]]
        assert len(cache_files(tmp_path)) == 3  # "1-100" is the default
        assert len({g.sha256 for g in graphs}) == 3
        assert graphs[0].sha256 == graphs[3].sha256

    def test_same_graph_with_or_without_cache(self, tmp_path: Path) -> None:
        cached = load_graph("random24k-d2", cache_dir=tmp_path)
        assert load_graph("random24k-d2", cache_dir=tmp_path).sha256 == cached.sha256
        assert load_graph("random24k-d2", use_cache=False).sha256 == cached.sha256
        assert cached.name == "random24k-d2" and cached.n_vertices == 24_576

    def test_use_cache_false_writes_nothing(self, tmp_path: Path) -> None:
        load_graph("rmat8", use_cache=False, cache_dir=tmp_path / "c")
        assert not (tmp_path / "c").exists()

    def test_files_are_not_cached(self, tmp_path: Path, data_dir: Path) -> None:
        graph = load_graph(data_dir / "rome99.gr.gz", cache_dir=tmp_path)
        assert graph.n_vertices == 3353 and cache_files(tmp_path) == []

    def test_weights_replace_file_weights(self, data_dir: Path, tmp_path: Path) -> None:
        unit = load_graph(str(data_dir / "rome99.gr.gz"), weights="1-1", cache_dir=tmp_path)
        assert set(unit.weights.tolist()) == {1}
        own = load_graph(str(data_dir / "rome99.gr.gz"), cache_dir=tmp_path)
        assert own.weights.max() == 12_711

    def test_failed_write_leaves_nothing(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         caplog: pytest.LogCaptureFixture) -> None:
        def broken_savez(stream, **arrays) -> None:
            stream.write(b"PK partial")
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(graph_io.np, "savez", broken_savez)
        with caplog.at_level(logging.WARNING):
            graph = load_graph("rmat8", cache_dir=tmp_path)
        assert graph.n_vertices == 256
        assert cache_files(tmp_path) == []
        assert "No space left" in caplog.text

    def test_interrupted_write_leaves_nothing(self, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
        def interrupted(stream, **arrays) -> None:
            stream.write(b"PK partial")
            raise KeyboardInterrupt

        monkeypatch.setattr(graph_io.np, "savez", interrupted)
        with pytest.raises(KeyboardInterrupt):
            load_graph("rmat8", cache_dir=tmp_path)
        assert cache_files(tmp_path) == []

    def test_corrupt_entry_is_regenerated(self, tmp_path: Path) -> None:
        graph = load_graph("rmat8", cache_dir=tmp_path)
        (entry,) = tmp_path.iterdir()
        entry.write_bytes(b"garbage")
        assert load_graph("rmat8", cache_dir=tmp_path).sha256 == graph.sha256
        assert np.load(entry)["format"] == "autotune.csr/1"

    def test_bad_spec_writes_nothing(self, tmp_path: Path) -> None:
        for spec in ("rmat99", "random3-d5", "bogus"):
            with pytest.raises(InputError):
                load_graph(spec, cache_dir=tmp_path)
        assert cache_files(tmp_path) == []

    @pytest.mark.parametrize("seed, weights, message", [
        (-1, None, "--seed"),
        ("x", None, "--seed"),
        (0, "5-1", "--weights"),
        (0, "1..100", "--weights"),
        (0, "0-4294967296", "--weights"),
    ])
    def test_bad_options(self, tmp_path: Path, seed, weights, message: str) -> None:
        with pytest.raises(InputError, match=message):
            load_graph("rmat8", seed=seed, weights=weights, cache_dir=tmp_path)


def test_cache_dir_from_env(tmp_path: Path) -> None:
    assert cache_dir_from_env({CACHE_ENV_VAR: str(tmp_path)}) == tmp_path
    assert cache_dir_from_env({}) == default_cache_dir()
    assert default_cache_dir().name == "graphs"


def test_graph_options_parse() -> None:
    assert GraphOptions.from_values("7", "0-5") == GraphOptions(7, WeightRange(0, 5))
    assert GraphOptions.from_values(None, None).drawn_weights == WeightRange(1, 100)


def test_entry_of_another_key_is_not_used(tmp_path: Path) -> None:
    graph = load_graph("rmat8", cache_dir=tmp_path)
    (entry,) = tmp_path.iterdir()
    other = load_graph("rmat8", seed=1, use_cache=False)
    from autotune.graphs import save_csr

    save_csr(other, entry, "{}")  # an entry whose meta does not match its name
    assert load_graph("rmat8", cache_dir=tmp_path).sha256 == graph.sha256


def test_out_of_memory_is_one_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from autotune.errors import AutotuneError

    def exhausted(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr("autotune.graphs.spec.rmat", exhausted)
    with pytest.raises(AutotuneError, match="rmat26-d16: not enough memory") as error:
        load_graph("rmat26-d16", cache_dir=tmp_path)
    assert error.value.exit_status == 1 and cache_files(tmp_path) == []
