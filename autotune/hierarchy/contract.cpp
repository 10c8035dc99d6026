// Contraction of a graph into a hierarchy, compiled: the same procedure as
// autotune/hierarchy/contraction.py's `contract_python` (its docstring says what and why), in C++
// so that a road network of a million vertices contracts in seconds; or, where the caller asks
// (`rounds` threads, rounds.py's `ROUNDS_FROM`), in rounds of independent vertices on several
// threads (rounds.hpp). Built once per machine by autotune/hierarchy/compiled.py (g++ -O3 -shared
// -pthread) and called through ctypes; C linkage, no exceptions across the boundary, no global state
// (two calls may run at once).
//
// ch_contract returns 0 when done, CH_DENSIFIED, CH_GREW, CH_CORE, CH_WORK or CH_FORESEEN when the
// graph is refused (`info` then holds: in-arcs, out-arcs, vertices left; or arcs, vertices left; or the
// uncontracted part's arcs, vertices left; or the arcs the witness searches scanned, vertices left,
// those scanned after the first estimates; or the arcs the first estimates would scan, foreseen from
// a sample, the sample's vertices, the arcs they scanned), CH_CAPACITY when the arc arrays given are
// too small (cannot happen with capacity >= max_growth * m + 1), CH_STOPPED when `progress` asked to
// stop.
#include <functional>
#include <queue>
#include <tuple>

#include "core.hpp"
#include "layout.hpp"
#include "rounds.hpp"
#include "witness.hpp"

extern "C" {

// n vertices; m arcs (tails, heads, weights: int32, weights >= 0); witness searches settle at most
// `settle` vertices; the uncontracted part may hold at most `max_core` x the graph's distinct arcs
// (more: it densifies, and is refused early), and its witness searches may scan at most `max_work`
// arcs in all, at most `max_first_work` in the first estimates of every vertex (foreseen from those of
// `sample` vertices spread over the ids, made first), and at most `max_early_work` after them while
// more than a fifth of the vertices are left (more: the same, seen by its cost). A vertex of more than
// `max_pairs` pairs of in- and out-arcs densifies the graph, refused unless at most `dense_core` vertices
// (and a 64th of them) are left: those are contracted as a dense core (core.hpp). Outputs: rank[n],
// level[n] (int64) and the arcs with shortcuts (out_tails, out_heads, out_weights: int64, capacity
// entries), their count in *out_count. `progress` (may be null) is called every `every` contractions,
// and with 0 contracted every `every` first estimates; it returns nonzero to stop. `rounds` 0: one
// vertex at a time, in order; more: in rounds on that many threads (rounds.hpp: the same hierarchy
// for any number). `old_ids` (may be null): each vertex's id in the graph the output arcs name (the
// graph's own, of one contracted renumbered). In order, a vertex whose importance computed again passes
// the next key by more than `lazy_slack` x `level_weight` is put back (contraction.py's LAZY_SLACK).
int ch_contract(int n, long long m, const int* tails, const int* heads, const int* weights, int settle,
                double level_weight, double lazy_slack, double max_growth, double max_core, long long max_work,
                long long max_early_work, long long max_first_work, int sample, long long max_pairs, int dense_core,
                Progress progress, int every, int rounds, const long long* old_ids, long long* rank, long long* level,
                long long capacity, long long* out_tails, long long* out_heads, long long* out_weights,
                long long* out_count, long long* info) {
    const Limits limits{settle, level_weight, max_growth, max_core, max_work, max_early_work,
                        max_first_work, sample, max_pairs, dense_core};
    if (rounds > 0) {
        return contract_in_rounds(n, m, tails, heads, weights, limits, progress, every, rounds, old_ids, rank, level,
                                  capacity, out_tails, out_heads, out_weights, out_count, info);
    }
    // The vertices whose first estimates come first (below), `sample` spread evenly over the ids.
    const long long sampled = std::min<long long>(std::max(sample, 1), n);
    GraphArcs arcs(n, m, tails, heads, weights, sampled);
    const bool symmetric = arcs.symmetric();
    long long live = arcs.arcs();  // the uncontracted part's arcs
    // Every arc, the graph's and the shortcuts, ends when the first of its two ends is contracted:
    // it is written out then, with its weight then (the lightest it had), and counted in `total`
    // from when it first joins the uncontracted part (a shortcut between two uncontracted vertices
    // is new exactly when no arc joins them now).
    long long total = live;
    const long long first_live = live;
    std::vector<Shortcut> ended;
    ended.reserve(static_cast<size_t>(
        std::min<double>(static_cast<double>(capacity), 2.5 * static_cast<double>(live) + 16)));
    std::vector<char> in_sample = arcs.in_sample;
    Uncontracted g(std::move(arcs), n);
    Searcher searcher(n);
    std::vector<Shortcut> needed;
    int order = 0;

    // v's importance now, and in `shortcuts` what its contraction needs; false if it densified.
    auto priority = [&](int v, std::vector<Shortcut>& shortcuts, double& value) -> bool {
        if (!needed_shortcuts(searcher, g, v, symmetric, settle, max_pairs, nullptr, shortcuts)) {
            densified(g, v, n - order, info);
            return false;
        }
        value = g.importance(v, shortcuts.size(), level_weight);
        return true;
    };

    // The queue holds (key, vertex, version); only the entry of a vertex's current version counts.
    // A vertex's key is its importance when last computed, raised by level_weight x each rise of its
    // level since (known without a search: a neighbour contracted), so that it is not taken for
    // less important than it is, computed again and put back (usa-roads: 31% less time, 79 levels
    // against 82, 0.2% more arcs: docs/notes/phast.md). A vertex whose importance now passes the next
    // key by at most lazy_slack x level_weight is contracted all the same: about half of usa-roads'
    // searches after the first estimates had put a vertex back (a build counting them), and its build on
    // one core of the H200's host went 3.1 -> 2.7 s, 81 levels against 79 (suite `hierarchy`).
    using Item = std::tuple<double, int, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    std::vector<int> version(n, 0);
    auto current = [&](const Item& item) {
        return g.rnk[std::get<1>(item)] < 0 && std::get<2>(item) == version[std::get<1>(item)];
    };
    auto raise_level = [&](int x, long long to) {
        if (to <= g.lvl[x]) return;
        g.key[x] += level_weight * static_cast<double>(to - g.lvl[x]);
        g.lvl[x] = to;
        heap.push({g.key[x], x, ++version[x]});
    };
    auto no_lock = [](int) {};
    // The first estimates, independent of one another (no order changes a key): first those of a
    // sample spread evenly over the ids, whose cost foreseen for every vertex refuses at once a graph
    // whose estimates alone would take minutes (a random graph of mean degree 16 scans 3,200 arcs per
    // arc: docs/notes/phast.md), then the others.
    auto estimate = [&](int v) {
        double value;
        if (!priority(v, needed, value)) return false;
        g.key[v] = value;
        heap.push({value, v, 0});
        return true;
    };
    for (long long i = 0; i < sampled; ++i) {
        if (!estimate(static_cast<int>(i * n / sampled))) return CH_DENSIFIED;
    }
    if (limits.foreseen(searcher.witness.work, sampled, n, info)) return CH_FORESEEN;
    fill_in_arcs(g.out, g.into, in_sample, false);
    long long estimated = sampled;
    for (int v = 0; v < n; ++v) {
        if (in_sample[v]) continue;
        if (!estimate(v)) return CH_DENSIFIED;
        if (progress != nullptr && every > 0 && ++estimated % every == 0 && progress(0, n) != 0) return CH_STOPPED;
    }
    const long long first_work = searcher.witness.work;  // the first estimates' cost
    auto overworked = [&]() { return limits.overworked(searcher.witness.work, first_work, n, n - order, info); };
    if (overworked()) return CH_WORK;
    while (!heap.empty()) {
        Item top = heap.top();
        heap.pop();
        if (!current(top)) continue;
        int v = std::get<1>(top);
        double now;
        if (!priority(v, needed, now)) {  // densified: refused, unless a dense core is left (core.hpp)
            if (!limits.dense(n - order, n)) return CH_DENSIFIED;
            std::vector<int> left;
            for (int u = 0; u < g.size(); ++u) {
                if (g.rnk[u] < 0) left.push_back(u);
            }
            if (!contract_dense_core(g, left, order, rank, level, ended, 1, progress, every, n, total)) {
                return CH_STOPPED;
            }
            if (limits.grew(total, m, 0, info)) return CH_GREW;
            break;
        }
        g.key[v] = now;
        while (!heap.empty() && !current(heap.top())) heap.pop();
        if (!heap.empty() && now > std::get<0>(heap.top()) + lazy_slack * level_weight) {  // lazy update
            heap.push({now, v, ++version[v]});
            continue;
        }
        long long added = g.add_shortcuts(needed.data(), needed.data() + needed.size(), no_lock, no_lock);
        live += added;
        total += added;
        if (limits.grew(total, m, n - order, info)) return CH_GREW;
        g.rnk[v] = order;
        rank[g.old_of[v]] = order++;
        level[g.old_of[v]] = g.lvl[v];  // final: its neighbours' contractions raised it, and none is left
        if (progress != nullptr && every > 0 && order % every == 0 && progress(order, n) != 0) return CH_STOPPED;
        live -= g.remove(v, ended, no_lock, no_lock, raise_level);
        if (limits.outgrown(live, first_live, n - order, info)) return CH_CORE;
        if (overworked()) return CH_WORK;
        if (g.worth_compacting(static_cast<long long>(n) - order)) {
            std::vector<int> new_of = g.compact();
            std::vector<int> version2(g.size());
            for (size_t u = 0; u < new_of.size(); ++u) {
                if (new_of[u] >= 0) version2[new_of[u]] = version[u];
            }
            version.swap(version2);
            std::vector<Item> waiting;
            while (!heap.empty()) {
                const Item& item = heap.top();
                int u = std::get<1>(item);
                if (new_of[u] >= 0 && std::get<2>(item) == version[new_of[u]]) {
                    waiting.push_back({std::get<0>(item), new_of[u], std::get<2>(item)});
                }
                heap.pop();
            }
            heap = decltype(heap)(std::greater<Item>(), std::move(waiting));
            long long work = searcher.witness.work;
            searcher.witness = Witness(g.size());
            searcher.witness.work = work;
        }
    }
    std::vector<std::vector<Shortcut>> lists(1);
    lists[0].swap(ended);
    return write_arcs(lists, n, capacity, old_ids, out_tails, out_heads, out_weights, out_count) ? 0 : CH_CAPACITY;
}

}  // extern "C"
