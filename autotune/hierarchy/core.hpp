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
// holds them within 512 MiB): a core of 4,096 vertices contracted on this VM's 2 threads in about 27 s
// before D was made in blocks (`all_distances`); M's steps, in an order found as they go, are not.
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

// d[i][j] = min(d[i][j], d[i][k] + d[k][j]) for the rows i of [i0, i1) and the columns j of [j0, j1),
// for each k of [k0, k1) in turn (c x c, row-major): one block's steps of Floyd-Warshall by blocks.
__attribute__((target_clones("avx512f", "avx2", "default"))) void relax_block(long long* d, size_t c, size_t i0,
                                                                           size_t i1, size_t j0, size_t j1,
                                                                           size_t k0, size_t k1) {
    for (size_t k = k0; k < k1; ++k) {
        const long long* via = &d[k * c];
        auto one_row = [&](long long* row) {  // an infinite first adds nothing (and INF + INF overflows)
            if (row[k] < INF) relax_row(row + j0, row[k], via + j0, j1 - j0);
        };
        size_t i = i0;
        for (; i + 4 <= i1; i += 4) {  // four rows a pass over via
            long long* r0 = &d[i * c];
            long long* r1 = r0 + c;
            long long* r2 = r1 + c;
            long long* r3 = r2 + c;
            const long long f0 = r0[k], f1 = r1[k], f2 = r2[k], f3 = r3[k];
            // one at a time where a row is via itself, or a first is infinite (INF + INF overflows)
            if ((k >= i && k < i + 4) || std::max(std::max(f0, f1), std::max(f2, f3)) >= INF) {
                for (long long* row : {r0, r1, r2, r3}) one_row(row);
                continue;
            }
            for (size_t j = j0; j < j1; ++j) {
                const long long v = via[j];
                r0[j] = std::min(r0[j], f0 + v);
                r1[j] = std::min(r1[j], f1 + v);
                r2[j] = std::min(r2[j], f2 + v);
                r3[j] = std::min(r3[j], f3 + v);
            }
        }
        for (; i < i1; ++i) one_row(&d[i * c]);
    }
}

// Every pair's distance in d (c x c, row-major: the arcs, 0 on the diagonal, else INF) by
// Floyd-Warshall in blocks of FW_BLOCK (Venkataraman, Sahni and Mukhopadhyaya, "A blocked
// all-pairs shortest-paths algorithm", 2003): for each diagonal block, that block, then its
// row's and column's blocks, then all the others from those, on `threads` threads. A block's 128
// steps work within its 128 KB, where the steps of one k at a time each pass over the whole matrix
// (grid24's core of 4,824 vertices, 186 MB): on the H200's host's 16 threads 2.5 s against 6.6
// (`all_distances` and that loop timed on a matrix of 4,824 x 30 random arcs, the same distances).
// False where `stop(step)`, called for each step (k + 1) as its block begins, asked to stop.
template <class Stop>
bool all_distances(std::vector<long long>& d, size_t c, int threads, const Stop& stop) {
    constexpr size_t FW_BLOCK = 128;
    const size_t blocks = (c + FW_BLOCK - 1) / FW_BLOCK;
    auto lo = [&](size_t b) { return b * FW_BLOCK; };
    auto hi = [&](size_t b) { return std::min(c, (b + 1) * FW_BLOCK); };
    for (size_t kb = 0; kb < blocks; ++kb) {
        for (size_t k = lo(kb); k < hi(kb); ++k) {
            if (stop(k + 1)) return false;
        }
        relax_block(d.data(), c, lo(kb), hi(kb), lo(kb), hi(kb), lo(kb), hi(kb));
        // kb's row and column, then the others; a task's blocks are whole rows of blocks, or for kb's row
        // several blocks side by side, so that no two threads write one cache line often (on the H200's
        // host a task a block, whose rows' ends share lines with the next block's, ran slower than the
        // steps of one k at a time)
        constexpr size_t ROW_SPAN = 8;  // blocks of kb's row a task
        const size_t spans = (blocks + ROW_SPAN - 1) / ROW_SPAN;
        parallel_for(threads, spans + blocks, 1, [&](int, size_t x) {
            if (x < spans) {
                for (size_t b = x * ROW_SPAN; b < std::min(blocks, (x + 1) * ROW_SPAN); ++b) {
                    if (b != kb) relax_block(d.data(), c, lo(kb), hi(kb), lo(b), hi(b), lo(kb), hi(kb));
                }
            } else if (x - spans != kb) {
                relax_block(d.data(), c, lo(x - spans), hi(x - spans), lo(kb), hi(kb), lo(kb), hi(kb));
            }
        });
        parallel_for(threads, blocks, 1, [&](int, size_t ib) {
            if (ib == kb) return;
            for (size_t jb = 0; jb < blocks; ++jb) {
                if (jb != kb) relax_block(d.data(), c, lo(ib), hi(ib), lo(jb), hi(jb), lo(kb), hi(kb));
            }
        });
    }
    return true;
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
    if (!all_distances(d, c, threads, [&](size_t step) { return stop(step, order); })) return false;
    // The next vertex: the least level, then the least key (`left`'s order), so that a level takes as
    // many as it can (grid18's core, forced by 800 pairs at most, on this VM: 89 levels against 206 least
    // key first).
    //
    // Contracting k is one step of Floyd-Warshall on the rows left; those steps wait, up to PENDING of
    // them, and are then made at once, each row taking them in turn while it is in the cache (one pass
    // over M where each step had made one: a core of 4,824 vertices is 186 MB). A vertex taken first
    // has its row and column brought up to date by the steps waiting, which are all that step reads
    // (each waiting step's column kept as it was then): the same values as step by step.
    constexpr size_t PENDING = 16;
    std::vector<size_t> pending;
    std::vector<long long> columns(PENDING * c);  // each waiting step's column of M, when it was taken
    std::vector<char> done(c, 0);
    auto catch_up = [&]() {  // the waiting steps made on every row left
        parallel_for(threads, c, 16, [&](int, size_t i) {
            if (done[i]) return;
            long long* row = &m[i * c];
            for (size_t p : pending) {
                if (row[p] < INF) relax_row(row, row[p], &m[p * c], c);
            }
        });
        pending.clear();
    };
    for (size_t step = 0; step < c; ++step) {
        size_t k = c;
        for (size_t i = 0; i < c; ++i) {
            if (!done[i] && (k == c || g.lvl[left[i]] < g.lvl[left[k]])) k = i;
        }
        done[k] = 1;
        if (stop(step + 1, order + static_cast<long long>(step))) return false;
        long long* row = &m[k * c];
        long long* column = &columns[pending.size() * c];
        for (size_t j = 0; j < c; ++j) column[j] = m[j * c + k];
        for (size_t q = 0; q < pending.size(); ++q) {
            const size_t p = pending[q];
            if (row[p] < INF) relax_row(row, row[p], &m[p * c], c);
            const long long through = m[p * c + k];  // p's row as p's step left it
            if (through < INF) relax_row(column, through, &columns[q * c], c);
        }
        const int v = left[k];
        rank[g.old_of[v]] = order + static_cast<long long>(step);
        level[g.old_of[v]] = g.lvl[v];
        g.rnk[v] = order + static_cast<long long>(step);
        for (size_t j = 0; j < c; ++j) {
            if (done[j]) continue;
            const int x = left[j];
            bool out = row[j] < INF && row[j] == d[k * c + j];
            bool in = column[j] < INF && column[j] == d[j * c + k];
            if (out) ended.push_back({g.old_of[v], g.old_of[x], row[j]});
            if (in) ended.push_back({g.old_of[x], g.old_of[v], column[j]});
            if (out || in) g.lvl[x] = std::max(g.lvl[x], g.lvl[v] + 1);
            written += out + in;
        }
        pending.push_back(k);
        if (pending.size() == PENDING) catch_up();
    }
    for (int v : left) {
        std::vector<Arc>().swap(g.out[v]);
        std::vector<Arc>().swap(g.into[v]);
    }
    added += written;
    return true;
}

}  // namespace
