// The type the kernels hold distances in, and INF, its largest value: an unreachable vertex.
// 32 bits by default; a build with -DWIDE_DISTANCES=1 holds 64, for a graph one of whose shortest
// paths may pass 2^31 - 1 (autotune/reference/distance_range.py decides; the host reads the rows
// as int32 or int64 alike). Weights stay 32-bit: a relaxation adds one to a distance of dist_t.
#pragma once

#if WIDE_DISTANCES
typedef long long dist_t;
#define INF 0x7fffffffffffffffLL
#else
typedef int dist_t;
#define INF 0x7fffffff
#endif
