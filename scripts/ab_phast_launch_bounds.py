"""Ad-hoc A/B of docs/notes/kernels.md run W: `kernels/phast.cu`'s phast_global launched directly
(as shipped at 0d1e746, with `__launch_bounds__(1024, 1)` instead of `(1024)`, and with its level
starts in global memory) beside scripts/probe_phast.cu's kernel, on the same 32 sources, every
solve checked. From 59ab4b1 the shipped kernel has the minimum, so "shipped" and "lb1" are the same.
The hierarchies are read from the store (`AUTOTUNE_CACHE_DIR=.../graphs`: `.../hierarchies`).
It passes phast_global run W's arguments: from b0d1bb2 (runs X and Y) the kernel takes more, so run
it from a checkout before b0d1bb2.

    python3 scripts/ab_phast_launch_bounds.py usa-roads.gr.gz
"""
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, "scripts")
import probe_phast as P  # noqa: E402
from autotune.gpu import gpu_session  # noqa: E402
from autotune.gpu.phast_engine import ARRAYS, block_levels  # noqa: E402
from autotune.hierarchy import Hierarchy, default_directory  # noqa: E402
from benchmarks import data, probes  # noqa: E402

with gpu_session(0):
    import pycuda.driver as cuda
    import pycuda.gpuarray as gpuarray
    for name, graph, sample, expected in data.suite_graphs(sys.argv[1], 32):
        n = graph.n_vertices
        src = default_directory() / f"{graph.sha256}.npz"
        h = Hierarchy.from_file(src)
        arrays = {k: gpuarray.to_gpu(np.ascontiguousarray(h.level_of() if k == "level_of" else getattr(h, k), np.int32))
                  for k in ARRAYS}
        down = block_levels(h.level_start, 16384)
        text = Path("kernels/phast.cu").read_text()
        Path("/tmp/lb1.cu").write_text(text.replace("__launch_bounds__(1024)", "__launch_bounds__(1024, 1)"))
        Path("/tmp/nostage.cu").write_text(text.replace("#define SHARED_LEVELS 1023", "#define SHARED_LEVELS 0"))
        for label, path in (("shipped", Path("kernels/phast.cu")), ("lb1", Path("/tmp/lb1.cu")),
                            ("nostage", Path("/tmp/nostage.cu"))):
            fn = probes.build_probe(path, [], "phast_global")
            pull = probes.build_probe(path, [], "pull_level")
            scat = probes.build_probe(path, [], "scatter_out")
            dist, out = gpuarray.empty(n, np.int32), gpuarray.empty(n, np.int32)
            srcs, steps = gpuarray.empty(1, np.int32), gpuarray.empty(1, np.int32)
            for carve in (None, -1):
                if carve is not None:
                    fn.set_attribute(cuda.function_attribute.PREFERRED_SHARED_MEMORY_CARVEOUT, carve)
                times = []
                for s in list(sample) * 3:
                    srcs.set(np.array([s], np.int32))
                    a, b = cuda.Event(), cuda.Event()
                    a.record()
                    fn(np.int32(n), np.int32(h.levels), np.int32(down), *(arrays[k].gpudata for k in ARRAYS),
                       srcs.gpudata, dist.gpudata, out.gpudata, steps.gpudata, block=(1024, 1, 1), grid=(1, 1, 1))
                    for level in range(down, h.levels):
                        lo, hi = int(h.level_start[level]), int(h.level_start[level + 1])
                        pull(np.int32(n), np.int32(lo), np.int32(hi), arrays["down_offsets"].gpudata,
                             arrays["down_tails"].gpudata, arrays["down_weights"].gpudata, dist.gpudata,
                             block=(256, 1, 1), grid=(min(-(-(hi - lo) // 256), 1056), 1, 1))
                    scat(np.int32(n), arrays["old_of"].gpudata, dist.gpudata, out.gpudata, block=(256, 1, 1),
                         grid=(min(-(-n // 256), 1056), 1, 1))
                    b.record()
                    b.synchronize()
                    times.append(b.time_since(a))
                    assert np.array_equal(out.get(), expected[s]), "wrong"
                print(name, label, "carveout", carve, round(statistics.median(times[32:]), 4), flush=True)
        fns = P.build(False, False, False)
        probe = P.timed(fns, n, P.uploaded(src), sample, expected, 1024, False, 16384)[0]
        print(name, "probe kernel", probe, flush=True)
