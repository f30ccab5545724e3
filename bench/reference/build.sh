# shellcheck shell=bash
# Shared by bench/run-bench.sh and bench/run-latency.sh (sourced, not run): building the CUDA C++
# references against NVSHMEM on the GPU machine.

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
