#!/usr/bin/env python3
"""Time graph generation (rmat20, rmat22 by default) and its peak memory.

Each spec runs in a fresh child process so that `ru_maxrss` is that spec's own peak. The child
generates without the cache (pure generation), then writes the graph as a cache entry in a
temporary directory and reads it back. Writes a markdown table to stdout, or to --out.

Usage:
    python3 scripts/bench_generate.py [SPEC ...] [--out reports/cpu/generate.md]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child(spec: str) -> dict[str, object]:
    sys.path.insert(0, str(ROOT))
    from autotune.graphs import GraphCache, GraphOptions, load_graph, parse_spec
    from autotune.graphs.cache import CacheKey

    start = time.perf_counter()
    graph = load_graph(spec, use_cache=False)
    generate_s = time.perf_counter() - start
    peak_generate_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    key = CacheKey.of(parse_spec(spec).canonical, GraphOptions())
    with tempfile.TemporaryDirectory() as directory:
        cache = GraphCache(Path(directory))
        start = time.perf_counter()
        cache.put(key, graph)
        write_s = time.perf_counter() - start
        start = time.perf_counter()
        cached = cache.get(key, graph.name)
        read_s = time.perf_counter() - start
        entry_mib = cache.path(key).stat().st_size / 2**20
    assert cached is not None and cached.sha256 == graph.sha256
    return {
        "spec": spec, "vertices": graph.n_vertices, "edges": graph.n_edges,
        "max_degree": graph.max_degree, "generate_s": generate_s,
        "cache_write_s": write_s, "cache_read_s": read_s,
        "entry_mib": entry_mib, "peak_generate_mib": peak_generate_mib,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def machine() -> str:
    memory_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{platform.machine()}, {os.cpu_count()} cores, {memory_gib:.0f} GiB memory"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", default=["rmat20", "rmat22"])
    parser.add_argument("--out", type=Path, help="write the markdown report here")
    parser.add_argument("--date", help="date to print in the report (default today)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return 0
    rows = []
    for spec in args.specs:
        done = subprocess.run([sys.executable, __file__, "--child", spec], check=True,
                              capture_output=True, text=True)
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"{spec}: {rows[-1]}", file=sys.stderr)
    import numpy

    lines = [
        "# Graph generation on the CPU",
        "",
        f"Command: `python3 scripts/bench_generate.py {' '.join(sys.argv[1:])}`",
        f"Machine: {machine()}; Python {platform.python_version()}, numpy {numpy.__version__}",
        f"Date: {args.date or time.strftime('%Y-%m-%d')}",
        "",
        "Generation without the cache; peak is the child process's maximum resident set size",
        "(`resource.getrusage(RUSAGE_SELF).ru_maxrss`), after generation alone and after the",
        "cache write and read as well. R-MAT draws D x 2^S arcs (D = 32); self-loops and parallel",
        "arcs are dropped, so `edges` is somewhat lower (rmat22: 134,217,728 drawn).",
        "",
        "| spec | vertices | edges | max degree | generate (s) | peak generate (GiB) | "
        "cache write (s) | cache read (s) | entry (MiB) | peak overall (GiB) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        lines.append(
            f"| {row['spec']} | {row['vertices']:,} | {row['edges']:,} | {row['max_degree']:,} | "
            f"{row['generate_s']:.1f} | {row['peak_generate_mib'] / 1024:.2f} | "
            f"{row['cache_write_s']:.1f} | {row['cache_read_s']:.1f} | {row['entry_mib']:,.0f} | "
            f"{row['peak_mib'] / 1024:.2f} |"
        )
    text = "\n".join(lines) + "\n"
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
