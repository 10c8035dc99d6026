// Reads "vertices mean_degree degree_cv max_degree min_positive_weight max_weight mean_weight
// lightest_weight hop_depth level_width hierarchy wide queries" lines (a figure < 0: unknown; queries
// 0: no bound) and prints what autotune_model answers, one line each, in the form
// tests/test_table_export_model.py prints Python's model answers.
#include <cstdio>
#include "tuned_sssp.h"

int main() {
    autotune_graph g;
    int q;
    while (std::scanf("%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %d %d %d", &g.vertices, &g.mean_degree, &g.degree_cv,
                      &g.max_degree, &g.min_positive_weight, &g.max_weight, &g.mean_weight, &g.lightest_weight,
                      &g.hop_depth, &g.level_width, &g.hierarchy, &g.wide, &q) == 13) {
        autotune_match m;
        if (autotune_model(&g, q, &m) != 0) {
            std::printf("error\n");
            continue;
        }
        const autotune_config &c = m.config;
        std::printf("%s CK%d", autotune_algorithm_names[c.algorithm], c.concurrent_kernels);
        for (int i = 0; i < c.n_kernels; ++i)
            std::printf(" %s=%d:%s/L%d", c.kernels[i].name, c.kernels[i].block_size,
                        autotune_cache_names[c.kernels[i].cache], c.kernels[i].lanes);
        for (int i = 0; i < c.n_params; ++i) std::printf(" %s=%s", c.params[i].name, c.params[i].text);
        std::printf("\n");
    }
    return 0;
}
