"""PHAST's rules in C, for the table export's header (`autotune.table.export_model`): one query's
and the batch end's (`phast.rules`), with every value that depends on the GPU alone computed here,
the batch end's sweep block size of shared distances included: as runs of vertex counts, the
occupancy steps the distances' shared memory takes it through (`rules.batch_sweep_block`)."""
from __future__ import annotations

from typing import Any

from autotune.algorithms.phast.rules import DEFAULTS, batch_sweep_block, constants_of, levels_domain


def sweep_block_runs(characterization: Any, device: Any, constants: dict, most: int) -> list[tuple[int, int]]:
    """(first vertex count, sweep block size) where the batch end's block size of shared distances
    changes, for 1 to `most` vertices: computed once per allocation step of the distances' bytes."""
    own = characterization.kernel("sweep").resources_of("phast_shared")
    unit, reserved = device.shared_memory_allocation_unit, device.reserved_shared_memory_per_block
    sizes = range(device.warp_size, device.max_threads_per_block + 1, device.warp_size)
    runs: list[tuple[int, int]] = []
    last_key = None
    own_bytes = [own.shared_memory_bytes(b) for b in sizes]
    for n in range(1, most + 1):
        key = tuple((s + 4 * n + reserved + unit - 1) // unit + (s + 4 * n > device.max_shared_memory_per_block) * 10**9
                    for s in own_bytes)
        if key == last_key:
            continue
        last_key = key
        size = batch_sweep_block(characterization, device, 4 * n, "batch_block_size_shared", constants)[0]
        if not runs or runs[-1][1] != size:
            runs.append((n, size))
    return runs


def header_rules(algorithm: Any, device: Any, characterization: Any) -> str:
    """`autotune_rules_phast_(graph, queries, config)` in C (see the module's doc)."""
    constants = constants_of(characterization, DEFAULTS)
    room = device.max_shared_memory_per_block - algorithm.staged_bytes
    runs = sweep_block_runs(characterization, device, constants, max(room // 4, 0))
    global_sweep = batch_sweep_block(characterization, device, 0, "batch_block_size", constants)[0]
    levels = levels_domain(algorithm)
    cks = algorithm.concurrent_kernels
    return f"""
/* ---- phast: PHAST's rules (autotune/algorithms/phast/rules.py) ---- */
static const int autotune_phast_cks_[] = {{{", ".join(map(str, cks))}}};
static const long long autotune_phast_run_from_[] = {{{", ".join(str(n) for n, _ in runs) or "1"}}};
static const int autotune_phast_run_size_[] = {{{", ".join(str(s) for _, s in runs) or str(global_sweep)}}};
static const int autotune_phast_levels_[] = {{{", ".join(map(str, levels))}}};

static inline void autotune_phast_params_(autotune_config *c, int shared, long long levels, int arcs) {{
    autotune_set_(c, "distances", 0, shared ? "shared" : "global");
    if (shared || levels < 0) autotune_set_(c, "gpu_levels", 0, "off"); else autotune_set_(c, "gpu_levels", levels, 0);
    autotune_set_(c, "shared_arcs", 0, shared && arcs ? "down" : "none");  /* canonical: global keeps none */
    autotune_set_(c, "upward", 0, "search");
    autotune_set_(c, "warp_levels", 0, "on");
}}

static inline int autotune_rules_phast_(const autotune_graph *g, int queries, autotune_config *c) {{
    double n = g->vertices > 1.0 ? g->vertices : 1.0, m = nearbyint(g->vertices * g->mean_degree), need = 4.0 * n;
    if (queries > 0 && queries <= {algorithm.one_query_shape_up_to(characterization)}) {{  /* one query's shape, CK raised */
        int shared = need <= {room}.0 && n <= {int(constants["one_query_shared_vertices"])}.0;
        double staged = need + 4.0 * (n + 1.0) + 8.0 * (double)(long long)({float(constants["down_arcs_per_arc"])!r} * m);
        c->concurrent_kernels = autotune_queries_ck_(autotune_phast_cks_, {len(cks)}, queries);
        autotune_kernel_(c, 0, "sweep", {int(constants["block_size"])}, 0, 1);
        autotune_kernel_(c, 1, "pull", {int(constants["pull_block_size"])}, 0, 1);
        autotune_phast_params_(c, shared, shared ? -1 : {int(constants["gpu_levels"])}, staged <= {room}.0);
        return 0;
    }}
    {{  /* the batch end */
        int shared = need <= {room}.0, sweep = {global_sweep};
        long long levels = -1;
        if (shared) {{
            for (int i = 0; i < (int)(sizeof autotune_phast_run_from_ / sizeof *autotune_phast_run_from_); ++i)
                if (n >= (double)autotune_phast_run_from_[i]) sweep = autotune_phast_run_size_[i];
        }} else {{
            double want = log2(n / {float(constants["batch_levels_divisor"])!r} > 1.0 ? n / {float(constants["batch_levels_divisor"])!r} : 1.0), best = 0.0;
            for (int i = 0; i < {len(levels)}; ++i) {{
                double away = fabs(log2((double)autotune_phast_levels_[i]) - want);
                if (i == 0 || away < best) {{ best = away; levels = autotune_phast_levels_[i]; }}
            }}
        }}
        c->concurrent_kernels = {max(cks)};
        if (queries > 0 && c->concurrent_kernels > queries)
            c->concurrent_kernels = autotune_queries_ck_(autotune_phast_cks_, {len(cks)}, queries);
        autotune_kernel_(c, 0, "sweep", sweep, 0, 1);
        autotune_kernel_(c, 1, "pull", {int(constants["pull_block_size"])}, 0, 1);
        autotune_phast_params_(c, shared, levels, 0);
    }}
    return 0;
}}
"""


__all__ = ["header_rules", "sweep_block_runs"]
