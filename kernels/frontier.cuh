// What kernels/delta.cu and kernels/lanes.cu share: INF (kernels/distance.cuh: the distances'
// infinity, of dist_t) and DELTA_INF (Delta's, an int), the L1 state's RESTRICT, a warp's prefix
// sum and minimum, work handed out by a counter and the near-far threshold schedule; and lanes.cu's block-wide
// prefix sum (delta.cu has its own, with one barrier).
#pragma once

#include "distance.cuh"

#define DELTA_INF 0x7fffffff  // Delta = inf: one bucket (the host's delta_argument)

// The L1 state "no_l1" is a source compiled with -DNO_L1=1 -Xptxas -dlcm=cg: plain loads only (the
// read-only path, which __restrict__ const pointers allow, is cached in L1 whatever -dlcm says).
#if NO_L1
#define RESTRICT
#else
#define RESTRICT __restrict__
#endif

// Inclusive prefix sum over the warp's lanes.
__device__ __forceinline__ int warp_inclusive_sum(int value) {
  const int lane = threadIdx.x & 31;
  for (int offset = 1; offset < 32; offset <<= 1) {
    const int other = __shfl_up_sync(0xffffffffu, value, offset);
    if (lane >= offset) value += other;
  }
  return value;
}

// Inclusive prefix sum over the block (blockDim.x a multiple of 32, at most 1024).
__device__ __forceinline__ int block_inclusive_sum(int value, int *warp_sums) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  value = warp_inclusive_sum(value);
  if (lane == 31) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    const int n_warps = blockDim.x >> 5;
    const int total = warp_inclusive_sum(lane < n_warps ? warp_sums[lane] : 0);
    if (lane < n_warps) warp_sums[lane] = total;
  }
  __syncthreads();
  if (warp > 0) value += warp_sums[warp - 1];
  return value;
}

// The smallest of the warp's values (every lane calls it).
__device__ __forceinline__ dist_t warp_min(dist_t value) {
#if WIDE_DISTANCES
  for (int offset = 16; offset > 0; offset >>= 1) value = min(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
#else
  return __reduce_min_sync(0xffffffffu, value);
#endif
}

// Take the next item of a counter-handed-out sequence (the whole block takes one at a time).
__device__ __forceinline__ int take(int *next, int step) {
  __shared__ int taken;
  __syncthreads();
  if (threadIdx.x == 0) taken = atomicAdd(next, step);
  __syncthreads();
  return taken;
}

// The first threshold: Delta, INF for Delta = inf (the same value in a 32-bit build).
__device__ __forceinline__ dist_t first_threshold(int delta) {
  return delta == DELTA_INF ? INF : (dist_t)delta;
}

// The threshold after a split: the bucket of width delta above the smallest distance pushed to
// the far pile (INF for delta = inf or an empty pile), at least one bucket above the old threshold.
__device__ __forceinline__ dist_t next_threshold(dist_t old_threshold, dist_t far_min, int delta) {
  if (delta == DELTA_INF || far_min == INF) return INF;
  long long t = ((long long)far_min / delta + 1) * delta;
  if (t <= old_threshold) t = (long long)old_threshold + delta;
  return t >= INF ? INF : (dist_t)t;
}
