# shellcheck shell=bash
# The preamble of bench/'s runners: each sources it first (not run), as
#   source "$(dirname "$0")/preamble.sh"
# and then stands in the checkout's root, with DIST (dist/, from `./x gpu-bundle`), NVSHMEM's
# environment functions (tools/gpu-env.sh), a private scratch folder TMP with BUILD in it (for the
# CUDA C++ twins), START for elapsed, and MPS stopped and TMP removed when it exits.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
DIST=dist
START=$(date +%s)
# shellcheck source=tools/gpu-env.sh
source tools/gpu-env.sh
TMP=$(mktemp -d)
BUILD=$TMP/build
mkdir -p "$BUILD"
# Whether this runner started the MPS daemon (mps_up), and where the daemon's answers go.
MPS_ON=0
MPS_LOG=/dev/null
trap 'mps_down; rm -rf "$TMP"' EXIT

# mps_up: starts MPS unless this runner has already; fails as start_mps does.
mps_up() {
    (( MPS_ON )) || { start_mps >> "$MPS_LOG" 2>&1 && MPS_ON=1; }
}

# mps_down: stops MPS if this runner started it.
mps_down() {
    if (( MPS_ON )); then stop_mps >> "$MPS_LOG" 2>&1; MPS_ON=0; fi
}

# out_dir DIR USAGE: DIR, made if missing, as OUT; without DIR, prints USAGE and exits 2.
out_dir() {
    [[ -n $1 ]] || { echo "usage: $2" >&2; exit 2; }
    OUT=$1
    mkdir -p "$OUT" || exit 2
}

# elapsed: seconds since the runner started.
elapsed() { echo $(( $(date +%s) - START )); }

# gpu_name: the first GPU's name, as nvidia-smi gives it (the baseline guard's key).
gpu_name() { nvidia-smi --query-gpu=name --format=csv,noheader | head -1; }

# dist_commit: the commit dist/ was built from, or "unknown".
dist_commit() { head -1 "$DIST/COMMIT" 2>/dev/null || echo unknown; }

# run_env SIZE: NVSHMEM's environment (nvshmem_env), its libraries on the loader's path, a symmetric
# heap of SIZE unless NVSHMEM_SYMMETRIC_SIZE says otherwise, kernels loaded with their module rather
# than at their first (timed) launch, and NVCC set to nvcc where there is one.
run_env() {
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

# build_twin NAME: build_nvshmem NAME where there is nvcc, its log in TMP; says whether the twin
# built, with the log's end when it did not, and fails then.
build_twin() {
    local log=$TMP/build-$1.log
    if [[ -n $NVCC ]] && build_nvshmem "$1" > "$log" 2>&1; then
        echo "built the CUDA C++ twin $1"
    else
        echo "the CUDA C++ twin $1 did not build (nvcc: ${NVCC:-none}):"
        tail -n 15 "$log" 2>/dev/null
        return 1
    fi
}
