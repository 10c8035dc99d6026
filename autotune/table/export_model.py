"""The model's answer in C, for the header `autotune table export --format c-header` writes
(issue 67: `Table.lookup` and the header answered a graph the table does not hold two ways).

`model_section(table)` is the header's `autotune_model(graph, queries, match)`: what
`predict.answer.model_answer` gives with the table's own choice model and GPU (`Table.model`,
`Table.model_device`), as `Table.lookup` asks it: the algorithm the tree picks for K sources (or one
the graph admits: PHAST where its hierarchy is kept), the first of auto's order that can serve K
where it cannot, and that algorithm's configuration by its fitted model or its rules
(`predict.auto.predicted`). Whatever depends on the GPU alone (the block sizes that launch, the
occupancy steps, the memory) is computed here and written as constants; what depends on the graph
is C, each algorithm's in its own package (`Algorithm.header_rules`, `FittedModel.header_rules`), so
the two agree by construction: `tests/test_table_export_model.py` compiles the header and compares
its answers with Python's for every graph of the shipped tables at every power-of-two K.
"""
from __future__ import annotations

import bisect
from typing import Any

from autotune import algorithms
from autotune.predict.choice import FEATURES

HELPERS = r"""
/* Python's float floor division (`a // b`), as the memory bound takes it. */
static inline double autotune_floordiv_(double a, double b) {
    double mod = fmod(a, b), div = (a - mod) / b, whole;
    if (mod != 0.0 && ((b < 0.0) != (mod < 0.0))) div -= 1.0;
    if (div == 0.0) return copysign(0.0, a / b);
    whole = floor(div);
    if (div - whole > 0.5) whole += 1.0;
    return whole;
}

/* The largest of `cks` (ascending) with at most `k` at once; 0 where none. */
static inline int autotune_queries_ck_(const int *cks, int n, int k) {
    int found = 0;
    for (int i = 0; i < n; ++i) if (cks[i] <= k) found = cks[i];
    return found;
}

/* `ck`, or the largest of `cks` whose instances fit the GPU's memory (`model.memory.memory_bound`). */
static inline int autotune_memory_bound_(int ck, const int *cks, int n_cks, double n, double m, double per_vertex,
                                         double per_instance) {
    double graph = 4.0 * (n + 1.0) + 8.0 * m, each = per_vertex * n + per_instance, fit;
    int bounded = 0;
    if (AUTOTUNE_MEMORY_ <= 0.0) return ck;
    fit = autotune_floordiv_(0.9 * AUTOTUNE_MEMORY_ - graph, each > 1.0 ? each : 1.0);
    if (fit < 0.0) fit = 0.0;
    if ((double)ck <= fit) return ck;
    for (int i = 0; i < n_cks; ++i) if ((double)cks[i] <= fit) bounded = cks[i];
    return bounded ? bounded : cks[0];
}

/* Delta-stepping's Delta domain (`algorithms.delta.delta_values`): its finite powers of two, ascending. */
static inline int autotune_delta_domain_(const autotune_graph *g, long long *values) {
    long long first, last, v;
    int n = 0;
    if (!(g->min_positive_weight > 0.0) || !(g->max_weight > 0.0)) { values[0] = 1; return 1; }
    first = floor(log2(g->min_positive_weight)) > 0.0 ? 1LL << (int)floor(log2(g->min_positive_weight)) : 1;
    last = ceil(log2(g->max_weight * 16.0)) > 0.0 ? 1LL << (int)ceil(log2(g->max_weight * 16.0)) : 1;
    if (first > (1LL << 30)) first = 1LL << 30;
    if (last > (1LL << 30)) last = 1LL << 30;
    for (v = first; v <= last && n < 64; v <<= 1) values[n++] = v;
    return n;
}

/* The power of two of a domain nearest `value` on a log scale (ties: the smaller; `delta.rules.nearest_power`). */
static inline long long autotune_nearest_power_(double value, const long long *finite, int n) {
    double at = log2(value > 1e-9 ? value : 1e-9), best = 0.0;
    long long found = -1;
    for (int i = 0; i < n; ++i) {
        double away = fabs(log2((double)finite[i]) - at);
        if (found < 0 || away < best) { found = finite[i]; best = away; }
    }
    return found;
}

/* A configuration's parameter set by name (added where absent), as an integer or a name. */
static inline void autotune_set_(autotune_config *c, const char *name, long long value, const char *text) {
    int i = 0;
    while (i < c->n_params && strcmp(c->params[i].name, name) != 0) ++i;
    if (i == c->n_params) { if (i >= AUTOTUNE_MAX_PARAMS) return; ++c->n_params; }
    c->params[i].name = name;
    c->params[i].value = text ? -1 : (int)value;
    if (text) { strncpy(c->params[i].text, text, sizeof c->params[i].text - 1); c->params[i].text[sizeof c->params[i].text - 1] = 0; }
    else snprintf(c->params[i].text, sizeof c->params[i].text, "%lld", value);
}

/* A parameter's text ("" where the configuration has none). */
static inline const char *autotune_param_(const autotune_config *c, const char *name) {
    for (int i = 0; i < c->n_params; ++i) if (strcmp(c->params[i].name, name) == 0) return c->params[i].text;
    return "";
}

/* Delta-stepping's rule 1 before rounding (`delta.rules.delta_target`), `unit` its weight unit. */
static inline double autotune_delta_target_(double scale, double skew, double spread, double unit, const autotune_graph *g) {
    double factor = (g->max_weight > 0.0 && unit != 0.0) ? g->max_weight / (2.0 * unit) : 1.0;
    double d = g->mean_degree > 1e-9 ? g->mean_degree : 1e-9, cv = g->degree_cv > 0.0 ? g->degree_cv : 0.0;
    return scale * unit / d / pow(1.0 + cv, skew) * pow(factor, spread);
}

static inline void autotune_kernel_(autotune_config *c, int i, const char *name, int block, int cache, int lanes) {
    c->kernels[i].name = name; c->kernels[i].block_size = block; c->kernels[i].cache = cache; c->kernels[i].lanes = lanes;
    if (c->n_kernels <= i) c->n_kernels = i + 1;
}
"""


def _c_ints(values: Any) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def most_degree(entry: Any, limit: int = 1 << 30) -> int:
    """The largest out-degree the algorithm runs on (`Algorithm.unsuited`, refusing from some degree
    on), or -1 for any."""
    if entry.unsuited(limit) is None:
        return -1
    return bisect.bisect_left(range(limit + 1), True, key=lambda degree: entry.unsuited(degree) is not None) - 1


def model_section(table: Any) -> str:
    """The C of `autotune_model` for `table` (see the module's doc).

    Raises:
        InputError: as `Table.model` and `Table.model_device`.
    """
    from autotune.predict.auto import model_for

    chooser, device = table.model, table.model_device
    latency = chooser.latency
    auto = algorithms.resolve(algorithms.AUTO)
    ids = {a.name: a.header_id for a in algorithms.all_algorithms()}
    nodes = [f"  {{{FEATURES.index(n.feature) if n.algorithm is None else -1}, {float(n.threshold or 0.0)!r}, "
             f"{n.low if n.low is not None else -1}, {n.high if n.high is not None else -1}, "
             f"{ids[n.algorithm] if n.algorithm is not None else -1}}}" for n in chooser.nodes]
    admitted = [ids[name] for name in chooser.admitted]
    ranked = sorted(auto, key=lambda a: a.auto_rank)
    rules, cases, rows, served = [], [], [], set()
    for entry in auto:
        fitted, characterization = model_for(entry.name, device, "auto", latency)  # as `predict.auto.predicted`
        code = fitted.header_rules(entry, device) if fitted is not None else \
            entry.header_rules(device, characterization, latency)
        if code is None:
            continue
        served.add(entry.header_id)
        rules.append(code)
        cases.append(f"    case {entry.header_id}: return autotune_rules_{entry.name}_(g, queries, c);")
        unsuited = most_degree(entry)
        rows.append(f"  {{{entry.header_id}, {len(entry.concurrent_kernels)}, {_c_ints(entry.concurrent_kernels)}, "
                    f"{unsuited}, {int(entry.wide_distances)}}}")
    ranked_ids = [a.header_id for a in ranked if a.header_id in served]
    memory = float(device.global_memory_bytes or 0)
    return "\n".join([
        f"#define AUTOTUNE_MEMORY_ {memory!r}  /* the GPU's memory the model bounds CK by (0: unknown) */",
        HELPERS,
        "typedef struct { int feature; double threshold; int low, high, algorithm; } autotune_node_;",
        f"static const autotune_node_ autotune_tree_[] = {{\n{','.join(nodes)}\n}};",
        f"static const int autotune_admitted_[] = {_c_ints(admitted or [-1])};",
        f"enum {{ AUTOTUNE_ADMITTED_ = {len(admitted)}, AUTOTUNE_ALGOS_ = {len(rows)} }};",
        "typedef struct { int id, n_cks; int cks[16]; int max_degree, wide; } autotune_algo_;  /* servable's */",
        f"static const autotune_algo_ autotune_algos_[] = {{\n{','.join(rows)}\n}};",
        f"static const int autotune_ranked_[] = {_c_ints(ranked_ids)};",
        *rules,
        "static inline int autotune_rules_(int id, const autotune_graph *g, int queries, autotune_config *c) {",
        "    switch (id) {", *cases, "    default: return -1;", "    }", "}",
    ])


__all__ = ["model_section"]
