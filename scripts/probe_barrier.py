#!/usr/bin/env python3
"""What a grid barrier costs alone on this GPU (`scripts/probe_barrier.cu`, docs/notes/kernels.md
run AF): for each build (MODE 0 delta.cu's barrier before run AF, 1 with solve_grid's bookkeeping,
2 without fences, 3 a release add and an acquire wait, 4 an acq_rel fence and an acquire wait) and
grid of resident blocks, the kernel runs ROUNDS iterations, timed by CUDA events (a warm-up launch
first, median of 5), minus a launch of one round; prints us per iteration.

    python3 scripts/probe_barrier.py [blocks,...] [threads]
"""
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import probes  # noqa: E402

ROUNDS = 2000
MODES = {0: "barrier", 1: "barrier + bookkeeping", 2: "barrier, no fences", 3: "release/acquire", 4: "acq_rel fence"}


def main() -> None:
    from pycuda.driver import device_attribute as attribute

    from autotune.gpu import gpu_session

    grids = [int(b) for b in (sys.argv[1] if len(sys.argv) > 1 else "1,16,32,64,132").split(",")]
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 512
    with gpu_session(0) as device:
        resident = device.get_attribute(attribute.MULTIPROCESSOR_COUNT) * (
            device.get_attribute(attribute.MAX_THREADS_PER_MULTIPROCESSOR) // threads)
        print(device.name(), f"{threads} threads a block, {ROUNDS} rounds")
        refused = [b for b in grids if b > resident]
        if refused:  # a barrier over blocks that are not all resident never completes
            print(f"refused: {refused} blocks (at most {resident} of {threads} threads are resident at once)")
        timed_grids([b for b in grids if b <= resident], threads)


def timed_grids(grids: list[int], threads: int) -> None:
    import pycuda.driver as cuda
    import pycuda.gpuarray as gpuarray

    for mode, what in MODES.items():
        kernel = probes.build_probe(Path(__file__).with_name("probe_barrier.cu"), [f"-DMODE={mode}"], "loop")
        for blocks in grids:
            count = gpuarray.zeros(1, np.uint32)
            fields = gpuarray.zeros(32, np.int32)

            def timed(rounds: int) -> float:
                start, end = cuda.Event(), cuda.Event()
                start.record()
                kernel(count.gpudata, fields.gpudata, np.int32(rounds), block=(threads, 1, 1), grid=(blocks, 1))
                end.record()
                end.synchronize()
                return end.time_since(start) * 1000

            timed(ROUNDS)
            many = statistics.median(timed(ROUNDS) for _ in range(5))
            one = statistics.median(timed(1) for _ in range(5))
            print(f"{what:24s} {blocks:4d} blocks: {(many - one) / (ROUNDS - 1):6.2f} us an iteration "
                  f"(one round's launch {one:.1f} us)", flush=True)


if __name__ == "__main__":
    main()
