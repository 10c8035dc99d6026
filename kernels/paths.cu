// A shortest-path tree from solved distances: a predecessor per vertex, for CK instances at once
// (blockIdx.y is the instance; dist and parents are (CK, n) row-major). Any algorithm's distances
// will do: this pass reads nothing else of the solve.
//
// An arc u -> v is tight when dist[u] + w == dist[v]. Every reachable vertex but the source has a
// tight arc into it, and any choice of one per vertex is a tree when every weight is positive
// (distances strictly rise along the choices, so they cannot close a cycle). Zero weights can: two
// vertices at the same distance joined by zero-weight arcs both ways would pick each other. So:
//   1. Where no vertex has `hub_degree` in-arcs or more, `pull_parents`: a warp per vertex v scans
//      v's in-arcs (the graph transposed) until one is tight and of positive weight, and writes
//      its tail, or NO_PARENT: every parent written once, one launch. Elsewhere `clear_parents`,
//      then `tight_parents`: a warp per vertex u scans u's arcs and gives every v it reaches by a
//      tight arc of positive weight the parent u (plain stores: any of the racing values is a
//      valid parent, and the pass ends before anything reads them). A vertex of `hub_degree` arcs
//      or more is left to `tight_chunks`, where blocks take its arcs a chunk each (one warp would
//      hold the pass up on a skewed graph: rmat17's tree cost 43% of its solve that way).
//   2. Only for graphs with zero-weight arcs, per connected set of vertices the zero-weight arcs
//      join (a component): a vertex v still without a parent takes u, over a zero-weight arc
//      u -> v, once u has one (or is the source) and dist[u] == dist[v]; repeated until nothing
//      changes. A vertex's parent is set once and was anchored before it: no cycle.
//      `zero_components` takes a component of at most 32 vertices a warp, a lane a vertex, its
//      zero-weight in-arcs a bitmask of the component's lanes. `zero_closure` takes the arcs of
//      the larger ones (given as a list): one block per instance walks them again and again,
//      parents claimed by compare-and-swap, until a sweep changes nothing.
// A vertex whose shortest paths all end in zero-weight arcs gets its parent in step 2: the last
// positive arc of such a path is tight and enters a vertex step 1 anchors (or the path starts at
// the source), and step 2 follows the zero-weight arcs from there.
// Distances are 64-bit in a build with -DWIDE_DISTANCES=1 (distance.cuh).
#include "distance.cuh"

#define NO_PARENT (-1)

// parents[v] = NO_PARENT for every vertex of every instance.
extern "C" __global__ void clear_parents(int n, int *parents) {
  int *row = parents + (size_t)blockIdx.y * n;
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) row[v] = NO_PARENT;
}

// Arcs begin, begin + step, ... below end of u (at distance du) that are tight and of positive
// weight make u their head's parent.
__device__ __forceinline__ void tight_arcs(int u, dist_t du, int begin, int end, int step,
                                           const int *__restrict__ columns, const int *__restrict__ weights,
                                           const dist_t *__restrict__ dist, int *parents) {
  for (int e = begin; e < end; e += step) {
    const int w = weights[e];
    const int v = columns[e];
    if (w > 0 && (long long)du + w == (long long)dist[v]) parents[v] = u;
  }
}

extern "C" __global__ void tight_parents(int n, int hub_degree, const int *__restrict__ row_offsets,
                                         const int *__restrict__ columns, const int *__restrict__ weights,
                                         const dist_t *__restrict__ dist_rows, int *parents_rows) {
  const dist_t *dist = dist_rows + (size_t)blockIdx.y * n;
  int *parents = parents_rows + (size_t)blockIdx.y * n;
  const int lane = threadIdx.x & 31;
  const int warps = gridDim.x * (blockDim.x >> 5);
  for (int u = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); u < n; u += warps) {
    const dist_t du = dist[u];
    const int begin = row_offsets[u], end = row_offsets[u + 1];
    if (du == INF || end - begin >= hub_degree) continue;
    tight_arcs(u, du, begin + lane, end, 32, columns, weights, dist, parents);
  }
}

// A warp per vertex v: the tail of the first tight in-arc of positive weight found, or NO_PARENT.
extern "C" __global__ void pull_parents(int n, const int *__restrict__ in_offsets, const int *__restrict__ in_tails,
                                        const int *__restrict__ in_weights, const dist_t *__restrict__ dist_rows,
                                        int *parents_rows) {
  const dist_t *dist = dist_rows + (size_t)blockIdx.y * n;
  int *parents = parents_rows + (size_t)blockIdx.y * n;
  const int lane = threadIdx.x & 31;
  const int warps = gridDim.x * (blockDim.x >> 5);
  for (int v = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); v < n; v += warps) {
    const dist_t dv = dist[v];
    int parent = NO_PARENT;
    if (dv != INF)
      for (int first = in_offsets[v], end = in_offsets[v + 1]; first < end && parent == NO_PARENT; first += 32) {
        const int e = first + lane;
        int u = NO_PARENT;
        if (e < end) {
          const int w = in_weights[e];
          u = in_tails[e];
          const dist_t du = dist[u];
          if (!(w > 0 && du != INF && (long long)du + w == (long long)dv)) u = NO_PARENT;
        }
        const unsigned tight = __ballot_sync(0xffffffffu, u != NO_PARENT);
        if (tight) parent = __shfl_sync(0xffffffffu, u, __ffs(tight) - 1);
      }
    if (lane == 0) parents[v] = parent;
  }
}

// A component of at most 32 vertices a warp: `members` (the vertices, by component: component c
// holds members[component_start[c]] to members[component_start[c + 1] - 1]) and per member
// `in_masks`, the members (by their index in the component) with a zero-weight arc into it.
extern "C" __global__ void zero_components(int n, int n_components, const int *__restrict__ component_start,
                                           const int *__restrict__ members, const unsigned *__restrict__ in_masks,
                                           const int *__restrict__ sources, const dist_t *__restrict__ dist_rows,
                                           int *parents_rows) {
  const dist_t *dist = dist_rows + (size_t)blockIdx.y * n;
  int *parents = parents_rows + (size_t)blockIdx.y * n;
  const int source = sources[blockIdx.y], lane = threadIdx.x & 31;
  const int warps = gridDim.x * (blockDim.x >> 5);
  for (int c = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); c < n_components; c += warps) {
    const int first = component_start[c], size = component_start[c + 1] - first;
    const bool member = lane < size;
    const int v = member ? members[first + lane] : -1;
    const dist_t dv = member ? dist[v] : INF;
    const unsigned in_mask = member ? in_masks[first + lane] : 0u;
    unsigned level = 0;  // the members at this lane's distance
    for (int j = 0; j < size; ++j) level |= (unsigned)(__shfl_sync(0xffffffffu, dv, j) == dv) << j;
    bool anchored = dv != INF && (v == source || parents[v] != NO_PARENT);
    int parent = NO_PARENT;
    unsigned known = __ballot_sync(0xffffffffu, anchored);
    for (;;) {
      const unsigned from = in_mask & level & known;
      if (!anchored && dv != INF && from) {
        parent = __ffs(from) - 1;  // a lane, its vertex below
        anchored = true;
      }
      const unsigned now = __ballot_sync(0xffffffffu, anchored);
      if (now == known) break;
      known = now;
    }
    const int tail = __shfl_sync(0xffffffffu, v, parent < 0 ? 0 : parent);
    if (parent >= 0) parents[v] = tail;
  }
}

// `chunks`: (vertex, first arc) of every chunk of `chunk_arcs` arcs of the vertices of at least
// `hub_degree` arcs; a block takes a chunk at a time.
extern "C" __global__ void tight_chunks(int n, int n_chunks, int chunk_arcs, const int2 *__restrict__ chunks,
                                        const int *__restrict__ row_offsets, const int *__restrict__ columns,
                                        const int *__restrict__ weights, const dist_t *__restrict__ dist_rows,
                                        int *parents_rows) {
  const dist_t *dist = dist_rows + (size_t)blockIdx.y * n;
  int *parents = parents_rows + (size_t)blockIdx.y * n;
  for (int c = blockIdx.x; c < n_chunks; c += gridDim.x) {
    const int2 chunk = chunks[c];
    const dist_t du = dist[chunk.x];
    if (du == INF) continue;
    const int end = min(row_offsets[chunk.x + 1], chunk.y + chunk_arcs);
    tight_arcs(chunk.x, du, chunk.y + threadIdx.x, end, blockDim.x, columns, weights, dist, parents);
  }
}

// `arcs` holds the graph's zero-weight arcs as (u, v) pairs; `sources` the instances' sources.
extern "C" __global__ void zero_closure(int n, int n_arcs, const int2 *__restrict__ arcs,
                                        const int *__restrict__ sources, const dist_t *__restrict__ dist_rows,
                                        int *parents_rows) {
  const dist_t *dist = dist_rows + (size_t)blockIdx.y * n;
  int *parents = parents_rows + (size_t)blockIdx.y * n;
  const int source = sources[blockIdx.y];
  bool changed = true;
  while (changed) {
    bool mine = false;
    for (int a = threadIdx.x; a < n_arcs; a += blockDim.x) {
      const int2 arc = arcs[a];
      const int u = arc.x, v = arc.y;
      if (v == source || dist[u] == INF || dist[u] != dist[v]) continue;
      if (*(volatile int *)&parents[v] != NO_PARENT) continue;
      if (u != source && *(volatile int *)&parents[u] == NO_PARENT) continue;
      if (atomicCAS(&parents[v], NO_PARENT, u) == NO_PARENT) mine = true;
    }
    changed = __syncthreads_or(mine);
  }
}
