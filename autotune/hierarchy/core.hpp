// The dense core: the last vertices of a graph whose uncontracted part densifies as it contracts (a
// grid's top separators: grid24 had 3,969 vertices left, one of them with 149 in- and out-arcs, when
// a vertex's pairs of neighbours passed `max_pairs` and the witness searches would have scanned the
// whole core for each pair). Where at most `dense_core` vertices are left, they are contracted at once
// as a matrix, least level first, every shortcut kept whose path is the shortest between its ends:
//
// - D, every pair's distance in the uncontracted part (Floyd-Warshall), which the contraction of the
//   vertices below keeps for every pair of vertices left;
// - M, the arcs as the contraction in that order leaves them: contracting k joins each i and j left
//   after it by the lighter of M[i][j] and M[i][k] + M[k][j] (every pair, no witness search);
// - k's arcs are its arcs in M to the vertices left after it whose weight is their distance, D. The
//   others are not needed: an up-and-down path of the hierarchy that M's arcs make (one exists for
//   every shortest path) is a shortest path, so each of its arcs weighs its ends' distance.
//
// Both matrices cost c^2 x 8 bytes and c^3 steps for c vertices (4,096: 268 MB; contraction.DENSE_CORE
// holds them within 512 MiB), bound by memory (each step reads a matrix): a core of 4,096 vertices
// contracted on this VM's 2 threads in about 27 s.
#pragma once

#include <algorithm>
#include <vector>

#include "parallel.hpp"
#include "witness.hpp"

namespace {

// row[j] = min(row[j], first + via[j]) for j < c: every step of both matrices, built for the widest
// vector instructions the machine has (the build's default, SSE2, has no 64-bit compare).
__attribute__((target_clones("avx512f", "avx2", "default"))) void relax_row(long long* row, long long first,
                                                                         const long long* via, size_t c) {
    for (size_t j = 0; j < c; ++j) row[j] = std::min(row[j], first + via[j]);
}

// Contracts the vertices of g in `left` (uncontracted; any order), ranked from `order` on: their rank
// and level (by the graph's ids) into `rank` and `level`, their arcs into `ended`, and the arcs
// written less those the core held added to `added`; `progress(contracted, n)` called every `every`
// steps of each matrix (where given), false where it asked to stop.
bool contract_dense_core(Uncontracted& g, std::vector<int> left, long long order, long long* rank, long long* level,
                         std::vector<Shortcut>& ended, int threads, Progress progress, int every, int n,
                         long long& added) {
    auto stop = [&](size_t step, long long contracted) {
        return progress != nullptr && every > 0 && step % static_cast<size_t>(every) == 0 &&
               progress(static_cast<int>(contracted), n) != 0;
    };
    std::sort(left.begin(), left.end(),
              [&](int u, int v) { return g.key[u] < g.key[v] || (g.key[u] == g.key[v] && u < v); });
    const size_t c = left.size();
    std::vector<int> at(static_cast<size_t>(g.size()), -1);
    for (size_t i = 0; i < c; ++i) at[left[i]] = static_cast<int>(i);
    std::vector<long long> m(c * c, INF);
    long long written = 0;  // arcs written, less those the core held
    for (size_t i = 0; i < c; ++i) {
        m[i * c + i] = 0;
        written -= static_cast<long long>(g.out[left[i]].size());
        for (const Arc& a : g.out[left[i]]) {
            long long& arc = m[i * c + static_cast<size_t>(at[a.to])];
            arc = std::min(arc, a.w);
        }
    }
    std::vector<long long> d(m);
    for (size_t k = 0; k < c; ++k) {  // row and column k do not change while k is the way through
        if (stop(k + 1, order)) return false;
        const long long* via = &d[k * c];
        parallel_for(threads, c, 16, [&](int, size_t i) {
            const long long first = d[i * c + k];
            if (first >= INF) return;
            relax_row(&d[i * c], first, via, c);
        });
    }
    // The next vertex: the least level, then the least key (`left`'s order), so that a level takes as
    // many as it can (grid18's core, forced by 800 pairs at most, on this VM: 89 levels against 206 least
    // key first).
    std::vector<char> done(c, 0);
    for (size_t step = 0; step < c; ++step) {
        size_t k = c;
        for (size_t i = 0; i < c; ++i) {
            if (!done[i] && (k == c || g.lvl[left[i]] < g.lvl[left[k]])) k = i;
        }
        done[k] = 1;
        if (stop(step + 1, order + static_cast<long long>(step))) return false;
        const int v = left[k];
        rank[g.old_of[v]] = order + static_cast<long long>(step);
        level[g.old_of[v]] = g.lvl[v];
        g.rnk[v] = order + static_cast<long long>(step);
        for (size_t j = 0; j < c; ++j) {
            if (done[j]) continue;
            const int x = left[j];
            bool out = m[k * c + j] < INF && m[k * c + j] == d[k * c + j];
            bool in = m[j * c + k] < INF && m[j * c + k] == d[j * c + k];
            if (out) ended.push_back({g.old_of[v], g.old_of[x], m[k * c + j]});
            if (in) ended.push_back({g.old_of[x], g.old_of[v], m[j * c + k]});
            if (out || in) g.lvl[x] = std::max(g.lvl[x], g.lvl[v] + 1);
            written += out + in;
        }
        const long long* via = &m[k * c];
        parallel_for(threads, c, 16, [&](int, size_t i) {  // a row or column of a vertex done is not read again
            long long* row = &m[i * c];
            const long long first = row[k];
            if (done[i] || first >= INF) return;
            relax_row(row, first, via, c);
        });
    }
    for (int v : left) {
        std::vector<Arc>().swap(g.out[v]);
        std::vector<Arc>().swap(g.into[v]);
    }
    added += written;
    return true;
}

}  // namespace
