# shellcheck shell=bash
# Shared by bench/run-bench.sh, bench/run-latency.sh and bench/profile-latency.sh (sourced, not run,
# after tools/gpu-env.sh): the environment of the runs, and building the CUDA C++ references against
# NVSHMEM on the GPU machine.

# reference_env SIZE: NVSHMEM's environment (nvshmem_env), its libraries on the loader's path, a
# symmetric heap of SIZE unless NVSHMEM_SYMMETRIC_SIZE says otherwise, kernels loaded with their
# module rather than at their first (timed) launch, and NVCC set to nvcc where there is one.
reference_env() {
    nvshmem_env
    export LD_LIBRARY_PATH=$NVSHMEM_HOME/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export NVSHMEM_SYMMETRIC_SIZE=${NVSHMEM_SYMMETRIC_SIZE:-$1} CUDA_MODULE_LOADING=EAGER
    NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)
}

# build_nvshmem NAME: bench/reference/NAME.cu into $BUILD/NAME against $NVSHMEM_HOME, with $NVCC
# (device code linked with -rdc, as NVSHMEM needs).
build_nvshmem() {
    local name=$1 nv=$NVSHMEM_HOME
    timeout 300 "$NVCC" -O3 -std=c++17 -arch=sm_90 -rdc=true -I"$nv/include" \
        -c "bench/reference/$name.cu" -o "$BUILD/$name.o" || return 1
    local link=("$NVCC" -arch=sm_90 -rdc=true "$BUILD/$name.o" -o "$BUILD/$name" -L"$nv/lib"
        -l:libnvshmem_host.so.3 -lnvshmem_device -Xlinker -rpath -Xlinker "$nv/lib")
    timeout 120 "${link[@]}" -lcuda || { echo "(linking again without -lcuda)"; timeout 120 "${link[@]}"; }
}
