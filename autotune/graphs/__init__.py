"""Graphs: the CSR type, file readers, generators, specs and the graph cache.

Example:
    >>> from autotune.graphs import load_graph
    >>> load_graph("random24k-d2", use_cache=False).info()["edges"]
    49152
"""
from __future__ import annotations

from autotune.graphs.build import build_csr
from autotune.graphs.cache import CACHE_ENV_VAR, GraphCache, cache_dir_from_env, default_cache_dir, kept_dir_from_env
from autotune.graphs.csr import CSRGraph
from autotune.graphs.generate import GENERATOR_VERSION, random_graph, rmat
from autotune.graphs.csr_file import load_csr, save_csr
from autotune.graphs.io import EdgeList, read_graph_file
from autotune.graphs.options import DEFAULT_SEED, DEFAULT_WEIGHTS, GraphOptions, WeightRange
from autotune.graphs.spec import FileSpec, GraphSpec, RandomSpec, RmatSpec, load_graph, parse_spec

__all__ = [
    "CACHE_ENV_VAR",
    "CSRGraph",
    "DEFAULT_SEED",
    "DEFAULT_WEIGHTS",
    "EdgeList",
    "FileSpec",
    "GENERATOR_VERSION",
    "GraphCache",
    "GraphOptions",
    "GraphSpec",
    "RandomSpec",
    "RmatSpec",
    "WeightRange",
    "build_csr",
    "cache_dir_from_env",
    "kept_dir_from_env",
    "default_cache_dir",
    "load_csr",
    "load_graph",
    "parse_spec",
    "random_graph",
    "read_graph_file",
    "rmat",
    "save_csr",
]
