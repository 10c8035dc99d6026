"""A fitted model (`thesis.fitted.FittedModel`: GPU Crauser's and Martín's on today's GPUs) in C, for
the table export's header (`autotune.table.export_model`): CK from the vertices in flight, lanes from
the degree and its skew, the memory and concurrent-kernel bounds, each kernel's block size and L1 state
(the nearest of the sizes of highest occupancy on the GPU, computed here), then at most K at once."""
from __future__ import annotations

from typing import Any

from autotune.launch import CacheState


def header_rules(model: Any, algorithm: Any, device: Any) -> str:
    """`autotune_rules_<algorithm>_(graph, queries, config)` in C for `model` on `device`."""
    choices = model.choices
    caches = list(CacheState)
    kernels = []
    for kernel in algorithm.kernels:
        size, cache, _ = model.kernel_launch(algorithm, kernel, choices, device)
        kernels.append((kernel, size, caches.index(CacheState(cache)), kernel in algorithm.lanes_kernels))
    name = algorithm.name
    limit = getattr(device, "max_concurrent_kernels", None) or 0
    lanes = sorted(choices.lanes)
    fills = [f'    autotune_kernel_(c, {i}, "{k}", {b}, {cache}, {"lanes" if takes else 1});'
             for i, (k, b, cache, takes) in enumerate(kernels)]
    params = [f'    autotune_set_(c, "{p.name}", {p.default}, 0);' if isinstance(p.default, int) else
              f'    autotune_set_(c, "{p.name}", 0, "{p.default}");' for p in algorithm.parameters]
    return f"""
/* ---- {name}: its fitted model ({model.device.get("name")}'s records; autotune/algorithms/thesis/fitted.py) ---- */
static const int autotune_{name}_choices_[] = {{{", ".join(map(str, choices.concurrent_kernels))}}};
static const int autotune_{name}_cks_[] = {{{", ".join(map(str, algorithm.concurrent_kernels))}}};
static const int autotune_{name}_lanes_[] = {{{", ".join(map(str, lanes))}}};

static inline int autotune_rules_{name}_(const autotune_graph *g, int queries, autotune_config *c) {{
    double n = g->vertices > 1.0 ? floor(g->vertices) : 1.0, m = nearbyint(n * g->mean_degree);
    double cv = g->degree_cv > 0.0 ? g->degree_cv : 0.0, want, best = 0.0;
    int n_choices = {len(choices.concurrent_kernels)}, ck = 0, lanes = 0;
    for (int i = 0; i < n_choices && !ck; ++i)  /* the smallest CK with CK x n vertices in flight enough */
        if ((double)autotune_{name}_choices_[i] * n >= {float(model.in_flight)!r} * {float(device.max_resident_threads)!r})
            ck = autotune_{name}_choices_[i];
    if (!ck) ck = autotune_{name}_choices_[n_choices - 1];
    want = nearbyint({float(model.lanes_slope)!r} * log2(g->mean_degree > 1.0 ? g->mean_degree : 1.0)
                     + {float(model.skew_slope)!r} * log2(1.0 + cv));
    for (int i = 0; i < {len(lanes)}; ++i) {{
        double away = fabs(log2((double)autotune_{name}_lanes_[i]) - want);
        if (i == 0 || away < best) {{ best = away; lanes = autotune_{name}_lanes_[i]; }}
    }}
    ck = autotune_memory_bound_(ck, autotune_{name}_choices_, n_choices, n, m, {float(algorithm.bytes_per_vertex)!r},
                                {float(algorithm.bytes_per_instance)!r});
    if ({limit} > 0 && ck > {limit}) {{
        int allowed = 0;
        for (int i = 0; i < n_choices; ++i) if (autotune_{name}_choices_[i] <= {limit}) allowed = autotune_{name}_choices_[i];
        ck = allowed ? allowed : autotune_{name}_choices_[0];
    }}
    if (queries > 0 && ck > queries) ck = autotune_queries_ck_(autotune_{name}_cks_, {len(algorithm.concurrent_kernels)}, queries);
    c->concurrent_kernels = ck;
{chr(10).join(fills)}
{chr(10).join(params)}
    return 0;
}}
"""


__all__ = ["header_rules"]
