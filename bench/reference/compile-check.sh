#!/usr/bin/env bash
# Compiles and links the CUDA C++ references on a machine without a GPU or a CUDA install, so that
# the build on the GPU machine (bench/run-bench.sh) is very likely to work the first time.
#
#   bench/reference/compile-check.sh [CACHE_DIR]   (default ~/.cache/nvshmem-rs-cuda-wheels, yours alone)
#
# Installs CUDA 13.0's compiler, NVVM, runtime and headers and NCCL from PyPI wheels into CACHE_DIR
# (once), takes NVSHMEM from the project's .deps (./x deps), and builds every program as the harness
# does; libcuda is replaced by an empty stub at link time (the programs only need it at run time).
set -euo pipefail
cd "$(dirname "$0")/../.."
CACHE=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/nvshmem-rs-cuda-wheels}
WHEELS=(nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-runtime==13.0.96
    nvidia-cuda-crt==13.0.88 nvidia-cuda-cccl==13.0.85 nvidia-nccl-cu13)
if [[ ! -f $CACHE/.complete ]]; then
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
        --only-binary=:all: --target "$CACHE" "${WHEELS[@]}"
    touch "$CACHE/.complete"
fi
./x deps
CUDA=$CACHE/nvidia/cu13
NV=$PWD/.deps/python/nvidia/nvshmem
NCCL=$CACHE/nvidia/nccl
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo 'void nvshmem_rs_stub(void) {}' > "$OUT/stub.c"
cc -shared -o "$OUT/libcuda.so" "$OUT/stub.c"
export PATH=$CUDA/bin:$PATH
for name in micro jacobi moe_alltoall stencil3d; do
    nvcc -O3 -std=c++17 -arch=sm_90 -rdc=true -I"$NV/include" -c "bench/reference/$name.cu" -o "$OUT/$name.o"
    nvcc -arch=sm_90 -rdc=true "$OUT/$name.o" -o "$OUT/$name" -L"$NV/lib" -L"$CUDA/lib" -L"$OUT" \
        -l:libnvshmem_host.so.3 -lnvshmem_device -lcuda
    echo "compile-check: $name builds"
done
nvcc -O3 -std=c++17 -arch=sm_90 -I"$NCCL/include" bench/reference/jacobi_nccl.cu -o "$OUT/jacobi_nccl" \
    -L"$NCCL/lib" -L"$CUDA/lib" -l:libnccl.so.2
echo "compile-check: jacobi_nccl builds"
