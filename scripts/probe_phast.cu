// Probe (issue 29, docs/notes/kernels.md run V): one query on a contraction hierarchy the way PHAST
// answers it (Delling, Goldberg, Nowatzyk and Werneck, IPDPS 2011), on one block: a step per level
// and a barrier between steps, no queues. Upward, from the source's level to the top, every reached
// vertex of the level relaxes its arcs to higher ranks (atomicMin); downward, from the top level to
// the bottom, every vertex of the level takes the least of its distance and its in-arcs' from higher
// ranks (plain reads and one store: the higher levels are final). The hierarchy is built on the CPU
// by scripts/probe_ch.py --save (vertices numbered by descending level: a level is a range of ids).
// Not a shipped kernel: scripts/probe_phast.py compiles and times it against the tuned one query.
//
// With DIST_SHARED the distances live in the block's shared memory (n ints), else in `dist`
// (global, read past L1 with __ldcg: other threads' atomics are at L2). With SMALL_BY_WARP, a run
// of consecutive levels of at most a warp's vertices each (most of a road network's levels hold
// one to four) is swept by the first warp alone, a __syncwarp between its levels and one block
// barrier after the run, instead of a block barrier per level. With UP_FRONTIER, the upward phase
// keeps the vertices it has reached in a list (shared memory, FRONTIER of them) and steps only
// through the levels they hold, in order, instead of scanning every level above the source's.
// `down_levels` < `levels`: the block sweeps only the top `down_levels` levels downward and the host
// launches pull_level over the whole GPU for each level below, then scatter_out. stats: the steps
// at 0, 2 at 3 where the frontier overflowed.
#include "frontier.cuh"  // INF

#ifndef DIST_SHARED
#define DIST_SHARED 0
#endif
#ifndef SMALL_BY_WARP
#define SMALL_BY_WARP 0
#endif
#ifndef UP_FRONTIER
#define UP_FRONTIER 0
#endif
#define FRONTIER 4096

__device__ __forceinline__ int read(const int *p) {
#if DIST_SHARED
  return *(volatile const int *)p;
#else
  return __ldcg(p);
#endif
}

// Upward: a reached vertex relaxes its arcs to higher ranks.
__device__ __forceinline__ void push_up(int v, int *dist, const int *__restrict__ offsets,
                                        const int *__restrict__ heads, const int *__restrict__ weights) {
  const int d = read(&dist[v]);
  if (d == INF) return;
  for (int e = offsets[v]; e < offsets[v + 1]; ++e) atomicMin(&dist[heads[e]], d + weights[e]);
}

// Downward: a vertex takes the least of its distance and its in-arcs' from higher ranks (final).
__device__ __forceinline__ void pull_down(int v, int *dist, const int *__restrict__ offsets,
                                          const int *__restrict__ tails, const int *__restrict__ weights) {
  int best = read(&dist[v]);
  for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
    const int d = read(&dist[tails[e]]);
    if (d != INF && d + weights[e] < best) best = d + weights[e];
  }
  dist[v] = best;
}

extern "C" __global__ void __launch_bounds__(1024, 1)
phast_block(int n, int levels, const int *__restrict__ level_start, const int *__restrict__ level_of,
            const int *__restrict__ up_offsets, const int *__restrict__ up_heads, const int *__restrict__ up_weights,
            const int *__restrict__ down_offsets, const int *__restrict__ down_tails,
            const int *__restrict__ down_weights, const int *__restrict__ old_of, int source, int source_level,
            int down_levels, int *global_dist, int *out_dist, int *stats) {
#if DIST_SHARED
  extern __shared__ int smem[];
  int *dist = smem;
#else
  int *dist = global_dist;
#endif
  const int T = blockDim.x, tid = threadIdx.x;
  for (int i = tid; i < n; i += T) dist[i] = i == source ? 0 : INF;
  __syncthreads();
  int steps = 0;
#if UP_FRONTIER
  // Upward through the levels the reached vertices hold, lowest first (level indices count from the
  // top): a step relaxes the frontier's vertices of its level; the next step's level is the highest
  // index below it among the frontier's vertices (next_level, by the step's parity).
  __shared__ int frontier[FRONTIER];
  __shared__ int frontier_count, next_level[2];
  if (tid == 0) {
    frontier[0] = source;
    frontier_count = 1;
    next_level[0] = next_level[1] = -1;
  }
  __syncthreads();
  for (int level = source_level; level >= 0; ++steps) {
    const int parity = steps & 1, count = min(frontier_count, FRONTIER);
    __syncthreads();  // every thread has its count and this step's level
    if (tid == 0) next_level[parity ^ 1] = -1;
    for (int i = tid; i < count; i += T) {
      const int v = frontier[i], at = level_of[v];
      if (at < level) {
        atomicMax(&next_level[parity], at);
      } else if (at == level) {
        const int d = read(&dist[v]);
        for (int e = up_offsets[v]; e < up_offsets[v + 1]; ++e) {
          const int head = up_heads[e];
          if (atomicMin(&dist[head], d + up_weights[e]) == INF) {  // reached first now: into the frontier
            const int slot = atomicAdd(&frontier_count, 1);
            if (slot < FRONTIER) frontier[slot] = head;
            atomicMax(&next_level[parity], level_of[head]);
          }
        }
      }
    }
    __syncthreads();
    level = next_level[parity];
  }
  if (tid == 0 && frontier_count > FRONTIER) stats[3] = 2;
#else
  // Upward: the levels from the source's to the top (level indices count from the top).
  for (int level = source_level; level >= 0; --level, ++steps) {
    int last = level;  // the run of levels this step sweeps: level down to last
    if (SMALL_BY_WARP)
      while (last > 0 && level_start[last] - level_start[last - 1] <= 32 &&
             level_start[level + 1] - level_start[level] <= 32)
        --last;
    if (last < level) {  // a run of small levels: the first warp alone
      if (tid < 32) {
        for (int l = level; l >= last; --l) {
          const int v = level_start[l] + tid;
          if (v < level_start[l + 1]) push_up(v, dist, up_offsets, up_heads, up_weights);
          __syncwarp();
        }
      }
      steps += level - last;
      level = last;
    } else {
      for (int v = level_start[level] + tid; v < level_start[level + 1]; v += T)
        push_up(v, dist, up_offsets, up_heads, up_weights);
    }
    __syncthreads();
  }
#endif
  // Downward: every level from the top.
  for (int level = 0; level < down_levels; ++level, ++steps) {
    int last = level;  // the run of levels this step sweeps: level up to last
    if (SMALL_BY_WARP)
      while (last + 1 < down_levels && level_start[last + 2] - level_start[last + 1] <= 32 &&
             level_start[level + 1] - level_start[level] <= 32)
        ++last;
    if (last > level) {  // a run of small levels: the first warp alone
      if (tid < 32) {
        for (int l = level; l <= last; ++l) {
          const int v = level_start[l] + tid;
          if (v < level_start[l + 1]) pull_down(v, dist, down_offsets, down_tails, down_weights);
          __syncwarp();
        }
      }
      steps += last - level;
      level = last;
    } else {
      for (int v = level_start[level] + tid; v < level_start[level + 1]; v += T)
        pull_down(v, dist, down_offsets, down_tails, down_weights);
    }
    __syncthreads();
  }
  if (down_levels == levels)
    for (int i = tid; i < n; i += T) out_dist[old_of[i]] = read(&dist[i]);
  if (tid == 0) stats[0] = steps;
}

// One level below the block's (new ids lo..hi), over the whole GPU: each vertex pulls (global
// distances only).
extern "C" __global__ void pull_level(int lo, int hi, const int *__restrict__ down_offsets,
                                      const int *__restrict__ down_tails, const int *__restrict__ down_weights,
                                      int *dist, int *stats) {
  for (int v = lo + blockIdx.x * blockDim.x + threadIdx.x; v < hi; v += gridDim.x * blockDim.x)
    pull_down(v, dist, down_offsets, down_tails, down_weights);
  if (blockIdx.x == 0 && threadIdx.x == 0) ++stats[0];
}

// The distances by the graph's own ids.
extern "C" __global__ void scatter_out(int n, const int *__restrict__ old_of, const int *__restrict__ dist,
                                       int *out_dist) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out_dist[old_of[i]] = dist[i];
}
