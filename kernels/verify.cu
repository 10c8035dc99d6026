// Checking a solve's distances on the GPU against the CPU's (autotune/gpu/verify.py): a batch of CK
// instances holds CK rows of n distances, gigabytes at the batch end of a large graph, which a
// check on the host must first copy over the bus. Here each instance's row is compared with the
// reference row of its source, already in GPU memory, and only the first vertex that differs
// comes back (n when none does); the host then copies that one row to say what differs.
//
// got: (count, n) rows, row k for instance first + k; expected: the sample's reference rows;
// row_of[first + k]: the reference row of instance first + k; differs[first + k] starts at n and
// ends at the smallest vertex whose distances differ. blockIdx.y is the row. Distances are 64-bit
// in a build with -DWIDE_DISTANCES=1 (distance.cuh).

#include "distance.cuh"

extern "C" __global__ void first_difference(int n, int first, const dist_t *__restrict__ got,
                                            const dist_t *__restrict__ expected, const int *__restrict__ row_of,
                                            int *__restrict__ differs) {
  const int k = first + blockIdx.y;
  const dist_t *mine = got + (size_t)blockIdx.y * n;
  const dist_t *want = expected + (size_t)row_of[k] * n;
  int found = n;
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
    if (mine[v] != want[v]) {
      found = v;  // the first this thread meets is its smallest
      break;
    }
  }
  if (found < n) atomicMin(&differs[k], found);
}
