// Contraction of a graph into a hierarchy, compiled: the same procedure as
// autotune/hierarchy/contraction.py's `contract_python` (its docstring says what and why), in C++
// so that a road network of a million vertices contracts in seconds. Built once per machine by
// autotune/hierarchy/compiled.py (g++ -O3 -shared) and called through ctypes; C linkage, no
// exceptions across the boundary, no global state (two calls may run at once).
//
// ch_contract returns 0 when done, CH_DENSIFIED, CH_GREW, CH_CORE, CH_WORK or CH_FORESEEN when the
// graph is refused (`info` then holds: in-arcs, out-arcs, vertices left; or arcs, vertices left; or the
// uncontracted part's arcs, vertices left; or the arcs the witness searches scanned, vertices left,
// those scanned after the first estimates; or the arcs the first estimates would scan, foreseen from
// a sample, the sample's vertices, the arcs they scanned), CH_CAPACITY when the arc arrays given are
// too small (cannot happen with capacity >= max_growth * m + 1), CH_STOPPED when `progress` asked to
// stop.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <tuple>
#include <utility>
#include <vector>

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

    // Whether a path from `source` avoiding `skip` reaches each target at most as long as its
    // `via` (a witness: no shortcut needed), written into `witnessed` by target index. A target is
    // witnessed as soon as a tentative distance to it is within its via (a path that long exists);
    // the search settles at most `settle` vertices, in (distance, vertex) order, and stops once
    // every target is witnessed or lies beyond its via.
    void run(const Adjacency& out, int source, int skip, const std::vector<int>& targets,
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
                if (dw <= bound && a.to != skip && dw < dist[a.to]) {
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

struct Shortcut {
    int from, to;
    long long w;
};

}  // namespace

extern "C" {

typedef int (*ch_progress)(int contracted, int n);

// n vertices; m arcs (tails, heads, weights: int32, weights >= 0); witness searches settle at most
// `settle` vertices; the uncontracted part may hold at most `max_core` x the graph's distinct arcs
// (more: it densifies, and is refused early), and its witness searches may scan at most `max_work`
// arcs in all, at most `max_first_work` in the first estimates of every vertex (foreseen from those of
// `sample` vertices spread over the ids, made first), and at most `max_early_work` after them while
// more than a fifth of the vertices are left (more: the same, seen by its cost). Outputs: rank[n],
// level[n] (int64) and the arcs with shortcuts (out_tails, out_heads, out_weights: int64, capacity
// entries), their count in *out_count. `progress` (may be null) is called every `every` contractions,
// and with 0 contracted every `every` first estimates; it returns nonzero to stop.
int ch_contract(int n, long long m, const int* tails, const int* heads, const int* weights, int settle,
                double level_weight, double max_growth, double max_core, long long max_work, long long max_early_work,
                long long max_first_work, int sample, long long max_pairs, ch_progress progress,
                int every,
                long long* rank, long long* level, long long capacity, long long* out_tails, long long* out_heads,
                long long* out_weights, long long* out_count, long long* info) {
    // The vertices whose first estimates come first (below), `sample` spread evenly over the ids.
    const long long sampled = std::min<long long>(std::max(sample, 1), n);
    std::vector<char> in_sample(n, 0);
    for (long long i = 0; i < sampled; ++i) in_sample[i * n / sampled] = 1;
    // The arcs (the lightest of parallel ones, self-loops dropped) in arrays sized first, so that
    // none grows: out-arcs in the order given, in-arcs by tail (a graph's CSR order, as before). Where
    // in-arcs were each looked for and grown as they came, a random graph of 4M vertices and mean
    // degree 16 spent 33 of its 40 s here before its refusal; the sample's in-arcs come first, the
    // others' once its cost is foreseen.
    Adjacency out(n), into(n);
    auto fill_into = [&](bool of_sample) {
        for (int u = 0; u < n; ++u) {
            for (const Arc& a : out[u]) {
                if (static_cast<bool>(in_sample[a.to]) == of_sample) into[a.to].push_back({u, a.w});
            }
        }
    };
    {
        std::vector<int> degree(n, 0);
        for (long long i = 0; i < m; ++i) {
            if (tails[i] != heads[i]) ++degree[tails[i]];
        }
        for (int u = 0; u < n; ++u) out[u].reserve(static_cast<size_t>(degree[u]));
        for (long long i = 0; i < m; ++i) {
            if (tails[i] != heads[i]) set_arc(out[tails[i]], heads[i], weights[i]);
        }
        std::fill(degree.begin(), degree.end(), 0);
        for (int u = 0; u < n; ++u) {
            for (const Arc& a : out[u]) ++degree[a.to];
        }
        for (int v = 0; v < n; ++v) into[v].reserve(static_cast<size_t>(degree[v]));
        fill_into(true);
    }
    // A symmetric graph (every arc's reverse of the same weight: a road network) stays symmetric
    // as it contracts: a shortcut u->w is needed exactly when w->u is, so one search decides both.
    bool symmetric = true;
    for (int u = 0; u < n && symmetric; ++u) {
        for (const Arc& a : out[u]) {
            if (arc_weight(out[a.to], u) != a.w) { symmetric = false; break; }
        }
    }
    long long live = 0;  // the uncontracted part's arcs
    for (int u = 0; u < n; ++u) live += static_cast<long long>(out[u].size());
    // Every arc, the graph's and the shortcuts, ends when the first of its two ends is contracted:
    // it is written out then, with its weight then (the lightest it had), and counted in `total`
    // from when it first joins the uncontracted part (a shortcut between two uncontracted vertices
    // is new exactly when no arc joins them now).
    long long total = live;
    std::vector<Shortcut> ended;
    ended.reserve(static_cast<size_t>(std::min<double>(static_cast<double>(capacity), 2.5 * static_cast<double>(live) + 16)));
    const double limit = max_growth * static_cast<double>(std::max<long long>(m, 1));
    const double core_limit = max_core * static_cast<double>(std::max<long long>(live, 1));
    std::vector<long long> deleted(n, 0), lvl(n, 0), rnk(n, -1);
    std::vector<int> old_of(n);  // a vertex's id in the graph given (the ids are compacted as it contracts)
    for (int v = 0; v < n; ++v) old_of[v] = v;
    Witness witness(n);
    std::vector<int> targets;
    std::vector<long long> via;
    std::vector<char> witnessed;
    std::vector<Shortcut> needed;
    int order = 0;

    // v's importance now, and in `shortcuts` what its contraction needs; false if it densified.
    auto priority = [&](int v, std::vector<Shortcut>& shortcuts, double& value) -> bool {
        long long pairs = static_cast<long long>(out[v].size()) * static_cast<long long>(into[v].size());
        if (pairs > max_pairs) {
            info[0] = static_cast<long long>(into[v].size());
            info[1] = static_cast<long long>(out[v].size());
            info[2] = n - order;
            return false;
        }
        shortcuts.clear();
        for (const Arc& in : into[v]) {
            int u = in.to;
            targets.clear();
            via.clear();
            for (const Arc& o : out[v]) {
                if (o.to == u || (symmetric && o.to < u)) continue;
                targets.push_back(o.to);
                via.push_back(in.w + o.w);
            }
            if (targets.empty()) continue;
            witness.run(out, u, v, targets, via, settle, witnessed);
            for (size_t i = 0; i < targets.size(); ++i) {
                if (!witnessed[i]) {
                    shortcuts.push_back({u, targets[i], via[i]});
                    if (symmetric) shortcuts.push_back({targets[i], u, via[i]});
                }
            }
        }
        value = static_cast<double>(shortcuts.size()) - static_cast<double>(out[v].size()) -
                static_cast<double>(into[v].size()) + static_cast<double>(deleted[v]) +
                level_weight * static_cast<double>(lvl[v]);
        return true;
    };

    // The queue holds (key, vertex, version); only the entry of a vertex's current version counts.
    // A vertex's key is its importance when last computed, raised by level_weight x each rise of its
    // level since (known without a search: a neighbour contracted), so that it is not taken for
    // less important than it is, computed again and put back (usa-roads: 31% less time, 79 levels
    // against 82, 0.2% more arcs: docs/notes/phast.md).
    using Item = std::tuple<double, int, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    std::vector<double> key(n);
    std::vector<int> version(n, 0);
    auto current = [&](const Item& item) {
        return rnk[std::get<1>(item)] < 0 && std::get<2>(item) == version[std::get<1>(item)];
    };
    auto raise_level = [&](int x, long long to) {
        if (to <= lvl[x]) return;
        key[x] += level_weight * static_cast<double>(to - lvl[x]);
        lvl[x] = to;
        heap.push({key[x], x, ++version[x]});
    };
    // The first estimates, independent of one another (no order changes a key): first those of a
    // sample spread evenly over the ids, whose cost foreseen for every vertex refuses at once a graph
    // whose estimates alone would take minutes (a random graph of mean degree 16 scans 3,200 arcs per
    // arc: docs/notes/phast.md), then the others.
    auto estimate = [&](int v) {
        double value;
        if (!priority(v, needed, value)) return false;
        key[v] = value;
        heap.push({value, v, 0});
        return true;
    };
    for (long long i = 0; i < sampled; ++i) {
        if (!estimate(static_cast<int>(i * n / sampled))) return CH_DENSIFIED;
    }
    const double foreseen =
        static_cast<double>(witness.work) * static_cast<double>(n) / static_cast<double>(std::max(sampled, 1LL));
    if (foreseen > static_cast<double>(max_first_work)) {
        info[0] = static_cast<long long>(foreseen);
        info[1] = sampled;
        info[2] = witness.work;
        return CH_FORESEEN;
    }
    fill_into(false);
    long long estimated = sampled;
    for (int v = 0; v < n; ++v) {
        if (in_sample[v]) continue;
        if (!estimate(v)) return CH_DENSIFIED;
        if (progress != nullptr && every > 0 && ++estimated % every == 0 && progress(0, n) != 0) return CH_STOPPED;
    }
    const long long first_work = witness.work;  // the first estimates' cost
    auto overworked = [&]() {
        bool early = static_cast<long long>(n - order) * 5 > n;
        if (witness.work <= max_work && !(early && witness.work - first_work > max_early_work)) return false;
        info[0] = witness.work;
        info[1] = n - order;
        info[2] = witness.work - first_work;
        return true;
    };
    if (overworked()) return CH_WORK;
    while (!heap.empty()) {
        Item top = heap.top();
        heap.pop();
        if (!current(top)) continue;
        int v = std::get<1>(top);
        double now;
        if (!priority(v, needed, now)) return CH_DENSIFIED;
        key[v] = now;
        while (!heap.empty() && !current(heap.top())) heap.pop();
        if (!heap.empty() && now > std::get<0>(heap.top())) {  // lazy update
            heap.push({now, v, ++version[v]});
            continue;
        }
        for (const Shortcut& s : needed) {
            long long had = arc_weight(out[s.from], s.to);
            if (s.w < had) {
                if (had == INF) {
                    ++live;
                    ++total;
                }
                set_arc(out[s.from], s.to, s.w);
                set_arc(into[s.to], s.from, s.w);
            }
        }
        if (static_cast<double>(total) > limit) {
            info[0] = total;
            info[1] = n - order;
            return CH_GREW;
        }
        rnk[v] = order;
        rank[old_of[v]] = order++;
        level[old_of[v]] = lvl[v];  // final: its neighbours' contractions raised it, and none is left
        if (progress != nullptr && every > 0 && order % every == 0 && progress(order, n) != 0) return CH_STOPPED;
        for (const Arc& in : into[v]) {
            ended.push_back({old_of[in.to], old_of[v], in.w});
            erase_arc(out[in.to], v);
            deleted[in.to] += 1;
            raise_level(in.to, lvl[v] + 1);
        }
        for (const Arc& o : out[v]) {
            ended.push_back({old_of[v], old_of[o.to], o.w});
            erase_arc(into[o.to], v);
            deleted[o.to] += 1;
            raise_level(o.to, lvl[v] + 1);
        }
        live -= static_cast<long long>(out[v].size() + into[v].size());
        if (static_cast<double>(live) > core_limit) {
            info[0] = live;
            info[1] = n - order;
            return CH_CORE;
        }
        if (overworked()) return CH_WORK;
        out[v].clear();
        out[v].shrink_to_fit();
        into[v].clear();
        into[v].shrink_to_fit();
        long long left = static_cast<long long>(n) - order;
        if (left >= COMPACT_MIN && left * COMPACT_SHARE <= static_cast<long long>(out.size())) {
            // The uncontracted part renumbered 0..left-1 in the order of its ids, its arcs copied in
            // their order: every search and every tie goes as before (the same hierarchy), on arrays
            // that fit the caches (the dense core, where most of the time goes, is a few thousand
            // vertices scattered over all the ids).
            int size = static_cast<int>(out.size());
            std::vector<int> new_of(size, -1), kept;
            kept.reserve(static_cast<size_t>(left));
            for (int u = 0; u < size; ++u) {
                if (rnk[u] < 0) {
                    new_of[u] = static_cast<int>(kept.size());
                    kept.push_back(u);
                }
            }
            int k_n = static_cast<int>(kept.size());
            Adjacency out2(k_n), into2(k_n);
            std::vector<long long> deleted2(k_n), lvl2(k_n), rnk2(k_n, -1);
            std::vector<int> old2(k_n), version2(k_n);
            std::vector<double> key2(k_n);
            for (int k = 0; k < k_n; ++k) {
                int u = kept[k];
                out2[k].reserve(out[u].size());
                for (const Arc& a : out[u]) out2[k].push_back({new_of[a.to], a.w});
                into2[k].reserve(into[u].size());
                for (const Arc& a : into[u]) into2[k].push_back({new_of[a.to], a.w});
                deleted2[k] = deleted[u];
                lvl2[k] = lvl[u];
                old2[k] = old_of[u];
                key2[k] = key[u];
                version2[k] = version[u];
            }
            std::vector<Item> waiting;
            while (!heap.empty()) {
                const Item& item = heap.top();
                if (current(item)) waiting.push_back({std::get<0>(item), new_of[std::get<1>(item)], std::get<2>(item)});
                heap.pop();
            }
            heap = decltype(heap)(std::greater<Item>(), std::move(waiting));
            out.swap(out2);
            into.swap(into2);
            deleted.swap(deleted2);
            lvl.swap(lvl2);
            rnk.swap(rnk2);
            old_of.swap(old2);
            key.swap(key2);
            version.swap(version2);
            long long work = witness.work;
            witness = Witness(k_n);
            witness.work = work;
        }
    }
    if (static_cast<long long>(ended.size()) > capacity) return CH_CAPACITY;
    std::sort(ended.begin(), ended.end(),
              [](const Shortcut& a, const Shortcut& b) { return a.from != b.from ? a.from < b.from : a.to < b.to; });
    long long k = 0;
    for (const Shortcut& arc : ended) {
        out_tails[k] = arc.from;
        out_heads[k] = arc.to;
        out_weights[k] = arc.w;
        ++k;
    }
    *out_count = k;
    return 0;
}

}  // extern "C"
