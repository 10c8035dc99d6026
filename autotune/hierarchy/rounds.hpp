// The contraction in rounds, on several threads (contract.cpp's ch_contract with `rounds` > 0).
//
// Each round takes every uncontracted vertex whose key is less than each neighbour's (ties by id):
// an independent set. Each one's shortcuts are found at once, by witness searches that avoid all of
// the round's vertices, so that no witness passes through another vertex contracted with it (every
// pair of remaining vertices keeps its distance). A vertex whose importance, so computed, is no
// longer less than each neighbour's key waits with its new key, as the contraction in order puts
// it back; the others are contracted at once, each thread changing only its vertex's neighbours'
// arcs, under their locks (no two of the round's vertices are neighbours). Keys rise with levels as
// in order. The same hierarchy for any number of threads; against the contraction in order (this
// VM, 2 threads): grid20 in 28.1 s against 34.6, 141 levels against 127, 2% more arcs
// (docs/notes/phast.md).
#pragma once

#include <atomic>

#include "core.hpp"
#include "parallel.hpp"
#include "witness.hpp"

namespace {

// One spin lock a vertex (a vertex's arcs, contracted neighbours, level and key).
class Locks {
   public:
    explicit Locks(int n) : held_(static_cast<size_t>(n)) {
        for (std::atomic<unsigned char>& held : held_) held.store(0, std::memory_order_relaxed);
    }
    void lock(int x) {
        while (held_[x].exchange(1, std::memory_order_acquire) != 0) {
        }
    }
    void unlock(int x) { held_[x].store(0, std::memory_order_release); }

   private:
    std::vector<std::atomic<unsigned char>> held_;
};

// Arguments, outputs and refusals as ch_contract's; the witness searches' work is all the threads'.
int contract_in_rounds(int n, long long m, const int* tails, const int* heads, const int* weights, const Limits& limits,
                       Progress progress, int every, int threads, long long* rank, long long* level, long long capacity,
                       long long* out_tails, long long* out_heads, long long* out_weights, long long* out_count,
                       long long* info) {
    const long long sampled = std::min<long long>(std::max(limits.sample, 1), n);
    GraphArcs arcs(n, m, tails, heads, weights, sampled);
    const bool symmetric = arcs.symmetric();
    long long live = arcs.arcs();
    const long long first_live = live;
    long long total = live;
    std::vector<Shortcut> ended;
    std::vector<char> in_sample = arcs.in_sample;
    Uncontracted g(std::move(arcs), n);
    threads = std::max(threads, 1);
    std::vector<Searcher> searchers;
    searchers.reserve(static_cast<size_t>(threads));
    for (int t = 0; t < threads; ++t) searchers.emplace_back(n);
    auto work = [&]() {
        long long sum = 0;
        for (const Searcher& s : searchers) sum += s.witness.work;
        return sum;
    };
    int order = 0;
    // Each of `vertices`' keys computed afresh, on every thread; -1, or the first (in order) that densified.
    std::vector<char> fine;
    auto estimate = [&](const std::vector<int>& vertices) {
        fine.assign(vertices.size(), 1);
        parallel_for(threads, vertices.size(), 16, [&](int t, size_t i) {
            Searcher& s = searchers[t];
            int v = vertices[i];
            fine[i] = needed_shortcuts(s, g, v, symmetric, limits.settle, limits.max_pairs, nullptr, s.scratch);
            if (fine[i]) g.key[v] = g.importance(v, s.scratch.size(), limits.level_weight);
        });
        for (size_t i = 0; i < vertices.size(); ++i) {
            if (!fine[i]) return vertices[i];
        }
        return -1;
    };
    // The first estimates: a sample's first, whose cost foresees the others' (as ch_contract), then
    // the others' in pieces, `progress` called once for each `every` of them.
    std::vector<int> piece;
    for (long long i = 0; i < sampled; ++i) piece.push_back(static_cast<int>(i * n / sampled));
    if (int v = estimate(piece); v >= 0) return densified(g, v, n - order, info);
    if (limits.foreseen(work(), sampled, n, info)) return CH_FORESEEN;
    fill_in_arcs(g.out, g.into, in_sample, false);
    const size_t piece_size = static_cast<size_t>(std::max(every, 256)) * 4 * static_cast<size_t>(threads);
    for (int next = 0; next < n;) {
        piece.clear();
        for (; next < n && piece.size() < piece_size; ++next) {
            if (!in_sample[next]) piece.push_back(next);
        }
        if (int v = estimate(piece); v >= 0) return densified(g, v, n - order, info);
        for (size_t k = every; progress != nullptr && every > 0 && k <= piece.size(); k += every) {
            if (progress(0, n) != 0) return CH_STOPPED;
        }
    }
    const long long first_work = work();
    auto overworked = [&]() { return limits.overworked(work(), first_work, n, n - order, info); };
    if (overworked()) return CH_WORK;

    std::vector<int> alive(n);
    for (int v = 0; v < n; ++v) alive[v] = v;
    std::vector<char> blocked(n, 0), least;
    Locks locks(n);
    auto lock = [&](int x) { locks.lock(x); };
    auto unlock = [&](int x) { locks.unlock(x); };
    auto raise_level = [&](int x, long long to) {  // under x's lock
        if (to <= g.lvl[x]) return;
        g.key[x] += limits.level_weight * static_cast<double>(to - g.lvl[x]);
        g.lvl[x] = to;
    };
    std::vector<std::vector<Shortcut>> ends(static_cast<size_t>(threads));
    std::vector<long long> added(static_cast<size_t>(threads)), removed(static_cast<size_t>(threads));
    std::vector<int> round, taken;
    std::vector<std::vector<Shortcut>> found;
    auto before = [&](int u, int v) { return g.key[u] < g.key[v] || (g.key[u] == g.key[v] && u < v); };
    auto least_around = [&](int v, double value) {  // whether `value` is v's key, is less than each neighbour's
        for (const Arc& a : g.out[v]) {
            if (!(value < g.key[a.to] || (value == g.key[a.to] && v < a.to))) return false;
        }
        for (const Arc& a : g.into[v]) {
            if (!(value < g.key[a.to] || (value == g.key[a.to] && v < a.to))) return false;
        }
        return true;
    };
    int reported = 0;
    while (!alive.empty()) {
        // Each vertex's lot, on every thread: contracted last round (2: dropped from `alive` by the
        // serial pass below, which reads only these marks; removing them by their ranks had taken 4.4
        // of grid22's 29 s of rounds on 16 threads), least around (1: in the round), or neither.
        least.assign(alive.size(), 0);
        parallel_for(threads, alive.size(), 1024, [&](int, size_t i) {
            int v = alive[i];
            least[i] = g.rnk[v] >= 0 ? 2 : least_around(v, g.key[v]) ? 1 : 0;
        });
        round.clear();
        size_t kept = 0;
        for (size_t i = 0; i < alive.size(); ++i) {
            if (least[i] == 2) continue;
            if (least[i]) round.push_back(alive[i]);
            alive[kept++] = alive[i];
        }
        alive.resize(kept);
        if (alive.empty()) break;
        std::sort(round.begin(), round.end(), before);
        for (int v : round) blocked[v] = 1;
        found.resize(round.size());
        fine.assign(round.size(), 1);
        parallel_for(threads, round.size(), 4, [&](int t, size_t i) {
            fine[i] = needed_shortcuts(searchers[t], g, round[i], symmetric, limits.settle, limits.max_pairs,
                                       blocked.data(), found[i]);
        });
        // Those still less important than each neighbour are contracted; where none is, the
        // round's least (so that each round contracts one).
        taken.clear();
        bool dense = false;  // a vertex densified with a dense core left (core.hpp)
        for (size_t i = 0; i < round.size(); ++i) {
            int v = round[i];
            if (!fine[i] && !limits.dense(n - order, n)) return densified(g, v, n - order, info);
            if (!fine[i]) {
                dense = true;
                break;
            }
            double now = g.importance(v, found[i].size(), limits.level_weight);
            if (least_around(v, now)) {
                std::swap(found[taken.size()], found[i]);
                taken.push_back(v);
            }
            g.key[v] = now;
        }
        if (dense) {
            if (!contract_dense_core(g, alive, order, rank, level, ends[0], threads, progress, every, n, total)) {
                return CH_STOPPED;
            }
            if (limits.grew(total, m, 0, info)) return CH_GREW;
            break;
        }
        if (taken.empty()) taken.push_back(round[0]);
        std::fill(added.begin(), added.end(), 0);
        std::fill(removed.begin(), removed.end(), 0);
        parallel_for(threads, taken.size(), 4, [&](int t, size_t i) {
            int v = taken[i];
            added[t] += g.add_shortcuts(found[i], lock, unlock);
            g.rnk[v] = order + static_cast<long long>(i);
            rank[g.old_of[v]] = order + static_cast<long long>(i);
            level[g.old_of[v]] = g.lvl[v];
            removed[t] += g.remove(v, ends[t], lock, unlock, raise_level);
            std::vector<Shortcut>().swap(found[i]);
        });
        order += static_cast<int>(taken.size());
        for (int v : round) blocked[v] = 0;
        for (int t = 0; t < threads; ++t) {
            live += added[t] - removed[t];
            total += added[t];
        }
        if (limits.grew(total, m, n - order, info)) return CH_GREW;
        if (limits.outgrown(live, first_live, n - order, info)) return CH_CORE;
        if (overworked()) return CH_WORK;
        if (progress != nullptr && every > 0 && order / every > reported / every) {
            reported = order;
            if (progress(order, n) != 0) return CH_STOPPED;
        }
        if (g.worth_compacting(static_cast<long long>(alive.size() - taken.size()))) {
            alive.erase(std::remove_if(alive.begin(), alive.end(), [&](int v) { return g.rnk[v] >= 0; }),
                        alive.end());
            std::vector<int> new_of = g.compact();
            for (int& v : alive) v = new_of[v];
            blocked.assign(static_cast<size_t>(g.size()), 0);
            locks = Locks(g.size());
            for (Searcher& s : searchers) {
                long long done = s.witness.work;
                s.witness = Witness(g.size());
                s.witness.work = done;
            }
        }
    }
    for (std::vector<Shortcut>& arcs_ended : ends) {
        ended.insert(ended.end(), arcs_ended.begin(), arcs_ended.end());
        std::vector<Shortcut>().swap(arcs_ended);
    }
    return write_arcs(ended, n, capacity, out_tails, out_heads, out_weights, out_count, threads) ? 0 : CH_CAPACITY;
}

}  // namespace
