"""delta_lanes' rules in C, for the table export's header (`autotune.table.export_model`): its
`rules.predict` with every value that depends on the GPU alone (the block size that launches, the
blocks an SM holds) computed here."""
from __future__ import annotations

from typing import Any

from autotune.algorithms.delta.rules import constants_of as delta_constants
from autotune.algorithms.delta_lanes.rules import DEFAULTS, launch_of


def header_rules(algorithm: Any, device: Any, characterization: Any, delta_characterization: Any) -> str:
    """`autotune_rules_delta_lanes_(graph, queries, config)` in C (see the module's doc)."""
    constants = delta_constants(characterization, DEFAULTS)
    single = delta_constants(delta_characterization)
    block, per_sm, _ = launch_of(device, characterization, constants)
    skew_block, skew_per_sm, _ = launch_of(device, characterization, constants, skewed=True)
    cks = algorithm.concurrent_kernels
    largest = max(c for c in cks if c <= 1024)
    return f"""
/* ---- delta_lanes: lane-interleaved Delta-stepping's rules (autotune/algorithms/delta_lanes/rules.py) ---- */
static const int autotune_lanes_cks_[] = {{{", ".join(map(str, cks))}}};

static inline int autotune_rules_delta_lanes_(const autotune_graph *g, int queries, autotune_config *c) {{
    double n = g->vertices > 1.0 ? g->vertices : 1.0, m = nearbyint(g->vertices * g->mean_degree);
    double unit = g->lightest_weight > 0.0 ? g->lightest_weight : (g->mean_weight > 0.0 ? g->mean_weight : 0.0);
    double cv = g->degree_cv > 0.0 ? g->degree_cv : 0.0;
    int skewed = cv >= {float(constants["inf_skew"])!r};  /* rules 1, 3 and 4 */
    long long domain[64], delta = -1;
    int n_domain = autotune_delta_domain_(g, domain);
    if (unit > 0.0 && !skewed)  /* rule 1: INF on skewed degrees */
        delta = autotune_nearest_power_({float(constants["delta_factor"])!r} * autotune_delta_target_(
            {float(single["delta_scale"])!r}, {float(single["delta_skew"])!r}, {float(single["delta_spread"])!r}, unit, g),
            domain, n_domain);
    c->concurrent_kernels = autotune_memory_bound_({largest}, autotune_lanes_cks_, {len(cks)}, n, m,
                                                   {float(algorithm.bytes_per_vertex)!r}, {float(algorithm.bytes_per_instance)!r});
    if (queries > 0 && c->concurrent_kernels > queries)
        c->concurrent_kernels = autotune_queries_ck_(autotune_lanes_cks_, {len(cks)}, queries);
    autotune_kernel_(c, 0, "advance", skewed ? {skew_block} : {block}, 0, 1);
    autotune_kernel_(c, 1, "split", skewed ? {skew_block} : {block}, 0, 1);
    if (delta < 0) autotune_set_(c, "delta", 0, "inf"); else autotune_set_(c, "delta", delta, 0);
    autotune_set_(c, "blocks_per_sm", skewed ? {skew_per_sm} : {per_sm}, 0);
    return 0;
}}
"""


__all__ = ["header_rules"]
