"""Prototype driver for kernels/delta.cu (temporary: validates and times before the engine exists)."""
import sys, time, json, os
import numpy as np
from multiprocessing import Pool
sys.path.insert(0, os.getcwd())
from autotune.graphs import load_graph
from autotune.reference import reference_distances

INF = 0x7FFFFFFF
N_FIELDS = 26
G = {}


def ref_one(args):
    spec, s = args
    return reference_distances(G[spec], [s])[0]


def main():
    specs = sys.argv[1].split(",")
    allcfg = json.loads(open(sys.argv[2]).read())
    if len(sys.argv) > 3:
        allcfg = {"nref": allcfg["nref"], **{sp: allcfg[sys.argv[3]] for sp in specs}}
    data = {}
    for spec in specs:
        t = time.time(); g = load_graph(spec); G[spec] = g
        cand = np.flatnonzero(g.out_degrees > 0)
        pool = np.random.default_rng(0).choice(cand, size=min(allcfg["nref"].get(spec, 32), len(cand)), replace=False)
        data[spec] = [int(s) for s in pool]
        print(spec, g.n_vertices, g.n_edges, "load", round(time.time() - t, 1), flush=True)
    t = time.time()
    with Pool(min(16, os.cpu_count())) as p:
        for spec in specs:
            rows = p.map(ref_one, [(spec, s) for s in data[spec]])
            data[spec] = {s: np.where(r < 0, INF, r).astype(np.int32) for s, r in zip(data[spec], rows)}
    print("refs", round(time.time() - t, 1), flush=True)
    import pycuda.driver as drv
    drv.init()
    ctx = drv.Device(0).retain_primary_context(); ctx.push()
    from pycuda.compiler import SourceModule
    from pycuda._pvt_struct import pack
    from autotune.model.device import device_from_gpu
    from autotune.model.occupancy import occupancy
    from autotune.model.characterization import KernelResources
    from autotune.launch import CacheState
    t = time.time()
    opts = ["-O3"] + (["-DSTATIC_TILES=1"] if os.environ.get("STATIC_TILES") else [])
    mod = SourceModule(open("kernels/delta.cu").read(), options=opts, no_extern_c=True, arch="sm_90")
    print("compile", round(time.time() - t, 1), flush=True)
    fn = {k: mod.get_function(k) for k in ("init", "advance", "finish", "solve_grid", "solve_block")}
    for k, f in fn.items():
        print(k, "regs", f.num_regs, "maxthreads", f.get_attribute(drv.function_attribute.MAX_THREADS_PER_BLOCK))
    fn["solve_grid"].set_attribute(drv.function_attribute.PREFERRED_SHARED_MEMORY_CARVEOUT, 100)
    profile = device_from_gpu(0)
    stream = drv.Stream()
    out = []
    for spec in specs:
        g = G[spec]; n = g.n_vertices; refs = data[spec]; srcpool = list(refs)
        ro = drv.to_device(g.row_offsets); co = drv.to_device(g.columns); we = drv.to_device(g.weights)
        deg = np.diff(g.row_offsets)
        for cfg in allcfg[spec]:
            delta, mode, B, block, wt, bt, ck = cfg
            d = np.int32(INF if delta is None else delta)
            hubcap = int(np.sum(-(-deg[deg >= bt] // bt))) + 1 if bt > 0 else 1
            t0 = time.time()
            state = drv.mem_alloc(4 * N_FIELDS * ck); work = drv.mem_alloc(4 * 7 * n * ck)
            hubs = drv.mem_alloc(8 * 2 * hubcap * ck) if mode != "block" else None
            srcs = drv.mem_alloc(4 * ck); ring = drv.pagelocked_empty((8, ck), np.int32)
            maxit = np.int32(8 * (n + 2)); nn, cc = np.int32(n), np.int32(ck)
            qc = 2048
            if mode == "grid":
                res = KernelResources(fn["solve_grid"].num_regs, fn["solve_grid"].shared_size_bytes, 12)
                resident = occupancy(profile, res, block, CacheState.PREFER_SHARED).blocks_per_sm * profile.sm_count
                if B == 0:
                    B = resident // ck
                if B * ck > resident:
                    print(json.dumps(dict(graph=spec, cfg=cfg, ok=f"nonresident {resident}")), flush=True); continue
            times, ok, stats = [], True, {}
            for rep in range(3):
                s_list = [srcpool[(rep * ck + k) % len(srcpool)] for k in range(ck)]
                drv.memcpy_htod(srcs, np.asarray(s_list, np.int32))
                start, end = drv.Event(), drv.Event(); start.record(stream)
                fn["init"](nn, cc, srcs, state, work, d, block=(256, 1, 1), grid=(max(1, min(512, -(-n // 256))), ck), stream=stream)
                if mode == "grid":
                    fn["solve_grid"](nn, cc, ro, co, we, state, work, hubs, np.int32(hubcap), d, np.int32(wt), np.int32(bt), maxit,
                                     block=(block, 1, 1), grid=(B, ck), shared=12 * block, stream=stream)
                elif mode == "block":
                    fn["solve_block"](nn, cc, ro, co, we, state, work, d, np.int32(wt), np.int32(bt), maxit, np.int32(qc),
                                      block=(block, 1, 1), grid=(1, ck), shared=12 * block + 8 * qc, stream=stream)
                else:
                    adv = pack("iiPPPPPPiii", nn, cc, ro, co, we, state, work, hubs, np.int32(hubcap), np.int32(wt), np.int32(bt))
                    fin = pack("iiPPii", nn, cc, state, work, d, maxit)
                    pending, it = [], 0
                    while True:
                        fn["advance"]._launch_kernel((B, ck), (block, 1, 1), adv, 12 * block, stream)
                        fn["finish"]._launch_kernel((B, ck), (256, 1, 1), fin, 0, stream)
                        slot = it % 8
                        drv.memcpy_dtoh_async(ring[slot], int(state), stream)
                        ev = drv.Event(); ev.record(stream); pending.append((slot, ev)); it += 1
                        fin_ = False
                        while pending and (len(pending) >= 8 or pending[0][1].query()):
                            sl, e = pending.pop(0); e.synchronize()
                            if np.all(ring[sl] == 1): fin_ = True; break
                        if fin_: break
                end.record(stream); end.synchronize()
                ms = end.time_since(start)
                allw = np.empty((ck, 7 * n), np.int32); drv.memcpy_dtoh(allw, work)
                st = np.empty((N_FIELDS, ck), np.int32); drv.memcpy_dtoh(st, state)
                for k, s in enumerate(s_list):
                    if not np.array_equal(allw[k, :n], refs[s]):
                        bad = np.flatnonzero(allw[k, :n] != refs[s])
                        ok = f"WRONG src {s}: {len(bad)} differ; err {st[1, k]}"; break
                if ok is not True: break
                if rep: times.append(ms / ck)
                stats = dict(iters=float(st[8].mean()), splits=float(st[9].mean()), relaxed_per_edge=float(st[10].astype(np.int64).mean()) / g.n_edges)
            for a in (state, work, srcs) + ((hubs,) if hubs else ()): a.free()
            line = dict(graph=spec, delta=delta, mode=mode, B=B, block=block, wt=wt, bt=bt, ck=ck, ok=ok,
                        ms_per_sssp=round(float(np.median(times)), 4) if times else None, wall=round(time.time() - t0, 1), **stats)
            print(json.dumps(line), flush=True)
            out.append(line)
    if os.environ.get("OUT"):
        json.dump(out, open(os.path.join(os.environ["OUT"], "proto.json"), "w"), indent=1)


main()
