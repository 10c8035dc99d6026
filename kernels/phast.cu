// One-to-all shortest paths on a contraction hierarchy, PHAST's way (Delling, Goldberg, Nowatzyk and
// Werneck, IPDPS 2011; autotune/hierarchy/layout.py). Upward from the source over the arcs to higher
// ranks: rounds of a search over the vertices reached (`search`, a round a hop), or in the `_levels`
// functions a step per level from the source's to the top, every reached vertex of the level
// relaxing its arcs (atomicMin). Downward, a step per level from the top to the bottom and a block
// barrier between steps: every vertex takes the least of its distance and its in-arcs' from higher
// ranks (plain reads and one store: the higher levels are final). The vertices are numbered by
// descending level, so a level is a range of ids. One block per instance (blockIdx.y), CK a launch.
//
// phast_global keeps an instance's distances in `dist` (global, read past L1 with __ldcg: other
// threads' atomics are at L2), phast_shared in the block's shared memory (n dist_t, dynamic; the
// downward arcs may follow them, `shared_arcs`). The block sweeps the top `down_levels` levels
// downward; where that is fewer than all, the host launches pull_level over the whole GPU for each
// level below (a launch a level, every instance at once), then scatter_out. steps[instance]: the
// rounds and levels the block took. The level starts are read from shared memory where the levels
// are at most SHARED_LEVELS. __launch_bounds__(1024, 1): without its minimum of one block an SM, one
// query on usa-roads took 1.08 ms instead of 0.76 on an H100 (same registers, other code).
// phast_target and phast_target_shared answer source-target queries by two such searches.
// The 64-bit builds (-DWIDE_DISTANCES=1) hold distances and the arcs' weights in 64 bits: where a
// shortest path may pass 2^31 - 1, so may a shortcut, which is one.
#include <cuda_pipeline.h>  // __pipeline_memcpy_async (cp.async)

#include "frontier.cuh"  // dist_t, INF, RESTRICT

#if WIDE_DISTANCES
typedef long long weight_t;
#else
typedef int weight_t;
#endif

#define SHARED_LEVELS 1023  // a hierarchy of at most this many levels has its level starts in shared memory
// Arcs of a thread's next vertex loaded before a level's barrier (`Prefetched`), with the distances in
// shared memory and in global memory: on an H100 2 took one query of rome99 from 0.103 to 0.094 ms, and
// any made usa-roads' (global) slower, 0.645 to 0.710 ms (docs/notes/phast.md, run X).
#ifndef PREFETCH_ARCS_SHARED
#define PREFETCH_ARCS_SHARED 2
#endif
#ifndef PREFETCH_ARCS_GLOBAL
#define PREFETCH_ARCS_GLOBAL 0
#endif

// A distance other threads may be changing (atomics of the upward phase), and one that is final (the
// downward phase's reads of higher levels, written before the last barrier).
template <bool SHARED, typename T>
__device__ __forceinline__ T read(const T *p) {
  if (SHARED) return *(volatile const T *)p;
  return __ldcg(p);
}

template <bool SHARED>
__device__ __forceinline__ dist_t read_final(const dist_t *p) {
  if (SHARED) return *p;
  return __ldcg(p);
}

// A thread's first vertex of a level with its first K arcs (the other end and the weight), loaded
// before the barrier of the level above: the arcs are read-only, so only the distances wait for the
// barrier, and a step waits on their round trips alone instead of three dependent ones (offsets,
// arcs, distances). K 0: every vertex's arcs loaded in its own step.
template <int K>
struct Prefetched {
  int v, lo, hi;
  int end[K > 0 ? K : 1];
  weight_t weight[K > 0 ? K : 1];
};

template <int K>
__device__ __forceinline__ Prefetched<K> prefetch(int v, int level_end, const int *RESTRICT offsets,
                                                  const int *RESTRICT ends, const weight_t *RESTRICT weights) {
  Prefetched<K> p;
  p.v = v;
  p.lo = p.hi = 0;
  if (K > 0 && v < level_end) {
    p.lo = offsets[v];
    p.hi = offsets[v + 1];
  }
#pragma unroll
  for (int k = 0; k < K; ++k)
    if (p.lo + k < p.hi) {
      p.end[k] = ends[p.lo + k];
      p.weight[k] = weights[p.lo + k];
    }
  return p;
}

// Upward: a reached vertex relaxes its arcs to higher ranks, from `first` on (the prefetched ones before).
__device__ __forceinline__ void push_up(int v, int first, dist_t d, dist_t *dist, const int *RESTRICT offsets,
                                        const int *RESTRICT heads, const weight_t *RESTRICT weights) {
  for (int e = first; e < offsets[v + 1]; ++e) atomicMin(&dist[heads[e]], d + weights[e]);
}

// Downward: a vertex takes the least of its distance and its in-arcs' from higher ranks (final).
template <bool SHARED>
__device__ __forceinline__ dist_t pull_down(int v, int first, dist_t best, dist_t *dist, const int *RESTRICT offsets,
                                            const int *RESTRICT tails, const weight_t *RESTRICT weights) {
  for (int e = first; e < offsets[v + 1]; ++e) {
    const dist_t d = read_final<SHARED>(&dist[tails[e]]);
    if (d != INF && d + weights[e] < best) best = d + weights[e];
  }
  return best;
}

// Downward, a level of at most a vertex a warp (`warp_levels`): warp w takes vertex lo + w, its lanes the
// arcs, instead of a thread a vertex. Most of a hierarchy's levels hold a few vertices of many arcs each:
// on an H100 one query of usa-roads took 0.401 ms instead of 0.465, of rome99 0.063 instead of 0.070, and
// of road-NY 0.241 instead of 0.203 (docs/notes/phast.md, run Y): a parameter.
template <bool SHARED>
__device__ __forceinline__ void pull_down_warps(int lo, int hi, dist_t *dist, const int *RESTRICT offsets,
                                                const int *RESTRICT tails, const weight_t *RESTRICT weights) {
  const int v = lo + (threadIdx.x >> 5), lane = threadIdx.x & 31;
  if (v >= hi) return;
  dist_t best = INF;
  for (int e = offsets[v] + lane; e < offsets[v + 1]; e += 32) {
    const dist_t d = read_final<SHARED>(&dist[tails[e]]);
    if (d != INF && d + weights[e] < best) best = d + weights[e];
  }
  for (int offset = 16; offset > 0; offset >>= 1) best = min(best, __shfl_xor_sync(0xffffffffu, best, offset));
  if (lane == 0 && best < read_final<SHARED>(&dist[v])) dist[v] = best;
}

// One level's step, upward (UP) or downward, its vertices lo..hi over the block's threads; the
// thread's first vertex (lo + threadIdx.x) comes with its prefetched arcs `p` where K > 0.
template <bool SHARED, bool UP, int K>
__device__ __forceinline__ void step(int lo, int hi, const Prefetched<K> &p, dist_t *dist, const int *RESTRICT offsets,
                                     const int *RESTRICT ends, const weight_t *RESTRICT weights,
                                     bool warp_levels = false) {
  if (!UP && warp_levels && (hi - lo) * 32 <= (int)blockDim.x) {
    pull_down_warps<SHARED>(lo, hi, dist, offsets, ends, weights);
    return;
  }
  int v = lo + threadIdx.x;
  if (K > 0 && v < hi) {
    const dist_t d = read<SHARED>(&dist[v]);
    if (UP) {
      if (d != INF) {
#pragma unroll
        for (int k = 0; k < K; ++k)
          if (p.lo + k < p.hi) atomicMin(&dist[p.end[k]], d + p.weight[k]);
        if (p.lo + K < p.hi) push_up(v, p.lo + K, d, dist, offsets, ends, weights);
      }
    } else {
      dist_t best = d;
#pragma unroll
      for (int k = 0; k < K; ++k)
        if (p.lo + k < p.hi) {
          const dist_t t = read_final<SHARED>(&dist[p.end[k]]);
          if (t != INF && t + p.weight[k] < best) best = t + p.weight[k];
        }
      if (p.lo + K < p.hi) best = pull_down<SHARED>(v, p.lo + K, best, dist, offsets, ends, weights);
      dist[v] = best;
    }
    v += blockDim.x;
  }
  for (; v < hi; v += blockDim.x) {
    const dist_t d = read<SHARED>(&dist[v]);
    if (UP) {
      if (d != INF) push_up(v, offsets[v], d, dist, offsets, ends, weights);
    } else {
      dist[v] = pull_down<SHARED>(v, offsets[v], d, dist, offsets, ends, weights);
    }
  }
}

// Rounds of a label-correcting search over the vertices reached, not a step per level: a contraction
// hierarchy's upward search from a vertex reaches a few hundred vertices in a few hops (usa-roads,
// whose hierarchy has 119 levels: 467 vertices in 15 hops, the medians of 32 searches;
// scripts/probe_upward_search.py at 68a5795). `sides` searches
// at once from `start0` and `start1`: side 0 over the upward arcs, side 1 over the downward arcs
// reversed (a source-target query's search from the target). Per side: the distances `dist`, the round
// each vertex is next due (`due`, 0: none) and the list of its reached vertices (`list`, `reached` of
// them, in shared memory). On entry every vertex but the starts is INF and due in no round. SHARED:
// the distances are in shared memory; SHARED_DUE: the due rounds too.
//
// A round: a warp expands each vertex due, a lane an arc; a vertex whose distance falls is due the next
// round, queued in shared memory the first time it falls in the round. Where more fell than a queue
// holds (or SEARCH_QUEUE is 0), the next round lists the vertices due from the reached ones instead, a
// chunk of blockDim.x (at most QUEUE) at a time. Returns the rounds; every thread has passed a barrier after the last
// write. The caller sets the listed vertices' `due` back to 0.
#ifndef SEARCH_QUEUE
#define SEARCH_QUEUE 1
#endif
#ifndef QUEUE
#define QUEUE 1024  // vertices a round's queue holds (and a chunk's list, in its place)
#endif

template <bool SHARED>
__device__ __forceinline__ void expand(int entry, int round, dist_t *dist0, dist_t *dist1, int *due0, int *due1,
                                       int *list0, int *list1, int *reached, int *next, int *queued, int *overflowed,
                                       const int *RESTRICT up_offsets, const int *RESTRICT up_heads,
                                       const weight_t *RESTRICT up_weights, const int *RESTRICT down_offsets,
                                       const int *RESTRICT down_tails, const weight_t *RESTRICT down_weights) {
  const int side = entry < 0, v = side ? ~entry : entry, lane = threadIdx.x & 31;
  dist_t *dist = side ? dist1 : dist0;
  int *due = side ? due1 : due0;
  const int *offsets = side ? down_offsets : up_offsets, *ends = side ? down_tails : up_heads;
  const weight_t *weights = side ? down_weights : up_weights;
  const dist_t d = read<SHARED>(&dist[v]);
  for (int e = offsets[v] + lane; e < offsets[v + 1]; e += 32) {
    const int u = ends[e];
    const dist_t candidate = d + weights[e];
    const dist_t old = atomicMin(&dist[u], candidate);
    if (candidate < old) {
      if (old == INF) (side ? list1 : list0)[atomicAdd(&reached[side], 1)] = u;
      if (atomicExch(&due[u], round + 1) != round + 1) {
        const int slot = atomicAdd(queued, 1);
        if (slot < QUEUE) next[slot] = side ? ~u : u;
        else *overflowed = 1;
      }
    }
  }
}

template <bool SHARED, bool SHARED_DUE = false>
__device__ __forceinline__ int search(int sides, int start0, int start1, dist_t *dist0, dist_t *dist1, int *due0,
                                      int *due1, int *list0, int *list1, int *reached, const int *RESTRICT up_offsets,
                                      const int *RESTRICT up_heads, const weight_t *RESTRICT up_weights,
                                      const int *RESTRICT down_offsets, const int *RESTRICT down_tails,
                                      const weight_t *RESTRICT down_weights) {
  __shared__ int queue[2][QUEUE];  // per round parity: the vertices due (v on side 0, ~v on side 1)
  __shared__ int queued[3];        // per round (mod 3): how many fell for it
  __shared__ int overflowed[3];    // per round (mod 3): whether its queue is short of them
  __shared__ int listed;
  const int T = blockDim.x, tid = threadIdx.x;
  if (tid < sides) {
    const int v = tid ? start1 : start0;
    (tid ? dist1 : dist0)[v] = 0;
    (tid ? due1 : due0)[v] = 1;
    (tid ? list1 : list0)[0] = v;
    reached[tid] = 1;
    queue[1][tid] = tid ? ~v : v;
  }
  if (tid == 0) {
    queued[1] = sides;
    overflowed[1] = !SEARCH_QUEUE;
  }
  int round = 1;
  for (;; ++round) {
    const int now = round % 3, after = (round + 1) % 3;
    int *here = queue[round & 1], *next = queue[(round + 1) & 1];
    if (tid == 0) {  // read at the end of this round and in the next, after barriers
      queued[after] = 0;
      overflowed[after] = !SEARCH_QUEUE;
    }
    __syncthreads();
    if (!overflowed[now]) {
      for (int q = tid >> 5; q < queued[now]; q += T >> 5)
        expand<SHARED>(here[q], round, dist0, dist1, due0, due1, list0, list1, reached, next, &queued[after],
                       &overflowed[after], up_offsets, up_heads, up_weights, down_offsets, down_tails, down_weights);
    } else {  // list the reached vertices due this round into `here`, a chunk at a time
      const int first = reached[0], total = first + (sides > 1 ? reached[1] : 0), size = min(T, QUEUE);
      for (int chunk = 0; chunk < total; chunk += size) {
        if (tid == 0) listed = 0;
        __syncthreads();
        const int i = chunk + tid;
        if (tid < size && i < total) {
          const int side = i >= first, v = side ? list1[i - first] : list0[i];
          if (read<SHARED_DUE>(&(side ? due1 : due0)[v]) == round) here[atomicAdd(&listed, 1)] = side ? ~v : v;
        }
        __syncthreads();
        for (int q = tid >> 5; q < listed; q += T >> 5)
          expand<SHARED>(here[q], round, dist0, dist1, due0, due1, list0, list1, reached, next, &queued[after],
                         &overflowed[after], up_offsets, up_heads, up_weights, down_offsets, down_tails, down_weights);
        __syncthreads();
      }
    }
    __syncthreads();
    if (queued[after] == 0) return round;
  }
}

#define SHARED_ARCS_NONE 0
#define SHARED_ARCS_DOWN 1  // the downward arcs in shared memory

// Round up to a multiple of 4 ints: the staged arrays start on 16 bytes, as their copies need.
__device__ __forceinline__ int quad(int count) { return (count + 3) & ~3; }

// Copy `count` ints into shared memory asynchronously (cp.async), 16 bytes a copy but the last ones:
// `to` and `from` on 16 bytes. (A copy of 4 bytes each made rome99's downward phase wait on its arcs,
// a request each.)
__device__ __forceinline__ void copy_async(int *to, const int *from, int count) {
  const int whole = count & ~3;
  for (int i = 4 * threadIdx.x; i < whole; i += 4 * blockDim.x) __pipeline_memcpy_async(&to[i], &from[i], 16);
  for (int i = whole + threadIdx.x; i < count; i += blockDim.x) __pipeline_memcpy_async(&to[i], &from[i], 4);
}

// Copy a direction's arcs (n + 1 offsets, `arcs` ends and `arcs` weights, each from a multiple of 4
// ints) into shared memory at `to`, one commit group: __pipeline_wait_prior and a barrier before reading.
__device__ __forceinline__ void stage(int *to, int n, int arcs, const int *RESTRICT offsets, const int *RESTRICT ends,
                                      const weight_t *RESTRICT weights) {
  copy_async(to, offsets, n + 1);
  copy_async(to + quad(n + 1), ends, arcs);
  copy_async(to + quad(n + 1) + quad(arcs), (const int *)weights, arcs * (int)(sizeof(weight_t) / sizeof(int)));
  __pipeline_commit();
}

template <bool SHARED, int K, bool UPWARD_SEARCH>
__device__ __forceinline__ void sweep(int n, int levels, int down_levels, const int *RESTRICT level_start,
                                      const int *RESTRICT level_of, const int *RESTRICT new_of,
                                      const int *RESTRICT up_offsets, const int *RESTRICT up_heads,
                                      const weight_t *RESTRICT up_weights, const int *RESTRICT down_offsets,
                                      const int *RESTRICT down_tails, const weight_t *RESTRICT down_weights,
                                      const int *RESTRICT old_of, const int *RESTRICT sources, int shared_arcs,
                                      int warp_levels, int *work, dist_t *dist, dist_t *out, int *steps) {
  __shared__ int starts[SHARED_LEVELS + 1];  // the level starts, where the levels are that few
  __shared__ int reached[1];
  const int T = blockDim.x, tid = threadIdx.x, instance = blockIdx.y;
  const int source = new_of[sources[instance]];
  const bool staged = levels <= SHARED_LEVELS;
  if (staged)
    for (int i = tid; i <= levels; i += T) starts[i] = level_start[i];
  const int *start = staged ? starts : level_start;
  // With the distances in shared memory, the downward arcs may follow them there (`shared_arcs`
  // SHARED_ARCS_DOWN), copied asynchronously while the upward phase runs; then the downward steps
  // read shared memory alone. (The upward arcs too, before the upward phase, made one query of rome99
  // no faster on an H100: 0.0624 against 0.0619 ms; docs/notes/phast.md, run Y.)
  const int down_arcs = SHARED && shared_arcs == SHARED_ARCS_DOWN ? down_offsets[n] : 0;
  int *staged_down = (int *)(dist + quad(n));  // offsets, tails, weights (`stage`)
  if (SHARED && shared_arcs == SHARED_ARCS_DOWN) stage(staged_down, n, down_arcs, down_offsets, down_tails, down_weights);
  for (int i = tid; i < n; i += T) dist[i] = i == source ? 0 : INF;
  __syncthreads();
  // Upward: by rounds of a search over the reached vertices (`search`; `work`: the instance's due
  // rounds and list, zero on entry and left so), or a step per level above the source's. There the
  // source is its level's only reached vertex (no arc joins two vertices of a level): its arcs first,
  // a thread each, then the levels above it (indices count from the top).
  const int first = UPWARD_SEARCH ? 0 : level_of[source];
  Prefetched<K> next = first > 0 ? prefetch<K>(start[first - 1] + tid, start[first], up_offsets, up_heads, up_weights)
                                 : prefetch<K>(start[0] + tid, start[1], down_offsets, down_tails, down_weights);
  int swept = 1;
  if (UPWARD_SEARCH) {
    int *due = work + (size_t)instance * 2 * n, *list = due + n;
    swept = search<SHARED>(1, source, 0, dist, nullptr, due, nullptr, list, nullptr, reached, up_offsets, up_heads,
                           up_weights, down_offsets, down_tails, down_weights);
    for (int i = tid; i < reached[0]; i += T) due[list[i]] = 0;
  } else {
    for (int e = up_offsets[source] + tid; e < up_offsets[source + 1]; e += T)
      atomicMin(&dist[up_heads[e]], up_weights[e]);
    __syncthreads();
  }
  for (int level = first - 1; level >= 0; --level, ++swept) {
    const Prefetched<K> here = next;
    next = level > 0 ? prefetch<K>(start[level - 1] + tid, start[level], up_offsets, up_heads, up_weights)
                     : prefetch<K>(start[0] + tid, start[1], down_offsets, down_tails, down_weights);
    step<SHARED, true, K>(start[level], start[level + 1], here, dist, up_offsets, up_heads, up_weights);
    __syncthreads();
  }
  const int *offsets = down_offsets, *tails = down_tails;
  const weight_t *weights = down_weights;
  if (SHARED && shared_arcs == SHARED_ARCS_DOWN) {  // (the first level's prefetch read them in global memory)
    __pipeline_wait_prior(0);
    __syncthreads();
    offsets = staged_down;
    tails = staged_down + quad(n + 1);
    weights = (const weight_t *)(tails + quad(down_arcs));
  }
  for (int level = 0; level < down_levels; ++level, ++swept) {  // downward from the top
    const Prefetched<K> here = next;
    if (level + 1 < down_levels) next = prefetch<K>(start[level + 1] + tid, start[level + 2], offsets, tails, weights);
    step<SHARED, false, K>(start[level], start[level + 1], here, dist, offsets, tails, weights, warp_levels);
    __syncthreads();
  }
  if (down_levels == levels) {
    dist_t *row = out + (size_t)instance * n;
    for (int i = tid; i < n; i += T) row[old_of[i]] = read<SHARED>(&dist[i]);
  }
  if (tid == 0) steps[instance] = swept;
}

// The sweeps, distances in global memory (`dist`: n an instance) or in the block's shared memory,
// the upward phase by search or by levels: four functions, so that a build without the search holds
// neither its registers nor its queues (a batch of small graphs fits more blocks an SM).
#define PHAST_SWEEP(name, SHARED, K, UPWARD_SEARCH)                                                                    \
  extern "C" __global__ void __launch_bounds__(1024, 1)                                                                \
  name(int n, int levels, int down_levels, const int *RESTRICT level_start, const int *RESTRICT level_of,              \
       const int *RESTRICT new_of, const int *RESTRICT up_offsets, const int *RESTRICT up_heads,                       \
       const weight_t *RESTRICT up_weights, const int *RESTRICT down_offsets, const int *RESTRICT down_tails,          \
       const weight_t *RESTRICT down_weights, const int *RESTRICT old_of, const int *RESTRICT sources,                 \
       int shared_arcs, int warp_levels, int *work, dist_t *dist, dist_t *out, int *steps) {                           \
    extern __shared__ __align__(16) int shared_dist[];                                                                 \
    sweep<SHARED, K, UPWARD_SEARCH>(n, levels, SHARED ? levels : down_levels, level_start, level_of, new_of,           \
                                    up_offsets, up_heads, up_weights, down_offsets, down_tails, down_weights, old_of,  \
                                    sources, SHARED ? shared_arcs : 0, warp_levels, work,                              \
                                    SHARED ? (dist_t *)shared_dist : dist + (size_t)blockIdx.y * n, out, steps);       \
  }

PHAST_SWEEP(phast_global, false, PREFETCH_ARCS_GLOBAL, true)
PHAST_SWEEP(phast_shared, true, PREFETCH_ARCS_SHARED, true)
PHAST_SWEEP(phast_global_levels, false, PREFETCH_ARCS_GLOBAL, false)
PHAST_SWEEP(phast_shared_levels, true, PREFETCH_ARCS_SHARED, false)

// A source-target query (the engine's solve_to): a contraction hierarchy's two upward searches (`search`),
// from the source over the upward arcs and from the target over the downward arcs reversed; the target's
// distance is the least sum of the two searches' distances over the vertices both reach. Per side the
// distances, due rounds and list of reached vertices: in `phast_target`, SEARCH_WORDS ints a vertex of
// `search_words` for each instance (blockIdx.y), INF, 0 and anything when the kernel starts (the engine
// fills them once), and the kernel leaves them so; in `phast_target_shared`, in the block's shared memory
// (SEARCH_WORDS ints a vertex), filled here. Both sides' distances come first, then the ints.
#define SEARCH_WORDS (2 * (int)DIST_INTS + 4)

template <bool SHARED>
__device__ __forceinline__ void meet(int n, const int *RESTRICT new_of, const int *RESTRICT up_offsets,
                                     const int *RESTRICT up_heads, const weight_t *RESTRICT up_weights,
                                     const int *RESTRICT down_offsets, const int *RESTRICT down_tails,
                                     const weight_t *RESTRICT down_weights, const int *RESTRICT sources,
                                     const int *RESTRICT targets, int *base, dist_t *out, int *steps) {
  __shared__ int reached[2];
  __shared__ dist_t best;
  const int T = blockDim.x, tid = threadIdx.x, instance = blockIdx.y;
#if WIDE_DISTANCES
  dist_t *dist[2] = {(dist_t *)base, (dist_t *)base + n};
  int *ints = (int *)((dist_t *)base + 2 * (size_t)n);
  int *due[2] = {ints, ints + n}, *list[2] = {ints + 2 * (size_t)n, ints + 3 * (size_t)n};
  if (SHARED)
    for (int i = tid; i < 2 * n; i += T) {
      dist[0][i] = INF;
      ints[i] = 0;
    }
#else  // (so written, the 32-bit build keeps its 40 registers: 46 with the lines above)
  int *dist[2] = {base, base + n}, *due[2] = {base + 2 * (size_t)n, base + 3 * (size_t)n};
  int *list[2] = {base + 4 * (size_t)n, base + 5 * (size_t)n};
  if (SHARED)
    for (int i = tid; i < 4 * n; i += T) base[i] = i < 2 * n ? INF : 0;
#endif
  if (tid == 0) best = INF;
  if (SHARED) __syncthreads();
  const int rounds = search<SHARED, SHARED>(2, new_of[sources[instance]], new_of[targets[instance]], dist[0], dist[1],
                                            due[0], due[1], list[0], list[1], reached, up_offsets, up_heads,
                                            up_weights, down_offsets, down_tails, down_weights);
  dist_t mine = INF;
  for (int i = tid; i < reached[0]; i += T) {
    const int u = list[0][i];
    const dist_t f = read<SHARED>(&dist[0][u]), b = read<SHARED>(&dist[1][u]);
    if (b != INF && (long long)f + b < mine) mine = f + b;
  }
  for (int offset = 16; offset > 0; offset >>= 1) mine = min(mine, __shfl_down_sync(0xffffffffu, mine, offset));
  if ((tid & 31) == 0) atomicMin(&best, mine);
  __syncthreads();
  if (!SHARED)
    for (int side = 0; side < 2; ++side)
      for (int i = tid; i < reached[side]; i += T) {
        const int u = list[side][i];
        dist[side][u] = INF;
        due[side][u] = 0;
      }
  if (tid == 0) {
    out[(size_t)instance * n + targets[instance]] = best;
    steps[instance] = rounds;
  }
}

extern "C" __global__ void __launch_bounds__(1024, 1)
phast_target(int n, const int *RESTRICT new_of, const int *RESTRICT up_offsets, const int *RESTRICT up_heads,
             const weight_t *RESTRICT up_weights, const int *RESTRICT down_offsets, const int *RESTRICT down_tails,
             const weight_t *RESTRICT down_weights, const int *RESTRICT sources, const int *RESTRICT targets,
             int *search_words, dist_t *out, int *steps) {
  meet<false>(n, new_of, up_offsets, up_heads, up_weights, down_offsets, down_tails, down_weights, sources, targets,
              search_words + (size_t)blockIdx.y * SEARCH_WORDS * n, out, steps);
}

extern "C" __global__ void __launch_bounds__(1024, 1)
phast_target_shared(int n, const int *RESTRICT new_of, const int *RESTRICT up_offsets, const int *RESTRICT up_heads,
                    const weight_t *RESTRICT up_weights, const int *RESTRICT down_offsets,
                    const int *RESTRICT down_tails, const weight_t *RESTRICT down_weights,
                    const int *RESTRICT sources, const int *RESTRICT targets, int *search_words, dist_t *out,
                    int *steps) {
  extern __shared__ __align__(16) int shared_search[];
  meet<true>(n, new_of, up_offsets, up_heads, up_weights, down_offsets, down_tails, down_weights, sources, targets,
             shared_search, out, steps);
}

// One level below the block's (new ids lo..hi) over the whole GPU, every instance (blockIdx.y) at once.
extern "C" __global__ void pull_level(int n, int lo, int hi, const int *RESTRICT down_offsets,
                                      const int *RESTRICT down_tails, const weight_t *RESTRICT down_weights,
                                      dist_t *dist) {
  dist_t *row = dist + (size_t)blockIdx.y * n;
  for (int v = lo + blockIdx.x * blockDim.x + threadIdx.x; v < hi; v += gridDim.x * blockDim.x)
    row[v] = pull_down<false>(v, down_offsets[v], __ldcg(&row[v]), row, down_offsets, down_tails, down_weights);
}

// The distances by the graph's own ids, every instance (blockIdx.y).
extern "C" __global__ void scatter_out(int n, const int *RESTRICT old_of, const dist_t *RESTRICT dist, dist_t *out) {
  const size_t base = (size_t)blockIdx.y * n;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[base + old_of[i]] = __ldcg(&dist[base + i]);
}
