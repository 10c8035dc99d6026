// What both contractions (contract.cpp: in order; rounds.hpp: in rounds on several threads) share:
// the uncontracted part's arcs, the bounded witness search and the shortcuts it finds, a vertex's
// contraction, the bounds and their refusals, and the arcs written out at the end.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "parallel.hpp"

namespace {

constexpr int CH_DENSIFIED = 1;
constexpr int CH_GREW = 2;
constexpr int CH_CAPACITY = 3;
constexpr int CH_STOPPED = 4;
constexpr int CH_CORE = 5;
constexpr int CH_WORK = 6;
constexpr int CH_FORESEEN = 7;
constexpr long long INF = 1LL << 62;
constexpr long long COMPACT_MIN = 256;   // the uncontracted part is renumbered once it is at most
constexpr long long COMPACT_SHARE = 2;   // half of the arrays (and at least this many vertices)

using Progress = int (*)(int contracted, int n);

struct Arc {
    int to;
    long long w;
};

using Adjacency = std::vector<std::vector<Arc>>;

// The lightest arc u->v kept in adj[u], or INF.
long long arc_weight(const std::vector<Arc>& arcs, int v) {
    for (const Arc& a : arcs) {
        if (a.to == v) return a.w;
    }
    return INF;
}

void set_arc(std::vector<Arc>& arcs, int v, long long w) {
    for (Arc& a : arcs) {
        if (a.to == v) {
            a.w = std::min(a.w, w);
            return;
        }
    }
    arcs.push_back({v, w});
}

void erase_arc(std::vector<Arc>& arcs, int v) {
    for (size_t i = 0; i < arcs.size(); ++i) {
        if (arcs[i].to == v) {
            arcs[i] = arcs.back();
            arcs.pop_back();
            return;
        }
    }
}

struct Shortcut {
    int from, to;
    long long w;
};

// Bounded Dijkstra from `source` avoiding `skip`, reusing its arrays between calls.
struct Witness {
    using Item = std::pair<long long, int>;
    std::vector<long long> dist;
    std::vector<int> touched;
    std::vector<int> target_stamp;
    std::vector<int> target_index;
    std::vector<Item> heap;  // a 4-ary min-heap (`push`, `pop`), kept between calls
    int stamp = 0;
    long long work = 0;  // arcs scanned by all searches so far (the contraction's cost)

    explicit Witness(int n) : dist(n, INF), target_stamp(n, 0), target_index(n, 0) {}

    // A 4-ary min-heap in (distance, vertex) order: the same order std::push_heap/pop_heap gave,
    // so the same vertices are settled; fewer levels than a binary heap's, and its children share
    // a cache line.
    void push(Item item) {
        size_t i = heap.size();
        heap.push_back(item);
        while (i > 0) {
            size_t parent = (i - 1) / 4;
            if (!(item < heap[parent])) break;
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = item;
    }

    Item pop() {
        Item top = heap[0];
        Item last = heap.back();
        heap.pop_back();
        size_t n = heap.size();
        if (n == 0) return top;
        size_t i = 0;
        while (true) {
            size_t first = 4 * i + 1;
            if (first >= n) break;
            size_t least = first;
            size_t end = std::min(first + 4, n);
            for (size_t c = first + 1; c < end; ++c) {
                if (heap[c] < heap[least]) least = c;
            }
            if (!(heap[least] < last)) break;
            heap[i] = heap[least];
            i = least;
        }
        heap[i] = last;
        return top;
    }

    // Whether a path from `source` avoiding `skip` (and, where Blocking, every vertex `blocked`
    // marks) reaches each target at most as long as its `via` (a witness: no shortcut needed),
    // written into `witnessed` by target index. A target is witnessed as soon as a tentative
    // distance to it is within its via (a path that long exists); the search settles at most
    // `settle` vertices, in (distance, vertex) order, and stops once every target is witnessed or
    // lies beyond its via.
    template <bool Blocking>
    void run(const Adjacency& out, int source, int skip, const char* blocked, const std::vector<int>& targets,
             const std::vector<long long>& via, int settle, std::vector<char>& witnessed) {
        ++stamp;
        for (size_t i = 0; i < targets.size(); ++i) {
            target_stamp[targets[i]] = stamp;
            target_index[targets[i]] = static_cast<int>(i);
        }
        for (int t : touched) dist[t] = INF;
        touched.clear();
        witnessed.assign(targets.size(), 0);
        size_t wanted = targets.size(), got = 0;
        long long bound = 0;  // the largest via of a target not witnessed yet
        for (long long w : via) bound = std::max(bound, w);
        auto witness = [&](int t, long long d) {
            int i = target_index[t];
            if (witnessed[i] || d > via[i]) return;
            witnessed[i] = 1;
            ++got;
            bound = 0;
            for (size_t j = 0; j < targets.size(); ++j) {
                if (!witnessed[j]) bound = std::max(bound, via[j]);
            }
        };
        heap.clear();
        dist[source] = 0;
        touched.push_back(source);
        heap.push_back({0, source});
        int settled = 0;
        while (!heap.empty() && settled < settle && got < wanted) {
            auto [d, u] = pop();
            if (d > dist[u]) continue;
            if (d > bound) break;
            ++settled;
            if (!heap.empty()) __builtin_prefetch(out[heap[0].second].data());  // the likely next one's arcs
            work += static_cast<long long>(out[u].size());
            for (const Arc& a : out[u]) {
                long long dw = d + a.w;
                if (dw <= bound && a.to != skip && dw < dist[a.to] && !(Blocking && blocked[a.to])) {
                    if (dist[a.to] == INF) touched.push_back(a.to);
                    dist[a.to] = dw;
                    if (target_stamp[a.to] == stamp) {
                        witness(a.to, dw);
                        if (got == wanted) return;
                    }
                    __builtin_prefetch(&out[a.to]);  // its arcs' place, read when it is settled
                    push({dw, a.to});
                }
            }
        }
    }
};

// The in-arcs of the vertices `in_sample` marks (or of the others), by tail.
void fill_in_arcs(const Adjacency& out, Adjacency& into, const std::vector<char>& in_sample, bool of_sample) {
    int n = static_cast<int>(out.size());
    for (int u = 0; u < n; ++u) {
        for (const Arc& a : out[u]) {
            if (static_cast<bool>(in_sample[a.to]) == of_sample) into[a.to].push_back({u, a.w});
        }
    }
}

// The graph's arcs (the lightest of parallel ones, self-loops dropped) in arrays sized first, so
// that none grows: out-arcs in the order given, in-arcs by tail (a graph's CSR order), those of the
// vertices `in_sample` marks first (`fill_into(true)`), the others' once the sample's cost is
// foreseen (`fill_into(false)`). Where in-arcs were each looked for and grown as they came, a
// random graph of 4M vertices and mean degree 16 spent 33 of its 40 s here before its refusal. Each
// vertex's arrays are allocated and filled on `threads` threads, the arcs bucketed by tail first (on
// one thread, grid22's 4M vertices' allocations took 1.9 of the 2.3 s this took).
struct GraphArcs {
    Adjacency out, into;
    std::vector<char> in_sample;

    GraphArcs(int n, long long m, const int* tails, const int* heads, const int* weights, long long sampled,
              int threads = 1)
        : out(n), into(n), in_sample(n, 0) {
        for (long long i = 0; i < sampled; ++i) in_sample[i * n / sampled] = 1;
        std::vector<long long> start(static_cast<size_t>(n) + 1, 0);
        for (long long i = 0; i < m; ++i) {
            if (tails[i] != heads[i]) ++start[static_cast<size_t>(tails[i]) + 1];
        }
        for (int u = 0; u < n; ++u) start[u + 1] += start[u];
        std::vector<long long> by_tail(static_cast<size_t>(start[n]));  // each tail's arcs, in the order given
        {
            std::vector<long long> next(start.begin(), start.end() - 1);
            for (long long i = 0; i < m; ++i) {
                if (tails[i] != heads[i]) by_tail[static_cast<size_t>(next[tails[i]]++)] = i;
            }
        }
        parallel_for(threads, static_cast<size_t>(n), 1024, [&](int, size_t u) {
            out[u].reserve(static_cast<size_t>(start[u + 1] - start[u]));
            for (long long k = start[u]; k < start[u + 1]; ++k) {
                long long i = by_tail[static_cast<size_t>(k)];
                set_arc(out[u], heads[i], weights[i]);
            }
        });
        std::vector<long long>().swap(by_tail);
        std::vector<int> degree(n, 0);
        for (int u = 0; u < n; ++u) {
            for (const Arc& a : out[u]) ++degree[a.to];
        }
        parallel_for(threads, static_cast<size_t>(n), 1024,
                     [&](int, size_t v) { into[v].reserve(static_cast<size_t>(degree[v])); });
        fill_into(true);
    }

    void fill_into(bool of_sample) { fill_in_arcs(out, into, in_sample, of_sample); }

    // Whether every arc's reverse has its weight (a road network). Such a graph stays symmetric as
    // it contracts: a shortcut u->w is needed exactly when w->u is, so one search decides both.
    bool symmetric() const {
        int n = static_cast<int>(out.size());
        for (int u = 0; u < n; ++u) {
            for (const Arc& a : out[u]) {
                if (arc_weight(out[a.to], u) != a.w) return false;
            }
        }
        return true;
    }

    long long arcs() const {
        long long count = 0;
        for (const std::vector<Arc>& arcs : out) count += static_cast<long long>(arcs.size());
        return count;
    }
};

// The uncontracted part: its arcs, each vertex's contracted neighbours, level, rank (-1 until
// contracted), id in the graph given and key; renumbered 0..left-1 in the order of its ids as it
// shrinks (`compact`), so that the dense core, where most of the time goes, a few thousand vertices
// scattered over all the ids, fits the caches.
struct Uncontracted {
    Adjacency out, into;
    std::vector<long long> deleted, lvl, rnk;
    std::vector<int> old_of;
    std::vector<double> key;

    Uncontracted(GraphArcs&& arcs, int n)
        : out(std::move(arcs.out)), into(std::move(arcs.into)), deleted(n, 0), lvl(n, 0), rnk(n, -1), old_of(n),
          key(n, 0.0) {
        for (int v = 0; v < n; ++v) old_of[v] = v;
    }

    int size() const { return static_cast<int>(out.size()); }

    // Whether `left` uncontracted vertices are few enough to renumber.
    bool worth_compacting(long long left) const {
        return left >= COMPACT_MIN && left * COMPACT_SHARE <= static_cast<long long>(out.size());
    }

    // Renumbers the uncontracted part, its arcs moved, not copied, and renamed in their order (every
    // search and every tie goes as before: the same hierarchy), each vertex's on one of `threads`
    // threads (grid22's copies on one had taken 5 of its 86 s on this VM's 2 threads); returns each
    // old id's new one (-1: contracted).
    std::vector<int> compact(int threads = 1) {
        int n = size();
        std::vector<int> new_of(n, -1), old_ids;
        for (int u = 0; u < n; ++u) {
            if (rnk[u] < 0) {
                new_of[u] = static_cast<int>(old_ids.size());
                old_ids.push_back(u);
            }
        }
        const size_t k_n = old_ids.size();
        Adjacency out2(k_n), into2(k_n);
        std::vector<long long> deleted2(k_n), lvl2(k_n), rnk2(k_n, -1);
        std::vector<int> old2(k_n);
        std::vector<double> key2(k_n);
        parallel_for(threads, k_n, 1024, [&](int, size_t k) {
            int u = old_ids[k];
            out2[k].swap(out[u]);
            for (Arc& a : out2[k]) a.to = new_of[a.to];
            into2[k].swap(into[u]);
            for (Arc& a : into2[k]) a.to = new_of[a.to];
            deleted2[k] = deleted[u];
            lvl2[k] = lvl[u];
            old2[k] = old_of[u];
            key2[k] = key[u];
        });
        out.swap(out2);
        into.swap(into2);
        deleted.swap(deleted2);
        lvl.swap(lvl2);
        rnk.swap(rnk2);
        old_of.swap(old2);
        key.swap(key2);
        return new_of;
    }

    // v's importance, given the shortcuts its contraction needs now.
    double importance(int v, size_t shortcuts, double level_weight) const {
        return static_cast<double>(shortcuts) - static_cast<double>(out[v].size()) -
               static_cast<double>(into[v].size()) + static_cast<double>(deleted[v]) +
               level_weight * static_cast<double>(lvl[v]);
    }

    // Adds v's shortcuts (each lighter than the arc it finds, if any), `lock(x)` and `unlock(x)`
    // around each change of x's arcs; returns the arcs that are new.
    template <class Lock, class Unlock>
    long long add_shortcuts(const Shortcut* first, const Shortcut* last, Lock lock, Unlock unlock) {
        long long added = 0;
        for (const Shortcut* shortcut = first; shortcut != last; ++shortcut) {
            const Shortcut& s = *shortcut;
            lock(s.from);
            long long had = arc_weight(out[s.from], s.to);
            if (s.w < had) {
                if (had == INF) ++added;
                set_arc(out[s.from], s.to, s.w);
            }
            unlock(s.from);
            if (s.w < had) {
                lock(s.to);
                set_arc(into[s.to], s.from, s.w);
                unlock(s.to);
            }
        }
        return added;
    }

    // Removes contracted v: each of its arcs ends (into `ends`, in the graph's ids, with its weight
    // then), each neighbour counts one more contracted neighbour and has its level raised past v's
    // (`raise(x, level)`), under `lock(x)`; returns the arcs removed.
    template <class Lock, class Unlock, class Raise>
    long long remove(int v, std::vector<Shortcut>& ends, Lock lock, Unlock unlock, Raise raise) {
        for (const Arc& in : into[v]) {
            ends.push_back({old_of[in.to], old_of[v], in.w});
            lock(in.to);
            erase_arc(out[in.to], v);
            deleted[in.to] += 1;
            raise(in.to, lvl[v] + 1);
            unlock(in.to);
        }
        for (const Arc& o : out[v]) {
            ends.push_back({old_of[v], old_of[o.to], o.w});
            lock(o.to);
            erase_arc(into[o.to], v);
            deleted[o.to] += 1;
            raise(o.to, lvl[v] + 1);
            unlock(o.to);
        }
        long long removed = static_cast<long long>(out[v].size() + into[v].size());
        std::vector<Arc>().swap(out[v]);
        std::vector<Arc>().swap(into[v]);
        return removed;
    }
};

// The contraction's bounds (ch_contract's arguments of the same names), and the refusals they make,
// each writing its numbers into `info` (ch_contract's comment says which).
struct Limits {
    int settle;
    double level_weight, max_growth, max_core;
    long long max_work, max_early_work, max_first_work;
    int sample;
    long long max_pairs;
    int dense_core;

    // Whether `left` of the n vertices are contracted as a dense core (core.hpp) where one densifies:
    // at most dense_core of them, and at most a 64th of the graph (a smaller graph that densifies is
    // refused as before: its hierarchy would be mostly the core's).
    bool dense(long long left, int n) const { return left <= dense_core && left * 64 <= n; }

    // Whether the first estimates of `sampled` of the `n` vertices, which scanned `work` arcs, foresee
    // all of them past max_first_work.
    bool foreseen(long long work, long long sampled, int n, long long* info) const {
        const double all =
            static_cast<double>(work) * static_cast<double>(n) / static_cast<double>(std::max(sampled, 1LL));
        if (all <= static_cast<double>(max_first_work)) return false;
        info[0] = static_cast<long long>(all);
        info[1] = sampled;
        info[2] = work;
        return true;
    }

    // Whether the searches' `work` (`first_work` of it the first estimates) is past the bounds, with
    // `left` of the `n` vertices left.
    bool overworked(long long work, long long first_work, int n, long long left, long long* info) const {
        bool early = left * 5 > n;
        if (work <= max_work && !(early && work - first_work > max_early_work)) return false;
        info[0] = work;
        info[1] = left;
        info[2] = work - first_work;
        return true;
    }

    // Whether the arcs with shortcuts so far, `total`, grew past max_growth x the graph's `m`.
    bool grew(long long total, long long m, long long left, long long* info) const {
        if (static_cast<double>(total) <= max_growth * static_cast<double>(std::max<long long>(m, 1))) return false;
        info[0] = total;
        info[1] = left;
        return true;
    }

    // Whether the uncontracted part's arcs, `live`, passed max_core x its first, `first_live`.
    bool outgrown(long long live, long long first_live, long long left, long long* info) const {
        if (static_cast<double>(live) <= max_core * static_cast<double>(std::max<long long>(first_live, 1))) {
            return false;
        }
        info[0] = live;
        info[1] = left;
        return true;
    }
};

// One thread's witness searches and their scratch.
struct Searcher {
    Witness witness;
    std::vector<int> targets;
    std::vector<long long> via;
    std::vector<char> witnessed;
    std::vector<Shortcut> scratch;
    explicit Searcher(int n) : witness(n) {}
};

// The shortcuts v's contraction needs (into `shortcuts`): those no path avoiding v, and the
// vertices `blocked` marks where given, is as short as; false where v has more than `max_pairs`
// pairs of neighbours (it densified).
bool needed_shortcuts(Searcher& s, const Uncontracted& g, int v, bool symmetric, int settle, long long max_pairs,
                      const char* blocked, std::vector<Shortcut>& shortcuts) {
    long long pairs = static_cast<long long>(g.out[v].size()) * static_cast<long long>(g.into[v].size());
    if (pairs > max_pairs) return false;
    shortcuts.clear();
    for (const Arc& in : g.into[v]) {
        int u = in.to;
        s.targets.clear();
        s.via.clear();
        for (const Arc& o : g.out[v]) {
            if (o.to == u || (symmetric && o.to < u)) continue;
            s.targets.push_back(o.to);
            s.via.push_back(in.w + o.w);
        }
        if (s.targets.empty()) continue;
        if (blocked != nullptr) {
            s.witness.run<true>(g.out, u, v, blocked, s.targets, s.via, settle, s.witnessed);
        } else {
            s.witness.run<false>(g.out, u, v, nullptr, s.targets, s.via, settle, s.witnessed);
        }
        for (size_t i = 0; i < s.targets.size(); ++i) {
            if (!s.witnessed[i]) {
                shortcuts.push_back({u, s.targets[i], s.via[i]});
                if (symmetric) shortcuts.push_back({s.targets[i], u, s.via[i]});
            }
        }
    }
    return true;
}

// v's numbers for a refusal as densified (more than max_pairs pairs of neighbours), `left` vertices left.
int densified(const Uncontracted& g, int v, long long left, long long* info) {
    info[0] = static_cast<long long>(g.into[v].size());
    info[1] = static_cast<long long>(g.out[v].size());
    info[2] = left;
    return CH_DENSIFIED;
}

// The arcs, the graph's and the shortcuts, each in one of `lists` (a thread's each, or one), in
// (tail, head) order into the output arrays (tails among n vertices), by a counting sort of the
// tails and a sort of each tail's few arcs by (head, weight), on `threads` threads: linear where one
// sort of every arc took grid22's 43M arcs 6 s on this VM, and the same arrays however the lists
// divide the arcs; each end written as `old_ids` names it where given (the graph's own ids of a
// graph contracted renumbered: numpy's pass over grid24's 174M arcs took seconds). False where
// they pass `capacity`. The lists are emptied.
bool write_arcs(std::vector<std::vector<Shortcut>>& lists, int n, long long capacity, const long long* old_ids,
                long long* out_tails, long long* out_heads, long long* out_weights, long long* out_count,
                int threads = 1) {
    constexpr size_t CHUNK = 1 << 16;
    std::vector<std::pair<size_t, size_t>> chunks;  // (list, first arc)
    long long count = 0;
    for (size_t l = 0; l < lists.size(); ++l) {
        count += static_cast<long long>(lists[l].size());
        for (size_t first = 0; first < lists[l].size(); first += CHUNK) chunks.emplace_back(l, first);
    }
    if (count > capacity) return false;
    std::vector<long long> start(static_cast<size_t>(n) + 1, 0);
    auto each_arc = [&](const auto& f) {
        parallel_for(threads, chunks.size(), 1, [&](int, size_t c) {
            const std::vector<Shortcut>& list = lists[chunks[c].first];
            const size_t end = std::min(chunks[c].second + CHUNK, list.size());
            for (size_t i = chunks[c].second; i < end; ++i) f(list[i]);
        });
    };
    each_arc([&](const Shortcut& arc) {
        __atomic_fetch_add(&start[static_cast<size_t>(arc.from) + 1], 1, __ATOMIC_RELAXED);
    });
    for (int v = 0; v < n; ++v) start[v + 1] += start[v];
    std::vector<long long> next(start.begin(), start.end() - 1);
    each_arc([&](const Shortcut& arc) {
        long long k = __atomic_fetch_add(&next[arc.from], 1, __ATOMIC_RELAXED);
        out_tails[k] = arc.from;
        out_heads[k] = arc.to;
        out_weights[k] = arc.w;
    });
    for (std::vector<Shortcut>& list : lists) std::vector<Shortcut>().swap(list);
    std::vector<std::vector<std::pair<long long, long long>>> sorting(static_cast<size_t>(std::max(threads, 1)));
    parallel_for(threads, static_cast<size_t>(n), 4096, [&](int t, size_t v) {
        if (start[v + 1] - start[v] >= 2) {
            std::vector<std::pair<long long, long long>>& arcs = sorting[t];  // one tail's (head, weight)
            arcs.clear();
            for (long long k = start[v]; k < start[v + 1]; ++k) arcs.emplace_back(out_heads[k], out_weights[k]);
            std::sort(arcs.begin(), arcs.end());
            for (long long k = start[v]; k < start[v + 1]; ++k) {
                out_heads[k] = arcs[static_cast<size_t>(k - start[v])].first;
                out_weights[k] = arcs[static_cast<size_t>(k - start[v])].second;
            }
        }
        for (long long k = start[v]; old_ids != nullptr && k < start[v + 1]; ++k) {
            out_tails[k] = old_ids[out_tails[k]];
            out_heads[k] = old_ids[out_heads[k]];
        }
    });
    *out_count = start[n];
    return true;
}

}  // namespace
