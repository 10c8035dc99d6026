// A graph renumbered on the GPU, and distances put back in the graph's ids (autotune/gpu/renumber.py):
// Δ-stepping relaxes a skewed graph in an order of its vertices by in-degree (autotune/graphs/order.py),
// built here from the graph already in GPU memory rather than on the host (rmat22's 128M arcs took
// seconds of numpy), and hands out its distances in the graph's own ids. Distances are 64-bit in a
// build with -DWIDE_DISTANCES=1 (distance.cuh).

#include "distance.cuh"

// Row r of the renumbered graph (its offsets already in new_offsets) is row old_of[r] of the graph,
// each head renamed by new_of, the arcs in their order; a warp a row.
extern "C" __global__ void renumber_arcs(int n, const int *__restrict__ row_offsets, const int *__restrict__ columns,
                                         const int *__restrict__ weights, const int *__restrict__ old_of,
                                         const int *__restrict__ new_of, const int *__restrict__ new_offsets,
                                         int *__restrict__ new_columns, int *__restrict__ new_weights) {
  const int lane = threadIdx.x & 31;
  const int warps = (gridDim.x * blockDim.x) >> 5;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < n; r += warps) {
    const int from = row_offsets[old_of[r]], to = new_offsets[r], degree = new_offsets[r + 1] - to;
    for (int k = lane; k < degree; k += 32) {
      new_columns[to + k] = new_of[columns[from + k]];
      new_weights[to + k] = weights[from + k];
    }
  }
}

// Row blockIdx.y of `out` in the graph's ids: out[v] = dist[new_of[v]] (rows of n distances each).
extern "C" __global__ void rows_in_graph_order(int n, const int *__restrict__ new_of, const dist_t *__restrict__ dist,
                                               dist_t *__restrict__ out) {
  const size_t row = (size_t)blockIdx.y * n;
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
    out[row + v] = dist[row + new_of[v]];
  }
}
