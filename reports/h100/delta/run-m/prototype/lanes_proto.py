"""Prototype: lanes.cu (32 sources interleaved per warp) vs delta.cu's best batched configuration."""
import sys, time, json, itertools
import numpy as np
sys.path.insert(0, ".")
from autotune.graphs import load_graph
from autotune.reference.oracle import reference_distances

INF = 0x7fffffff
N_FIELDS = 17  # F_TILE_NEXT0 + 3 = 11 + 3 + 3

def main():
    import pycuda.autoinit  # noqa
    import pycuda.driver as cuda
    from pycuda.compiler import SourceModule
    graphs = sys.argv[1].split(",")
    src = open("kernels/lanes.cu").read()
    mods = {u: SourceModule(src, no_extern_c=True, options=[f"-DLANES_UNROLL={u}"]) for u in (4, 8)}
    out = []
    for spec in graphs:
        g = load_graph(spec)
        n, m = g.n_vertices, len(g.columns)
        print(spec, n, m, "maxdeg", int(np.max(np.diff(g.row_offsets))), flush=True)
        d_ro = cuda.to_device(g.row_offsets.astype(np.int32)); d_col = cuda.to_device(g.columns.astype(np.int32)); d_w = cuda.to_device(g.weights.astype(np.int32))
        rng = np.random.default_rng(1)
        check_sources = None
        for (ck, delta, threads, blocks), unroll in itertools.product(CASES[spec], (4, 8)):
            mod = mods[unroll]
            f_init, f_seed, f_adv, f_fin = (mod.get_function(x) for x in ("lanes_init", "lanes_seed", "lanes_advance", "lanes_finish"))
            G = (ck + 31) // 32
            srcs = rng.integers(0, n, size=ck).astype(np.int32)
            padded = np.full(G * 32, -1, np.int32); padded[:ck] = srcs
            d_src = cuda.to_device(padded)
            state = cuda.mem_alloc(4 * N_FIELDS * G); dist = cuda.mem_alloc(4 * n * 32 * G)
            masks = cuda.mem_alloc(4 * 4 * n * G); queues = cuda.mem_alloc(4 * 4 * n * G)
            dl = np.int32(INF if delta == "inf" else delta)
            N, GG = np.int32(n), np.int32(G)
            done = np.zeros(G, np.int32)
            def solve():
                f_init(N, GG, state, dist, masks, queues, dl, block=(256, 1, 1), grid=(min(1024, (n * 32 + 255) // 256), G))
                f_seed(N, GG, d_src, state, dist, masks, queues, block=(32, 1, 1), grid=(1, G))
                it = 0
                while True:
                    for _ in range(8):
                        f_adv(N, GG, d_ro, d_col, d_w, state, dist, masks, queues, block=(threads, 1, 1), grid=(blocks, G), shared=16 * threads)
                        f_fin(N, GG, state, dist, masks, queues, dl, np.int32(1 << 20), block=(1024, 1, 1), grid=(1, G))
                        it += 1
                    cuda.memcpy_dtoh(done, state)  # F_DONE row
                    if np.all(done == 1):
                        return it
            solve()  # warm-up
            times = []
            for r in range(3):
                s, e = cuda.Event(), cuda.Event()
                s.record(); launched = solve(); e.record(); e.synchronize()
                times.append(e.time_since(s))
            st = np.empty((N_FIELDS, G), np.int32); cuda.memcpy_dtoh(st, state)
            d = np.empty((G, n, 32), np.int32); cuda.memcpy_dtoh(d, dist)
            d = d.transpose(0, 2, 1).reshape(G * 32, n)[:ck]
            pick = rng.choice(ck, size=min(ck, 8), replace=False)
            ref = reference_distances(g, srcs[pick])
            got = d[pick].astype(np.int64); got[got == INF] = -1
            ok = bool(np.array_equal(ref, got)) and not st[1].any()
            med = float(np.median(times))
            rec = dict(graph=spec, unroll=unroll, regs=f_adv.num_regs, ck=ck, delta=delta, threads=threads, blocks=blocks, ms=med, per_sssp=med / ck,
                       spread=[min(times), max(times)], iterations=int(st[8].max()), splits=int(st[9].max()),
                       relaxed_per_group=float(st[10].mean()), ok=ok, errors=st[1].tolist()[:4], host_iters=launched)
            print(json.dumps(rec), flush=True); out.append(rec)
            for a in (state, dist, masks, queues, d_src): a.free()
    return out

CASES = {
    "rmat20": [(512, "inf", 512, 33), (512, "inf", 256, 66), (512, "inf", 1024, 17), (1024, "inf", 512, 17),
               (512, 1024, 512, 33), (512, 256, 512, 33), (256, "inf", 512, 66)],
    "rmat17": [(128, "inf", 512, 33), (512, "inf", 512, 33), (1024, "inf", 512, 17), (1024, 64, 512, 17)],
    "tests/data/usa-roads.gr.gz": [(1024, 1024, 256, 16), (1024, 4096, 256, 16), (1024, "inf", 256, 16)],
}
if __name__ == "__main__":
    main()
