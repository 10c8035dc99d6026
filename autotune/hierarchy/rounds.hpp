// The contraction in rounds, on several threads (contract.cpp's ch_contract with `rounds` > 0).
//
// Each round takes every uncontracted vertex whose key is less than each neighbour's (ties by id):
// an independent set. Each one's shortcuts are found at once, by witness searches that avoid all of
// the round's vertices, so that no witness passes through another vertex contracted with it (every
// pair of remaining vertices keeps its distance). A vertex whose importance, so computed, passes a
// neighbour's key by a level's weight (`level_weight`) or more waits with its new key, as the
// contraction in order puts it back; the others are contracted at once (ranked in the order of their
// ids), each thread changing only its vertex's neighbours' arcs, under their locks (no two of the
// round's vertices are neighbours). Keys rise with levels as in order. The same hierarchy for any
// number of threads. Waiting only where a key is no longer less at all had searched 2.2 vertices for
// each one contracted (grid20 in rounds: 2.33M searches, 1.57M with a level's weight, 1.34M with two;
// this VM, 2 threads: 18.7, 15.4 and 14.4 s, 141, 143 and 150 levels, and the same arcs within 0.5%).
// Against the contraction in order: grid20 in 14.1 s against 25.6, 142 levels against 127, 2% more
// arcs (docs/notes/phast.md).
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
                       Progress progress, int every, int threads, const long long* old_ids, long long* rank,
                       long long* level, long long capacity, long long* out_tails, long long* out_heads,
                       long long* out_weights, long long* out_count, long long* info) {
    const long long sampled = std::min<long long>(std::max(limits.sample, 1), n);
    threads = std::max(threads, 1);
    GraphArcs arcs(n, m, tails, heads, weights, sampled, threads);
    const bool symmetric = arcs.symmetric();
    long long live = arcs.arcs();
    const long long first_live = live;
    long long total = live;
    std::vector<char> in_sample = arcs.in_sample;
    Uncontracted g(std::move(arcs), n);
    // Each thread's search arrays, n entries each, allocated (and first touched) on its own thread.
    std::vector<Searcher> searchers(static_cast<size_t>(threads), Searcher(0));
    auto fresh_searchers = [&](int size) {
        parallel_for(threads, searchers.size(), 1, [&](int, size_t t) {
            long long done = searchers[t].witness.work;
            searchers[t].witness = Witness(size);
            searchers[t].witness.work = done;
        });
    };
    fresh_searchers(n);
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
    std::vector<int> round, taken, next_alive;
    std::vector<size_t> kept_before, round_before;  // per piece of `alive`: those kept, and in the round, before it
    constexpr size_t PIECE = 1 << 14;
    // Each of the round's vertices' shortcuts: a span of its thread's list, the lists kept from round to
    // round (a vector a vertex, allocated as it grew and freed once added, had spent 6% of grid24's build
    // on one core in malloc and free).
    struct Span {
        int thread;
        size_t first, count;
    };
    std::vector<std::vector<Shortcut>> lists(static_cast<size_t>(threads));
    std::vector<Span> found;
    std::vector<double> now;
    std::vector<char> still;
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
        // Each vertex's lot, on every thread: contracted last round (2: dropped from `alive`; removing
        // them by their ranks had taken 4.4 of grid22's 29 s of rounds on 16 threads), least around (1:
        // in the round), or neither; then `alive` and the round written in alive's order, each piece
        // on a thread at its place (one thread's pass, and sorting the round by key, had taken 5.9 of
        // grid24's 82 s on 16).
        least.assign(alive.size(), 0);
        parallel_for(threads, alive.size(), 1024, [&](int, size_t i) {
            int v = alive[i];
            least[i] = g.rnk[v] >= 0 ? 2 : least_around(v, g.key[v]) ? 1 : 0;
        });
        const size_t pieces = (alive.size() + PIECE - 1) / PIECE;
        kept_before.assign(pieces + 1, 0);
        round_before.assign(pieces + 1, 0);
        parallel_for(threads, pieces, 1, [&](int, size_t p) {
            for (size_t i = p * PIECE; i < std::min(alive.size(), (p + 1) * PIECE); ++i) {
                kept_before[p + 1] += least[i] != 2;
                round_before[p + 1] += least[i] == 1;
            }
        });
        for (size_t p = 0; p < pieces; ++p) {
            kept_before[p + 1] += kept_before[p];
            round_before[p + 1] += round_before[p];
        }
        next_alive.resize(kept_before[pieces]);
        round.resize(round_before[pieces]);
        parallel_for(threads, pieces, 1, [&](int, size_t p) {
            size_t k = kept_before[p], r = round_before[p];
            for (size_t i = p * PIECE; i < std::min(alive.size(), (p + 1) * PIECE); ++i) {
                if (least[i] != 2) next_alive[k++] = alive[i];
                if (least[i] == 1) round[r++] = alive[i];
            }
        });
        alive.swap(next_alive);
        if (alive.empty()) break;
        for (int v : round) blocked[v] = 1;
        found.resize(round.size());
        for (std::vector<Shortcut>& list : lists) list.clear();
        fine.assign(round.size(), 1);
        parallel_for(threads, round.size(), 4, [&](int t, size_t i) {
            fine[i] = needed_shortcuts(searchers[t], g, round[i], symmetric, limits.settle, limits.max_pairs,
                                       blocked.data(), searchers[t].scratch);
            const std::vector<Shortcut>& shortcuts = searchers[t].scratch;
            found[i] = {t, lists[t].size(), shortcuts.size()};
            lists[t].insert(lists[t].end(), shortcuts.begin(), shortcuts.end());
        });
        // Those whose key now is still less than each neighbour's, give or take one level's weight,
        // are contracted; where none is, the round's least (so that each round contracts one). Each
        // one's key and verdict on every thread (no two of the round's vertices are neighbours: none
        // reads a key another changes), then taken in the round's order.
        now.assign(round.size(), 0.0);
        still.assign(round.size(), 0);
        parallel_for(threads, round.size(), 64, [&](int, size_t i) {
            if (!fine[i]) return;
            now[i] = g.importance(round[i], found[i].count, limits.level_weight);
            still[i] = least_around(round[i], now[i] - limits.level_weight);
        });
        taken.clear();
        bool dense = false;  // a vertex densified with a dense core left (core.hpp)
        for (size_t i = 0; i < round.size(); ++i) {
            int v = round[i];
            if (!fine[i] && !limits.dense(n - order, n)) return densified(g, v, n - order, info);
            if (!fine[i]) {
                dense = true;
                break;
            }
            if (still[i]) {
                found[taken.size()] = found[i];
                taken.push_back(v);
            }
            g.key[v] = now[i];
        }
        if (dense) {
            if (!contract_dense_core(g, alive, order, rank, level, ends[0], threads, progress, every, n, total)) {
                return CH_STOPPED;
            }
            if (limits.grew(total, m, 0, info)) return CH_GREW;
            break;
        }
        if (taken.empty()) {
            auto least_one = static_cast<size_t>(std::min_element(round.begin(), round.end(), before) - round.begin());
            found[0] = found[least_one];
            taken.push_back(round[least_one]);
        }
        std::fill(added.begin(), added.end(), 0);
        std::fill(removed.begin(), removed.end(), 0);
        parallel_for(threads, taken.size(), 4, [&](int t, size_t i) {
            int v = taken[i];
            const Shortcut* first = lists[found[i].thread].data() + found[i].first;
            added[t] += g.add_shortcuts(first, first + found[i].count, lock, unlock);
            g.rnk[v] = order + static_cast<long long>(i);
            rank[g.old_of[v]] = order + static_cast<long long>(i);
            level[g.old_of[v]] = g.lvl[v];
            removed[t] += g.remove(v, ends[t], lock, unlock, raise_level);
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
            std::vector<int> new_of = g.compact(threads);
            for (int& v : alive) v = new_of[v];
            blocked.assign(static_cast<size_t>(g.size()), 0);
            locks = Locks(g.size());
            fresh_searchers(g.size());
        }
    }
    const bool written = write_arcs(ends, n, capacity, old_ids, out_tails, out_heads, out_weights, out_count, threads);
    return written ? 0 : CH_CAPACITY;
}

}  // namespace
