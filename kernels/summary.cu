// Per-source reductions of a batch's distances where they are (autotune/gpu/summary.py): the
// distances of every source of a graph are n^2 numbers (61 GB for a 87k-vertex road network), which
// closeness or eccentricity never needs on the host. Each instance's row is reduced to three
// numbers: the vertices it reaches (distance below INF), the largest finite distance, and their sum.
//
// rows: (count, n) distances, row k for instance first + k; reached, farthest and total are indexed
// by instance and start at 0. blockIdx.y is the row; each block strides over the row, reduces in
// registers, then across its warps, and adds its part with one atomic per quantity. Distances (and
// `farthest`) are 64-bit in a build with -DWIDE_DISTANCES=1 (distance.cuh).

#include "distance.cuh"

extern "C" __global__ void row_summary(int n, int first, const dist_t *__restrict__ rows, unsigned int *reached,
                                       dist_t *farthest, unsigned long long *total) {
  const int k = first + blockIdx.y;
  const dist_t *mine = rows + (size_t)blockIdx.y * n;
  unsigned int count = 0;
  dist_t largest = 0;
  unsigned long long sum = 0;
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
    const dist_t d = mine[v];
    if (d != INF) {
      count += 1;
      largest = max(largest, d);
      sum += (unsigned long long)d;
    }
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    count += __shfl_down_sync(0xffffffffu, count, offset);
    largest = max(largest, __shfl_down_sync(0xffffffffu, largest, offset));
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  }
  __shared__ unsigned int warp_count[32];
  __shared__ dist_t warp_largest[32];
  __shared__ unsigned long long warp_sum[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) {
    warp_count[warp] = count;
    warp_largest[warp] = largest;
    warp_sum[warp] = sum;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < (blockDim.x + 31) / 32; ++w) {
      count += warp_count[w];
      largest = max(largest, warp_largest[w]);
      sum += warp_sum[w];
    }
    if (count) {
      atomicAdd(&reached[k], count);
      atomicMax(&farthest[k], largest);
      atomicAdd(&total[k], sum);
    }
  }
}
