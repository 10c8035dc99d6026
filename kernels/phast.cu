// One-to-all shortest paths on a contraction hierarchy, PHAST's way (Delling, Goldberg, Nowatzyk and
// Werneck, IPDPS 2011) as level sweeps (autotune/hierarchy/layout.py): a step per level and a block
// barrier between steps, no queue. Upward, from the source's level to the top, every reached vertex
// of the level relaxes its arcs to higher ranks (atomicMin); downward, from the top level to the
// bottom, every vertex takes the least of its distance and its in-arcs' from higher ranks (plain
// reads and one store: the higher levels are final). The vertices are numbered by descending level,
// so a level is a range of ids. One block per instance (blockIdx.y), CK instances per launch.
//
// phast_global keeps an instance's distances in `dist` (global, read past L1 with __ldcg: other
// threads' atomics are at L2), phast_shared in the block's shared memory (n ints, dynamic). The block
// sweeps the top `down_levels` levels downward; where that is fewer than all, the host launches
// pull_level over the whole GPU for each level below (a launch a level, every instance at once), then
// scatter_out. steps[instance]: the levels the block swept (upward and downward). The block's first
// step relaxes the source's arcs alone, and the level starts are read from shared memory where the
// levels are at most SHARED_LEVELS. __launch_bounds__(1024, 1): without its minimum of one block an SM,
// one query on usa-roads took 1.08 ms instead of 0.76 on an H100 (same registers, other code).
#include "frontier.cuh"  // INF, RESTRICT

#define SHARED_LEVELS 1023  // a hierarchy of at most this many levels has its level starts in shared memory

template <bool SHARED>
__device__ __forceinline__ int read(const int *p) {
  if (SHARED) return *(volatile const int *)p;
  return __ldcg(p);
}

// Upward: a reached vertex relaxes its arcs to higher ranks.
template <bool SHARED>
__device__ __forceinline__ void push_up(int v, int *dist, const int *RESTRICT offsets, const int *RESTRICT heads,
                                        const int *RESTRICT weights) {
  const int d = read<SHARED>(&dist[v]);
  if (d == INF) return;
  for (int e = offsets[v]; e < offsets[v + 1]; ++e) atomicMin(&dist[heads[e]], d + weights[e]);
}

// Downward: a vertex takes the least of its distance and its in-arcs' from higher ranks (final).
template <bool SHARED>
__device__ __forceinline__ void pull_down(int v, int *dist, const int *RESTRICT offsets, const int *RESTRICT tails,
                                          const int *RESTRICT weights) {
  int best = read<SHARED>(&dist[v]);
  for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
    const int d = read<SHARED>(&dist[tails[e]]);
    if (d != INF && d + weights[e] < best) best = d + weights[e];
  }
  dist[v] = best;
}

template <bool SHARED>
__device__ __forceinline__ void sweep(int n, int levels, int down_levels, const int *RESTRICT level_start,
                                      const int *RESTRICT level_of, const int *RESTRICT new_of,
                                      const int *RESTRICT up_offsets, const int *RESTRICT up_heads,
                                      const int *RESTRICT up_weights, const int *RESTRICT down_offsets,
                                      const int *RESTRICT down_tails, const int *RESTRICT down_weights,
                                      const int *RESTRICT old_of, const int *RESTRICT sources, int *dist,
                                      int *out, int *steps) {
  __shared__ int starts[SHARED_LEVELS + 1];  // the level starts, where the levels are that few
  const int T = blockDim.x, tid = threadIdx.x, instance = blockIdx.y;
  const int source = new_of[sources[instance]];
  const bool staged = levels <= SHARED_LEVELS;
  if (staged)
    for (int i = tid; i <= levels; i += T) starts[i] = level_start[i];
  const int *start = staged ? starts : level_start;
  for (int i = tid; i < n; i += T) dist[i] = i == source ? 0 : INF;
  __syncthreads();
  // Upward. The source is its level's only reached vertex (no arc joins two vertices of a level):
  // its arcs first, a thread each, then the levels above it (indices count from the top).
  const int first = level_of[source];
  for (int e = up_offsets[source] + tid; e < up_offsets[source + 1]; e += T)
    atomicMin(&dist[up_heads[e]], up_weights[e]);
  __syncthreads();
  int swept = 1;
  for (int level = first - 1; level >= 0; --level, ++swept) {
    for (int v = start[level] + tid; v < start[level + 1]; v += T)
      push_up<SHARED>(v, dist, up_offsets, up_heads, up_weights);
    __syncthreads();
  }
  for (int level = 0; level < down_levels; ++level, ++swept) {  // downward from the top
    for (int v = start[level] + tid; v < start[level + 1]; v += T)
      pull_down<SHARED>(v, dist, down_offsets, down_tails, down_weights);
    __syncthreads();
  }
  if (down_levels == levels) {
    int *row = out + (size_t)instance * n;
    for (int i = tid; i < n; i += T) row[old_of[i]] = read<SHARED>(&dist[i]);
  }
  if (tid == 0) steps[instance] = swept;
}

extern "C" __global__ void __launch_bounds__(1024, 1)
phast_global(int n, int levels, int down_levels, const int *RESTRICT level_start, const int *RESTRICT level_of,
             const int *RESTRICT new_of, const int *RESTRICT up_offsets, const int *RESTRICT up_heads,
             const int *RESTRICT up_weights, const int *RESTRICT down_offsets, const int *RESTRICT down_tails,
             const int *RESTRICT down_weights, const int *RESTRICT old_of, const int *RESTRICT sources, int *dist,
             int *out, int *steps) {
  sweep<false>(n, levels, down_levels, level_start, level_of, new_of, up_offsets, up_heads, up_weights, down_offsets,
               down_tails, down_weights, old_of, sources, dist + (size_t)blockIdx.y * n, out, steps);
}

extern "C" __global__ void __launch_bounds__(1024, 1)
phast_shared(int n, int levels, int down_levels, const int *RESTRICT level_start, const int *RESTRICT level_of,
             const int *RESTRICT new_of, const int *RESTRICT up_offsets, const int *RESTRICT up_heads,
             const int *RESTRICT up_weights, const int *RESTRICT down_offsets, const int *RESTRICT down_tails,
             const int *RESTRICT down_weights, const int *RESTRICT old_of, const int *RESTRICT sources, int *dist,
             int *out, int *steps) {
  extern __shared__ int shared_dist[];
  sweep<true>(n, levels, levels, level_start, level_of, new_of, up_offsets, up_heads, up_weights, down_offsets,
              down_tails, down_weights, old_of, sources, shared_dist, out, steps);
}

// A source-target query (the engine's solve_to): two upward searches on the hierarchy, from the source
// over the upward arcs and from the target over the downward arcs reversed, a level a step from the
// lower of the two levels to the top; the target's distance is the least sum of the two over the
// vertices both reach (a contraction hierarchy's query). Only out[target] is written.
template <bool SHARED>
__device__ __forceinline__ void meet(int n, int levels, const int *RESTRICT level_start, const int *RESTRICT level_of,
                                     const int *RESTRICT new_of, const int *RESTRICT up_offsets,
                                     const int *RESTRICT up_heads, const int *RESTRICT up_weights,
                                     const int *RESTRICT down_offsets, const int *RESTRICT down_tails,
                                     const int *RESTRICT down_weights, const int *RESTRICT sources,
                                     const int *RESTRICT targets, int *forward, int *backward, int *out, int *steps) {
  __shared__ int starts[SHARED_LEVELS + 1];
  __shared__ int best;
  const int T = blockDim.x, tid = threadIdx.x, instance = blockIdx.y;
  const int source = new_of[sources[instance]], target = new_of[targets[instance]];
  const bool staged = levels <= SHARED_LEVELS;
  if (staged)
    for (int i = tid; i <= levels; i += T) starts[i] = level_start[i];
  const int *start = staged ? starts : level_start;
  for (int i = tid; i < n; i += T) {
    forward[i] = i == source ? 0 : INF;
    backward[i] = i == target ? 0 : INF;
  }
  if (tid == 0) best = INF;
  __syncthreads();
  int swept = 0;
  for (int level = max(level_of[source], level_of[target]); level >= 0; --level, ++swept) {
    for (int v = start[level] + tid; v < start[level + 1]; v += T) {
      push_up<SHARED>(v, forward, up_offsets, up_heads, up_weights);
      const int d = read<SHARED>(&backward[v]);  // v's in-arcs from higher ranks, reversed
      if (d != INF)
        for (int e = down_offsets[v]; e < down_offsets[v + 1]; ++e)
          atomicMin(&backward[down_tails[e]], d + down_weights[e]);
    }
    __syncthreads();
  }
  int mine = INF;
  for (int i = tid; i < n; i += T) {
    const int f = read<SHARED>(&forward[i]), b = read<SHARED>(&backward[i]);
    if (f != INF && b != INF && (long long)f + b < mine) mine = f + b;
  }
  for (int offset = 16; offset > 0; offset >>= 1) mine = min(mine, __shfl_down_sync(0xffffffffu, mine, offset));
  if ((tid & 31) == 0) atomicMin(&best, mine);
  __syncthreads();
  if (tid == 0) {
    out[(size_t)instance * n + targets[instance]] = best;
    steps[instance] = swept;
  }
}

extern "C" __global__ void __launch_bounds__(1024, 1)
phast_target_global(int n, int levels, const int *RESTRICT level_start, const int *RESTRICT level_of,
                    const int *RESTRICT new_of, const int *RESTRICT up_offsets, const int *RESTRICT up_heads,
                    const int *RESTRICT up_weights, const int *RESTRICT down_offsets, const int *RESTRICT down_tails,
                    const int *RESTRICT down_weights, const int *RESTRICT sources, const int *RESTRICT targets,
                    int *dist, int *out, int *steps) {
  int *forward = dist + (size_t)blockIdx.y * 2 * n;
  meet<false>(n, levels, level_start, level_of, new_of, up_offsets, up_heads, up_weights, down_offsets, down_tails,
              down_weights, sources, targets, forward, forward + n, out, steps);
}

extern "C" __global__ void __launch_bounds__(1024, 1)
phast_target_shared(int n, int levels, const int *RESTRICT level_start, const int *RESTRICT level_of,
                    const int *RESTRICT new_of, const int *RESTRICT up_offsets, const int *RESTRICT up_heads,
                    const int *RESTRICT up_weights, const int *RESTRICT down_offsets, const int *RESTRICT down_tails,
                    const int *RESTRICT down_weights, const int *RESTRICT sources, const int *RESTRICT targets,
                    int *dist, int *out, int *steps) {
  extern __shared__ int shared_dist[];
  meet<true>(n, levels, level_start, level_of, new_of, up_offsets, up_heads, up_weights, down_offsets, down_tails,
             down_weights, sources, targets, shared_dist, shared_dist + n, out, steps);
}

// One level below the block's (new ids lo..hi) over the whole GPU, every instance (blockIdx.y) at once.
extern "C" __global__ void pull_level(int n, int lo, int hi, const int *RESTRICT down_offsets,
                                      const int *RESTRICT down_tails, const int *RESTRICT down_weights, int *dist) {
  int *row = dist + (size_t)blockIdx.y * n;
  for (int v = lo + blockIdx.x * blockDim.x + threadIdx.x; v < hi; v += gridDim.x * blockDim.x)
    pull_down<false>(v, row, down_offsets, down_tails, down_weights);
}

// The distances by the graph's own ids, every instance (blockIdx.y).
extern "C" __global__ void scatter_out(int n, const int *RESTRICT old_of, const int *RESTRICT dist, int *out) {
  const size_t base = (size_t)blockIdx.y * n;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[base + old_of[i]] = __ldcg(&dist[base + i]);
}
