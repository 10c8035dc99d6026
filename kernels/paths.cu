// A shortest-path tree from solved distances: a predecessor per vertex, for CK instances at once
// (blockIdx.y is the instance; dist and parents are (CK, n) row-major). Any algorithm's distances
// will do: this pass reads nothing else of the solve.
//
// An arc u -> v is tight when dist[u] + w == dist[v]. Every reachable vertex but the source has a
// tight arc into it, and any choice of one per vertex is a tree when every weight is positive
// (distances strictly rise along the choices, so they cannot close a cycle). Zero weights can: two
// vertices at the same distance joined by zero-weight arcs both ways would pick each other. So:
//   1. `tight_parents`: a warp per vertex u scans u's arcs and gives every v it reaches by a tight
//      arc of positive weight the parent u (plain stores: any of the racing values is a valid
//      parent, and the pass ends before anything reads them). A vertex of `hub_degree` arcs or
//      more is left to `tight_chunks`, where blocks take its arcs a chunk each (one warp would
//      hold the pass up on a skewed graph: rmat17's tree cost 43% of its solve that way).
//   2. `zero_closure` (only for graphs with zero-weight arcs): one block per instance walks the
//      graph's zero-weight arcs u -> v (given as a list) again and again; v, still without a
//      parent, takes u once u has one (or is the source) and dist[u] == dist[v]. The parent is
//      claimed by compare-and-swap, so a vertex's parent is set once and was anchored before it:
//      no cycle. The block stops when a sweep changes nothing.
// A vertex whose shortest paths all end in zero-weight arcs gets its parent in step 2: the last
// positive arc of such a path is tight and enters a vertex step 1 anchors (or the path starts at
// the source), and step 2 follows the zero-weight arcs from there.
#include "frontier.cuh"

#define NO_PARENT (-1)

// parents[v] = NO_PARENT for every vertex of every instance.
extern "C" __global__ void clear_parents(int n, int *parents) {
  int *row = parents + (size_t)blockIdx.y * n;
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) row[v] = NO_PARENT;
}

// Arcs begin, begin + step, ... below end of u (at distance du) that are tight and of positive
// weight make u their head's parent.
__device__ __forceinline__ void tight_arcs(int u, int du, int begin, int end, int step,
                                           const int *__restrict__ columns, const int *__restrict__ weights,
                                           const int *__restrict__ dist, int *parents) {
  for (int e = begin; e < end; e += step) {
    const int w = weights[e];
    const int v = columns[e];
    if (w > 0 && (long long)du + w == (long long)dist[v]) parents[v] = u;
  }
}

extern "C" __global__ void tight_parents(int n, int hub_degree, const int *__restrict__ row_offsets,
                                         const int *__restrict__ columns, const int *__restrict__ weights,
                                         const int *__restrict__ dist_rows, int *parents_rows) {
  const int *dist = dist_rows + (size_t)blockIdx.y * n;
  int *parents = parents_rows + (size_t)blockIdx.y * n;
  const int lane = threadIdx.x & 31;
  const int warps = gridDim.x * (blockDim.x >> 5);
  for (int u = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); u < n; u += warps) {
    const int du = dist[u];
    const int begin = row_offsets[u], end = row_offsets[u + 1];
    if (du == INF || end - begin >= hub_degree) continue;
    tight_arcs(u, du, begin + lane, end, 32, columns, weights, dist, parents);
  }
}

// `chunks`: (vertex, first arc) of every chunk of `chunk_arcs` arcs of the vertices of at least
// `hub_degree` arcs; a block takes a chunk at a time.
extern "C" __global__ void tight_chunks(int n, int n_chunks, int chunk_arcs, const int2 *__restrict__ chunks,
                                        const int *__restrict__ row_offsets, const int *__restrict__ columns,
                                        const int *__restrict__ weights, const int *__restrict__ dist_rows,
                                        int *parents_rows) {
  const int *dist = dist_rows + (size_t)blockIdx.y * n;
  int *parents = parents_rows + (size_t)blockIdx.y * n;
  for (int c = blockIdx.x; c < n_chunks; c += gridDim.x) {
    const int2 chunk = chunks[c];
    const int du = dist[chunk.x];
    if (du == INF) continue;
    const int end = min(row_offsets[chunk.x + 1], chunk.y + chunk_arcs);
    tight_arcs(chunk.x, du, chunk.y + threadIdx.x, end, blockDim.x, columns, weights, dist, parents);
  }
}

// `arcs` holds the graph's zero-weight arcs as (u, v) pairs; `sources` the instances' sources.
extern "C" __global__ void zero_closure(int n, int n_arcs, const int2 *__restrict__ arcs,
                                        const int *__restrict__ sources, const int *__restrict__ dist_rows,
                                        int *parents_rows) {
  const int *dist = dist_rows + (size_t)blockIdx.y * n;
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
