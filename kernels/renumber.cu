// A graph renumbered on the GPU, and distances put back in the graph's ids
// (autotune/gpu/renumber.py): Δ-stepping relaxes a skewed graph in an order of its vertices by
// in-degree (autotune/graphs/order.py), built here from the graph already in GPU memory rather than
// on the host (`graphs.order.renumbered`, numpy: seconds for rmat20's 31M arcs), and hands out its
// distances in the graph's own ids. Distances are 64-bit in a build with -DWIDE_DISTANCES=1
// (distance.cuh).

#include <cub/block/block_radix_sort.cuh>

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

// Each row's arcs sorted by head (the renumbered ids: hubs first), so that a warp's consecutive
// arcs reach the same few hubs' distances together: a thread a row of 2 to `small` arcs, by
// insertion in place.
extern "C" __global__ void sort_short_rows(int n, const int *__restrict__ offsets, int *__restrict__ columns,
                                           int *__restrict__ weights, int small) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
    const int begin = offsets[r], end = offsets[r + 1];
    if (end - begin < 2 || end - begin > small) continue;
    for (int i = begin + 1; i < end; ++i) {
      const int head = columns[i], weight = weights[i];
      int j = i - 1;
      for (; j >= begin && columns[j] > head; --j) {
        columns[j + 1] = columns[j];
        weights[j + 1] = weights[j];
      }
      columns[j + 1] = head;
      weights[j + 1] = weight;
    }
  }
}

// The longer rows' arcs sorted by head in runs of SORT_RUN (a row of more is sorted run by run): a
// block a run, run k at arcs runs[k] .. runs[k] + lengths[k].
#define SORT_THREADS 256
#define SORT_ITEMS 8
#define SORT_RUN (SORT_THREADS * SORT_ITEMS)
extern "C" __global__ void __launch_bounds__(SORT_THREADS) sort_long_runs(const int *__restrict__ runs,
                                                                         const int *__restrict__ lengths,
                                                                         int *__restrict__ columns,
                                                                         int *__restrict__ weights) {
  typedef cub::BlockRadixSort<int, SORT_THREADS, SORT_ITEMS, int> Sort;
  __shared__ typename Sort::TempStorage temp;
  const int first = runs[blockIdx.x], length = lengths[blockIdx.x];
  int heads[SORT_ITEMS], values[SORT_ITEMS];
  for (int i = 0; i < SORT_ITEMS; ++i) {
    const int k = threadIdx.x * SORT_ITEMS + i;
    heads[i] = k < length ? columns[first + k] : 0x7fffffff;  // past the run: sorted last, not stored
    values[i] = k < length ? weights[first + k] : 0;
  }
  Sort(temp).Sort(heads, values);
  for (int i = 0; i < SORT_ITEMS; ++i) {
    const int k = threadIdx.x * SORT_ITEMS + i;
    if (k < length) {
      columns[first + k] = heads[i];
      weights[first + k] = values[i];
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
