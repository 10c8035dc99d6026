"""How long `autotune.hierarchy.contraction.contract` takes on graphs of the suites (one CPU core of
this machine), with a digest of its output (rank, level and arcs) to show that a faster builder
builds the same hierarchy.

    python3 scripts/time_contraction.py rome99.gr.gz power-pegase8387 mesh-4elt usa-roads.gr.gz
"""
import hashlib
import sys
import time

from autotune.cli.options import load_spec
from autotune.hierarchy.contraction import contract
from benchmarks import data

for name in sys.argv[1:]:
    graph = load_spec(data.spec(name), 0, None)
    start = time.perf_counter()
    built = contract(graph)
    digest = hashlib.sha256(b"".join(array.tobytes() for array in built)).hexdigest()[:16]
    print(name, graph.n_vertices, f"{time.perf_counter() - start:.1f} s", digest, flush=True)
