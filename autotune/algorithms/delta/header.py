"""Delta-stepping's model in C, for the table export's header (`autotune.table.export_model`): the
batch rules (`delta.rules`), one query's (`delta.latency.LatencyRules.apply`) and a few at once
(`model.queries.spread`, `delta.spread.apply`), as `predict.auto.predicted` chains them, with every
value that depends on the GPU alone computed here: the block sizes that launch, and for each block
size of the ladder the most vertices whose duplicate bitmaps it keeps (`rules.keeps_bitmaps`, which
falls as the vertices grow)."""
from __future__ import annotations

import bisect
import math
from typing import Any, Sequence

from autotune.algorithms.delta.rules import constants_of, keeps_bitmaps, ladder_of, launchable_sizes, per_sm

INF_TEXT, OFF_TEXT = "inf", "off"


def most_vertices_kept(device: Any, characterization: Any, block: int, ck: int) -> int:
    """The most vertices for which blocks of `block` keep their bitmaps at `ck` instances (0: none)."""
    if not keeps_bitmaps(1, device, characterization, block, ck):
        return 0
    vertices = range(1, (1 << 31) + 1)  # the first not kept is at index its count - 1: the answer
    return bisect.bisect_left(vertices, True, key=lambda n: not keeps_bitmaps(n, device, characterization, block, ck))


def _threshold(value: Any) -> str:
    """A bin threshold as C: its integer, or -1 for off."""
    return str(int(value)) if isinstance(value, int) else "-1"


def _latency_c(latency: Any, domain_block: tuple, domain_warp: tuple) -> str:
    """One query's rules (`LatencyRules.apply`) and a few at once (`spread.apply`) as C constants."""
    if latency is None:
        return "#define AUTOTUNE_DELTA_LATENCY_ 0\n"
    split = latency.grid_bins or {}
    bins = [split.get("low", {}), split.get("high", {})]
    spread = latency.spread or {}

    def shaped(values: Any, form: Any = float) -> str:
        return "{" + ", ".join(repr(form(values[s])) if not isinstance(values[s], str) else "-1"
                               for s in ("block", "grid")) + "}"

    ratio = {s: (-1.0 if math.isinf(r) else r) for s, r in latency.delta_ratio.items()}
    return "\n".join([
        "#define AUTOTUNE_DELTA_LATENCY_ 1",
        f"static const double autotune_delta_width_threshold_ = {float(latency.width_threshold)!r};",
        f"static const int autotune_delta_grid_blocks_ = {int(latency.grid_blocks)};",
        f"static const double autotune_delta_ratio_[2] = {shaped(ratio)};  /* block, grid; -1: INF */",
        f"static const double autotune_delta_exponent_[2] = {shaped(latency.degree_exponent)};",
        f"static const int autotune_delta_one_block_[2] = {shaped(latency.block_size, int)};",
        "static const int autotune_delta_one_warp_[2] = {" + ", ".join(
            _threshold(latency.warp_threshold[s]) if latency.warp_threshold[s] in domain_warp else "-2"
            for s in ("block", "grid")) + "};  /* -1 off, -2 not in the domain: left as it is */",
        "static const int autotune_delta_one_hub_[2] = {" + ", ".join(
            _threshold(latency.block_threshold[s]) if latency.block_threshold[s] in domain_block else "-2"
            for s in ("block", "grid")) + "};",
        f"static const int autotune_delta_shared_where_fits_ = {int(bool(latency.shared_where_fits))};",
        f"static const double autotune_delta_unit_skew_ = {float(latency.unit_skew)!r}, "
        f"autotune_delta_unit_spread_ = {float(latency.unit_spread)!r};",
        f"static const int autotune_delta_bins_ = {int(bool(split))};  /* the grid's priced bins */",
        f"static const double autotune_delta_bins_cut_ = {float(split.get('cut') or 0.0)!r};",
        "static const int autotune_delta_bins_block_[2] = {" + ", ".join(str(int(b.get("block_size", 0))) for b in bins) + "};",
        "static const int autotune_delta_bins_hub_[2] = {" + ", ".join(
            (_threshold(b["block_threshold"]) if b["block_threshold"] in domain_block else "-2") if b else "-2"
            for b in bins) + "};",
        f"static const double autotune_delta_defer_degree_ = {(-1.0 if math.isinf(latency.defer_degree) else float(latency.defer_degree))!r};",
        f"static const double autotune_delta_defer_weights_ = {float(latency.defer_weights)!r};",
        f"static const int autotune_delta_spread_ = {int(bool(spread))};",
        f"static const double autotune_delta_spread_queries_ = {float(spread.get('queries', 1))!r};",
        f"static const double autotune_delta_spread_ratio_ = "
        f"{(-1.0 if spread.get('delta_ratio') in ('inf', None) else float(spread['delta_ratio']))!r};",
        f"static const double autotune_delta_spread_exponent_ = {float(spread.get('degree_exponent', 0.0))!r};",
        f"static const double autotune_delta_spread_vertices_ = {float(spread.get('vertices_exponent', 0.0))!r};",
        f"static const int autotune_delta_spread_block_ = {int(spread.get('block_size', 0))};",
        ""])


def header_rules(algorithm: Any, device: Any, characterization: Any, latency: Any, shared_graph_bytes: int,
                 defer_below: int, defer_factors: Sequence[int], max_defer_work: int) -> str:
    """`autotune_rules_delta_(graph, queries, config)` in C (see the module's doc); `shared_graph_bytes`:
    the most shared memory the `shared` loop mode takes for the graph (`delta.MAX_SHARED_GRAPH_BYTES`);
    `defer_below`: the max degree below which `defer_work` has no value but off (`delta.DEFER_WORK_BELOW`);
    its values are the largest weight times each of `defer_factors`, at most `max_defer_work`
    (`delta.DEFER_WEIGHTS`, `delta.MAX_DEFER_WORK`)."""
    constants = constants_of(characterization)
    sizes = launchable_sizes(device, characterization)
    ladder = ladder_of(constants)
    largest = max(c for c in algorithm.concurrent_kernels if c <= 1024)
    one_per_sm = per_sm(algorithm.concurrent_kernels, device)
    wide_width = float(constants["wide_width"]) if "wide_width" in constants else -1.0
    wide_block = int(constants.get("wide_block_size", 0))
    steps = sorted(ladder.items())
    kept = [most_vertices_kept(device, characterization, size, largest) for size, _ in steps]
    wide_kept = most_vertices_kept(device, characterization, wide_block, one_per_sm) if wide_block else 0
    domain_block = algorithm.parameter("block_threshold").domain()
    domain_warp = algorithm.parameter("warp_threshold").domain()
    cks = algorithm.concurrent_kernels
    return f"""
/* ---- delta: Delta-stepping's rules (autotune/algorithms/delta: rules.py, latency.py, spread.py) ---- */
static const int autotune_delta_cks_[] = {{{", ".join(map(str, cks))}}};
static const long long autotune_delta_defer_factors_[] = {{{", ".join(f"{int(k)}LL" for k in defer_factors)}}};
static const int autotune_delta_sizes_[] = {{{", ".join(map(str, sizes))}}};
static const int autotune_delta_ladder_[] = {{{", ".join(str(s) for s, _ in steps) or "0"}}};
static const double autotune_delta_ladder_from_[] = {{{", ".join(repr(float(w)) for _, w in steps) or "0.0"}}};
static const long long autotune_delta_ladder_kept_[] = {{{", ".join(map(str, kept)) or "0"}}};
enum {{ AUTOTUNE_DELTA_CKS_ = {len(cks)}, AUTOTUNE_DELTA_SIZES_ = {len(sizes)}, AUTOTUNE_DELTA_LADDER_ = {len(steps)} }};
{_latency_c(latency, domain_block, domain_warp)}
static inline double autotune_delta_unit_(const autotune_graph *g) {{  /* rule 1's unit: lightest arcs, else mean weight */
    return g->lightest_weight > 0.0 ? g->lightest_weight : (g->mean_weight > 0.0 ? g->mean_weight : 0.0);
}}

static inline void autotune_delta_canonical_(autotune_config *c) {{  /* DeltaStepping.canonical */
    const char *loop = autotune_param_(c, "loop");
    if (!*autotune_param_(c, "defer_work")) autotune_set_(c, "defer_work", 0, "off");
    if (!*autotune_param_(c, "tiles")) autotune_set_(c, "tiles", 2, 0);
    if (strcmp(loop, "shared") == 0 && strcmp(autotune_param_(c, "blocks"), "1") != 0) autotune_set_(c, "blocks", 1, 0);
    if (strcmp(loop, "persistent") != 0 || strcmp(autotune_param_(c, "blocks"), "1") == 0) {{
        autotune_set_(c, "defer_work", 0, "off");
        autotune_set_(c, "tiles", 2, 0);
    }}
    if (strcmp(loop, "host") != 0) c->kernels[1] = c->kernels[0], c->kernels[1].name = "split";
}}

static inline void autotune_delta_value_(autotune_config *c, const char *name, long long value) {{
    if (value < 0) autotune_set_(c, name, 0, "inf"); else autotune_set_(c, name, value, 0);
}}

static inline void autotune_delta_threshold_(autotune_config *c, const char *name, int value) {{
    if (value == -1) autotune_set_(c, name, 0, "off"); else if (value >= 0) autotune_set_(c, name, value, 0);
}}

static inline int autotune_rules_delta_(const autotune_graph *g, int queries, autotune_config *c) {{
    double n = g->vertices > 1.0 ? g->vertices : 1.0, m = nearbyint(g->vertices * g->mean_degree);
    double d = g->mean_degree > 1e-9 ? g->mean_degree : 1e-9, unit = autotune_delta_unit_(g), width = g->level_width;
    long long domain[64], delta = -1;
    int n_domain = autotune_delta_domain_(g, domain), largest = {largest}, wanted, block, ck, hub, warp;
    int with_latency = AUTOTUNE_DELTA_LATENCY_ && width >= 0.0, few = with_latency && queries > 1
        && queries <= {algorithm.one_query_shape_up_to(characterization)}, k = few ? 1 : queries;
    long long max_degree = g->max_degree >= 0.0 ? (long long)g->max_degree : (long long)ceil(d);
    if (unit > 0.0)  /* rule 1 */
        delta = autotune_nearest_power_(autotune_delta_target_({float(constants["delta_scale"])!r}, {float(constants["delta_skew"])!r},
                                        {float(constants["delta_spread"])!r}, unit, g), domain, n_domain);
    if ({wide_width!r} >= 0.0 && width >= {wide_width!r} && n <= (double){wide_kept}) {{  /* rule 4: one instance per SM */
        largest = {one_per_sm}; wanted = {wide_block};
    }} else if (AUTOTUNE_DELTA_LADDER_ > 0 && width >= 0.0) {{  /* rule 5: the ladder, then the bitmaps */
        int at = 0;
        for (int i = 0; i < AUTOTUNE_DELTA_LADDER_; ++i) if (width >= autotune_delta_ladder_from_[i]) at = i;
        if (n > (double)autotune_delta_ladder_kept_[at])
            for (int i = at + 1; i < AUTOTUNE_DELTA_LADDER_; ++i)
                if (n <= (double)autotune_delta_ladder_kept_[i]) {{ at = i; break; }}
        wanted = autotune_delta_ladder_[at];
    }} else wanted = {int(constants["block_size"])};
    block = autotune_delta_sizes_[AUTOTUNE_DELTA_SIZES_ - 1];
    for (int i = 0; i < AUTOTUNE_DELTA_SIZES_; ++i) if (autotune_delta_sizes_[i] == wanted) block = wanted;
    ck = autotune_memory_bound_(largest, autotune_delta_cks_, AUTOTUNE_DELTA_CKS_, n, m, {float(algorithm.bytes_per_vertex)!r},
                                {float(algorithm.bytes_per_instance)!r});
    warp = max_degree >= 32 && d >= 32.0 ? 32 : -1;  /* rule 6 */
    hub = max_degree >= {int(constants["block_threshold"])} ? {int(constants["block_threshold"])} : -1;
    c->concurrent_kernels = ck;
    autotune_kernel_(c, 0, "advance", block, 0, 1);
    autotune_kernel_(c, 1, "split", block, 0, 1);
    autotune_delta_value_(c, "delta", delta);
    autotune_set_(c, "loop", 0, "persistent");
    autotune_set_(c, "blocks", 1, 0);
    autotune_delta_threshold_(c, "warp_threshold", warp);
    autotune_delta_threshold_(c, "block_threshold", hub);
    autotune_delta_canonical_(c);
    if (k > 0 && c->concurrent_kernels > k)  /* at most K at once */
        c->concurrent_kernels = autotune_queries_ck_(autotune_delta_cks_, AUTOTUNE_DELTA_CKS_, k);
#if AUTOTUNE_DELTA_LATENCY_
    if (with_latency && k == 1) {{  /* one query's shape, Delta, bins, loop, deferral and block size */
        int grid = width >= autotune_delta_width_threshold_, size, hub1, defer_set = 0;
        double one_unit = unit > 0.0 ? autotune_delta_target_(1.0, autotune_delta_unit_skew_, autotune_delta_unit_spread_,
                                                               unit, g) : 0.0;
        double ratio = autotune_delta_ratio_[grid], exponent = autotune_delta_exponent_[grid];
        long long delta1 = -1, defer = 0;
        int shared = !grid && autotune_delta_shared_where_fits_
            && 4.0 * (n + 1.0 + 2.0 * m) + 4.0 * n <= {shared_graph_bytes}.0;
        if (ratio >= 0.0 && one_unit != 0.0 && n_domain > 0)
            delta1 = autotune_nearest_power_(ratio * one_unit / pow(d, exponent), domain, n_domain);
        autotune_set_(c, "blocks", grid ? autotune_delta_grid_blocks_ : 1, 0);
        autotune_delta_value_(c, "delta", delta1);
        autotune_set_(c, "loop", 0, shared ? "shared" : "persistent");
        size = autotune_delta_one_block_[grid];
        hub1 = autotune_delta_one_hub_[grid];
        if (grid && autotune_delta_bins_) {{
            int side = autotune_delta_bins_cut_ > 0.0 && width >= autotune_delta_bins_cut_;
            size = autotune_delta_bins_block_[side];
            hub1 = autotune_delta_bins_hub_[side];
        }}
        autotune_delta_threshold_(c, "warp_threshold", autotune_delta_one_warp_[grid]);
        autotune_delta_threshold_(c, "block_threshold", hub1);
        if (!(g->max_degree >= 0.0 && g->max_degree < {float(defer_below)!r})) {{  /* defer_work's domain has values */
            long long weight = g->max_weight > 0.0 ? (long long)g->max_weight : 100, values[{len(defer_factors)}];
            double target, best = 0.0;
            if (weight < 1) weight = 1;
            defer_set = 1;
            if (grid && autotune_delta_defer_degree_ >= 0.0 && g->mean_degree >= autotune_delta_defer_degree_) {{
                for (int i = 0; i < {len(defer_factors)}; ++i) {{
                    long long value = weight * autotune_delta_defer_factors_[i];
                    values[i] = value < {int(max_defer_work)}LL ? value : {int(max_defer_work)}LL;
                }}
                target = autotune_delta_defer_weights_ * (g->max_weight > 0.0 ? g->max_weight : (double)values[0]);
                for (int i = 0; i < {len(defer_factors)}; ++i) {{
                    double away = fabs(log2((double)values[i] / target));
                    if (i == 0 || away < best) {{ best = away; defer = values[i]; }}
                }}
            }}
        }}
        if (defer_set) {{ if (defer > 0) autotune_set_(c, "defer_work", defer, 0); else autotune_set_(c, "defer_work", 0, "off"); }}
        autotune_kernel_(c, 0, "advance", size, 0, 1);
        autotune_kernel_(c, 1, "split", size, 0, 1);
        autotune_delta_canonical_(c);
        if (few) {{  /* one query's grid shared out over K (DeltaStepping.spread_over), then the spread rules */
            int spread_ck = autotune_queries_ck_(autotune_delta_cks_, AUTOTUNE_DELTA_CKS_, queries);
            int blocks = atoi(autotune_param_(c, "blocks"));
            c->concurrent_kernels = spread_ck;
            if (strcmp(autotune_param_(c, "loop"), "persistent") == 0 && blocks != 1 && spread_ck != 1) {{
                int share = blocks / spread_ck > 1 ? blocks / spread_ck : 1, power = 1;
                while (power * 2 <= share) power *= 2;
                autotune_set_(c, "blocks", power, 0);
                autotune_set_(c, "defer_work", 0, "off");
                autotune_delta_canonical_(c);
            }}
            if (autotune_delta_spread_ && atoi(autotune_param_(c, "blocks")) != 1) {{
                double share = log2((double)queries) / log2(autotune_delta_spread_queries_), top, low, high, target;
                double scale = pow(n / 65536.0, autotune_delta_spread_vertices_), spread_target, one_target;
                const char *one = autotune_param_(c, "delta");
                long long delta2;
                if (share > 1.0) share = 1.0;
                spread_target = autotune_delta_spread_ratio_ >= 0.0 && one_unit != 0.0
                    ? autotune_delta_spread_ratio_ * one_unit / pow(d, autotune_delta_spread_exponent_) / scale : INFINITY;
                one_target = strcmp(one, "inf") == 0 ? INFINITY : atof(one);
                if (!(n_domain == 0 || (isinf(spread_target) && isinf(one_target)))) {{
                    top = 2.0 * (double)domain[n_domain - 1];
                    low = one_target < top ? one_target : top;
                    high = spread_target < top ? spread_target : top;
                    target = pow(2.0, (1.0 - share) * log2(low) + share * log2(high));
                    delta2 = target >= top ? -1 : autotune_nearest_power_(target, domain, n_domain);
                    autotune_delta_value_(c, "delta", delta2);
                }}
                autotune_kernel_(c, 0, "advance", autotune_delta_spread_block_, 0, 1);
                autotune_kernel_(c, 1, "split", autotune_delta_spread_block_, 0, 1);
                autotune_delta_canonical_(c);
            }}
        }}
    }}
#endif
    (void)few;  /* read by the one-query rules only */
    return 0;
}}
"""


__all__ = ["header_rules", "most_vertices_kept"]
