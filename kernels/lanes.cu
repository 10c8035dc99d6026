// Near-far Delta-stepping with the sources of a batch interleaved in warp lanes: a *group* of 32
// SSSP instances shares one traversal of the graph. The distance of vertex v for the group's
// instance k is dist[v * 32 + k], so the 32 distances of a vertex are one 128-byte line, and a
// warp relaxes one edge for all 32 instances at once: one coalesced read of the head's line, one
// of the tail's, and the atomicMin of the lanes that improve, where 32 separate instances would
// each read a 32-byte sector at a random place. blockIdx.y is the group.
//
// A group's queues hold vertices, each with a 32-bit mask of the instances (lanes) it carries: the
// near queue of an iteration holds the vertices some instance improved below the group's threshold
// T, the far pile those improved at or above it. A push ORs the lanes into the vertex's mask and
// enqueues the vertex when its mask was empty (duplicate suppression); reading an entry takes its
// mask and clears it. The threshold schedule is the near-far one of kernels/delta.cu, shared by the
// group's instances: when an iteration leaves no near work, T moves to the bucket above the
// smallest distance pushed to the pile, and the pile is split lane by lane (below the old T:
// dropped, a near queue took it; below the new T: near; otherwise kept). Label-correcting: exact
// distances for any schedule, Delta = INF included (every improvement goes to the near queue).
//
// Loop: the host launches `lanes_advance` (B blocks per group, tiles taken from an atomic counter)
// and `lanes_finish` (one block per group: the split and the bookkeeping) for every iteration, and
// reads the groups' done flags asynchronously, as for kernels/delta.cu's host loop.
//
// The L1 state "no_l1" is this source compiled with -DNO_L1=1 -Xptxas -dlcm=cg (see RESTRICT in
// frontier.cuh, which kernels/delta.cu shares). A build with -DWIDE_DISTANCES=1 holds distances in
// 64 bits (kernels/distance.cuh): dist, and the threshold and far minima, which then live in a
// 64-bit tail of the state allocation (`Group::distance_field`), so that the arguments stay the same.

#include "frontier.cuh"

#define LANES 32

// Per-group state, structure of arrays: field f of group g is state[f * groups + g].
enum {
  F_DONE = 0,       // first, so the host copies one contiguous row
  F_ERROR,          // 2: the iteration cap was reached; 3: a queue overflowed
  F_THRESHOLD,      // T
  F_FAR_SEL,        // which far buffer is the pile (0/1)
  F_FAR_COUNT0,     // far pile counts, by buffer
  F_FAR_COUNT1,
  F_FAR_MIN0,       // smallest distance pushed into the far pile, by splits % 2
  F_FAR_MIN1,
  F_ITERATIONS,     // advance steps
  F_SPLITS,         // far-pile splits
  F_RELAXED,        // edges scanned, each for the lanes of its head (statistics)
  F_NEAR_COUNT0,    // by iteration % 3: the queue iteration i reads is at i % 3, the one it
  F_TILE_NEXT0 = F_NEAR_COUNT0 + 3,  // writes at (i + 1) % 3; (i + 2) % 3 is zeroed
  N_FIELDS = F_TILE_NEXT0 + 3
};

#if WIDE_DISTANCES
// The 64-bit build's distance fields: after the N_FIELDS int rows (rounded up to 8 bytes), one
// row each of T, far minimum 0 and far minimum 1.
__device__ __forceinline__ int wide_slot(int f) { return f == F_THRESHOLD ? 0 : 1 + f - F_FAR_MIN0; }
#endif

// A group's arrays. dist: 32 distances per vertex; the masks and queues: n each, of the group.
struct Group {
  int *state;  // field f at state[f * groups]
  dist_t *distances;  // distance field f (T, the far minima) at distances[f * groups]; see distance_field
  int groups, n;
  dist_t *dist;
  unsigned *near_mask0, *near_mask1, *far_mask0, *far_mask1;
  int *near0, *near1, *far0, *far1;
  __device__ __forceinline__ int *field(int f) const { return &state[(size_t)f * groups]; }
  __device__ __forceinline__ int load(int f) const { return __ldcg(field(f)); }
  __device__ __forceinline__ dist_t *distance_field(int f) const {
#if WIDE_DISTANCES
    return &distances[(size_t)wide_slot(f) * groups];
#else
    return &distances[(size_t)f * groups];
#endif
  }
  __device__ __forceinline__ dist_t load_distance(int f) const { return __ldcg(distance_field(f)); }
  __device__ __forceinline__ unsigned *near_mask(int parity) const { return parity ? near_mask1 : near_mask0; }
  __device__ __forceinline__ unsigned *far_mask(int parity) const { return parity ? far_mask1 : far_mask0; }
  __device__ __forceinline__ int *near(int parity) const { return parity ? near1 : near0; }
  __device__ __forceinline__ int *far(int parity) const { return parity ? far1 : far0; }
};

// dist: groups x n x 32 distances; masks: 4 arrays (near by parity, far by buffer) of groups x n;
// queues: 4 arrays (near by parity, far by buffer) of groups x n.
__device__ __forceinline__ Group group_of(int n, int groups, int *state, dist_t *dist, unsigned *masks,
                                          int *queues) {
  const int g = blockIdx.y;
  Group in;
  in.state = state + g;
#if WIDE_DISTANCES
  in.distances = wide_rows(state, N_FIELDS, groups) + g;
#else
  in.distances = state + g;
#endif
  in.groups = groups;
  in.n = n;
  in.dist = dist + (size_t)g * n * LANES;
  const size_t stride = (size_t)groups * n, at = (size_t)g * n;
  in.near_mask0 = masks + at;
  in.near_mask1 = masks + stride + at;
  in.far_mask0 = masks + 2 * stride + at;
  in.far_mask1 = masks + 3 * stride + at;
  in.near0 = queues + at;
  in.near1 = queues + stride + at;
  in.far0 = queues + 2 * stride + at;
  in.far1 = queues + 3 * stride + at;
  return in;
}

// Where a warp's pushes go.
struct Push {
  unsigned *near_mask;
  int *near_queue;
  int *near_count;
  unsigned *far_mask;
  int *far_queue;
  int *far_count;
  dist_t *far_min;
  int *error;
  int capacity;
};

// Called by the whole warp with the same u: OR the lanes into u's masks, enqueue u where its mask
// was empty, and lower far_min to the least distance the far lanes carry.
__device__ __forceinline__ void push_lanes(const Push &p, int u, unsigned near_lanes, unsigned far_lanes,
                                           dist_t far_distance) {
  const int lane = threadIdx.x & 31;
  if (far_lanes) {
    const dist_t least = warp_min((far_lanes >> lane) & 1 ? far_distance : INF);
    if (lane == 0) {
      atomicMin(p.far_min, least);
      if (atomicOr(&p.far_mask[u], far_lanes) == 0) {
        const int at = atomicAdd(p.far_count, 1);
        if (at < p.capacity) p.far_queue[at] = u; else atomicExch(p.error, 3);
      }
    }
  }
  if (near_lanes && lane == 0 && atomicOr(&p.near_mask[u], near_lanes) == 0) {
    const int at = atomicAdd(p.near_count, 1);
    if (at < p.capacity) p.near_queue[at] = u; else atomicExch(p.error, 3);
  }
}

// Edges a warp relaxes at once: their loads are all issued before the first atomic. On the H100,
// 8 against 4 (64 registers against 45): rmat20 batched 0.614 against 0.702 ms per SSSP, rmat17
// 0.0862 against 0.0928 (CK 1024, 512 threads, Delta INF; docs/notes/delta-kernels.md, run M).
#ifndef LANES_UNROLL
#define LANES_UNROLL 8
#endif

// dist = INF, masks 0, counters; then `lanes_seed` puts the sources in the first near queue.
extern "C" __global__ void lanes_init(int n, int groups, int *state, dist_t *dist, unsigned *masks,
                                      int *queues, int delta) {
  Group in = group_of(n, groups, state, dist, masks, queues);
  const size_t cells = (size_t)n * LANES;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < cells; i += (size_t)gridDim.x * blockDim.x)
    in.dist[i] = INF;
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
    in.near_mask0[v] = 0;
    in.near_mask1[v] = 0;
    in.far_mask0[v] = 0;
    in.far_mask1[v] = 0;
  }
  if (blockIdx.x == 0) {
    for (int f = threadIdx.x; f < N_FIELDS; f += blockDim.x) {
      int value = 0;
#if !WIDE_DISTANCES  // the 64-bit build's distance fields: below
      if (f == F_THRESHOLD) value = delta;
      if (f == F_FAR_MIN0 || f == F_FAR_MIN1) value = INF;
#endif
      *in.field(f) = value;
    }
#if WIDE_DISTANCES
    if (threadIdx.x == 0) {
      *in.distance_field(F_THRESHOLD) = first_threshold(delta);
      *in.distance_field(F_FAR_MIN0) = INF;
      *in.distance_field(F_FAR_MIN1) = INF;
    }
#endif
  }
}

// One warp per group: lane k's source (negative: the lane is unused) at distance 0.
extern "C" __global__ void lanes_seed(int n, int groups, const int *RESTRICT sources, int *state,
                                      dist_t *dist, unsigned *masks, int *queues) {
  Group in = group_of(n, groups, state, dist, masks, queues);
  const int lane = threadIdx.x;
  const int source = sources[blockIdx.y * LANES + lane];
  if (source >= 0) {
    in.dist[(size_t)source * LANES + lane] = 0;
    if (atomicOr(&in.near_mask0[source], 1u << lane) == 0) in.near0[atomicAdd(in.field(F_NEAR_COUNT0), 1)] = source;
  }
}

// Group `group`'s distances, one row of n per lane: out[k * n + v] = dist[v * 32 + k] (after a
// solve: the host copies them out group by group).
extern "C" __global__ void lanes_unpack(int n, int group, const dist_t *RESTRICT dist, dist_t *out) {
  const dist_t *in = dist + (size_t)group * n * LANES;
  const size_t cells = (size_t)n * LANES;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < cells; i += (size_t)gridDim.x * blockDim.x)
    out[(i % LANES) * n + i / LANES] = in[i];
}

// One iteration: the group's blocks take tiles of blockDim.x near-queue entries; a tile's edges
// are laid end to end (a block-wide prefix sum of its degrees) and its warps take them 32 at a
// time, each edge relaxed for the lanes its head carries. Dynamic shared memory:
// 4 ints per thread. The 64-bit build is held to 64 registers (it took 72: blocks of at most 896
// threads, where the tables' configurations, tuned on 32-bit builds, launch 1,024).
#if WIDE_DISTANCES
#define LANES_ADVANCE_BOUNDS __launch_bounds__(1024)
#else
#define LANES_ADVANCE_BOUNDS
#endif
extern "C" __global__ void LANES_ADVANCE_BOUNDS lanes_advance(int n, int groups, const int *RESTRICT row_offsets,
                                         const int *RESTRICT columns, const int *RESTRICT weights, int *state,
                                         dist_t *dist, unsigned *masks, int *queues) {
  extern __shared__ int scratch[];
  __shared__ int warp_sums[32];
  __shared__ int total;
  Group in = group_of(n, groups, state, dist, masks, queues);
  if (in.load(F_DONE)) return;
  const int iteration = in.load(F_ITERATIONS), sel = in.load(F_FAR_SEL), splits = in.load(F_SPLITS);
  const dist_t threshold = in.load_distance(F_THRESHOLD);
  const int now = iteration % 3, next = (iteration + 1) % 3;
  const int count = in.load(F_NEAR_COUNT0 + now);
  const int *queue = in.near(iteration & 1);
  unsigned *queue_mask = in.near_mask(iteration & 1);
  Push p;
  p.near_mask = in.near_mask((iteration + 1) & 1);
  p.near_queue = in.near((iteration + 1) & 1);
  p.near_count = in.field(F_NEAR_COUNT0 + next);
  p.far_mask = in.far_mask(sel);
  p.far_queue = in.far(sel);
  p.far_count = in.field(F_FAR_COUNT0 + sel);
  p.far_min = in.distance_field(F_FAR_MIN0 + (splits & 1));
  p.error = in.field(F_ERROR);
  p.capacity = n;

  int *tile_begin = scratch, *tile_offset = scratch + blockDim.x, *tile_vertex = scratch + 2 * blockDim.x;
  unsigned *tile_mask = reinterpret_cast<unsigned *>(scratch + 3 * blockDim.x);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, n_warps = blockDim.x >> 5;
  long long scanned = 0;
  dist_t *dist_g = in.dist;
  for (int tile = take(in.field(F_TILE_NEXT0 + now), blockDim.x); tile < count;
       tile = take(in.field(F_TILE_NEXT0 + now), blockDim.x)) {
    const int item = tile + threadIdx.x;
    int vertex = 0, begin = 0, degree = 0;
    unsigned mask = 0;
    if (item < count) {
      vertex = __ldcg(&queue[item]);
      mask = __ldcg(&queue_mask[vertex]);
      queue_mask[vertex] = 0;  // read once: iteration + 2 pushes into this mask again
      begin = row_offsets[vertex];
      degree = mask ? row_offsets[vertex + 1] - begin : 0;
    }
    const int inclusive = block_inclusive_sum(degree, warp_sums);
    tile_begin[threadIdx.x] = begin;
    tile_offset[threadIdx.x] = inclusive - degree;
    tile_vertex[threadIdx.x] = vertex;
    tile_mask[threadIdx.x] = mask;
    if (threadIdx.x == blockDim.x - 1) total = inclusive;
    __syncthreads();
    const int edges = total;
    const int last = min((int)blockDim.x, count - tile) - 1;
    // A warp takes 32 consecutive edges of the tile at a time: each lane finds the owner of one
    // (a binary search over the tile's offsets) and loads its edge, coalesced; then the warp
    // relaxes them one after the other for its lanes, LANES_UNROLL at once, the edge's head,
    // tail, weight and lanes broadcast from the lane that loaded it.
    for (int base = warp * 32; base < edges; base += n_warps * 32) {
      const int i = base + lane;
      int head = 0, tail = 0, weight = 0;
      unsigned lanes = 0;
      if (i < edges) {
        int low = 0, high = last;  // the last entry whose offset is <= i owns edge i
        while (low < high) {
          const int mid = (low + high + 1) >> 1;
          if (tile_offset[mid] <= i) low = mid; else high = mid - 1;
        }
        const int e = tile_begin[low] + (i - tile_offset[low]);
        head = tile_vertex[low];
        lanes = tile_mask[low];
        tail = columns[e];
        weight = weights[e];
      }
      const int here = min(32, edges - base);
      for (int j = 0; j < here; j += LANES_UNROLL) {
        int u[LANES_UNROLL];
        dist_t nd[LANES_UNROLL], current[LANES_UNROLL];
        bool active[LANES_UNROLL];
#pragma unroll
        for (int k = 0; k < LANES_UNROLL; ++k) {
          const int from = (j + k) & 31;
          u[k] = __shfl_sync(0xffffffffu, tail, from);
          const int v = __shfl_sync(0xffffffffu, head, from);
          const int w = __shfl_sync(0xffffffffu, weight, from);
          const unsigned carried = __shfl_sync(0xffffffffu, lanes, from);
          active[k] = j + k < here && ((carried >> lane) & 1);
          nd[k] = active[k] ? dist_g[(size_t)v * LANES + lane] + w : INF;
        }
#pragma unroll
        for (int k = 0; k < LANES_UNROLL; ++k)
          current[k] = active[k] ? dist_g[(size_t)u[k] * LANES + lane] : INF;
#pragma unroll
        for (int k = 0; k < LANES_UNROLL; ++k) {
          const bool improved = active[k] && nd[k] < current[k] &&
                                nd[k] < atomicMin(&dist_g[(size_t)u[k] * LANES + lane], nd[k]);
          const unsigned near_lanes = __ballot_sync(0xffffffffu, improved && nd[k] < threshold);
          const unsigned far_lanes = __ballot_sync(0xffffffffu, improved && nd[k] >= threshold);
          if (near_lanes | far_lanes) push_lanes(p, u[k], near_lanes, far_lanes, nd[k]);
        }
      }
    }
    if (threadIdx.x == 0) scanned += edges;
  }
  if (scanned) atomicAdd(in.field(F_RELAXED), (int)scanned);
}

// The end of an iteration, one block per group: split the far pile lane by lane when the advance
// left no near work (a warp per pile entry), then the bookkeeping: counters, next iteration, new
// threshold, done.
extern "C" __global__ void lanes_finish(int n, int groups, int *state, dist_t *dist, unsigned *masks,
                                        int *queues, int delta, int max_iterations) {
  Group in = group_of(n, groups, state, dist, masks, queues);
  if (in.load(F_DONE)) return;
  const int iteration = in.load(F_ITERATIONS), splits = in.load(F_SPLITS), sel = in.load(F_FAR_SEL);
  const dist_t threshold = in.load_distance(F_THRESHOLD);
  const int next = (iteration + 1) % 3;
  __shared__ int counts[2];
  if (threadIdx.x == 0) {
    counts[0] = in.load(F_NEAR_COUNT0 + next);
    counts[1] = in.load(F_FAR_COUNT0 + sel);
  }
  __syncthreads();
  const int next_work = counts[0], far_count = counts[1];
  const bool split = next_work == 0 && far_count > 0;
  const dist_t new_threshold =
      split ? next_threshold(threshold, in.load_distance(F_FAR_MIN0 + (splits & 1)), delta) : threshold;
  if (split) {
    Push p;
    p.near_mask = in.near_mask((iteration + 1) & 1);
    p.near_queue = in.near((iteration + 1) & 1);
    p.near_count = in.field(F_NEAR_COUNT0 + next);
    p.far_mask = in.far_mask(sel ^ 1);
    p.far_queue = in.far(sel ^ 1);
    p.far_count = in.field(F_FAR_COUNT0 + (sel ^ 1));
    p.far_min = in.distance_field(F_FAR_MIN0 + ((splits + 1) & 1));
    p.error = in.field(F_ERROR);
    p.capacity = n;
    const int *pile = in.far(sel);
    unsigned *pile_mask = in.far_mask(sel);
    const int lane = threadIdx.x & 31;
    for (int i = threadIdx.x >> 5; i < far_count; i += blockDim.x >> 5) {
      const int u = __ldcg(&pile[i]);
      unsigned lanes = 0;
      if (lane == 0) {
        lanes = __ldcg(&pile_mask[u]);
        pile_mask[u] = 0;
      }
      lanes = __shfl_sync(0xffffffffu, lanes, 0);
      const bool mine = (lanes >> lane) & 1;
      const dist_t d = mine ? __ldcg(&in.dist[(size_t)u * LANES + lane]) : INF;
      const unsigned near_lanes = __ballot_sync(0xffffffffu, mine && d >= threshold && d < new_threshold);
      const unsigned kept = __ballot_sync(0xffffffffu, mine && d >= new_threshold);
      if (near_lanes | kept) push_lanes(p, u, near_lanes, kept, d);
    }
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x != 0) return;
  const int later = (iteration + 2) % 3;  // iteration + 1 writes these; iteration - 1 used them
  *in.field(F_NEAR_COUNT0 + later) = 0;
  *in.field(F_TILE_NEXT0 + later) = 0;
  *in.field(F_ITERATIONS) = iteration + 1;
  if (split) {
    *in.field(F_SPLITS) = splits + 1;
    *in.field(F_FAR_SEL) = sel ^ 1;
    *in.field(F_FAR_COUNT0 + sel) = 0;
    *in.distance_field(F_FAR_MIN0 + (splits & 1)) = INF;
    *in.distance_field(F_THRESHOLD) = new_threshold;
  }
  const int near_now = in.load(F_NEAR_COUNT0 + next);
  const int far_now = in.load(F_FAR_COUNT0 + (split ? sel ^ 1 : sel));
  const bool done = near_now == 0 && far_now == 0;
  if (done) *in.field(F_DONE) = 1;
  if (!done && iteration + 1 >= max_iterations) {
    *in.field(F_ERROR) = 2;
    *in.field(F_DONE) = 1;
  }
}
