#!/usr/bin/env bash
# Build Gunrock's SSSP (gunrock/gunrock's examples/algorithms/sssp at its development head 01f125c,
# Essentials 2.1.0 as it names itself) for sm_90 into .peers/gunrock-sssp, the peer suite `kernels`
# times (benchmarks/peers.py; a GPU call carries .peers). Needs nvcc (CUDA 13), cmake >= 3.24, g++
# and git; no GPU.
#
# Not release v2.2.0: built the same way, it crashed (SIGSEGV) when given several sources, where the
# head (whose example synchronizes between runs) solves them all.
#
# Usage: scripts/build_gunrock.sh [WORKDIR]
#
# The sources are cloned from GitHub at the commits below, or taken from checkouts named by
# GUNROCK_SRC, CXXOPTS_SRC, JSON_SRC and CMAKE_MODULES_SRC where set (a machine that cannot reach
# GitHub: local mirrors). CCCL comes with the CUDA toolkit (Gunrock's own fetch of it is skipped).
# The example links without curand, cusparse and the driver library, which it does not call (a
# machine without a GPU driver has no libcuda to link): its link line is rerun without them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
gunrock_commit=01f125c85498c52ab0a1b8d33c2716d0b0dc3a57
cxxopts_commit=c74846a891b3cc3bfa992d588b1295f528d43039   # v3.0.0, the tag Gunrock asks for
json_commit=199dea11b17c533721b26249e2dcaee6ca1d51d3
modules_commit=76c1eb4fbb2e5988a3bc0fdc1ff4c326b737a10c

checkout() {  # NAME URL COMMIT [LOCAL]: WORKDIR/NAME at COMMIT
  local name=$1 url=$2 commit=$3 local_src=${4:-}
  rm -rf "$work/$name"
  git clone -q "${local_src:-$url}" "$work/$name"
  git -C "$work/$name" checkout -q "$commit"
}
checkout gunrock https://github.com/gunrock/gunrock.git $gunrock_commit "${GUNROCK_SRC:-}"
checkout cxxopts https://github.com/jarro2783/cxxopts.git $cxxopts_commit "${CXXOPTS_SRC:-}"
checkout json https://github.com/nlohmann/json.git $json_commit "${JSON_SRC:-}"
checkout cmake-modules https://github.com/rpavlik/cmake-modules.git $modules_commit "${CMAKE_MODULES_SRC:-}"
mkdir -p "$work/cccl" "$work/build"
# Gunrock's NVIDIA backend goes through HIP's names: its device code (math::atomic::min, the
# frontier's device copy) is guarded by __HIP_DEVICE_COMPILE__, which HIP's headers for NVIDIA
# define in nvcc's device pass. Without HIP installed nothing defines it, and the relaxation's
# atomicMin compiles to a plain min that stores nothing (every distance but the source's stayed
# infinite). This header, included first in every file, defines it as HIP's would.
cat > "$work/hip_device_compile.h" <<'HEADER'
#if defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#define __HIP_DEVICE_COMPILE__ 1
#endif
HEADER

cd "$work/build"
cmake ../gunrock -DESSENTIALS_NVIDIA_BACKEND=ON -DESSENTIALS_AMD_BACKEND=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DESSENTIALS_BUILD_TESTS=OFF -DESSENTIALS_BUILD_BENCHMARKS=OFF \
  -DFETCHCONTENT_SOURCE_DIR_CCCL="$work/cccl" -DFETCHCONTENT_SOURCE_DIR_CXXOPTS="$work/cxxopts" \
  -DFETCHCONTENT_SOURCE_DIR_JSON="$work/json" -DFETCHCONTENT_SOURCE_DIR_CMAKE_MODULES="$work/cmake-modules" \
  -DCMAKE_MODULE_PATH="$work/cmake-modules" -DCMAKE_CUDA_FLAGS="--pre-include $work/hip_device_compile.h" >/dev/null
# (CMAKE_MODULE_PATH: Gunrock's CMakeLists includes GetGitRevisionDescription from externals/, where
# a fetch from a local source does not put cmake-modules.)
make sssp -j"$(nproc)" 2>&1 | grep -v "^\[" || true   # its link fails on the three libraries
rsp=examples/algorithms/sssp/CMakeFiles/sssp.dir/linkLibs.rsp
sed -i -e 's/-lcurand//; s/-lcuda\b//; s/-lcusparse//' "$rsp"
(cd examples/algorithms/sssp && sh CMakeFiles/sssp.dir/link.txt)  # CMake's link line, with the rest of its libraries
mkdir -p "$root/.peers"
cp bin/sssp "$root/.peers/gunrock-sssp"
echo "built $root/.peers/gunrock-sssp (gunrock $gunrock_commit, $(nvcc --version | tail -1))"
