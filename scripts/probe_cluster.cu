// Probe (issue 29, docs/notes/kernels.md run R): one query's near-far Delta-stepping spread over a
// thread-block cluster of CLUSTER blocks (Hopper), the distances, near queues and bitmaps in the
// blocks' distributed shared memory, one hardware cluster barrier per iteration. Vertex v belongs to
// block v % CLUSTER, at local index v / CLUSTER; a block expands the vertices of its own near queue
// (a thread each) and relaxes their arcs with atomicMin on the owner's shared memory; an improved
// vertex is pushed into its owner's next near queue or far pile (bitmaps there drop duplicates).
// Not a shipped kernel: scripts/probe_cluster.py compiles and times it against the tuned one query.
#include <cooperative_groups.h>

#include "frontier.cuh"  // INF, next_threshold: the near-far kernels' own

namespace cg = cooperative_groups;

#ifndef CLUSTER
#define CLUSTER 8
#endif

// Where a phase pushes: the near queue of `parity` counted by near_count[next] below `threshold`,
// else the far buffer `buffer` whose least distance is far_min[min_slot].
struct Target {
  int threshold, parity, next, buffer, min_slot;
};

struct Solve {
  int *dist;        // this block's: chunk
  unsigned *bits;   // near bitmaps (parity 0, 1), then far bitmaps (buffer 0, 1): words each
  int *queue;       // near queues (parity 0, 1): qcap each, the rest in near_spill
  int *near_count;  // 3, by iteration % 3
  int *far_count;   // 2, by buffer
  int *far_min;     // 2, by splits % 2
  int chunk, words, qcap;
  int *far_piles;   // global: [CLUSTER][2][chunk]
  int *near_spill;  // global: [CLUSTER][2][chunk]
  int *error;

  template <typename T>
  __device__ __forceinline__ T *at(T *mine, int rank) const { return cg::this_cluster().map_shared_rank(mine, rank); }

  __device__ __forceinline__ void push(int r, int lv, int nd, const Target &t) const {
    const unsigned bit = 1u << (lv & 31);
    if (nd < t.threshold) {
      unsigned *b = at(bits + t.parity * words, r);
      if (!(atomicOr(&b[lv >> 5], bit) & bit)) {
        const int slot = atomicAdd(at(near_count + t.next, r), 1);
        if (slot < qcap) *at(queue + t.parity * qcap + slot, r) = lv;
        else if (slot < chunk + qcap) near_spill[((size_t)r * 2 + t.parity) * chunk + slot - qcap] = lv;
        else atomicExch(error, 3);
      }
    } else {
      atomicMin(at(far_min + t.min_slot, r), nd);
      unsigned *b = at(bits + (2 + t.buffer) * words, r);
      if (!(atomicOr(&b[lv >> 5], bit) & bit)) {
        const int slot = atomicAdd(at(far_count + t.buffer, r), 1);
        if (slot < chunk) far_piles[((size_t)r * 2 + t.buffer) * chunk + slot] = lv;
        else atomicExch(error, 3);
      }
    }
  }

  // The sum (or the least, with `least`) of a field over the cluster's blocks: lanes < CLUSTER read
  // one block each, the warp reduces; every warp computes it (no block barrier).
  __device__ __forceinline__ int over_cluster(int *mine, bool least) const {
    const int lane = threadIdx.x & 31;
    int value = least ? INF : 0;
    if (lane < CLUSTER) value = *(volatile int *)at(mine, lane);
    for (int offset = 16; offset > 0; offset >>= 1) {
      const int other = __shfl_xor_sync(0xffffffffu, value, offset);
      value = least ? min(value, other) : value + other;
    }
    return value;
  }
};

// One query from `source`, on a cluster of CLUSTER blocks (the grid is one cluster). Dynamic shared
// memory: (chunk + 4 * words + 2 * qcap) ints. stats: iterations, splits, relaxed arcs.
extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(1024, 1)
solve_cluster(int n, const int *__restrict__ offsets, const int *__restrict__ columns,
              const int *__restrict__ weights, int source, int delta, int qcap, int *far_piles,
              int *near_spill, int *out_dist, int *stats, int max_iterations) {
  extern __shared__ int smem[];
  __shared__ int near_count[3], far_count[2], far_min[2];
  Solve s;
  const int rank = (int)cg::this_cluster().block_rank();
  s.chunk = (n + CLUSTER - 1) / CLUSTER;
  s.words = (s.chunk + 31) / 32;
  s.qcap = qcap;
  s.dist = smem;
  s.bits = reinterpret_cast<unsigned *>(smem + s.chunk);
  s.queue = smem + s.chunk + 4 * s.words;
  s.near_count = near_count;
  s.far_count = far_count;
  s.far_min = far_min;
  s.far_piles = far_piles;
  s.near_spill = near_spill;
  s.error = stats + 3;

  for (int i = threadIdx.x; i < s.chunk; i += blockDim.x) s.dist[i] = INF;
  for (int i = threadIdx.x; i < 4 * s.words; i += blockDim.x) s.bits[i] = 0;
  if (threadIdx.x == 0) {
    near_count[0] = near_count[1] = near_count[2] = 0;
    far_count[0] = far_count[1] = 0;
    far_min[0] = far_min[1] = INF;
    if (source % CLUSTER == rank) {
      s.dist[source / CLUSTER] = 0;
      s.queue[0] = source / CLUSTER;
      near_count[0] = 1;
    }
  }
  cg::this_cluster().sync();

  int iteration = 0, splits = 0, sel = 0, threshold = delta, now = 0, next = 1, relaxed = 0;
  while (true) {
    const int later = 3 - now - next, parity = iteration & 1;
    const int count = near_count[now];
    if (threadIdx.x == 0) near_count[later] = 0;
    const Target out = {threshold, parity ^ 1, next, sel, splits & 1};
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
      const int lv = i < qcap ? s.queue[parity * qcap + i]
                              : __ldcg(&near_spill[((size_t)rank * 2 + parity) * s.chunk + i - qcap]);
      atomicAnd(&s.bits[parity * s.words + (lv >> 5)], ~(1u << (lv & 31)));
      const int d = *(volatile int *)&s.dist[lv];
      const int u = lv * CLUSTER + rank;
      const int begin = offsets[u], end = offsets[u + 1];
      relaxed += end - begin;
      for (int e = begin; e < end; e += 4) {
        int v[4], nd[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          v[k] = e + k < end ? columns[e + k] : -1;
          nd[k] = e + k < end ? d + weights[e + k] : INF;
        }
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          if (v[k] < 0) continue;
          int *target = s.at(s.dist, v[k] % CLUSTER) + v[k] / CLUSTER;
          if (nd[k] < *(volatile int *)target && nd[k] < atomicMin(target, nd[k]))
            s.push(v[k] % CLUSTER, v[k] / CLUSTER, nd[k], out);
        }
      }
    }
    cg::this_cluster().sync();
    int next_near = s.over_cluster(&near_count[next], false);
    int far_now = s.over_cluster(&far_count[sel], false);
    if (next_near == 0 && far_now > 0) cg::this_cluster().sync();  // every block has read the counts
    while (next_near == 0 && far_now > 0) {
      const int new_threshold = next_threshold(threshold, s.over_cluster(&far_min[splits & 1], true), delta);
      const Target split = {new_threshold, parity ^ 1, next, sel ^ 1, (splits + 1) & 1};
      const int piled = far_count[sel];
      for (int i = threadIdx.x; i < piled; i += blockDim.x) {
        const int lv = __ldcg(&far_piles[((size_t)rank * 2 + sel) * s.chunk + i]);
        atomicAnd(&s.bits[(2 + sel) * s.words + (lv >> 5)], ~(1u << (lv & 31)));
        const int d = *(volatile int *)&s.dist[lv];
        if (d >= threshold) s.push(rank, lv, d, split);  // below the old threshold: a near queue took it
      }
      cg::this_cluster().sync();
      if (threadIdx.x == 0) {
        far_count[sel] = 0;
        far_min[splits & 1] = INF;
      }
      threshold = new_threshold;
      sel ^= 1;
      splits += 1;
      next_near = s.over_cluster(&near_count[next], false);
      far_now = s.over_cluster(&far_count[sel], false);
      cg::this_cluster().sync();  // the zeroing above before another split, and the reads before the next pushes
    }
    iteration += 1;
    now = next;
    next = later;
    if (next_near == 0 && far_now == 0) break;
    if (iteration >= max_iterations) {
      if (threadIdx.x == 0) atomicExch(s.error, 2);
      break;
    }
  }
  cg::this_cluster().sync();  // no block leaves while another may still read its shared memory
  for (int i = threadIdx.x; i < s.chunk; i += blockDim.x) {
    const int v = i * CLUSTER + rank;
    if (v < n) out_dist[v] = s.dist[i];
  }
  if (relaxed) atomicAdd(&stats[2], relaxed);
  if (threadIdx.x == 0 && rank == 0) {
    stats[0] = iteration;
    stats[1] = splits;
  }
}
