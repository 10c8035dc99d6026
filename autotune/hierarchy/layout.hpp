// A contraction's result laid out as the GPU sweeps it: the arrays of autotune/hierarchy/layout.py's
// `Hierarchy.from_contraction`, the same ones, in linear time (counting sorts where numpy sorts: grid22's
// 43M arcs in 12.9 s of numpy on this VM), the arcs' passes on `threads` threads (on one, grid24's 174M
// took 5.3 s on the H200's host). C linkage, through ctypes (compiled.py's `layout_compiled`).
#pragma once

#include <algorithm>
#include <vector>

#include "parallel.hpp"

extern "C" {

// The arcs that lead upward (to a higher rank), of m arcs.
long long ch_upward(long long m, const long long* rank, const long long* tails, const long long* heads,
                    int threads) {
    constexpr size_t PIECE = 1 << 16;
    const size_t pieces = (static_cast<size_t>(m) + PIECE - 1) / PIECE;
    std::vector<long long> up(pieces, 0);
    parallel_for(threads, pieces, 1, [&](int, size_t p) {
        const long long end = std::min<long long>(m, static_cast<long long>((p + 1) * PIECE));
        for (long long k = static_cast<long long>(p * PIECE); k < end; ++k) up[p] += rank[heads[k]] > rank[tails[k]];
    });
    long long all = 0;
    for (long long count : up) all += count;
    return all;
}

// n vertices of ranks `rank` (a permutation of 0..n-1, else it returns 1 and writes nothing more)
// and levels `level` (0 to levels - 1, each one held), m arcs. new_of, old_of: n entries, the
// vertices by descending level and, within one, descending rank; level_start: levels + 1;
// up_*: each vertex's upward out-arcs (up_offsets n + 1), down_*: its downward in-arcs, by new
// ids and in the arcs' order within a vertex: each arc's place counted and taken on every thread,
// then each vertex's arcs put back in their order (a sort of its few arcs' indices).
int ch_layout(int n, long long m, const long long* rank, const long long* level, const long long* tails,
              const long long* heads, const long long* weights, int levels, long long* new_of, long long* old_of,
              long long* level_start, long long* up_offsets, int* up_heads, long long* up_weights,
              long long* down_offsets, int* down_tails, long long* down_weights, int threads) {
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
    constexpr size_t PIECE = 1 << 16;
    const size_t pieces = (static_cast<size_t>(m) + PIECE - 1) / PIECE;
    auto each_arc = [&](const auto& f) {
        parallel_for(threads, pieces, 1, [&](int, size_t p) {
            const long long end = std::min<long long>(m, static_cast<long long>((p + 1) * PIECE));
            for (long long k = static_cast<long long>(p * PIECE); k < end; ++k) f(k, rank[heads[k]] > rank[tails[k]]);
        });
    };
    each_arc([&](long long k, bool up) {
        long long* count = up ? &up_offsets[new_of[tails[k]] + 1] : &down_offsets[new_of[heads[k]] + 1];
        __atomic_fetch_add(count, 1, __ATOMIC_RELAXED);
    });
    for (int v = 0; v < n; ++v) {
        up_offsets[v + 1] += up_offsets[v];
        down_offsets[v + 1] += down_offsets[v];
    }
    std::vector<long long> up_next(up_offsets, up_offsets + n), down_next(down_offsets, down_offsets + n);
    if (threads <= 1) {  // the arcs put in their places as they come (the indices' sort costs more on one thread)
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
    std::vector<long long> up_arc(static_cast<size_t>(up_offsets[n])), down_arc(static_cast<size_t>(down_offsets[n]));
    each_arc([&](long long k, bool up) {  // each arc's index at a place of its vertex's
        if (up) {
            up_arc[static_cast<size_t>(__atomic_fetch_add(&up_next[new_of[tails[k]]], 1, __ATOMIC_RELAXED))] = k;
        } else {
            down_arc[static_cast<size_t>(__atomic_fetch_add(&down_next[new_of[heads[k]]], 1, __ATOMIC_RELAXED))] = k;
        }
    });
    parallel_for(threads, static_cast<size_t>(n), 4096, [&](int, size_t v) {
        std::sort(up_arc.begin() + up_offsets[v], up_arc.begin() + up_offsets[v + 1]);
        for (long long at = up_offsets[v]; at < up_offsets[v + 1]; ++at) {
            long long k = up_arc[static_cast<size_t>(at)];
            up_heads[at] = static_cast<int>(new_of[heads[k]]);
            up_weights[at] = weights[k];
        }
        std::sort(down_arc.begin() + down_offsets[v], down_arc.begin() + down_offsets[v + 1]);
        for (long long at = down_offsets[v]; at < down_offsets[v + 1]; ++at) {
            long long k = down_arc[static_cast<size_t>(at)];
            down_tails[at] = static_cast<int>(new_of[tails[k]]);
            down_weights[at] = weights[k];
        }
    });
    return 0;
}

}  // extern "C"
