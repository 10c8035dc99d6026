// Probe (issue 29, docs/notes/kernels.md run U): one query of a small graph on one small block
// whose whole state is in shared memory: near-far Delta-stepping with a thread per queued vertex
// (each relaxes its own vertex's arcs: no bins, no prefix sums, no tiles), one barrier per
// iteration (the queues' counts are triple-buffered) and more only at a split. The hope: on small,
// low-degree graphs (rome99, the power grids), where solve_shared's iteration costs about 1.6 us of
// barriers and tile bookkeeping, an iteration of a few warps costs a fraction of that. Measured: it
// does not (1.05x to 1.47x slower than the tuned one query, still about 2 us an iteration).
// Not a shipped kernel: scripts/probe_lean.py compiles and times it against the tuned one query.
//
// Shared memory (ints): dist n, two near queues n each, two far piles n each, three bitmaps of
// words = (n + 31) / 32 (near by parity, far), and with GRAPH_SHARED the graph's offsets (n + 1),
// columns and weights (m each). Every queue holds a vertex at most once (its bitmap), so n is room
// enough.
#include "frontier.cuh"  // INF, next_threshold: the near-far kernels' own

#ifndef GRAPH_SHARED
#define GRAPH_SHARED 0
#endif

struct Lean {
  int *dist;        // n, then the near queues (parity 0, 1) and the far piles (0, 1): n each
  unsigned *bits;   // the near bitmaps (parity 0, 1), then the far bitmap: words each
  int n, words;
  int *near_count, *pile_count, *pile_min;  // 3 (by iteration % 3), 2, 2 (by pile)
  const int *offsets, *columns, *weights;

  __device__ __forceinline__ int *near(int parity) const { return dist + (1 + parity) * n; }
  __device__ __forceinline__ int *pile(int sel) const { return dist + (3 + sel) * n; }
  __device__ __forceinline__ unsigned *near_bits(int parity) const { return bits + parity * words; }
  __device__ __forceinline__ unsigned *far_bits() const { return bits + 2 * words; }

  // Queue v (whose distance just fell to d) in the near queue of `parity` or the far pile `sel`.
  __device__ __forceinline__ void push(int v, int d, int threshold, int parity, int next, int sel) const {
    const unsigned bit = 1u << (v & 31);
    if (d < threshold) {
      if (!(atomicOr(&near_bits(parity)[v >> 5], bit) & bit)) near(parity)[atomicAdd(&near_count[next], 1)] = v;
    } else {
      atomicMin(&pile_min[sel], d);
      if (!(atomicOr(&far_bits()[v >> 5], bit) & bit)) pile(sel)[atomicAdd(&pile_count[sel], 1)] = v;
    }
  }
};

extern "C" __global__ void __launch_bounds__(1024, 1)
solve_lean(int n, int m, const int *__restrict__ offsets, const int *__restrict__ columns,
           const int *__restrict__ weights, int source, int delta, int *out_dist, int *stats, int max_iterations) {
  extern __shared__ int smem[];
  __shared__ int near_count[3], pile_count[2], pile_min[2];
  const int words = (n + 31) / 32, T = blockDim.x, tid = threadIdx.x;
  Lean s;
  s.dist = smem;
  s.bits = reinterpret_cast<unsigned *>(smem + 5 * n);
  s.n = n;
  s.words = words;
  s.near_count = near_count;
  s.pile_count = pile_count;
  s.pile_min = pile_min;
#if GRAPH_SHARED
  int *graph = smem + 5 * n + 3 * words;
  for (int i = tid; i <= n; i += T) graph[i] = offsets[i];
  for (int i = tid; i < m; i += T) {
    graph[n + 1 + i] = columns[i];
    graph[n + 1 + m + i] = weights[i];
  }
  s.offsets = graph;
  s.columns = graph + n + 1;
  s.weights = graph + n + 1 + m;
#else
  s.offsets = offsets;
  s.columns = columns;
  s.weights = weights;
#endif
  for (int i = tid; i < n; i += T) s.dist[i] = INF;
  for (int i = tid; i < 3 * words; i += T) s.bits[i] = 0;
  if (tid == 0) {
    near_count[0] = 1;
    near_count[1] = near_count[2] = 0;
    pile_count[0] = pile_count[1] = 0;
    pile_min[0] = pile_min[1] = INF;
  }
  __syncthreads();
  if (tid == 0) {
    s.dist[source] = 0;
    s.near(0)[0] = source;
    s.bits[source >> 5] = 1u << (source & 31);
  }
  __syncthreads();

  int iteration = 0, splits = 0, sel = 0, threshold = delta, now = 0, next = 1, expanded = 0;
  while (iteration < max_iterations) {
    const int later = 3 - now - next, parity = iteration & 1;
    const int count = near_count[now];
    if (tid == 0) near_count[later] = 0;
    for (int i = tid; i < count; i += T) {
      const int u = s.near(parity)[i];
      atomicAnd(&s.near_bits(parity)[u >> 5], ~(1u << (u & 31)));
      const int du = s.dist[u];
      const int end = s.offsets[u + 1];
      for (int e = s.offsets[u]; e < end; ++e) {
        const int v = s.columns[e], nd = du + s.weights[e];
        if (nd < s.dist[v] && nd < atomicMin(&s.dist[v], nd)) s.push(v, nd, threshold, parity ^ 1, next, sel);
      }
      ++expanded;
    }
    __syncthreads();
    ++iteration;
    // A split while the next near queue is empty: the far pile's vertices below the next bucket's
    // threshold go to it, the rest to the other pile (those below the old threshold were expanded).
    while (near_count[next] == 0 && pile_count[sel] > 0) {
      const int old = threshold;
      threshold = next_threshold(threshold, pile_min[sel], delta);
      const int piled = pile_count[sel];
      __syncthreads();  // every thread has read pile_min and pile_count
      if (tid == 0) {
        pile_count[sel ^ 1] = 0;
        pile_min[sel ^ 1] = INF;
      }
      __syncthreads();
      for (int i = tid; i < piled; i += T) {
        const int v = s.pile(sel)[i], d = s.dist[v];
        const unsigned bit = 1u << (v & 31);
        if (d < threshold) {
          atomicAnd(&s.far_bits()[v >> 5], ~bit);
          if (d >= old && !(atomicOr(&s.near_bits(parity ^ 1)[v >> 5], bit) & bit))
            s.near(parity ^ 1)[atomicAdd(&near_count[next], 1)] = v;
        } else {
          atomicMin(&pile_min[sel ^ 1], d);
          s.pile(sel ^ 1)[atomicAdd(&pile_count[sel ^ 1], 1)] = v;
        }
      }
      sel ^= 1;
      ++splits;
      __syncthreads();
    }
    if (near_count[next] == 0) break;
    now = next;
    next = later;
  }
  for (int i = tid; i < n; i += T) out_dist[i] = s.dist[i];
  atomicAdd(&stats[2], expanded);
  if (tid == 0) {
    stats[0] = iteration;
    stats[1] = splits;
    if (iteration >= max_iterations) stats[3] = 1;
  }
}
