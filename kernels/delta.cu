// Near-far Delta-stepping SSSP (Davidson, Baxter, Garland, Owens, IPDPS 2014), batched over CK
// instances: blockIdx.y is the instance, and each instance has its own workspace.
//
// An iteration relaxes the out-edges of the *near* queue (vertices whose distance fell below the
// threshold T). A relaxation that lowers dist[u] to nd pushes u into the next near queue when
// nd < T, into the *far* pile otherwise. When an iteration leaves no work for the next one, the far
// pile is *split*: T moves up to the bucket above the smallest distance pushed to the pile
// ((far_min / Delta + 1) * Delta), the pile's vertices below the new T become the near queue, those
// at or above it stay, and those below the old T are dropped (their last improvement took them
// below T and so into a near queue). Delta = INF never splits: every improved vertex goes into the
// next near queue (the poster's relaxed settlement, a frontier Bellman-Ford). The algorithm is
// label-correcting: any threshold schedule gives exact distances.
//
// Source-target queries: this source compiled with -DTARGETED=1 (a build of its own, so that
// plain solves carry none of it) stops an instance once its target's distance is final:
//   * at a split: when an iteration leaves the near queue empty, every vertex below T has its
//     final distance (its shortest paths run through vertices below T, all relaxed by then);
//   * solve_block and the host loop, at the end of an iteration without a split or hub chunks:
//     every vertex it pushed got at least the smallest distance among those it expanded (weights
//     are non-negative), and the far pile's at least far_min; when the target's distance is at
//     most both, nothing waiting can lower it. The tiles record the smallest distance they expand,
//     one atomic per warp (F_QUEUE_MIN, by iteration % 3). solve_block keeps the target's
//     distance in shared memory (every push to the target lowers it) and asks every
//     TARGET_CHECK_EVERY iterations, a barrier each time. solve_grid's blocks could not agree on
//     the answer without one more barrier per iteration, so it stops at splits only.
//
// Duplicates are suppressed with stamps: a vertex enters a near queue at most once per phase
// (near_stamp holds the phase's tag) and the far pile at most once per split generation
// (far_stamp), so every queue holds at most n vertices. `solve_block` can keep them in shared
// memory instead, as bitmaps of n bits: one per near queue and one per far pile, each cleared bit
// by bit as its queue or pile is read (a global atomic less on the path of every push).
//
// Load balance (Merrill, Garland, Grimshaw's thread/warp/CTA expansion): within a tile of
// blockDim.x queue entries, a vertex with at least `warp_threshold` edges is expanded by a warp,
// and the others together: their edge lists are concatenated by a block-wide prefix sum and the
// block's threads take consecutive edges (an edge-balanced partition of the tile). A vertex with
// at least `block_threshold` edges is expanded by whole blocks: by its own block when an instance
// has one block, otherwise cut into chunks of `block_threshold` edges that every block of the
// instance takes from a queue in the next iteration (so a hub no longer waits on one block). A
// threshold of 0 turns its bin off (the host passes 0 too where no vertex reaches the threshold:
// the block bin would cost a barrier per tile to find none). Tiles and chunks are handed out by
// atomic counters.
//
// Loop modes:
//   host:       the host launches `advance` and `finish` for every iteration and reads the
//               instances' `done` flags asynchronously, a few iterations behind;
//   persistent: one launch runs the whole loop. `solve_block` gives each instance one block and
//               keeps its counters and the head of its near queue in shared memory; `solve_grid`
//               gives each instance gridDim.x blocks that meet at a barrier. The host refuses a
//               grid whose blocks could not all be resident at once, and the barrier gives up after
//               BARRIER_TIMEOUT_CYCLES (setting the instance's error flag), so no grid can hang;
//   shared:     `solve_shared` is solve_block with the graph and the instance's distances copied
//               into shared memory first (small graphs: the host refuses one that does not fit).
//
// The L1 state "no_l1" is this source compiled with -DNO_L1=1 -Xptxas -dlcm=cg (see RESTRICT in
// frontier.cuh, which kernels/lanes.cu shares).
//
// The 64-bit builds (-DWIDE_DISTANCES=1) hold dist in dist_t, and the fields that hold distances (T,
// the far piles', queues' and pushes' minima) in a 64-bit row each after the int fields
// (`Instance::dfield`); a tile's distances in shared memory take two ints a thread (SCRATCH_INTS),
// solve_shared's distances two ints a vertex.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

#include "frontier.cuh"

// The source builds in parts that nvcc compiles side by side (-DSOURCE_PART=k, `Algorithm.source_parts`):
// 1 the host loop's kernels (init, advance, finish), 2 solve_grid, 3 solve_block, 4 solve_shared.
// Whole (4.7 s of nvcc on one core of a 2-core VM; 8-10.3 s on the H200 host, the longest step of a cold
// sweep's start) the build took as long as its parts one after the other (1.9, 2.2, 2.2, 2.1 s).
// SOURCE_PART 0 (or none) builds them all.
#ifndef SOURCE_PART
#define SOURCE_PART 0
#endif
#define IN_PART(k) (SOURCE_PART == 0 || SOURCE_PART == (k))

// Per-instance state, structure of arrays: field f of instance k is state[f * ck + k].
enum {
  F_DONE = 0,       // first, so the host copies one contiguous row
  F_ERROR,          // 1: a barrier timed out; 2: the iteration cap was reached; 3: a queue overflowed;
                    // 4: stopped by the host at its deadline (written there while the solve runs); the first stays
  F_THRESHOLD,      // T
  F_FAR_SEL,        // which far buffer is the pile (0/1)
  F_FAR_COUNT0,     // far pile counts, by buffer
  F_FAR_COUNT1,
  F_FAR_MIN0,       // smallest distance pushed into the far pile, by splits % 2
  F_FAR_MIN1,
  F_ITERATIONS,     // advance steps
  F_SPLITS,         // far-pile splits
  F_RELAXED,        // edges scanned (statistics)
  F_BARRIER_COUNT,  // solve_grid's barrier (instance_barrier)
  F_BLOCKS_DONE,    // host mode: blocks of `finish` done (the last one does the bookkeeping)
  F_TARGET,         // the vertex whose distance ends the solve once final, or -1 (a full solve)
  F_QUEUE_MIN0,     // TARGETED: smallest distance the iteration's tiles expanded, by iteration % 3
  F_QUEUE_MIN1,
  F_QUEUE_MIN2,
  F_NEAR_COUNT0,    // the next four by iteration % 3: the queue iteration i reads is at i % 3,
  F_HUB_COUNT0 = F_NEAR_COUNT0 + 3,  // the one it writes at (i + 1) % 3; (i + 2) % 3 is zeroed
  F_TILE_NEXT0 = F_HUB_COUNT0 + 3,   // tiles handed out in iteration i
  F_CHUNK_NEXT0 = F_TILE_NEXT0 + 3,  // hub chunks handed out in iteration i
  F_PUSH_MIN0 = F_CHUNK_NEXT0 + 3,   // solve_grid with defer_work: the smallest distance pushed into
                                     // the near queue that iteration i reads, by i % 3
  N_FIELDS = F_PUSH_MIN0 + 3
};

#define BARRIER_TIMEOUT_CYCLES (4LL * 1000 * 1000 * 1000)
#define INF_32 0x7fffffff  // an int field's infinity (INF of the 32-bit builds)

// A probe's build (-DTRACE_ITERATIONS=1, the probe of run AA, `git show 68a5795:scripts/probe_iteration_trace.py`; never shipped): per
// iteration of solve_grid's first instance, when its leader started it (ns), when the first and the
// last block ended their advance, and the advance's work: its queue, hub chunks, edges scanned and
// vertices deferred, and the splits before it. The probe zeroes these before a solve (trace_first:
// all ones).
#if TRACE_ITERATIONS
#define TRACE_MAX 2048
__device__ unsigned long long trace_start[TRACE_MAX], trace_first[TRACE_MAX], trace_last[TRACE_MAX];
__device__ int trace_queue[TRACE_MAX], trace_chunks[TRACE_MAX], trace_splits[TRACE_MAX], trace_scanned[TRACE_MAX], trace_deferred[TRACE_MAX];
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#endif
// The work arrays: dist (n dist_t), near0, near1, far0, far1, near_stamp, far_stamp (n ints each) per
// instance.
#define SCRATCH_INTS (2 + (int)DIST_INTS)                    // advance_tile's ints a thread: begin, offset, distance

struct Instance {
  int *state;  // field f at state[f * ck]
  int ck, n;
  dist_t *dist;
  int *near0, *near1, *far0, *far1, *near_stamp, *far_stamp;
  int2 *hubs0, *hubs1;  // hub chunks (vertex, chunk index); null in solve_block
  // Selected with ?: rather than by an array index, which would put the struct on the stack.
  __device__ __forceinline__ int *near(int parity) const { return parity ? near1 : near0; }
  __device__ __forceinline__ int *far(int parity) const { return parity ? far1 : far0; }
  __device__ __forceinline__ int2 *hubs(int parity) const { return parity ? hubs1 : hubs0; }
  __device__ __forceinline__ int *field(int f) const { return &state[(size_t)f * ck]; }
  __device__ __forceinline__ int load(int f) const { return __ldcg(field(f)); }
  // A field that holds a distance: the int field itself, or in the 64-bit builds its row of `wide`.
#if WIDE_DISTANCES
  dist_t *wide;  // field f at wide[f * ck]: after the N_FIELDS int rows, from 8 bytes
  __device__ __forceinline__ dist_t *dfield(int f) const { return &wide[(size_t)f * ck]; }
#else
  __device__ __forceinline__ dist_t *dfield(int f) const { return field(f); }
#endif
  __device__ __forceinline__ dist_t dload(int f) const { return __ldcg(dfield(f)); }
};

__device__ __forceinline__ Instance instance_of(int n, int ck, int *state, int *work, int2 *hubs,
                                                int hub_capacity) {
  const int inst = blockIdx.y;
  Instance in;
  in.state = state + inst;
  in.ck = ck;
  in.n = n;
  // Array a of instance k at work + (a * ck + k) * n: every instance's dist comes first, together
  // (in the 64-bit builds, two ints a distance: `base` counts them as one array more).
#if WIDE_DISTANCES
  int *base = work + (size_t)ck * n + (size_t)inst * n;
  const size_t stride = (size_t)ck * n;
  in.dist = (dist_t *)work + (size_t)inst * n;
  in.wide = wide_rows(state, N_FIELDS, ck) + inst;
#else
  int *base = work + (size_t)inst * n;
  const size_t stride = (size_t)ck * n;
  in.dist = base;
#endif
  in.near0 = base + stride;
  in.near1 = base + 2 * stride;
  in.far0 = base + 3 * stride;
  in.far1 = base + 4 * stride;
  in.near_stamp = base + 5 * stride;
  in.far_stamp = base + 6 * stride;
  in.hubs0 = hubs ? hubs + (size_t)inst * 2 * hub_capacity : nullptr;
  in.hubs1 = hubs ? in.hubs0 + hub_capacity : nullptr;
  return in;
}

// An atomic add by every thread of the calling (coalesced) group, one atomic per warp.
__device__ __forceinline__ int aggregated_add(int *counter, int each = 1) {
  cg::coalesced_group group = cg::coalesced_threads();
  int base = 0;
  if (group.thread_rank() == 0) base = atomicAdd(counter, (int)group.size() * each);
  return group.shfl(base, 0) + (int)group.thread_rank() * each;
}

__device__ __forceinline__ void aggregated_min(dist_t *target, dist_t value) {
  cg::coalesced_group group = cg::coalesced_threads();
  const dist_t least = cg::reduce(group, value, cg::less<dist_t>());
  if (group.thread_rank() == 0) atomicMin(target, least);
}

// The near queue a phase writes: its first `shared_capacity` entries in shared memory (solve_block),
// the rest in global memory.
struct Queue {
  int *shared;
  int shared_capacity;
  int *global;
  unsigned *bits;  // solve_block's bitmap of the entries (or null), cleared as they are read
  __device__ __forceinline__ void put(int index, int value) const {
    if (index < shared_capacity) shared[index] = value; else global[index - shared_capacity] = value;
  }
  __device__ __forceinline__ int get(int index) const {
    return index < shared_capacity ? shared[index] : __ldcg(&global[index - shared_capacity]);
  }
};

// BUFFERED_PUSH (the buffer's entries; 0: none): solve_grid's advance and hub chunks gather the
// block's near-queue pushes in shared memory and take their slots of the next queue with one
// atomic a tile (flush_pushes), rather than a warp's aggregated atomic on the one counter every
// block pushes to; a push past the buffer's end takes its slot as before. Only work of at least
// BUFFER_FROM pushes is buffered: an advance of that many queue entries, hub chunks of that many
// edges. rmat20's one query 1.40 -> 1.22 ms, rmat18 0.516 -> 0.478; buffering every advance cost
// the small graphs up to 12% (ca-HepPh); from 65,536 on Email-Enron, ca-HepPh and sx-askubuntu are
// within 2%, anybeat 6% slower though no queue of it is that long (docs/notes/delta-kernels.md, run AD).
// solve_grid alone gets the buffer in its static shared memory (8 KB); the TARGETED build has none
// (with it, it spilled 12 bytes).
#ifndef BUFFERED_PUSH
#if TARGETED
#define BUFFERED_PUSH 0
#else
#define BUFFERED_PUSH 2048
#endif
#endif
#ifndef BUFFER_FROM
#define BUFFER_FROM 65536
#endif

// What a phase pushes into, and with which tags.
struct Push {
  Queue near_out;
  int *near_count;
  int capacity;  // of the near queue and the far pile: n (a phase pushes a vertex at most once)
  int *error;
  int *far_out;
  int *far_count;
  dist_t *far_min;
  int *near_stamp;
  int *far_stamp;
  dist_t threshold;
  int near_tag;
  int far_tag;
  unsigned *near_bits;  // solve_block's shared bitmaps of the queue and pile pushed into (or null:
  unsigned *far_bits;   // the stamps above)
  bool direct;  // relax with the atomic alone, without reading dist first (small frontiers: latency)
#if BUFFERED_PUSH
  bool buffered;  // near-queue pushes gathered in the block's push_buffer (solve_grid's advance, chunks)
#endif
  // solve_grid with `defer_work` W: a queued vertex of e edges and distance d is not expanded but
  // pushed into the next queue as it is while (d - least) x e > W, `least` being the smallest
  // distance of its queue (those e edges would likely be scanned again, the more so the farther d
  // is from the front); every push into the next near queue lowers *push_min (null: none defer).
  dist_t *push_min;
  dist_t least;
  int defer_work;
#if TRACE_ITERATIONS
  int *deferred;  // the iteration's trace_deferred (null: not traced)
#endif
#if TARGETED
  dist_t *queue_min;    // where the tiles put the smallest distance they expand
  int target;           // solve_block: the target, whose distance every push to it lowers in
  dist_t *target_dist;  // shared memory too (-1: not tracked)
#endif
};

// Whether u is new to the queue or pile: its bit set now, or its stamp changed to the tag.
__device__ __forceinline__ bool first_push(unsigned *bits, int *stamp, int tag, int u) {
  if (bits != nullptr) {
    const unsigned bit = 1u << (u & 31);
    return !(atomicOr(&bits[u >> 5], bit) & bit);
  }
  return atomicExch(&stamp[u], tag) != tag;
}

__device__ __forceinline__ void unmark(unsigned *bits, int u) {
  atomicAnd(&bits[u >> 5], ~(1u << (u & 31)));
}

#if BUFFERED_PUSH
__shared__ int push_buffer[BUFFERED_PUSH];
__shared__ int push_buffered;  // pushes since the last flush (past BUFFERED_PUSH: those taken directly)
#endif

__device__ __forceinline__ void push(const Push &p, int u, dist_t nd) {
#if TARGETED
  if (u == p.target) atomicMin(p.target_dist, nd);
#endif
  if (nd < p.threshold) {
    if (p.push_min != nullptr) aggregated_min(p.push_min, nd);
    if (first_push(p.near_bits, p.near_stamp, p.near_tag, u)) {
#if BUFFERED_PUSH
      if (p.buffered) {
        const int slot = aggregated_add(&push_buffered);
        if (slot < BUFFERED_PUSH) {
          push_buffer[slot] = u;
          return;
        }
      }
#endif
      const int at = aggregated_add(p.near_count);
      if (at < p.capacity) p.near_out.put(at, u); else atomicExch(p.error, 3);
    }
  } else {
    aggregated_min(p.far_min, nd);
    if (first_push(p.far_bits, p.far_stamp, p.far_tag, u)) {
      const int at = aggregated_add(p.far_count);
      if (at < p.capacity) p.far_out[at] = u; else atomicExch(p.error, 3);
    }
  }
}

// Edges a thread relaxes at once (U below): their loads are all issued before the first atomic,
// so that a thread has U gathers in flight instead of one (a relaxation is three dependent round
// trips: the edge, the distance that filters it, the atomicMin). Per kernel: solve_grid and the
// host loop's advance (large frontiers, one block per SM) and solve_block (many instances). On the
// H100 (docs/notes/delta-kernels.md, run K), 4 took rmat20's one query from 3.48 to 3.07 ms and its batch
// from 1.97 to 1.84 ms per SSSP; 8 was no faster, and 2 in solve_block left rmat17's batch 7%
// slower than 4. solve_block is capped at 56 registers (4 blocks of 256 threads per SM).
#ifndef GRID_UNROLL
#define GRID_UNROLL 4
#endif
#ifndef BLOCK_UNROLL
#define BLOCK_UNROLL 4
#endif

__device__ __forceinline__ void relax(const Push &p, dist_t *dist, const int *RESTRICT columns,
                                      const int *RESTRICT weights, int e, dist_t d) {
  const int u = columns[e];
  const dist_t nd = d + weights[e];
  if (p.direct || nd < dist[u]) {
    const dist_t old = atomicMin(&dist[u], nd);
    if (nd < old) push(p, u, nd);
  }
}

// An edge and the distance of its tail (`relax_unrolled`).
#if WIDE_DISTANCES
struct EdgeFrom {
  int x;     // the edge, -1 for none
  dist_t y;  // its tail's distance
};
__device__ __forceinline__ EdgeFrom edge_from(int e, dist_t d) { return {e, d}; }
#else
typedef int2 EdgeFrom;
__device__ __forceinline__ EdgeFrom edge_from(int e, dist_t d) { return make_int2(e, d); }
#endif

// Relax the edges of `edge(k)` for k < U where `edge(k)` yields (edge, distance of its tail) or an
// edge of -1 for none. With `p.direct`, no filtering read before the atomicMin.
template <int U, typename Edge>
__device__ __forceinline__ void relax_unrolled(const Push &p, dist_t *dist, const int *RESTRICT columns,
                                               const int *RESTRICT weights, Edge edge) {
  int u[U];
  dist_t nd[U];
#pragma unroll
  for (int k = 0; k < U; ++k) {
    const EdgeFrom ed = edge(k);
    u[k] = ed.x < 0 ? -1 : columns[ed.x];
    nd[k] = ed.x < 0 ? 0 : ed.y + weights[ed.x];
  }
  dist_t current[U];
#pragma unroll
  for (int k = 0; k < U; ++k) current[k] = u[k] < 0 || p.direct ? INF : dist[u[k]];
#pragma unroll
  for (int k = 0; k < U; ++k) {
    if (u[k] >= 0 && nd[k] < current[k]) {
      const dist_t old = atomicMin(&dist[u[k]], nd[k]);
      if (nd[k] < old) push(p, u[k], nd[k]);
    }
  }
}

// Relax edges begin, begin + stride, ... below end, all from a tail at distance d.
template <int U>
__device__ __forceinline__ void relax_strided(const Push &p, dist_t *dist, const int *RESTRICT columns,
                                              const int *RESTRICT weights, int begin, int end, int stride,
                                              dist_t d) {
  for (int e = begin; e < end; e += U * stride)
    relax_unrolled<U>(p, dist, columns, weights, [&](int k) {
      const int at = e + k * stride;
      return edge_from(at < end ? at : -1, d);
    });
}

// A distance read: past L1 from global memory (other blocks' atomics land in L2), plainly from
// shared memory (solve_shared keeps its instance's distances there).
template <bool SHARED>
__device__ __forceinline__ dist_t load_dist(const dist_t *p) {
  if constexpr (SHARED) return *p; else return __ldcg(p);
}

// Where a tile's large vertices go: expanded in place (hub_out null), or cut into chunks.
struct Hubs {
  int2 *out;
  int *count;
  int capacity;
  int *error;
};

// Inclusive prefix sum over the block, and in `total` the block's sum, with one barrier (the
// warps' sums are added up by every warp): the caller meets at another barrier before it calls
// it again, since a warp's sum is written before the barrier and read by the others after it.
__device__ __forceinline__ int inclusive_sum_one_barrier(int value, int *warp_sums, int &total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  value = warp_inclusive_sum(value);
  if (lane == 31) warp_sums[warp] = value;
  __syncthreads();
  const int sums = warp_inclusive_sum(lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0);
  total = __shfl_sync(0xffffffffu, sums, 31);
  const int before = __shfl_sync(0xffffffffu, sums, (warp + 31) & 31);
  return warp > 0 ? value + before : value;
}

// Expand one tile: entries [tile, min(count, tile + blockDim.x)) of `queue` (a caller whose tiles
// are smaller passes the tile's end as `count`). Dynamic shared memory: SCRATCH_INTS * blockDim.x
// ints from `scratch`. Every thread of the block calls it. Returns the edges this thread counted as scanned.
// U: edges relaxed at once by a thread.
template <int U, bool SHARED = false>
__device__ int advance_tile(const Push &p, const Queue &queue, int count, int tile,
                            const int *RESTRICT row_offsets, const int *RESTRICT columns,
                            const int *RESTRICT weights, dist_t *dist, int warp_threshold,
                            int block_threshold, const Hubs &hubs, int *scratch) {
  int *tile_begin = scratch;                                   // blockDim.x
  int *tile_offset = scratch + blockDim.x;                     // blockDim.x: exclusive prefix sums of the degrees
  dist_t *tile_dist = (dist_t *)(scratch + 2 * blockDim.x);    // blockDim.x
  __shared__ int warp_sums[32];
  __shared__ int owner, owner_begin, owner_end;
  __shared__ dist_t owner_dist;

  const int item = tile + threadIdx.x;
  int vertex = -1, begin = 0, end = 0;
  dist_t d = 0;
  if (item < count) {
    vertex = queue.get(item);
    if (queue.bits != nullptr) unmark(queue.bits, vertex);  // before iteration + 1 pushes with it
    d = load_dist<SHARED>(&dist[vertex]);
    begin = row_offsets[vertex];
    end = row_offsets[vertex + 1];
    if (p.defer_work > 0 && d > p.least && (long long)(d - p.least) * (end - begin) > p.defer_work) {
      push(p, vertex, d);  // waits in the next queue (d is below the threshold that queued it)
#if TRACE_ITERATIONS
      if (p.deferred != nullptr) atomicAdd(p.deferred, 1);
#endif
      begin = end;
    }
  }
  int scanned = 0;
#if TARGETED
  const dist_t least = warp_min(item < count ? d : INF);
  if ((threadIdx.x & 31) == 0 && least < INF) atomicMin(p.queue_min, least);
#endif

  if (block_threshold > 0 && hubs.out != nullptr) {
    // Hubs: chunks of block_threshold edges, for every block of the instance next iteration.
    if (end - begin >= block_threshold) {
      const int chunks = (end - begin + block_threshold - 1) / block_threshold;
      const int at = atomicAdd(hubs.count, chunks);
      if (at + chunks <= hubs.capacity) {
        for (int k = 0; k < chunks; ++k) hubs.out[at + k] = make_int2(vertex, k);
      } else {
        atomicExch(hubs.error, 3);
      }
      begin = end;
    }
  } else if (block_threshold > 0) {
    // Block bin: the whole block expands one vertex at a time (one barrier when none qualifies).
    while (__syncthreads_or(end - begin >= block_threshold)) {
      if (end - begin >= block_threshold) owner = threadIdx.x;  // any one of them wins
      __syncthreads();
      if (owner == threadIdx.x) {
        owner_begin = begin;
        owner_end = end;
        owner_dist = d;
        begin = end;  // claimed
      }
      __syncthreads();
      const int ob = owner_begin, oe = owner_end;
      const dist_t od = owner_dist;
      relax_strided<U>(p, dist, columns, weights, ob + threadIdx.x, oe, blockDim.x, od);
      if (threadIdx.x == 0) scanned += oe - ob;
      __syncthreads();
    }
  }

  // Warp bin: a warp expands one vertex at a time.
  if (warp_threshold > 0) {
    const int lane = threadIdx.x & 31;
    while (true) {
      const unsigned wants = __ballot_sync(0xffffffffu, end - begin >= warp_threshold);
      if (!wants) break;
      const int leader = __ffs(wants) - 1;
      const int wb = __shfl_sync(0xffffffffu, begin, leader);
      const int we = __shfl_sync(0xffffffffu, end, leader);
      const dist_t wd = __shfl_sync(0xffffffffu, d, leader);
      if (lane == leader) begin = end;
      relax_strided<U>(p, dist, columns, weights, wb + lane, we, 32, wd);
      if (lane == 0) scanned += we - wb;
    }
  }

  // The rest, edge-balanced across the block.
  const int degree = end - begin;
  int edges;
  const int inclusive = inclusive_sum_one_barrier(degree, warp_sums, edges);
  const int offset = inclusive - degree;
  if (edges <= (int)blockDim.x) {
    // One edge per thread at most (the small frontiers of road networks): each vertex writes its
    // edges into the slots of its offsets, and thread t relaxes the edge in slot t: no search, one
    // relaxation waiting on few instructions.
    int *slot_edge = scratch;
    dist_t *slot_dist = (dist_t *)(scratch + blockDim.x);
    for (int k = 0; k < degree; ++k) {
      slot_edge[offset + k] = begin + k;
      slot_dist[offset + k] = d;
    }
    __syncthreads();
    if ((int)threadIdx.x < edges)
      relax(p, dist, columns, weights, slot_edge[threadIdx.x], slot_dist[threadIdx.x]);
  } else {
    tile_begin[threadIdx.x] = begin;
    tile_offset[threadIdx.x] = offset;
    tile_dist[threadIdx.x] = d;
    __syncthreads();
    const int last = min((int)blockDim.x, count - tile) - 1;  // threads past the queue's end own nothing
    for (int first = threadIdx.x; first < edges; first += U * blockDim.x) {
      int low = 0;  // edges ascend with k: each search starts from the previous owner
      relax_unrolled<U>(p, dist, columns, weights, [&](int k) {
        const int i = first + k * blockDim.x;
        if (i >= edges) return edge_from(-1, 0);
        int high = last;  // the last thread whose offset is <= i owns edge i
        while (low < high) {
          const int mid = (low + high + 1) >> 1;
          if (tile_offset[mid] <= i) low = mid; else high = mid - 1;
        }
        return edge_from(tile_begin[low] + (i - tile_offset[low]), tile_dist[low]);
      });
    }
  }
  if (threadIdx.x == 0) scanned += edges;
  // No barrier here: the next tile rewrites the shared arrays only after the barrier of its prefix
  // sum, which every thread reaches after its edges above.
  return scanned;
}

// One hub chunk: `block_threshold` edges of a vertex, expanded by the whole block.
template <int U>
__device__ int advance_chunk(const Push &p, int2 chunk, const int *RESTRICT row_offsets,
                             const int *RESTRICT columns, const int *RESTRICT weights, dist_t *dist,
                             int block_threshold) {
  const dist_t d = __ldcg(&dist[chunk.x]);
  const int begin = row_offsets[chunk.x] + chunk.y * block_threshold;
  const int end = min(row_offsets[chunk.x + 1], begin + block_threshold);
  relax_strided<U>(p, dist, columns, weights, begin + threadIdx.x, end, blockDim.x, d);
  return threadIdx.x == 0 ? end - begin : 0;
}

// Split the far pile (count entries) into the next near queue and the other far buffer; this
// block is `block` of `n_blocks`. `pile_bits`: the pile's bitmap, cleared as it is read (or null).
template <bool SHARED = false>
__device__ void split_range(const Push &p, const int *pile, int count, int block, int n_blocks,
                            dist_t *dist, dist_t old_threshold, unsigned *pile_bits = nullptr) {
  for (int i = block * blockDim.x + threadIdx.x; i < count; i += n_blocks * blockDim.x) {
    const int u = __ldcg(&pile[i]);
    if (pile_bits != nullptr) unmark(pile_bits, u);
    const dist_t d = load_dist<SHARED>(&dist[u]);
    if (d < old_threshold) continue;  // an earlier near queue took it
    push(p, u, d);                    // below the new threshold: near; otherwise kept
  }
}

// The pushes of iteration `iteration`'s advance (split = false) or of the split ending it.
__device__ __forceinline__ Push make_push(const Instance &in, Queue near_out, int *near_count,
                                          int iteration, int splits, int sel, dist_t threshold,
                                          bool split) {
  Push p;
  p.near_out = near_out;
  p.near_count = near_count;
  p.capacity = in.n;
  p.error = in.field(F_ERROR);
  const int pile = split ? sel ^ 1 : sel;
  p.far_out = in.far(pile);
  p.far_count = in.field(F_FAR_COUNT0 + pile);
  p.far_min = in.dfield(F_FAR_MIN0 + ((splits + (split ? 1 : 0)) & 1));
  p.near_stamp = in.near_stamp;
  p.far_stamp = in.far_stamp;
  p.threshold = threshold;
  p.near_tag = 2 * iteration + (split ? 2 : 1);
  p.far_tag = splits + (split ? 2 : 1);
  p.near_bits = nullptr;
  p.far_bits = nullptr;
  p.direct = false;
  p.push_min = nullptr;
#if BUFFERED_PUSH
  p.buffered = false;
#endif
  p.least = INF;
  p.defer_work = 0;
#if TRACE_ITERATIONS
  p.deferred = (!split && blockIdx.y == 0 && iteration < TRACE_MAX) ? &trace_deferred[iteration] : nullptr;
#endif
#if TARGETED
  p.queue_min = in.dfield(F_QUEUE_MIN0 + iteration % 3);
  p.target = -1;
  p.target_dist = nullptr;
#endif
  return p;
}

__device__ __forceinline__ Queue global_queue(const Instance &in, int parity) {
  Queue q;
  q.shared = nullptr;
  q.shared_capacity = 0;
  q.global = in.near(parity);
  q.bits = nullptr;
  return q;
}

// The advance's pushes record their smallest distance in *push_min, and its tiles defer the vertices
// whose edges times their distance above `least` (the smallest of their queue) exceed `defer_work`.
__device__ __forceinline__ void defer_far(Push &p, dist_t least, int defer_work, dist_t *push_min) {
  p.push_min = push_min;
  p.least = least;
  p.defer_work = defer_work;
}

// A block's smallest push (`block_min`, in shared memory) lowers the minimum of the near queue of
// iteration `next` % 3 once every thread of the block has pushed: one atomic a block.
__device__ __forceinline__ void flush_push_min(const Instance &in, int next, const dist_t &block_min) {
  __syncthreads();
  if (threadIdx.x == 0 && block_min < INF) atomicMin(in.dfield(F_PUSH_MIN0 + next), block_min);
}

// (BUFFERED_PUSH) The block's gathered pushes into the near queue: one slot-taking atomic, then
// the entries copied out together. Called by every thread of the block at once; nothing where the
// pushes were not buffered.
__device__ __forceinline__ void flush_pushes(const Push &p) {
#if BUFFERED_PUSH
  if (!p.buffered) return;  // the same in every thread of the block
  __shared__ int base;
  __syncthreads();  // every push before it is in the buffer
  const int count = min(push_buffered, BUFFERED_PUSH);
  if (count == 0) return;
  if (threadIdx.x == 0) base = atomicAdd(p.near_count, count);
  __syncthreads();
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    if (base + i < p.capacity) p.near_out.put(base + i, push_buffer[i]); else atomicExch(p.error, 3);
  }
  __syncthreads();  // every thread has read the count and its entries
  if (threadIdx.x == 0) push_buffered = 0;
  __syncthreads();
#endif
}

// dist = INF, stamps 0; the source in the first near queue; T = Delta (INF for Delta = INF), by
// the instance's gridDim.x blocks. `sources` holds the instances' sources, then their targets
// (-1: none). Every field is reset but, with `keep_barrier` (solve_grid, whose blocks may already
// be at the barrier that ends it), the barrier's count: its low bits are 0 after every barrier
// completed, and the host zeroes the state before a grid's solve after an instance's error or a
// solve of another CK, whose fields lay out differently (delta_engine).
__device__ __forceinline__ void init_instance(const Instance &in, int ck, const int *RESTRICT sources,
                                              int delta, bool keep_barrier) {
  const int source = sources[blockIdx.y];
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < in.n; v += gridDim.x * blockDim.x) {
    in.dist[v] = v == source ? 0 : INF;
    in.near_stamp[v] = 0;
    in.far_stamp[v] = 0;
  }
  if (blockIdx.x == 0) {
    for (int f = threadIdx.x; f < N_FIELDS; f += blockDim.x) {
      int value = 0;
      if (f == F_BARRIER_COUNT && keep_barrier) continue;
      if (f == F_THRESHOLD) value = delta;
      if (f == F_NEAR_COUNT0) value = 1;
      if (f == F_FAR_MIN0 || f == F_FAR_MIN1 || f == F_QUEUE_MIN0 || f == F_QUEUE_MIN1 || f == F_QUEUE_MIN2 ||
          (f >= F_PUSH_MIN0 && f < F_PUSH_MIN0 + 3)) value = INF_32;
      if (f == F_TARGET) value = sources[ck + blockIdx.y];
      *in.field(f) = value;
#if WIDE_DISTANCES
      *in.dfield(f) = f == F_THRESHOLD ? first_threshold(delta) : value == INF_32 ? INF : value;
#endif
    }
    if (threadIdx.x == 0) in.near(0)[0] = source;
  }
}

// The instances' initialization before a host loop or solve_block (solve_grid does its own).
#if IN_PART(1)
extern "C" __global__ void init(int n, int ck, const int *RESTRICT sources, int *state, int *work,
                                int delta) {
  init_instance(instance_of(n, ck, state, work, nullptr, 0), ck, sources, delta, false);
}
#endif

// 1 (shipped): solve_grid's blocks expand their hub chunks as one stream of edges
// (expand_chunk_stream); 0: a chunk at a time (advance_chunk), each thread relaxing one or two
// edges of it, a chain of dependent loads per chunk (the chunk, its vertex's distance and edges,
// the relaxation) that rmat20's one query waited on for a third of its time (H200, run AK:
// 0.885 -> 0.732 ms, rmat19 0.548 -> 0.508, rmat18 0.369 -> 0.350, rmat17 0.287 -> 0.274; urand18
// and the random graphs within 1%).
#ifndef CHUNK_STREAM
#define CHUNK_STREAM 1
#endif

// The hub chunks c = blockIdx.x, blockIdx.x + gridDim.x, ... below `chunks` as one stream of
// edges: their first edges, ends and distances staged in `scratch` (SCRATCH_INTS ints a thread),
// blockDim.x chunks at a time, then each thread relaxing slots t, t + blockDim.x, ... of the
// stream U at once (a chunk's slots past its vertex's last edge relax nothing). Every thread of
// the block calls it.
template <int U>
__device__ int expand_chunk_stream(const Push &p, const int2 *hub_in, int chunks, const int *RESTRICT row_offsets,
                                   const int *RESTRICT columns, const int *RESTRICT weights, dist_t *dist,
                                   int block_threshold, int *scratch) {
  int *chunk_begin = scratch;                                 // blockDim.x
  int *chunk_end = scratch + blockDim.x;                      // blockDim.x
  dist_t *chunk_dist = (dist_t *)(scratch + 2 * blockDim.x);  // blockDim.x
  const int mine = chunks > (int)blockIdx.x ? (chunks - (int)blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  const int shift = (block_threshold & (block_threshold - 1)) == 0 ? __ffs(block_threshold) - 1 : -1;
  int scanned = 0;
  for (int first_chunk = 0; first_chunk < mine; first_chunk += blockDim.x) {
    const int batch = min(mine - first_chunk, (int)blockDim.x);
    __syncthreads();  // the scratch's last readers are done
    if ((int)threadIdx.x < batch) {
      const int c = blockIdx.x + (first_chunk + threadIdx.x) * gridDim.x;
      const int vertex = __ldcg(&hub_in[c].x), k = __ldcg(&hub_in[c].y);
      const int begin = row_offsets[vertex] + k * block_threshold;
      const int end = min(row_offsets[vertex + 1], begin + block_threshold);
      chunk_begin[threadIdx.x] = begin;
      chunk_end[threadIdx.x] = end;
      chunk_dist[threadIdx.x] = __ldcg(&dist[vertex]);
      scanned += end - begin;
    }
    __syncthreads();
    const int slots = batch * block_threshold;  // a chunk's slots past its last edge relax nothing
    for (int first = threadIdx.x; first < slots; first += U * blockDim.x) {
      relax_unrolled<U>(p, dist, columns, weights, [&](int k) {
        const int slot = first + k * blockDim.x;
        if (slot >= slots) return edge_from(-1, 0);
        const int i = shift >= 0 ? slot >> shift : slot / block_threshold;
        const int e = chunk_begin[i] + (slot - i * block_threshold);
        return edge_from(e < chunk_end[i] ? e : -1, chunk_dist[i]);
      });
    }
  }
  return scanned;
}

// Hub chunks hub_in[0, chunks), each of `block_threshold` edges, expanded by the instance's blocks:
// taken one at a time from a counter (`dynamic_chunks`, host mode) or dealt out in turn (solve_grid:
// as one stream, CHUNK_STREAM).
template <bool dynamic_chunks>
__device__ int expand_chunks(const Push &p, const int2 *hub_in, int chunks, int *next_chunk,
                             const int *RESTRICT row_offsets, const int *RESTRICT columns,
                             const int *RESTRICT weights, dist_t *dist, int block_threshold, int *scratch) {
  if (chunks <= 0) return 0;
  if constexpr (!dynamic_chunks && CHUNK_STREAM) {
    return expand_chunk_stream<GRID_UNROLL>(p, hub_in, chunks, row_offsets, columns, weights, dist, block_threshold,
                                            scratch);
  } else {
    int scanned = 0;
    for (int c = dynamic_chunks ? take(next_chunk, 1) : blockIdx.x; c < chunks;
         c = dynamic_chunks ? take(next_chunk, 1) : c + gridDim.x) {
      int2 chunk;
      chunk.x = __ldcg(&hub_in[c].x);
      chunk.y = __ldcg(&hub_in[c].y);
      scanned += advance_chunk<GRID_UNROLL>(p, chunk, row_offsets, columns, weights, dist, block_threshold);
    }
    return scanned;
  }
}

// Where solve_grid expands the hub chunks an advance cut: in the same iteration, after one more
// barrier, rather than at the start of the next one, where the hub's neighbours wait an iteration
// for it. 1 (shipped): when the grid defers (defer_work), whose iterations the delay multiplied;
// 0: never; 2: always. H100, b04edb1 (docs/notes/delta-kernels.md, run AB): rmat17's tuned one query
// 0.507 -> 0.427 ms in 18.5 -> 13 iterations; Email-Enron's, which defers nothing, 0.230 -> 0.247
// with 2 (the barrier costs more than the iterations it saves).
#ifndef HUBS_AT_ONCE
#define HUBS_AT_ONCE 1
#endif
__device__ __forceinline__ bool hubs_at_once(int defer_work) {
  return HUBS_AT_ONCE == 2 || (HUBS_AT_ONCE == 1 && defer_work > 0);
}
// A queue of fewer entries than the instance's threads defers less: W x threads / queue (1,
// shipped), its square root (2), or W (0). Most vertices a grid defers wait while the grid idles
// (H100, b04edb1, run AB, with HUBS_AT_ONCE: rmat20's tuned one query 1.74 -> 1.59 ms at W 200,
// 27 -> 13 iterations; web-Stanford's at W 400 2.19 -> 1.04; scripts/simulate_deferral.py's (at 68a5795)
// `adapt W 1` had predicted it).
#ifndef DEFER_ADAPT
#define DEFER_ADAPT 1
#endif

// Queue entries a tile of the instance's blocks takes: blockDim.x, or fewer (a multiple of 32, at
// least 32) where the queue would give fewer than `tiles` tiles a block (0: blockDim.x always).
// On skewed graphs a tile of blockDim.x entries can hold 100x the edges of another, and a queue of
// a few tiles a block left most blocks waiting on a few at the barrier (H100, rmat17's one query:
// 0.611 -> 0.514 ms with 2; docs/notes/delta-kernels.md, run AA). solve_grid takes `tiles` from the
// launch (delta's parameter `tiles`: 4 took rmat17 0.410 -> 0.360 ms and random24k-d2 0.228 ->
// 0.267, run AB); the host loop's advance has GRID_TILES.
#ifndef GRID_TILES
#define GRID_TILES 2
#endif
__device__ const int GRID_TILES_DEFAULT = GRID_TILES;
__device__ __forceinline__ int tile_size(int count, int tiles) {
  if (tiles <= 0) return blockDim.x;
  const int per_tile = (count + tiles * gridDim.x - 1) / (tiles * gridDim.x);
  return min((int)blockDim.x, max(32, (per_tile + 31) & ~31));
}

// 1 (shipped): the block's first warp copies what solve_grid reads after its barriers
// (after_barrier) once the barrier is passed, and the block reads the copy; 0: every thread loads
// each count and least distance itself. Those loads, every thread of every block on the same few
// words at once, cost a third of an empty iteration: H100, a path's one query (one vertex an
// iteration, 64 blocks) 0.285 -> 0.206 ms in 41 iterations, Email-Enron's 0.213 -> 0.177, rmat17's
// 0.348 -> 0.306 (two rounds' means, with BARRIER_ACQUIRE; docs/notes/delta-kernels.md, run AF).
#ifndef GRID_COUNTS
#define GRID_COUNTS 1
#endif

// What solve_grid's blocks read after a barrier (the error flag, the near queues', hub chunks' and
// far piles' counts, the piles' and pushes' least distances): the instance's fields, copied into
// shared memory by the block's first warp as it leaves barrier_counts, read until the next one.
__shared__ int after_barrier[N_FIELDS];

// Field `f` as solve_grid reads it after a barrier: after_barrier's copy, or (GRID_COUNTS 0) itself.
__device__ __forceinline__ int grid_field(const Instance &in, int f) {
  return GRID_COUNTS ? after_barrier[f] : in.load(f);
}

// Field `f` as an advance reads it: solve_grid's (dynamic_chunks false) as grid_field, the host loop's
// from global memory.
template <bool dynamic_chunks>
__device__ __forceinline__ int advance_field(const Instance &in, int f) {
  return dynamic_chunks ? in.load(f) : grid_field(in, f);
}

// A field that holds a distance, read as grid_field and advance_field read an int one; the 64-bit
// builds read it from global memory (after_barrier holds ints; nothing writes the fields read so
// between a barrier and the reads).
__device__ __forceinline__ dist_t grid_dfield(const Instance &in, int f) {
#if WIDE_DISTANCES
  return in.dload(f);
#else
  return grid_field(in, f);
#endif
}

template <bool dynamic_chunks>
__device__ __forceinline__ dist_t advance_dfield(const Instance &in, int f) {
#if WIDE_DISTANCES
  return in.dload(f);
#else
  return advance_field<dynamic_chunks>(in, f);
#endif
}

// The advance of iteration `iteration` over this instance's blocks (host mode and solve_grid):
// the hub chunks the previous iteration left, then the tiles of the near queue. Blocks take tiles
// from an atomic counter: tiles differ in edges by orders of magnitude on skewed graphs, and with
// tiles dealt out in turn (block b taking b, b + gridDim.x, ...) one query of rmat20 spent 37% of
// its warps' time at the grid barrier waiting for the slowest block (H100, 2026-11-24: 3.04 ms,
// 2.67 ms with the counter; docs/notes/delta-kernels.md, run N). Chunks, all of `block_threshold` edges,
// are dealt out in turn in solve_grid (`dynamic_chunks` false) and taken from a counter in host
// mode. solve_grid's blocks are all resident (the host refuses a grid otherwise), and a block that
// starts after its instance gave up at a barrier finds the tiles taken and the error flag set.
template <bool dynamic_chunks>
__device__ int advance_shared_work(const Instance &in, int hub_capacity, int iteration, int splits,
                                   int sel, dist_t threshold, const int *RESTRICT row_offsets,
                                   const int *RESTRICT columns, const int *RESTRICT weights,
                                   int warp_threshold, int block_threshold, int *scratch, int defer_work = 0,
                                   const int &tiles = GRID_TILES_DEFAULT) {
  const int now = iteration % 3, next = (iteration + 1) % 3;
  Push p = make_push(in, global_queue(in, (iteration + 1) & 1), in.field(F_NEAR_COUNT0 + next),
                     iteration, splits, sel, threshold, false);
  // With defer_work, the block's pushes lower a minimum in shared memory, and one atomic a block
  // takes it to the next queue's (one global word for every push cost rmat20's one query 2x).
  __shared__ dist_t block_push_min;
  if (defer_work > 0) {
    defer_far(p, advance_dfield<dynamic_chunks>(in, F_PUSH_MIN0 + now), defer_work, &block_push_min);
    if (threadIdx.x == 0) block_push_min = INF;
    __syncthreads();
  }
  // The hub chunks of the last iteration (unless solve_grid expanded them then: hubs_at_once).
  const int chunks = !dynamic_chunks && hubs_at_once(defer_work) ? 0
                                                                 : advance_field<dynamic_chunks>(in, F_HUB_COUNT0 + now);
#if BUFFERED_PUSH
  p.buffered = !dynamic_chunks && chunks * block_threshold >= BUFFER_FROM;  // solve_grid's
#endif
  int scanned = expand_chunks<dynamic_chunks>(p, in.hubs(iteration & 1), chunks, in.field(F_CHUNK_NEXT0 + now),
                                              row_offsets, columns, weights, in.dist, block_threshold, scratch);
  if (!dynamic_chunks && chunks > 0) flush_pushes(p);
  const int count = advance_field<dynamic_chunks>(in, F_NEAR_COUNT0 + now);
#if BUFFERED_PUSH
  p.buffered = !dynamic_chunks && count >= BUFFER_FROM;
#endif
#if DEFER_ADAPT
  const int threads = gridDim.x * blockDim.x;
  if (p.defer_work > 0 && count > 0 && count < threads) {
    const float grow = DEFER_ADAPT == 2 ? sqrtf((float)threads / count) : (float)threads / count;
    p.defer_work = (int)fminf(p.defer_work * grow, 2e9f);
  }
#endif
  const Queue queue = global_queue(in, iteration & 1);
  Hubs hubs;
  hubs.out = in.hubs((iteration + 1) & 1);
  hubs.count = in.field(F_HUB_COUNT0 + next);
  hubs.capacity = hub_capacity;
  hubs.error = in.field(F_ERROR);
  int *next_tile = in.field(F_TILE_NEXT0 + now);
  __shared__ int size;  // in shared memory: a register more spills solve_grid's loop
  if (threadIdx.x == 0) size = tile_size(count, tiles);
  __syncthreads();
  for (int tile = take(next_tile, size); tile < count; tile = take(next_tile, size)) {
    scanned += advance_tile<GRID_UNROLL>(p, queue, min(count, tile + size), tile, row_offsets, columns, weights,
                                         in.dist, warp_threshold, block_threshold, hubs, scratch);
    if (!dynamic_chunks) flush_pushes(p);
  }
  if (defer_work > 0) flush_push_min(in, next, block_push_min);
  return scanned;
}

// ---- host loop -------------------------------------------------------------------------------

// One iteration's advance of every unfinished instance (gridDim.x blocks each). At most 64
// registers, so that a block of 1024 threads launches.
#if IN_PART(1)
extern "C" __global__ void __maxnreg__(64) advance(int n, int ck, const int *RESTRICT row_offsets,
                                                   const int *RESTRICT columns, const int *RESTRICT weights,
                                                   int *state, int *work, int2 *hubs, int hub_capacity,
                                                   int warp_threshold, int block_threshold) {
  extern __shared__ int scratch[];
  Instance in = instance_of(n, ck, state, work, hubs, hub_capacity);
  if (in.load(F_DONE)) return;
  const int scanned = advance_shared_work<true>(in, hub_capacity, in.load(F_ITERATIONS), in.load(F_SPLITS), in.load(F_FAR_SEL),
                                          in.dload(F_THRESHOLD), row_offsets, columns, weights,
                                          warp_threshold, block_threshold, scratch);
  if (scanned) atomicAdd(in.field(F_RELAXED), scanned);
}
#endif

// The instance's target, or -1 for none (always, in a plain build).
__device__ __forceinline__ int instance_target(const Instance &in) {
#if TARGETED
  return in.load(F_TARGET);
#else
  return -1;
#endif
}

// Whether the instance's target (-1: none) has its final distance once the near queue is empty at
// threshold T (false in a plain build). Every thread of the instance reads the same answer: no
// distance changes between an advance's end and the next advance. By reference, so that
// solve_grid's blocks can keep the target in shared memory (in a register, its loop spills).
__device__ __forceinline__ bool target_settled(const Instance &in, const int &target, dist_t threshold) {
#if TARGETED
  return target >= 0 && __ldcg(&in.dist[target]) < threshold;
#else
  return false;
#endif
}

// Whether nothing waiting (its smallest distance `waiting`) can lower the target's distance.
__device__ __forceinline__ bool target_final(const Instance &in, dist_t waiting) {
  const int target = instance_target(in);
  return target >= 0 && __ldcg(&in.dist[target]) <= waiting;
}

// The end of an iteration: split the far pile when the advance left no work, then (the last
// block of the instance) the bookkeeping: counters, next iteration, new threshold, done. Launched
// with one block per instance: blocks that start after another has pushed split vertices into the
// near queue would read it as work and skip their share of the split (H100, 2026-11-23: wrong
// distances with 64 and 128 blocks per instance).
#if IN_PART(1)
extern "C" __global__ void finish(int n, int ck, int *state, int *work, int delta, int max_iterations) {
  Instance in = instance_of(n, ck, state, work, nullptr, 0);
  if (in.load(F_DONE)) return;
  const int iteration = in.load(F_ITERATIONS), splits = in.load(F_SPLITS), sel = in.load(F_FAR_SEL);
  const dist_t threshold = in.dload(F_THRESHOLD);
  const int next = (iteration + 1) % 3;
  // One thread reads the counts that decide the split, and the block waits for it: a warp that
  // read the near count after another warp's split had pushed into it would skip its share of
  // the split (H100, 2026-11-23: lost vertices at CK 128 and more, docs/notes/delta-kernels.md, run G).
  __shared__ int counts[2];
  if (threadIdx.x == 0) {
    counts[0] = in.load(F_NEAR_COUNT0 + next) + in.load(F_HUB_COUNT0 + next);
    counts[1] = in.load(F_FAR_COUNT0 + sel);
  }
  __syncthreads();
  const int next_work = counts[0], far_count = counts[1];
  const bool stop = next_work == 0 && target_settled(in, instance_target(in), threshold);
  const bool split = next_work == 0 && far_count > 0 && !stop;
  const dist_t new_threshold = split ? next_threshold(threshold, in.dload(F_FAR_MIN0 + (splits & 1)), delta)
                                     : threshold;
  if (split) {
    const Push p = make_push(in, global_queue(in, (iteration + 1) & 1), in.field(F_NEAR_COUNT0 + next),
                             iteration, splits, sel, new_threshold, true);
    split_range(p, in.far(sel), far_count, blockIdx.x, gridDim.x, in.dist, threshold);
  }
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(in.field(F_BLOCKS_DONE), 1) == (int)gridDim.x - 1;
  __syncthreads();
  if (!last || threadIdx.x != 0) return;
  __threadfence();
  *in.field(F_BLOCKS_DONE) = 0;
  const int later = (iteration + 2) % 3;  // iteration + 1 writes these; iteration - 1 used them
  *in.field(F_NEAR_COUNT0 + later) = 0;
  *in.field(F_HUB_COUNT0 + later) = 0;
  *in.field(F_TILE_NEXT0 + later) = 0;
  *in.field(F_CHUNK_NEXT0 + later) = 0;
#if TARGETED
  *in.dfield(F_QUEUE_MIN0 + later) = INF;
#endif
  *in.field(F_ITERATIONS) = iteration + 1;
  if (split) {
    *in.field(F_SPLITS) = splits + 1;
    *in.field(F_FAR_SEL) = sel ^ 1;
    *in.field(F_FAR_COUNT0 + sel) = 0;
    *in.dfield(F_FAR_MIN0 + (splits & 1)) = INF;
    *in.dfield(F_THRESHOLD) = new_threshold;
  }
  const int near_now = in.load(F_NEAR_COUNT0 + next);  // the split's pushes
  const int far_now = in.load(F_FAR_COUNT0 + (split ? sel ^ 1 : sel));
#if TARGETED
  const bool final_now = !split && in.load(F_HUB_COUNT0 + next) == 0 && in.load(F_HUB_COUNT0 + iteration % 3) == 0 &&
                         target_final(in, min(in.dload(F_QUEUE_MIN0 + iteration % 3), in.dload(F_FAR_MIN0 + (splits & 1))));
#else
  const bool final_now = false;
#endif
  const bool done = stop || final_now || (near_now == 0 && far_now == 0 && next_work == 0);
  if (done) *in.field(F_DONE) = 1;
  if (!done && iteration + 1 >= max_iterations) {
    *in.field(F_ERROR) = 2;
    *in.field(F_DONE) = 1;
  }
}
#endif

// ---- persistent loops ------------------------------------------------------------------------

// How instance_barrier orders memory. 1 (shipped): the arrival a release atomic, the wait acquire
// loads (as CUTLASS's barrier, whose fence.acq_rel.gpu and relaxed atomic cost the same); 0:
// __threadfence (fence.sc.gpu) before the arrival's atomic and after the wait, as CUDA's
// cooperative groups do. H100, a barrier alone (64 blocks of 512 threads; scripts/probe_barrier.py at 68a5795):
// 0.94 us against 1.21; one query of Email-Enron 0.217 -> 0.206 ms without GRID_COUNTS (run AF).
#ifndef BARRIER_ACQUIRE
#define BARRIER_ACQUIRE 1
#endif

__device__ __forceinline__ unsigned barrier_arrive(unsigned *count, unsigned add) {
  unsigned before;
#if BARRIER_ACQUIRE
  asm volatile("atom.add.release.gpu.global.u32 %0, [%1], %2;" : "=r"(before) : "l"(count), "r"(add) : "memory");
#else
  __threadfence();
  before = atomicAdd(count, add);
#endif
  return before;
}

__device__ __forceinline__ unsigned barrier_count(const unsigned *count) {
#if BARRIER_ACQUIRE
  unsigned value;
  asm volatile("ld.global.acquire.gpu.u32 %0, [%1];" : "=r"(value) : "l"(count) : "memory");
  return value;
#else
  return *(const volatile unsigned *)count;
#endif
}

// The gridDim.x blocks of an instance meet here. Returns false when the barrier timed out.
// One atomic a block and no reset, as CUDA's cooperative groups do: block 0 adds 2^31 -
// (gridDim.x - 1), the others 1, so the count's top bit flips when the last block arrives, and its
// low bits are back where they were: 0, as init or the host zeroed them (solve_grid's own
// init_instance keeps them; delta_engine zeroes the state where they may not be). The barrier it
// replaced (a count the last block reset, then a generation it raised) cost about 0.6 us more:
// H100, 42a523f, one query of ca-HepPh 0.199 -> 0.183 ms, Email-Enron 0.225 -> 0.208, rmat17
// 0.362 -> 0.354 (docs/notes/delta-kernels.md, run AC).
__device__ bool instance_barrier(const Instance &in) {
  __shared__ int ok;
  __syncthreads();
  if (threadIdx.x == 0) {
    ok = 1;
    unsigned *count = reinterpret_cast<unsigned *>(in.field(F_BARRIER_COUNT));
    const unsigned before = barrier_arrive(count, blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u);
    const long long start = clock64();
    while (((before ^ barrier_count(count)) & 0x80000000u) == 0) {
      if (clock64() - start > BARRIER_TIMEOUT_CYCLES || *(volatile int *)in.field(F_ERROR)) {
        atomicCAS(in.field(F_ERROR), 0, 1);
        ok = 0;
        break;
      }
    }
#if !BARRIER_ACQUIRE
    __threadfence();
#endif
  }
  __syncthreads();
  return ok;
}

// A block's copy of its instance's fields (GRID_COUNTS): a load a thread of the first warp.
__device__ __forceinline__ void copy_fields(const Instance &in) {
  for (int f = threadIdx.x; GRID_COUNTS && f < N_FIELDS; f += blockDim.x) after_barrier[f] = in.load(f);
}

// instance_barrier, then after_barrier copied (GRID_COUNTS), with one __syncthreads more (thread 0
// loading the next queue's and pile's counts alone in the barrier's wait spilled solve_grid's
// registers).
__device__ __forceinline__ bool barrier_counts(const Instance &in) {
  if (!instance_barrier(in)) return false;
  if (GRID_COUNTS) {
    copy_fields(in);
    __syncthreads();
  }
  return true;
}

// The whole solve, gridDim.x > 1 blocks per instance, all resident (the host checks).
#if IN_PART(2)
extern "C" __global__ void __maxnreg__(64) solve_grid(
    int n, int ck, const int *RESTRICT row_offsets, const int *RESTRICT columns,
    const int *RESTRICT weights, int *state, int *work, int2 *hubs, int hub_capacity, int delta,
    int warp_threshold, int block_threshold, int max_iterations, int defer_work, int tiles,
    const int *RESTRICT sources) {
  extern __shared__ int scratch[];
  Instance in = instance_of(n, ck, state, work, hubs, hub_capacity);
  // Its own initialization, then a barrier: one launch a solve rather than init's and its own
  // (docs/notes/delta-kernels.md, run AC). The TARGETED build has init launched first (here it spilled
  // 20 bytes).
#if BUFFERED_PUSH
  if (threadIdx.x == 0) push_buffered = 0;  // the barrier below orders it (the TARGETED build has no buffer)
#endif
#if !TARGETED
  init_instance(in, ck, sources, delta, true);
  if (!barrier_counts(in)) return;
#endif
  int iteration = 0, splits = 0, sel = 0;
  dist_t threshold = first_threshold(delta);
  int scanned = 0;
  const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
  // In shared memory (in a register, the loop spills); only thread 0 reads it (tile_size).
  __shared__ int grid_tiles;
  if (threadIdx.x == 0) grid_tiles = tiles;
#if TARGETED
  defer_work = 0;  // source-target grids defer nothing (with it, this build spilled registers)
  __shared__ int grid_target;  // in shared memory (target_settled)
  if (threadIdx.x == 0) grid_target = in.load(F_TARGET);
  copy_fields(in);  // init, launched first, ended before this kernel began: no barrier between
  __syncthreads();
#else
  const int grid_target = -1;
#endif
  while (true) {
    if (leader) {  // counters of iteration - 1: read before the last barrier, next written after the next
      const int later = (iteration + 2) % 3;
      *in.field(F_NEAR_COUNT0 + later) = 0;
      *in.field(F_HUB_COUNT0 + later) = 0;
      *in.field(F_TILE_NEXT0 + later) = 0;
      *in.field(F_CHUNK_NEXT0 + later) = 0;
      *in.dfield(F_PUSH_MIN0 + later) = INF;
#if TARGETED
      *in.dfield(F_QUEUE_MIN0 + later) = INF;
#endif
    }
#if TRACE_ITERATIONS
    const bool traced = blockIdx.y == 0 && iteration < TRACE_MAX;
    if (traced && leader) {
      trace_start[iteration] = global_ns();
      trace_queue[iteration] = in.load(F_NEAR_COUNT0 + iteration % 3);
      trace_chunks[iteration] = in.load(F_HUB_COUNT0 + iteration % 3);
      trace_splits[iteration] = splits;
    }
    const int scanned_before = scanned;
#endif
    scanned += advance_shared_work<false>(in, hub_capacity, iteration, splits, sel, threshold, row_offsets, columns, weights,
                                   warp_threshold, block_threshold, scratch, defer_work, grid_tiles);
#if TRACE_ITERATIONS
    if (traced) {
      if (scanned != scanned_before) atomicAdd(&trace_scanned[iteration], scanned - scanned_before);
      __syncthreads();
      if (threadIdx.x == 0) {
        const unsigned long long now = global_ns();
        atomicMin(&trace_first[iteration], now);
        atomicMax(&trace_last[iteration], now);
      }
    }
#endif
    const int next = (iteration + 1) % 3;
    if (!barrier_counts(in) || grid_field(in, F_ERROR)) break;
    const int hub_chunks = grid_field(in, F_HUB_COUNT0 + next);
    const bool chunks_now = hub_chunks > 0 && hubs_at_once(defer_work);
    if (chunks_now) {  // (hubs_at_once) the chunks the advance cut, before the next iteration
      Push p = make_push(in, global_queue(in, (iteration + 1) & 1), in.field(F_NEAR_COUNT0 + next), iteration,
                         splits, sel, threshold, false);
      __shared__ dist_t chunk_push_min;
      if (defer_work > 0) {
        p.push_min = &chunk_push_min;
        if (threadIdx.x == 0) chunk_push_min = INF;
        __syncthreads();
      }
      // Dealt out in turn: taken from a counter, they were slower (rmat17 0.405 -> 0.449 ms, run AB).
#if BUFFERED_PUSH
      p.buffered = hub_chunks * block_threshold >= BUFFER_FROM;
#endif
      scanned += expand_chunks<false>(p, in.hubs((iteration + 1) & 1), hub_chunks, nullptr, row_offsets, columns,
                                      weights, in.dist, block_threshold, scratch);
      flush_pushes(p);
      if (defer_work > 0) flush_push_min(in, next, chunk_push_min);
      if (!barrier_counts(in) || grid_field(in, F_ERROR)) break;
    }
    // Every block reads the same counts: the advance is done, and a split (which pushes into the
    // near queue counted here) starts only after the barrier below, once every block has read them.
    int next_work = grid_field(in, F_NEAR_COUNT0 + next) + (chunks_now ? 0 : hub_chunks);
    int far_count = grid_field(in, F_FAR_COUNT0 + sel);
    // A settled target ends the solve as an empty far pile would (a variable more spills here).
    if (next_work == 0 && target_settled(in, grid_target, threshold)) far_count = 0;
    if (next_work == 0 && far_count > 0 && !instance_barrier(in)) return;
    while (next_work == 0 && far_count > 0) {
      const dist_t new_threshold = next_threshold(threshold, grid_dfield(in, F_FAR_MIN0 + (splits & 1)), delta);
      Push p = make_push(in, global_queue(in, (iteration + 1) & 1), in.field(F_NEAR_COUNT0 + next),
                         iteration, splits, sel, new_threshold, true);
      if (defer_work > 0) p.push_min = in.dfield(F_PUSH_MIN0 + next);  // the split fills the next queue
      split_range(p, in.far(sel), far_count, blockIdx.x, gridDim.x, in.dist, threshold);
      if (!barrier_counts(in)) return;
      if (leader) {
        *in.field(F_FAR_COUNT0 + sel) = 0;
        *in.dfield(F_FAR_MIN0 + (splits & 1)) = INF;
      }
      threshold = new_threshold;
      sel ^= 1;
      splits += 1;
      next_work = grid_field(in, F_NEAR_COUNT0 + next);
      far_count = grid_field(in, F_FAR_COUNT0 + sel);
      if (next_work == 0 && target_settled(in, grid_target, threshold)) far_count = 0;
      // Another split right away writes the buffer whose count the leader has just zeroed: wait
      // for it. Otherwise its next writer is a split after the next advance's barrier.
      if (next_work == 0 && far_count > 0 && !instance_barrier(in)) return;
    }
    iteration += 1;
    if (next_work == 0 && far_count == 0) break;
    if (iteration >= max_iterations) {
      if (leader) *in.field(F_ERROR) = 2;
      break;
    }
  }
  if (scanned) atomicAdd(in.field(F_RELAXED), scanned);
  if (leader) {
    *in.field(F_ITERATIONS) = iteration;
    *in.field(F_SPLITS) = splits;
    *in.dfield(F_THRESHOLD) = threshold;
    *in.field(F_DONE) = 1;
  }
}
#endif

// solve_block's state from one iteration to the next, and what its iterations share.
struct BlockSolve {
  Instance in;
  const int *RESTRICT row_offsets;
  const int *RESTRICT columns;
  const int *RESTRICT weights;
  int delta, warp_threshold, block_threshold, max_iterations, queue_capacity, bitmap_words;
  int *scratch, *shared_queue0, *shared_queue1;
  unsigned *bits;  // near queue of parity q: bits + q x words; far pile of buffer b: bits + (2 + b) x words
  int *near_count, *far_count;  // shared: by iteration % 3, by buffer
  dist_t *far_min;               // shared, by splits % 2
#if TARGETED
  dist_t *queue_min;    // shared, by iteration % 3
  int *stop;            // shared, by iteration % 2: thread 0's answer to whether the target is final
  int target;           // the target (or -1) and, in shared memory, its distance
  dist_t *target_dist;
#endif
  int iteration, splits, sel;
  dist_t threshold;
  int scanned;
  int now, next;  // iteration % 3 and (iteration + 1) % 3

  __device__ __forceinline__ unsigned *bitmap(int which) const {
    return bitmap_words ? bits + which * bitmap_words : nullptr;
  }
  template <int PARITY>
  __device__ __forceinline__ Queue queue(bool read) const {
    const Queue q = {PARITY ? shared_queue1 : shared_queue0, queue_capacity, in.near(PARITY),
                     read ? bitmap(PARITY) : nullptr};
    return q;
  }
};

// TARGETED solve_block checks whether its target is final every this many iterations (each check
// is a barrier); the stop comes at most this many iterations late.
#define TARGET_CHECK_EVERY 4
// solve_block reads its error field, which the host writes at a solve's deadline, every this many
// iterations (a barrier each time); solve_grid's blocks read it at every barrier.
#define STOP_CHECK_EVERY 32

// target_settled for solve_block, on the target's distance it keeps in shared memory.
__device__ __forceinline__ bool block_target_settled(const BlockSolve &b, dist_t threshold) {
#if TARGETED
  return b.target >= 0 && *b.target_dist < threshold;
#else
  return false;
#endif
}

// One iteration of solve_block, whose parity (iteration % 2) is PARITY: the queues and bitmaps it
// reads and writes are known at compile time (solve_block alternates the two). Returns whether
// another iteration follows.
template <int PARITY, bool SHARED>
__device__ __forceinline__ bool block_iteration(BlockSolve &b) {
  const int now = b.now, next = b.next, later = 3 - now - next;
  const int count = b.near_count[now];
#if TARGETED
  const int splits_before = b.splits;
#endif
  if (threadIdx.x == 0) b.near_count[later] = 0;
#if TARGETED
  if (threadIdx.x == 0) b.queue_min[later] = INF;
#endif
  const Queue out = b.queue<PARITY ^ 1>(false);
  Push p = make_push(b.in, out, &b.near_count[next], b.iteration, b.splits, b.sel, b.threshold, false);
  p.far_count = &b.far_count[b.sel];
  p.far_min = &b.far_min[b.splits & 1];
  p.near_bits = b.bitmap(PARITY ^ 1);
  p.far_bits = b.bitmap(2 + b.sel);
#if TARGETED
  p.queue_min = &b.queue_min[now];
  p.target = b.target;
  p.target_dist = b.target_dist;
#endif
  // A frontier of one tile waits on the latency of each relaxation, not on the atomics'
  // throughput: skip the read that filters hopeless ones before the atomicMin.
  p.direct = count <= (int)blockDim.x;
  const Queue queue = b.queue<PARITY>(true);
  const Hubs no_hubs = {nullptr, nullptr, 0, nullptr};
  for (int tile = 0; tile < count; tile += blockDim.x)
    b.scanned += advance_tile<BLOCK_UNROLL, SHARED>(p, queue, count, tile, b.row_offsets, b.columns, b.weights, b.in.dist,
                                            b.warp_threshold, b.block_threshold, no_hubs, b.scratch);
  __syncthreads();
  int next_near = b.near_count[next];
  int far_now = b.far_count[b.sel];
  if (next_near == 0 && block_target_settled(b, b.threshold)) far_now = 0;  // as in solve_grid
  // Every warp has read the counts before a split pushes into them (see finish). Without a
  // split no barrier: a warp already in the next iteration pushes into near_count[(iteration +
  // 2) % 3], not the one read here, and into far_count[sel], whose value matters only when
  // next_near is 0, that is before a split.
  if (next_near == 0 && far_now > 0) __syncthreads();
  while (next_near == 0 && far_now > 0) {
    const int sel = b.sel, splits = b.splits;
    const dist_t new_threshold = next_threshold(b.threshold, b.far_min[splits & 1], b.delta);
    Push q = make_push(b.in, out, &b.near_count[next], b.iteration, splits, sel, new_threshold, true);
    q.far_count = &b.far_count[sel ^ 1];
    q.far_min = &b.far_min[(splits + 1) & 1];
    q.near_bits = b.bitmap(PARITY ^ 1);
    q.far_bits = b.bitmap(2 + (sel ^ 1));
#if TARGETED
    q.target = b.target;
    q.target_dist = b.target_dist;
#endif
    split_range<SHARED>(q, b.in.far(sel), far_now, 0, 1, b.in.dist, b.threshold, b.bitmap(2 + sel));
    __syncthreads();
    if (threadIdx.x == 0) {
      b.far_count[sel] = 0;
      b.far_min[splits & 1] = INF;
    }
    b.threshold = new_threshold;
    b.sel = sel ^ 1;
    b.splits = splits + 1;
    next_near = b.near_count[next];
    far_now = b.far_count[b.sel];
    if (next_near == 0 && block_target_settled(b, b.threshold)) far_now = 0;
    __syncthreads();  // the zeroing above before another split writes there
  }
#if TARGETED
  if (b.target >= 0 && b.iteration % TARGET_CHECK_EVERY == 0) {  // the same branch in every thread
    if (threadIdx.x == 0)
      b.stop[PARITY] = b.splits == splits_before && *b.target_dist <= min(b.queue_min[now], b.far_min[b.splits & 1]);
    __syncthreads();  // every warp has the answer; the next check writes the other slot
    if (b.stop[PARITY]) far_now = next_near = 0;
  }
#endif
  b.iteration += 1;
  b.now = next;
  b.next = later;
  if (next_near == 0 && far_now == 0) return false;
  if (b.iteration >= b.max_iterations) {
    if (threadIdx.x == 0) *b.in.field(F_ERROR) = 2;
    return false;
  }
  if (b.iteration % STOP_CHECK_EVERY == 0) {  // the same branch in every thread: has the host stopped it?
    __shared__ int stopped;
    if (threadIdx.x == 0) stopped = *(volatile int *)b.in.field(F_ERROR);
    __syncthreads();
    if (stopped) return false;
  }
  return true;
}

// The whole solve, one block per instance: counters in shared memory, and the first
// `queue_capacity` entries of each near queue too; with `bitmap_words` > 0 (at least (n + 31) / 32),
// the duplicate stamps as four shared bitmaps (near queues and far piles, by parity). Dynamic
// shared memory: SCRATCH_INTS * blockDim.x + 2 * queue_capacity + 4 * bitmap_words ints, and with
// SHARED (solve_shared) the graph and the instance's distances after them: n + 1 + 2 m ints and n
// dist_t (in the 64-bit builds from the next 8 bytes, an int more), read
// in at the start and the distances written back at the end, so that no step of the solve waits
// on global memory but the queues past their shared heads and the far piles.
template <bool SHARED>
__device__ __forceinline__ void block_solve(
    int n, int ck, const int *RESTRICT row_offsets, const int *RESTRICT columns,
    const int *RESTRICT weights, int *state, int *work, int delta, int warp_threshold,
    int block_threshold, int max_iterations, int queue_capacity, int bitmap_words) {
  extern __shared__ int block_scratch[];  // (solve_grid's `scratch`: another name, the same memory)
  int *scratch = block_scratch;
  __shared__ int near_count[3], far_count[2];
  __shared__ dist_t far_min[2];
  BlockSolve b;
  b.in = instance_of(n, ck, state, work, nullptr, 0);
  dist_t *const global_dist = b.in.dist;
#if TARGETED
  __shared__ int stop[2];
  __shared__ dist_t queue_min[3], target_dist;
  b.queue_min = queue_min;
  b.stop = stop;
  b.target = b.in.load(F_TARGET);
  b.target_dist = &target_dist;
#endif
  b.row_offsets = row_offsets;
  b.columns = columns;
  b.weights = weights;
  b.delta = delta;
  b.warp_threshold = warp_threshold;
  b.block_threshold = block_threshold;
  b.max_iterations = max_iterations;
  b.queue_capacity = queue_capacity;
  b.bitmap_words = bitmap_words;
  b.scratch = scratch;
  b.shared_queue0 = scratch + SCRATCH_INTS * blockDim.x;
  b.shared_queue1 = b.shared_queue0 + queue_capacity;
  b.bits = reinterpret_cast<unsigned *>(b.shared_queue1 + queue_capacity);
  if constexpr (SHARED) {
    const int m = row_offsets[n];
    int *graph = reinterpret_cast<int *>(b.bits + 4 * bitmap_words);
    int *shared_offsets = graph, *shared_columns = graph + n + 1, *shared_weights = shared_columns + m;
#if WIDE_DISTANCES
    dist_t *shared_dist = (dist_t *)(((size_t)(shared_weights + m) + 7) & ~(size_t)7);
#else
    dist_t *shared_dist = shared_weights + m;
#endif
    for (int i = threadIdx.x; i <= n; i += blockDim.x) shared_offsets[i] = row_offsets[i];
    for (int i = threadIdx.x; i < m; i += blockDim.x) {
      shared_columns[i] = columns[i];
      shared_weights[i] = weights[i];
    }
    for (int v = threadIdx.x; v < n; v += blockDim.x) shared_dist[v] = __ldcg(&global_dist[v]);
    b.row_offsets = shared_offsets;
    b.columns = shared_columns;
    b.weights = shared_weights;
    b.in.dist = shared_dist;
  }
  b.near_count = near_count;
  b.far_count = far_count;
  b.far_min = far_min;
  b.iteration = b.splits = b.sel = b.scanned = 0;
  b.threshold = first_threshold(delta);
  b.now = 0;
  b.next = 1;
  for (int i = threadIdx.x; i < 4 * bitmap_words; i += blockDim.x) b.bits[i] = 0;
  if (threadIdx.x == 0) {
    near_count[0] = 1;
    near_count[1] = near_count[2] = 0;
    far_count[0] = far_count[1] = 0;
    far_min[0] = far_min[1] = INF;
#if TARGETED
    queue_min[0] = queue_min[1] = queue_min[2] = INF;
    target_dist = __ldcg(&global_dist[max(b.target, 0)]);  // 0 when it is the source, else INF
#endif
    b.shared_queue0[0] = __ldcg(&b.in.near(0)[0]);  // the source
  }
  __syncthreads();
  while (block_iteration<0, SHARED>(b) && block_iteration<1, SHARED>(b)) {
  }
  Instance in = b.in;
  if constexpr (SHARED) {
    __syncthreads();
    for (int v = threadIdx.x; v < n; v += blockDim.x) global_dist[v] = in.dist[v];
  }
  if (b.scanned) atomicAdd(in.field(F_RELAXED), b.scanned);
  if (threadIdx.x == 0) {
    *in.field(F_ITERATIONS) = b.iteration;
    *in.field(F_SPLITS) = b.splits;
    *in.dfield(F_THRESHOLD) = b.threshold;
    *in.field(F_DONE) = 1;
  }
}

#if IN_PART(3)
extern "C" __global__ void __maxnreg__(56) solve_block(
    int n, int ck, const int *RESTRICT row_offsets, const int *RESTRICT columns,
    const int *RESTRICT weights, int *state, int *work, int delta, int warp_threshold,
    int block_threshold, int max_iterations, int queue_capacity, int bitmap_words) {
  block_solve<false>(n, ck, row_offsets, columns, weights, state, work, delta, warp_threshold, block_threshold,
                     max_iterations, queue_capacity, bitmap_words);
}
#endif

// solve_block with the graph and the distances in shared memory (loop mode `shared`: graphs of a
// few thousand vertices; the host refuses a graph that does not fit). It takes most of an SM's
// shared memory, so an SM holds one such block: 64 registers a thread fit 1,024 threads.
#if IN_PART(4)
extern "C" __global__ void __maxnreg__(64) solve_shared(
    int n, int ck, const int *RESTRICT row_offsets, const int *RESTRICT columns,
    const int *RESTRICT weights, int *state, int *work, int delta, int warp_threshold,
    int block_threshold, int max_iterations, int queue_capacity, int bitmap_words) {
  block_solve<true>(n, ck, row_offsets, columns, weights, state, work, delta, warp_threshold, block_threshold,
                    max_iterations, queue_capacity, bitmap_words);
}
#endif
