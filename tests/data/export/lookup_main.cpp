// `lookup`: reads "vertices mean_degree degree_cv queries" lines (degree_cv < 0: unknown, queries 0:
// no bound) and prints what autotune_lookup answers; `model`: reads "vertices mean_degree degree_cv
// max_degree min_positive_weight max_weight mean_weight lightest_weight hop_depth level_width
// hierarchy wide queries" lines (a figure < 0: unknown) and prints what autotune_model answers: one
// line each, in the form tests/test_table_export.py and test_table_export_model.py print Python's.
#include <cstdio>
#include <cstring>
#include "tuned_sssp.h"

static bool next(bool model, autotune_match &m, bool &ok) {
    if (!model) {
        double v, d, cv;
        int q;
        if (std::scanf("%lf %lf %lf %d", &v, &d, &cv, &q) != 4) return false;
        ok = autotune_lookup(v, d, cv, q, &m) == 0;
        return true;
    }
    autotune_graph g;
    int q;
    if (std::scanf("%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %d %d %d", &g.vertices, &g.mean_degree, &g.degree_cv,
                   &g.max_degree, &g.min_positive_weight, &g.max_weight, &g.mean_weight, &g.lightest_weight,
                   &g.hop_depth, &g.level_width, &g.hierarchy, &g.wide, &q) != 13)
        return false;
    ok = autotune_model(&g, q, &m) == 0;
    return true;
}

int main(int argc, char **argv) {
    bool model = argc > 1 && std::strcmp(argv[1], "model") == 0, ok = false;
    autotune_match m;
    while (next(model, m, ok)) {
        if (!ok) {
            std::printf("error\n");
            continue;
        }
        const autotune_config &c = m.config;
        if (!model) std::printf("%s %s ", m.graph_name, m.source);
        std::printf("%s CK%d", autotune_algorithm_names[c.algorithm], c.concurrent_kernels);
        for (int i = 0; i < c.n_kernels; ++i)
            std::printf(" %s=%d:%s/L%d", c.kernels[i].name, c.kernels[i].block_size,
                        autotune_cache_names[c.kernels[i].cache], c.kernels[i].lanes);
        for (int i = 0; i < c.n_params; ++i) std::printf(" %s=%s", c.params[i].name, c.params[i].text);
        std::printf("\n");
    }
    return 0;
}
