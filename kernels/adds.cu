// Asynchronous Delta-stepping without barriers (the class of ADDS: Wang, Fussell, Lin, PPoPP 2021;
// this is our own design), batched over CK instances: blockIdx.y is the instance, and each
// instance has gridDim.x blocks whose warps are independent workers.
//
// Work is a vertex whose distance fell. It waits in one of `buckets` FIFO rings, the ring of its
// Delta-bucket (distance >> shift) taken modulo the ring count, and clamped to the window
// [hint, hint + buckets - 1] of buckets (a nearer bucket goes to the hint's ring, a farther one to
// the window's last). A worker (one warp) scans the rings from the hint's, takes up to `chunk`
// entries of the first non-empty one, relaxes their out-edges and pushes what they improve. When
// the hint's ring is empty, the worker that finds the next non-empty one moves the hint there:
// there is no phase and no barrier, and a worker never waits for another to finish a bucket. The
// hint only orders the work (label correcting: any order gives exact distances), so races on it
// cost work, never correctness.
//
// Delta adapts on the device: when the hint moves, the new bucket's queued entries are compared
// with the instance's workers; too few for them doubles Delta, too many halves it, within
// [delta_min, delta_max] (powers of two; INF is one bucket and never adapts). The hint and
// Delta's shift are one 64-bit word, read and changed together.
//
// Pushes: a warp collects the vertices it improves in a buffer of its own in shared memory and
// flushes it to the rings at once (one reservation per ring, one pending update), so that a
// relaxation waits on no atomic but the distance's. Duplicates are dropped when taken: an entry
// is expanded only when its vertex's distance is below the one it was last expanded at
// (atomicMin on expanded[v]), so a vertex is expanded once per distance it reaches.
//
// Hubs: a vertex of at least `hub_threshold` edges is not relaxed by its worker but cut into
// chunks of `hub_threshold` edges, pushed to a ring of their own that workers take before the
// buckets, one chunk per warp.
//
// Termination: `pending` counts the entries pushed and not yet processed. A worker adds its
// pushes before they become visible and subtracts its entries after their pushes, so pending is 0
// only when no work is queued or in hand, and then stays 0: every worker leaves. Nothing waits on
// another block, so no block needs to be resident; a worker idle for IDLE_TIMEOUT_CYCLES, or whose
// instance overflowed a ring, sets the error flag and leaves, so no solve can hang.
//
// The 64-bit builds (-DWIDE_DISTANCES=1) hold dist and expanded in dist_t; the buckets and the hint
// stay ints (a bucket past them only orders the work less well).
#include "frontier.cuh"

#define EMPTY 0x7fffffff  // a free slot: the engine fills the work arrays with this (= INF of the 32-bit builds)
#define EMPTY64 0x7fffffff7fffffffull
#define FIELD_STRIDE 8  // ints between two fields of an instance's state (one 32-byte sector each)
#define IDLE_TIMEOUT_CYCLES (4LL * 1000 * 1000 * 1000)

enum {
  F_ERROR = 0,  // 1: a worker idled past the timeout; 3: a ring overflowed
  F_PENDING,
  F_WINDOW,     // the 64-bit (hint, shift) word (a field is 32 bytes)
  F_ADVANCES,   // hint moves
  F_HUB,        // the hub ring's head and tail, adjacent (one 64-bit read)
  F_RING0,      // ring r's head and tail, adjacent, at field F_RING0 + r
  N_FIELDS = F_RING0 + 64  // at most 64 rings
};

struct Instance {
  int *state;  // field f at state[f * FIELD_STRIDE]
  dist_t *dist, *expanded;
  int *rings;
  unsigned long long *hub_ring;  // (vertex << 32 | chunk), EMPTY64 when free
  int buckets, ring_mask, hub_mask;
  __device__ __forceinline__ int *field(int f) const { return state + f * FIELD_STRIDE; }
  __device__ __forceinline__ int load(int f) const { return *(volatile int *)field(f); }
  __device__ __forceinline__ unsigned long long *window() const {
    return reinterpret_cast<unsigned long long *>(field(F_WINDOW));
  }
  __device__ __forceinline__ int *ring(int r) const { return rings + (size_t)r * (ring_mask + 1); }
  // A ring's (head, tail), read at once.
  __device__ __forceinline__ int2 ends(int f) const {
    const long long both = *(volatile long long *)field(f);
    return make_int2((int)(both & 0xffffffff), (int)(both >> 32));
  }
};

// The work arrays: every instance's dist (n each) first, together; then instance k's expanded
// (n), rings (buckets x ring_size ints) and hub ring (hub_size 64-bit entries).
__device__ __forceinline__ Instance instance_of(int n, int *state, int *work, int buckets, int ring_size,
                                                int hub_size) {
  const size_t rest = (size_t)n * DIST_INTS + (size_t)buckets * ring_size + 2 * (size_t)hub_size;
  Instance in;
  in.state = state + (size_t)blockIdx.y * N_FIELDS * FIELD_STRIDE;
  in.dist = (dist_t *)work + (size_t)blockIdx.y * n;
  in.expanded = (dist_t *)(work + (size_t)gridDim.y * n * DIST_INTS + (size_t)blockIdx.y * rest);
  in.rings = (int *)(in.expanded + n);
  in.hub_ring = reinterpret_cast<unsigned long long *>(in.rings + (size_t)buckets * ring_size);
  in.buckets = buckets;
  in.ring_mask = ring_size - 1;
  in.hub_mask = hub_size - 1;
  return in;
}

__device__ __forceinline__ unsigned long long pack_window(int hint, int shift) {
  return ((unsigned long long)(unsigned)shift << 32) | (unsigned)hint;
}

// The instance's start: the engine has set its state to 0 and its work arrays to EMPTY (INF
// distances, nothing expanded, free slots; in the 64-bit builds `adds_fill` then sets the
// distances to INF, and expanded's 0x7fffffff7fffffff is above every distance); the source at
// distance 0, queued in bucket 0's ring; Delta = 2^shift. One thread per instance.
extern "C" __global__ void adds_init(int n, const int *RESTRICT sources, int *state, int *work, int buckets,
                                     int ring_size, int hub_size, int shift) {
  Instance in = instance_of(n, state, work, buckets, ring_size, hub_size);
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  const int source = sources[blockIdx.y];
  in.dist[source] = 0;
  *in.field(F_PENDING) = 1;
  *in.window() = pack_window(0, shift);
  in.field(F_RING0)[1] = 1;  // ring 0's tail
  in.ring(0)[0] = source;
}

// The 64-bit builds' INF distances: `count` of them from `dist`.
extern "C" __global__ void adds_fill(long long count, dist_t *dist) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += stride) dist[i] = INF;
}

#define PUSH_BUFFER 128  // entries of a warp's push buffer (dynamic shared memory, with its count)

// Write an entry into a reserved slot once its previous lap's entry has been taken.
__device__ __forceinline__ void fill(int *slot, int value, const int *error) {
  while (atomicCAS(slot, EMPTY, value) != EMPTY) {
    if (*(volatile const int *)error) return;
  }
}

// A warp's pushes: the window it read, and its buffer of (vertex, ring) in shared memory.
struct Pusher {
  Instance in;
  int hint, shift;
  int *error;
  int2 *buffer;  // PUSH_BUFFER entries
  int *count;    // the buffer's entries (shared)
};

// Flush the warp's buffer to the rings: pending first, then one reservation per ring per 32
// entries, then the slots. Every lane of the warp calls it.
__device__ void flush(const Pusher &p) {
  __syncwarp();
  const int lane = threadIdx.x & 31;
  const int total = *(volatile int *)p.count;
  if (total == 0) return;
  const Instance &in = p.in;
  if (lane == 0) {
    atomicAdd(in.field(F_PENDING), total);
    __threadfence();  // counted before any entry is seen
  }
  __syncwarp();
  for (int i = lane; i - lane < total; i += 32) {
    const bool mine = i < total;
    const unsigned active = __ballot_sync(0xffffffffu, mine);
    if (!mine) continue;
    const int2 entry = p.buffer[i];
    const unsigned group = __match_any_sync(active, entry.y);
    const int leader = __ffs(group) - 1;
    int *ends = in.field(F_RING0 + entry.y);
    int base = 0, head = 0;
    if (lane == leader) {
      head = *(volatile int *)ends;
      base = atomicAdd(ends + 1, __popc(group));
    }
    base = __shfl_sync(group, base, leader);
    head = __shfl_sync(group, head, leader);
    const int at = base + __popc(group & ((1u << lane) - 1));
    if (at - head > in.ring_mask) {
      atomicExch(p.error, 3);  // full: the entry is lost, and every worker leaves on the error
      continue;
    }
    fill(&in.ring(entry.y)[at & in.ring_mask], entry.x, p.error);
  }
  __syncwarp();
  if (lane == 0) *p.count = 0;
  __syncwarp();
}

// Relax edges first, first + stride, ... below end of a tail at distance d, buffering what they
// improve; every lane of the warp calls it with the same trip count (edges past `end` are none).
__device__ __forceinline__ void relax_edges(const Pusher &p, const int *RESTRICT columns, const int *RESTRICT weights,
                                           int first, int end, int stride, int trips, dist_t d) {
  const Instance &in = p.in;
  for (int k = 0; k < trips; ++k) {
    const int e = first + k * stride;
    if (e < end) {
      const int u = columns[e];
      const dist_t nd = d + weights[e];
      if (nd < __ldcg(&in.dist[u]) && nd < atomicMin(&in.dist[u], nd)) {
        const dist_t unclamped = p.shift >= 31 ? 0 : nd >> p.shift;
        const int bucket = (int)min(max(unclamped, (dist_t)p.hint), (dist_t)(p.hint + in.buckets - 1));
        const int at = atomicAdd(p.count, 1);  // shared
        p.buffer[at] = make_int2(u, bucket & (in.buckets - 1));
      }
    }
    // Room for the next trip's 32 pushes, or flush.
    __syncwarp();
    if (*(volatile int *)p.count > PUSH_BUFFER - 32) flush(p);
  }
}

__device__ __forceinline__ int trips_of(int edges, int stride) { return (edges + stride - 1) / stride; }

// Wait for a claimed slot's entry (its pusher writes it right after reserving) and empty it.
__device__ __forceinline__ int take_slot(int *slot, const Instance &in) {
  int v;
  while ((v = *(volatile int *)slot) == EMPTY) {
    if (in.load(F_ERROR)) return EMPTY;
  }
  *(volatile int *)slot = EMPTY;
  return v;
}

// Claim up to `want` entries of the ring whose (head, tail) are at `f`, given their values read.
__device__ __forceinline__ bool claim(const Instance &in, int f, int2 ends, int want, int &first, int &count) {
  int head = ends.x;
  while (head < ends.y) {
    const int take = min(ends.y - head, want);
    const int seen = atomicCAS(in.field(f), head, head + take);
    if (seen == head) {
      first = head;
      count = take;
      return true;
    }
    head = seen;
    ends.y = *(volatile int *)&in.field(f)[1];
  }
  return false;
}

// The whole solve of an instance by its gridDim.x blocks' warps (see the file's comment).
extern "C" __global__ void __launch_bounds__(1024) adds_solve(
    int n, const int *RESTRICT row_offsets, const int *RESTRICT columns, const int *RESTRICT weights,
    int *state, int *work, int buckets, int ring_size, int hub_size, int chunk, int hub_threshold,
    int min_shift, int max_shift) {
  extern __shared__ int2 buffers[];  // PUSH_BUFFER per warp, then a count per warp
  const Instance in = instance_of(n, state, work, buckets, ring_size, hub_size);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int workers = gridDim.x * (blockDim.x >> 5);
  int *counts = reinterpret_cast<int *>(buffers + (blockDim.x >> 5) * PUSH_BUFFER);
  if (lane == 0) counts[warp] = 0;
  __syncwarp();
  int backoff = 32;
  int *error = in.field(F_ERROR);
  long long idle_since = -1;
  unsigned long long window = pack_window(0, 0);
  while (true) {
    // The window, the hub ring's ends and every ring's ends, read at once by the lanes (the
    // rings in the order of the window last seen); then lane 0 claims work: a hub chunk, else up
    // to `chunk` entries of the first non-empty ring from the hint's.
    const int seen_hint = (int)(unsigned)(window & 0xffffffffu);
    window = *(volatile unsigned long long *)in.window();
    const int r_lane = (seen_hint + lane) & (buckets - 1);
    int2 ends = make_int2(0, 0);
    if (lane < buckets) ends = in.ends(F_RING0 + r_lane);
    int2 hub_ends = make_int2(0, 0);
    if (hub_threshold > 0 && lane == 0) hub_ends = in.ends(F_HUB);
    const unsigned nonempty = __ballot_sync(0xffffffffu, lane < buckets && ends.x < ends.y);
    const int hint = (int)(unsigned)(window & 0xffffffffu), shift = (int)(window >> 32);
    int ring = -1, first = 0, count = 0;
    if (lane == 0 && hub_ends.x < hub_ends.y && claim(in, F_HUB, hub_ends, 1, first, count)) ring = buckets;
    // Lanes in turn from the first non-empty ring: each tries its own ring's claim.
    for (unsigned left = nonempty; left && __shfl_sync(0xffffffffu, ring, 0) < 0; left &= left - 1) {
      const int k = __ffs(left) - 1;
      if (lane == k && claim(in, F_RING0 + r_lane, ends, chunk, first, count)) ring = r_lane;
      const int got = __shfl_sync(0xffffffffu, ring, k);
      if (got >= 0 && got < buckets) {
        first = __shfl_sync(0xffffffffu, first, k);
        count = __shfl_sync(0xffffffffu, count, k);
        if (lane == 0) ring = got;
        if (lane == k && ((seen_hint + k - hint) & (buckets - 1)) != 0) {
          // Not the hint's ring: move the window to this bucket, adapting Delta to its work.
          const int moved = hint + ((seen_hint + k - hint) & (buckets - 1));
          int new_shift = shift;
          const int queued = ends.y - first;
          if (queued * 8 < workers && shift < max_shift) new_shift = shift + 1;
          if (queued > 4 * workers * chunk && shift > min_shift) new_shift = shift - 1;
          const int new_hint = new_shift > shift ? moved >> 1 : new_shift < shift ? moved << 1 : moved;
          const unsigned long long expected = pack_window(hint, shift);
          if (atomicCAS(in.window(), expected, pack_window(new_hint, new_shift)) == expected)
            atomicAdd(in.field(F_ADVANCES), 1);
        }
      }
    }
    ring = __shfl_sync(0xffffffffu, ring, 0);
    if (ring < 0) {
      // Nothing to take: leave when the instance is done (or failed), else wait a little.
      if (in.load(F_PENDING) == 0 || in.load(F_ERROR)) break;
      const long long now = clock64();
      if (idle_since < 0) idle_since = now;
      if (now - idle_since > IDLE_TIMEOUT_CYCLES) {
        atomicExch(error, 1);
        break;
      }
      __nanosleep(backoff);
      backoff = min(2 * backoff, 1024);
      continue;
    }
    idle_since = -1;
    backoff = 32;
    first = __shfl_sync(0xffffffffu, first, 0);
    count = __shfl_sync(0xffffffffu, count, 0);
    Pusher p;
    p.in = in;
    p.hint = hint;
    p.shift = shift;
    p.error = error;
    p.buffer = buffers + warp * PUSH_BUFFER;
    p.count = &counts[warp];

    if (ring == buckets) {
      // A hub chunk: the warp relaxes its hub_threshold edges.
      unsigned long long entry = EMPTY64;
      if (lane == 0) {
        unsigned long long *slot = &in.hub_ring[first & in.hub_mask];
        while ((entry = *(volatile unsigned long long *)slot) == EMPTY64 && !in.load(F_ERROR)) {
        }
        *(volatile unsigned long long *)slot = EMPTY64;
      }
      entry = __shfl_sync(0xffffffffu, entry, 0);
      if (entry != EMPTY64) {
        const int v = (int)(entry >> 32), c = (int)(entry & 0xffffffffu);
        const dist_t d = __ldcg(&in.dist[v]);
        const int begin = row_offsets[v] + c * hub_threshold;
        const int end = min(row_offsets[v + 1], begin + hub_threshold);
        relax_edges(p, columns, weights, begin + lane, end, 32, trips_of(end - begin, 32), d);
      }
      flush(p);
      __threadfence();
      if (lane == 0) atomicSub(in.field(F_PENDING), 1);
      continue;
    }

    // Each lane takes one entry, and expands its vertex unless it was expanded at its present
    // distance already (by another entry).
    int v = EMPTY, begin = 0, end = 0;
    dist_t d = 0;
    if (lane < count) {
      v = take_slot(&in.ring(ring)[(first + lane) & in.ring_mask], in);
      if (v != EMPTY) {
        d = __ldcg(&in.dist[v]);
        if (atomicMin(&in.expanded[v], d) <= d) v = EMPTY;
      }
    }
    if (v != EMPTY) {
      begin = row_offsets[v];
      end = row_offsets[v + 1];
    }
    // Hubs go to the hub ring in chunks.
    if (hub_threshold > 0 && end - begin >= hub_threshold) {
      const int chunks = trips_of(end - begin, hub_threshold);
      atomicAdd(in.field(F_PENDING), chunks);
      const int head = *(volatile int *)in.field(F_HUB);
      const int at = atomicAdd(in.field(F_HUB) + 1, chunks);
      if (at + chunks - head > in.hub_mask + 1) {
        atomicExch(error, 3);
      } else {
        for (int c = 0; c < chunks; ++c) {
          unsigned long long *slot = &in.hub_ring[(at + c) & in.hub_mask];
          const unsigned long long entry = (unsigned long long)(unsigned)v << 32 | (unsigned)c;
          while (atomicCAS(slot, EMPTY64, entry) != EMPTY64 && !in.load(F_ERROR)) {
          }
        }
      }
      begin = end;
    }
    // Vertices of at least 32 edges: the whole warp, one at a time.
    unsigned wide;
    while ((wide = __ballot_sync(0xffffffffu, end - begin >= 32))) {
      const int leader = __ffs(wide) - 1;
      const int wb = __shfl_sync(0xffffffffu, begin, leader);
      const int we = __shfl_sync(0xffffffffu, end, leader);
      const dist_t wd = __shfl_sync(0xffffffffu, d, leader);
      if (lane == leader) begin = end;
      relax_edges(p, columns, weights, wb + lane, we, 32, trips_of(we - wb, 32), wd);
    }
    // The rest: each lane its own vertex's edges (the warp runs the longest list's trips).
    int trips = end - begin;
    for (int offset = 16; offset > 0; offset >>= 1) trips = max(trips, __shfl_xor_sync(0xffffffffu, trips, offset));
    relax_edges(p, columns, weights, begin, end, 1, trips, d);
    flush(p);
    __threadfence();
    if (lane == 0) atomicSub(in.field(F_PENDING), count);  // after this warp's pushes
  }
}
