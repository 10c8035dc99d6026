// GPU Crauser and GPU Martín SSSP, successors variant (thesis chapter 3, Alg. 5-10).
//
// Compile-time switch: -DCRAUSER=1 (GPU Crauser, the default) or -DCRAUSER=0 (GPU Martín);
// -DWIDE_DISTANCES=1 holds distances and thresholds in 64 bits (distance.cuh).
// The L1 state "no_l1" is the same source compiled with -DNO_L1=1 -Xptxas -dlcm=cg (see RESTRICT).
//
// Batched instances: CK independent SSSP instances run at once, each with its own workspace
// (dist, unsettled, frontier: slices of n elements at offset instance * n). A launch serves every
// instance in one grid: blockIdx.y is the instance. The host may also launch one instance per grid
// (gridDim.y = 1, first_instance = k) on its own stream; the code is the same.
//
// The threshold stays on the device. Each instance has two threshold slots, delta[2 * inst + p]:
// iteration i writes slot p = i & 1 (minimum) and reads it (update); update also resets the other
// slot to INF for iteration i + 1. An instance whose last threshold is INF has finished: every
// kernel of a later iteration returns at once for it, so the host may launch a few iterations past
// the end (it checks the thresholds asynchronously) at the cost of near-empty launches.

#ifndef CRAUSER
#define CRAUSER 1
#endif

#include "distance.cuh"

#define WEIGHT_INF 0x7fffffff  // omega of a vertex without out-arcs

// Read-only inputs are `const T *RESTRICT`. With __restrict__ the compiler may load them through
// the read-only data path (LDG.E.CONSTANT), which caches in L1 whatever -dlcm says; the "no_l1"
// variant (-DNO_L1=1 with -Xptxas -dlcm=cg) leaves __restrict__ out, so every global load is a
// plain one that -dlcm=cg sends past L1 (cached in L2 only).
#if NO_L1
#define RESTRICT
#else
#define RESTRICT __restrict__
#endif

typedef unsigned char flag_t;

__device__ __forceinline__ int threshold_slot(int inst, int parity) { return 2 * inst + parity; }

// dist = INF, all unsettled, no frontier; then the source: dist 0, settled, in the frontier.
// Slot 1 starts non-INF so that iteration 0 (parity 0) is not taken for finished.
extern "C" __global__ void init(int n, int first_instance, const int *RESTRICT sources,
                                dist_t *dist, flag_t *unsettled, flag_t *frontier, dist_t *delta,
                                int *iterations) {
  const int inst = first_instance + blockIdx.y;
  const size_t off = (size_t)inst * n;
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  const int source = sources[inst];
  if (v < n) {
    const bool is_source = v == source;
    dist[off + v] = is_source ? 0 : INF;
    unsettled[off + v] = !is_source;
    frontier[off + v] = is_source;
  }
  if (v == 0) {
    delta[threshold_slot(inst, 0)] = INF;
    delta[threshold_slot(inst, 1)] = 0;
    iterations[inst] = 0;
  }
}

// Crauser's out-value omega(v) = min weight of v's out-edges (WEIGHT_INF for a vertex without any).
extern "C" __global__ void out_weight(int n, const int *RESTRICT row_offsets,
                                      const int *RESTRICT weights, int *omega) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int best = WEIGHT_INF;
  for (int e = row_offsets[v]; e < row_offsets[v + 1]; ++e) best = min(best, weights[e]);
  omega[v] = best;
}

// Alg. 6 with `lanes` threads per vertex (a power of two up to 32, lanes == 1 is the thesis's
// thread per vertex): the lanes of a frontier vertex stride over its edge list together.
// The thesis's check U[j] is left out: a settled j already holds its final distance, which no
// dist[f] + w can undercut, so the comparison below never lets a settled vertex change; skipping
// the check saves one scattered load per edge.
extern "C" __global__ void relax(int n, int first_instance, const int *RESTRICT row_offsets,
                                 const int *RESTRICT columns, const int *RESTRICT weights,
                                 dist_t *dist, const flag_t *RESTRICT frontier,
                                 const dist_t *RESTRICT delta, int parity, int lanes_log2) {
  const int inst = first_instance + blockIdx.y;
  if (delta[threshold_slot(inst, parity ^ 1)] == INF) return;  // finished
  const size_t off = (size_t)inst * n;
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int v = (int)(t >> lanes_log2);
  if (v >= n || !frontier[off + v]) return;
  const int lane = (int)(t & ((1 << lanes_log2) - 1));
  const dist_t dv = dist[off + v];
  const int end = row_offsets[v + 1];
  for (int e = row_offsets[v] + lane; e < end; e += 1 << lanes_log2) {
    const int j = columns[e];
    const dist_t candidate = dv + weights[e];
    if (candidate < dist[off + j]) atomicMin(&dist[off + j], candidate);
  }
}

__device__ __forceinline__ dist_t min_key(const dist_t *RESTRICT dist, const flag_t *RESTRICT unsettled,
                                          const int *RESTRICT omega, size_t off, int v) {
  if (!unsettled[off + v]) return INF;
#if CRAUSER && WIDE_DISTANCES
  // dist + omega, INF where either is infinite (a finite sum is far below INF in 64 bits)
  const dist_t d = dist[off + v];
  const int w = omega[v];
  return d == INF || w == WEIGHT_INF ? INF : d + w;
#elif CRAUSER
  // dist + omega saturating at INF (both are at most INF, so the unsigned sum cannot wrap).
  const unsigned sum = (unsigned)dist[off + v] + (unsigned)omega[v];
  return sum > (unsigned)INF ? INF : (int)sum;
#else
  return dist[off + v];
#endif
}

// Alg. 9: each block reduces 2 x blockDim.x vertices. Works for every block size that is a
// multiple of 32 up to 1024: a warp-shuffle reduction inside each warp, then the first warp
// reduces the warps' results. The block's result goes into the threshold with one atomicMin, so
// the threshold never leaves the device.
extern "C" __global__ void minimum(int n, int first_instance, const dist_t *RESTRICT dist,
                                   const flag_t *RESTRICT unsettled,
                                   const int *RESTRICT omega, dist_t *delta, int parity) {
  __shared__ dist_t warp_min[32];
  const int inst = first_instance + blockIdx.y;
  if (delta[threshold_slot(inst, parity ^ 1)] == INF) return;  // finished
  const size_t off = (size_t)inst * n;
  const int v1 = blockIdx.x * 2 * blockDim.x + threadIdx.x;
  const int v2 = v1 + blockDim.x;
  dist_t value = INF;
  if (v1 < n) value = min_key(dist, unsettled, omega, off, v1);
  if (v2 < n) value = min(value, min_key(dist, unsettled, omega, off, v2));
  for (int stride = 16; stride > 0; stride >>= 1)
    value = min(value, __shfl_down_sync(0xffffffffu, value, stride));
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) warp_min[warp] = value;
  __syncthreads();
  if (warp == 0) {
    const int n_warps = blockDim.x >> 5;
    value = lane < n_warps ? warp_min[lane] : INF;
    for (int stride = 16; stride > 0; stride >>= 1)
      value = min(value, __shfl_down_sync(0xffffffffu, value, stride));
    if (lane == 0 && value < INF) atomicMin(&delta[threshold_slot(inst, parity)], value);
  }
}

// Alg. 7 (Martín: dist == delta) and Alg. 10 (Crauser: dist <= delta): the unsettled vertices
// within the threshold are settled and form the next frontier.
extern "C" __global__ void update(int n, int first_instance, const dist_t *RESTRICT dist,
                                  flag_t *unsettled, flag_t *frontier, dist_t *delta, int parity,
                                  int *iterations) {
  const int inst = first_instance + blockIdx.y;
  const dist_t threshold = delta[threshold_slot(inst, parity)];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    // Count the iterations that ran (those whose previous threshold was finite), the last one,
    // which found no threshold, included: the CPU solvers in reference.py count the same way.
    if (delta[threshold_slot(inst, parity ^ 1)] != INF) iterations[inst] += 1;
    delta[threshold_slot(inst, parity ^ 1)] = INF;  // the next iteration's slot
  }
  if (threshold == INF) return;  // finished
  const size_t off = (size_t)inst * n;
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  const dist_t d = dist[off + v];
#if CRAUSER
  const bool settle = unsettled[off + v] && d <= threshold;
#else
  const bool settle = unsettled[off + v] && d == threshold;
#endif
  frontier[off + v] = settle;
  if (settle) unsettled[off + v] = 0;
}
