// Reads "vertices mean_degree degree_cv queries" lines (degree_cv < 0: unknown, queries 0: no bound)
// and prints what autotune_lookup answers, one line each, in the form tests/test_table_export.py
// prints Table.lookup's answers.
#include <cstdio>
#include "tuned_sssp.h"

int main() {
    double v, d, cv;
    int q;
    while (std::scanf("%lf %lf %lf %d", &v, &d, &cv, &q) == 4) {
        autotune_match m;
        if (autotune_lookup(v, d, cv, q, &m) != 0) {
            std::printf("error\n");
            continue;
        }
        const autotune_config &c = m.config;
        std::printf("%s %s %s CK%d", m.graph_name, m.source, autotune_algorithm_names[c.algorithm], c.concurrent_kernels);
        for (int i = 0; i < c.n_kernels; ++i)
            std::printf(" %s=%d:%s/L%d", c.kernels[i].name, c.kernels[i].block_size,
                        autotune_cache_names[c.kernels[i].cache], c.kernels[i].lanes);
        for (int i = 0; i < c.n_params; ++i) std::printf(" %s=%s", c.params[i].name, c.params[i].text);
        std::printf("\n");
    }
    return 0;
}
