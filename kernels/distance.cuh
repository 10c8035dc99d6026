// The type the kernels hold distances in, and INF, its largest value: an unreachable vertex.
// 32 bits by default; a build with -DWIDE_DISTANCES=1 holds 64, for a graph one of whose shortest
// paths may pass 2^31 - 1 (autotune/reference/distance_range.py decides; the host reads the rows
// as int32 or int64 alike). The graph's weights stay 32-bit: a relaxation adds one to a distance of
// dist_t (PHAST's hierarchy weights are paths: kernels/phast.cu's weight_t follows the width).
#pragma once

#if WIDE_DISTANCES
typedef long long dist_t;
#define INF 0x7fffffffffffffffLL
#else
typedef int dist_t;
#define INF 0x7fffffff
#endif

#define DIST_INTS ((size_t)(sizeof(dist_t) / sizeof(int)))  // ints a distance takes

// Where a 64-bit build keeps the state's distance fields: rows of dist_t after `rows` int rows of
// `columns` each, from the next 8 bytes (the hosts' `delta.engine.state_bytes`).
__device__ __forceinline__ dist_t *wide_rows(int *state, int rows, int columns) {
  return reinterpret_cast<dist_t *>(state + (((size_t)rows * columns + 1) & ~(size_t)1));
}
