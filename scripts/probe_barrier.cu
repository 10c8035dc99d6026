// Probe (issue 29, docs/notes/kernels.md run AF): what a grid barrier costs alone, and with the
// bookkeeping around solve_grid's iteration, on blocks all resident. The kernel runs `rounds`
// iterations; scripts/probe_barrier.py times it with CUDA events and divides. Not a shipped kernel.
// MODE 0: delta.cu's instance_barrier (one atomicAdd a block, the count's top bit flips), with
//         __threadfence before the add and after the wait
//      1: the same, plus the leader zeroing four counters and every block taking a tile from a
//         counter before it and reading two counts after it, as solve_grid does
//      2: without the fences (not a barrier: a floor)
//      3: the add an atom.add.release.gpu, the wait ld.acquire.gpu, no fences
//      4: fence.acq_rel.gpu, a relaxed atom.add, the wait ld.acquire.gpu (as CUTLASS's barrier)
#ifndef MODE
#define MODE 0
#endif

__device__ __forceinline__ unsigned load_acquire(const unsigned *p) {
  unsigned v;
  asm volatile("ld.global.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ unsigned arrive(unsigned *count, unsigned add) {
  unsigned before;
#if MODE == 3
  asm volatile("atom.add.release.gpu.global.u32 %0, [%1], %2;" : "=r"(before) : "l"(count), "r"(add) : "memory");
#elif MODE == 4
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
  asm volatile("atom.add.relaxed.gpu.global.u32 %0, [%1], %2;" : "=r"(before) : "l"(count), "r"(add) : "memory");
#else
#if MODE != 2
  __threadfence();
#endif
  before = atomicAdd(count, add);
#endif
  return before;
}

__device__ __forceinline__ void barrier(unsigned *count) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned before = arrive(count, blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u);
#if MODE >= 3
    while (((before ^ load_acquire(count)) & 0x80000000u) == 0) {
    }
#else
    while (((before ^ *(volatile unsigned *)count) & 0x80000000u) == 0) {
    }
#if MODE != 2
    __threadfence();
#endif
#endif
  }
  __syncthreads();
}

extern "C" __global__ void loop(unsigned *count, int *fields, int rounds) {
#if MODE == 1
  __shared__ int tile;
#endif
  int sink = 0;
  for (int r = 0; r < rounds; ++r) {
#if MODE == 1
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      const int later = (r + 2) % 3;
      fields[4 + later] = 0;
      fields[8 + later] = 0;
      fields[12 + later] = 0;
      fields[16 + later] = 0x7fffffff;
    }
    if (threadIdx.x == 0) tile = atomicAdd(&fields[12 + r % 3], 1);
    __syncthreads();
    sink += tile;
#endif
    barrier(count);
#if MODE == 1
    sink += *(volatile int *)&fields[4 + (r + 1) % 3] + *(volatile int *)&fields[20];
#endif
  }
  if (sink == -1) fields[24] = sink;
}
