// A contraction's result laid out as the GPU sweeps it: the arrays of autotune/hierarchy/layout.py's
// `Hierarchy.from_contraction`, the same ones, in linear time (counting sorts where numpy sorts: grid22's
// 43M arcs in 12.9 s of numpy on this VM). C linkage, through ctypes (compiled.py's `layout_compiled`).
#pragma once

#include <vector>

extern "C" {

// The arcs that lead upward (to a higher rank), of m arcs.
long long ch_upward(long long m, const long long* rank, const long long* tails, const long long* heads) {
    long long up = 0;
    for (long long k = 0; k < m; ++k) up += rank[heads[k]] > rank[tails[k]];
    return up;
}

// n vertices of ranks `rank` (a permutation of 0..n-1, else it returns 1 and writes nothing more)
// and levels `level` (0 to levels - 1, each one held), m arcs. new_of, old_of: n entries, the
// vertices by descending level and, within one, descending rank; level_start: levels + 1;
// up_*: each vertex's upward out-arcs (up_offsets n + 1), down_*: its downward in-arcs, by new
// ids and in the arcs' order within a vertex.
int ch_layout(int n, long long m, const long long* rank, const long long* level, const long long* tails,
              const long long* heads, const long long* weights, int levels, long long* new_of, long long* old_of,
              long long* level_start, long long* up_offsets, int* up_heads, long long* up_weights,
              long long* down_offsets, int* down_tails, long long* down_weights) {
    std::vector<int> of_rank(static_cast<size_t>(n), -1);
    for (int v = 0; v < n; ++v) {
        if (rank[v] < 0 || rank[v] >= n || of_rank[rank[v]] >= 0 || level[v] < 0 || level[v] >= levels) return 1;
        of_rank[rank[v]] = v;
    }
    for (int i = 0; i <= levels; ++i) level_start[i] = 0;
    for (int v = 0; v < n; ++v) ++level_start[levels - level[v]];  // the top level first
    for (int i = 0; i < levels; ++i) level_start[i + 1] += level_start[i];
    std::vector<long long> next(level_start, level_start + levels);
    for (int r = n - 1; r >= 0; --r) {
        int v = of_rank[r];
        long long id = next[levels - 1 - level[v]]++;
        old_of[id] = v;
        new_of[v] = id;
    }
    for (long long v = 0; v <= n; ++v) up_offsets[v] = down_offsets[v] = 0;
    for (long long k = 0; k < m; ++k) {
        bool up = rank[heads[k]] > rank[tails[k]];
        ++(up ? up_offsets[new_of[tails[k]] + 1] : down_offsets[new_of[heads[k]] + 1]);
    }
    for (int v = 0; v < n; ++v) {
        up_offsets[v + 1] += up_offsets[v];
        down_offsets[v + 1] += down_offsets[v];
    }
    std::vector<long long> up_next(up_offsets, up_offsets + n), down_next(down_offsets, down_offsets + n);
    for (long long k = 0; k < m; ++k) {
        long long t = new_of[tails[k]], h = new_of[heads[k]];
        if (rank[heads[k]] > rank[tails[k]]) {
            long long at = up_next[t]++;
            up_heads[at] = static_cast<int>(h);
            up_weights[at] = weights[k];
        } else {
            long long at = down_next[h]++;
            down_tails[at] = static_cast<int>(t);
            down_weights[at] = weights[k];
        }
    }
    return 0;
}

}  // extern "C"
