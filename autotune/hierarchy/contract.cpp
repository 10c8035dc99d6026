// Contraction of a graph into a hierarchy, compiled: the same procedure as
// autotune/hierarchy/contraction.py's `contract_python` (its docstring says what and why), in C++
// so that a road network of a million vertices contracts in seconds. Built once per machine by
// autotune/hierarchy/compiled.py (g++ -O2 -shared) and called through ctypes; C linkage, no
// exceptions across the boundary, no global state (two calls may run at once).
//
// ch_contract returns 0 when done, CH_DENSIFIED or CH_GREW when the graph is refused (`info` then
// holds: in-arcs, out-arcs, vertices left; or arcs, vertices left), CH_CAPACITY when the arc
// arrays given are too small (cannot happen with capacity >= max_growth * m + 1), CH_STOPPED when
// `progress` asked to stop.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

constexpr int CH_DENSIFIED = 1;
constexpr int CH_GREW = 2;
constexpr int CH_CAPACITY = 3;
constexpr int CH_STOPPED = 4;
constexpr long long INF = 1LL << 62;

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
    std::vector<Item> heap;  // a binary min-heap (std::push_heap with greater), kept between calls
    int stamp = 0;

    explicit Witness(int n) : dist(n, INF), target_stamp(n, 0) {}

    // Distances to the marked targets found within `limit` settling at most `settle` vertices
    // (INF where not found): written into `found` by target index.
    void run(const Adjacency& out, int source, int skip, const std::vector<int>& targets, long long limit,
             int settle, std::vector<long long>& found) {
        ++stamp;
        for (int t : targets) target_stamp[t] = stamp;
        for (int t : touched) dist[t] = INF;
        touched.clear();
        found.assign(targets.size(), INF);
        const std::greater<Item> later;
        heap.clear();
        dist[source] = 0;
        touched.push_back(source);
        heap.push_back({0, source});
        int settled = 0;
        size_t wanted = targets.size(), got = 0;
        while (!heap.empty() && settled < settle && got < wanted) {
            std::pop_heap(heap.begin(), heap.end(), later);
            auto [d, u] = heap.back();
            heap.pop_back();
            if (d > dist[u]) continue;
            ++settled;
            if (target_stamp[u] == stamp) {
                for (size_t i = 0; i < targets.size(); ++i) {
                    if (targets[i] == u && found[i] == INF) {
                        found[i] = d;
                        ++got;
                    }
                }
            }
            for (const Arc& a : out[u]) {
                long long dw = d + a.w;
                if (dw <= limit && a.to != skip && dw < dist[a.to]) {
                    if (dist[a.to] == INF) touched.push_back(a.to);
                    dist[a.to] = dw;
                    heap.push_back({dw, a.to});
                    std::push_heap(heap.begin(), heap.end(), later);
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
// `settle` vertices. Outputs: rank[n], level[n]
// (int64) and the arcs with shortcuts (out_tails, out_heads, out_weights: int64, capacity entries),
// their count in *out_count. `progress` (may be null) is called every `every` contractions; it
// returns nonzero to stop.
int ch_contract(int n, long long m, const int* tails, const int* heads, const int* weights, int settle,
                double level_weight, double max_growth, long long max_pairs, ch_progress progress, int every,
                long long* rank, long long* level, long long capacity, long long* out_tails, long long* out_heads,
                long long* out_weights, long long* out_count, long long* info) {
    Adjacency out(n), into(n);
    for (long long i = 0; i < m; ++i) {
        int u = tails[i], v = heads[i];
        if (u == v) continue;
        long long w = weights[i];
        if (w < arc_weight(out[u], v)) {
            set_arc(out[u], v, w);
            set_arc(into[v], u, w);
        }
    }
    std::unordered_map<unsigned long long, long long> arcs;
    arcs.reserve(static_cast<size_t>(2 * m + 16));
    for (int u = 0; u < n; ++u) {
        for (const Arc& a : out[u]) arcs[(static_cast<unsigned long long>(u) << 32) | static_cast<unsigned>(a.to)] = a.w;
    }
    const double limit = max_growth * static_cast<double>(std::max<long long>(m, 1));
    std::vector<long long> deleted(n, 0), lvl(n, 0), rnk(n, -1);
    Witness witness(n);
    std::vector<int> targets;
    std::vector<long long> via, found;
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
            long long most = 0;
            for (const Arc& o : out[v]) {
                if (o.to == u) continue;
                targets.push_back(o.to);
                via.push_back(in.w + o.w);
                most = std::max(most, in.w + o.w);
            }
            if (targets.empty()) continue;
            witness.run(out, u, v, targets, most, settle, found);
            for (size_t i = 0; i < targets.size(); ++i) {
                if (found[i] > via[i]) shortcuts.push_back({u, targets[i], via[i]});
            }
        }
        value = static_cast<double>(shortcuts.size()) - static_cast<double>(out[v].size()) -
                static_cast<double>(into[v].size()) + static_cast<double>(deleted[v]) +
                level_weight * static_cast<double>(lvl[v]);
        return true;
    };

    using Item = std::pair<double, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    for (int v = 0; v < n; ++v) {
        double value;
        if (!priority(v, needed, value)) return CH_DENSIFIED;
        heap.push({value, v});
    }
    while (!heap.empty()) {
        int v = heap.top().second;
        heap.pop();
        if (rnk[v] >= 0) continue;
        double now;
        if (!priority(v, needed, now)) return CH_DENSIFIED;
        if (!heap.empty() && now > heap.top().first) {  // lazy update
            heap.push({now, v});
            continue;
        }
        for (const Shortcut& s : needed) {
            if (s.w < arc_weight(out[s.from], s.to)) {
                set_arc(out[s.from], s.to, s.w);
                set_arc(into[s.to], s.from, s.w);
                unsigned long long key = (static_cast<unsigned long long>(s.from) << 32) | static_cast<unsigned>(s.to);
                auto found_arc = arcs.find(key);
                if (found_arc == arcs.end()) {
                    arcs.emplace(key, s.w);
                } else if (s.w < found_arc->second) {
                    found_arc->second = s.w;
                }
            }
        }
        if (static_cast<double>(arcs.size()) > limit) {
            info[0] = static_cast<long long>(arcs.size());
            info[1] = n - order;
            return CH_GREW;
        }
        rnk[v] = order++;
        if (progress != nullptr && every > 0 && order % every == 0 && progress(order, n) != 0) return CH_STOPPED;
        for (const Arc& in : into[v]) {
            erase_arc(out[in.to], v);
            deleted[in.to] += 1;
            lvl[in.to] = std::max(lvl[in.to], lvl[v] + 1);
        }
        for (const Arc& o : out[v]) {
            erase_arc(into[o.to], v);
            deleted[o.to] += 1;
            lvl[o.to] = std::max(lvl[o.to], lvl[v] + 1);
        }
        out[v].clear();
        out[v].shrink_to_fit();
        into[v].clear();
        into[v].shrink_to_fit();
    }
    if (static_cast<long long>(arcs.size()) > capacity) return CH_CAPACITY;
    std::vector<std::pair<unsigned long long, long long>> sorted(arcs.begin(), arcs.end());
    std::sort(sorted.begin(), sorted.end());
    long long k = 0;
    for (const auto& [key, w] : sorted) {
        out_tails[k] = static_cast<long long>(key >> 32);
        out_heads[k] = static_cast<long long>(key & 0xffffffffULL);
        out_weights[k] = w;
        ++k;
    }
    *out_count = k;
    for (int v = 0; v < n; ++v) {
        rank[v] = rnk[v];
        level[v] = lvl[v];
    }
    return 0;
}

}  // extern "C"
