#!/usr/bin/env bash
# Regenerates src/bindings.rs: raw Rust bindings to NVSHMEM's host library, for run-time loading.
#
#   nvshmem-sys/generate.sh          (from anywhere; writes nvshmem-sys/src/bindings.rs)
#
# Everything it needs it downloads into a temporary folder, removed at exit (KEEP_WORK=1 keeps it):
#   - the NVSHMEM wheel (headers, and libnvshmem_host.so.3 to learn which functions it exports),
#   - CUDA 13.0 headers from NVIDIA's wheels (the NVSHMEM headers include cuda.h, cuda_runtime.h,
#     cuda_fp16.h and cuda_bf16.h; those need crt/ and CCCL's nv/target),
#   - libclang from the `libclang` wheel (what bindgen parses C with),
#   - bindgen-cli, built with `cargo install` (set BINDGEN_ROOT to a folder to keep that build and
#     reuse it on later runs; a bindgen of another version there is rebuilt).
# It needs: bash, python3 with pip, cargo and rustfmt (the project's pinned toolchain), cc (its
# compiler-builtin headers stand in for clang's, which the libclang wheel lacks), and nm (binutils).
#
# What is bound: every function that the NVSHMEM host headers declare *and* libnvshmem_host.so.3
# exports (header-inline functions such as nvshmem_init, and device-only ones, are left out), the
# types and constants those need, and the NVSHMEM constants (NVSHMEM*, the init flags, the status
# codes). CUDA's types are blocklisted: src/cuda.rs defines them (opaque pointers, 16-bit floats).
# The headers are parsed as C++17, as NVIDIA compiles them, for x86_64 Linux (LP64).
set -euo pipefail

NVSHMEM_WHEEL="nvidia-nvshmem-cu13==3.4.5"
CUDA_WHEELS=("nvidia-cuda-runtime==13.0.96" "nvidia-cuda-crt==13.0.88" "nvidia-cuda-cccl==13.0.85")
LIBCLANG_WHEEL="libclang==18.1.1"
BINDGEN_VERSION="0.73.2"
RUST_TARGET="1.97"

CRATE_DIR="$(cd "$(dirname "$0")" && pwd)"
OUTPUT="$CRATE_DIR/src/bindings.rs"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/nvshmem-sys-generate.XXXXXX")"
if [[ "${KEEP_WORK:-0}" == 1 ]]; then
    echo "generate.sh: keeping $WORK" >&2
else
    trap 'rm -rf "$WORK"' EXIT
fi
say() { echo "generate.sh: $*" >&2; }

for tool in python3 cargo rustfmt cc nm; do
    command -v "$tool" >/dev/null || { say "needs $tool on PATH"; exit 1; }
done

say "downloading $NVSHMEM_WHEEL ${CUDA_WHEELS[*]} $LIBCLANG_WHEEL"
python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform manylinux2014_x86_64 --platform manylinux2010_x86_64 --platform manylinux_2_17_x86_64 \
    --dest "$WORK/wheels" "$NVSHMEM_WHEEL" "${CUDA_WHEELS[@]}" "$LIBCLANG_WHEEL"
for wheel in "$WORK"/wheels/*.whl; do
    python3 -m zipfile -e "$wheel" "$WORK/unpacked"
done

NVSHMEM="$WORK/unpacked/nvidia/nvshmem"
CUDA_INCLUDE="$WORK/unpacked/nvidia/cu13/include"
HOST_LIBRARY="$NVSHMEM/lib/libnvshmem_host.so.3"
LIBCLANG_PATH="$(dirname "$(find "$WORK/unpacked" -name 'libclang.so' -print -quit)")"
export LIBCLANG_PATH
for need in "$NVSHMEM/include/nvshmem_host.h" "$HOST_LIBRARY" "$CUDA_INCLUDE/cuda.h" \
    "$CUDA_INCLUDE/crt/host_defines.h" "$CUDA_INCLUDE/cccl/nv/target" "$LIBCLANG_PATH/libclang.so"; do
    [[ -e "$need" ]] || { say "a wheel lacked $need"; exit 1; }
done
NVSHMEM_VERSION="$(awk '/define NVSHMEM_VENDOR_(MAJOR|MINOR|PATCH)_VERSION/ {v = v (v ? "." : "") $3} END {print v}' \
    "$NVSHMEM/include/non_abi/nvshmem_version.h")"
[[ "$NVSHMEM_VERSION" == "3.4.5" ]] || { say "expected NVSHMEM 3.4.5, the wheel has $NVSHMEM_VERSION"; exit 1; }

BINDGEN_ROOT="${BINDGEN_ROOT:-$WORK/bindgen}"
BINDGEN="$BINDGEN_ROOT/bin/bindgen"
if [[ ! -x "$BINDGEN" || "$("$BINDGEN" --version)" != "bindgen $BINDGEN_VERSION" ]]; then
    say "building bindgen-cli $BINDGEN_VERSION into $BINDGEN_ROOT"
    cargo install --quiet --locked --force bindgen-cli --version "=$BINDGEN_VERSION" --root "$BINDGEN_ROOT"
fi

# The functions to bind: declared in the headers (bindgen keeps only declared ones) and exported.
nm -D --defined-only "$HOST_LIBRARY" | awk '$2 == "T" {sub(/@.*/, "", $3); print $3}' |
    grep '^nvshmem' | sort -u >"$WORK/exported.txt"
ALLOWLIST=()
while read -r name; do ALLOWLIST+=(--allowlist-function "$name"); done <"$WORK/exported.txt"
say "$(wc -l <"$WORK/exported.txt") nvshmem* functions exported by libnvshmem_host.so.3"

echo '#include <nvshmem_host.h>' >"$WORK/wrapper.hpp"
say "running bindgen"
"$BINDGEN" "$WORK/wrapper.hpp" \
    --output "$WORK/bindings.rs" \
    --rust-target "$RUST_TARGET" --rust-edition 2024 \
    --dynamic-loading NvshmemHost \
    --wrap-unsafe-ops \
    --no-prepend-enum-name \
    --formatter none \
    "${ALLOWLIST[@]}" \
    --allowlist-type 'nvshmem.*' --allowlist-type flags \
    --allowlist-var 'NVSHMEM.*' --allowlist-var 'UNIQUEID_.*' --allowlist-var 'INIT_ARGS_PADDING' \
    --allowlist-var 'TEAM_CONFIG_.*' \
    --blocklist-var NVSHMEM_BUILD_VARS --blocklist-var NVSHMEM_TEAM_UNIQUID_INITIALIZER \
    --blocklist-type nvshmemi_team_op_t \
    --blocklist-type 'CU.*' --blocklist-type 'cuda.*' --blocklist-type '__half.*' --blocklist-type half \
    --blocklist-type '__nv_bfloat16.*' --blocklist-type 'nv_bfloat16' \
    --raw-line 'use crate::cuda::{__nv_bfloat16, CUlibrary, CUmodule, cudaStream_t, half};' \
    -- -x c++ -std=c++17 \
    -I "$NVSHMEM/include" -I "$CUDA_INCLUDE" -I "$CUDA_INCLUDE/cccl" \
    -isystem "$(cc -print-file-name=include)"

(cd "$CRATE_DIR" && rustfmt --edition 2024 "$WORK/bindings.rs")

# Check the result: every exported function is bound except the data symbols, and the key ones are.
grep -oP '^\s*pub unsafe fn \K(nvshmem\w+)' "$WORK/bindings.rs" | sort -u >"$WORK/bound.txt"
say "bound $(wc -l <"$WORK/bound.txt") functions; exported but not declared in the headers (left out):" \
    "$(comm -13 "$WORK/bound.txt" "$WORK/exported.txt" | tr '\n' ' ')"
for key in nvshmemx_hostlib_init_attr nvshmemx_hostlib_finalize nvshmemx_get_uniqueid \
    nvshmemx_set_attr_uniqueid_args nvshmemx_cumodule_init nvshmemx_cumodule_finalize nvshmem_malloc \
    nvshmem_free nvshmem_my_pe nvshmem_n_pes nvshmemx_barrier_all_on_stream nvshmem_info_get_version; do
    grep -qx "$key" "$WORK/bound.txt" || { say "$key is missing from the bindings"; exit 1; }
done
if grep -q 'CUstream_st\|CUmod_st\|struct __half' "$WORK/bindings.rs"; then
    say "CUDA types leaked into the bindings; extend the blocklist"
    exit 1
fi

{
    echo "// @generated by nvshmem-sys/generate.sh; do not edit: rerun the script."
    echo "//"
    echo "// NVSHMEM $NVSHMEM_VERSION host headers and exports (wheel $NVSHMEM_WHEEL)."
    echo "// CUDA headers: ${CUDA_WHEELS[*]}; parsed as C++17 for x86_64 Linux."
    echo "// bindgen $BINDGEN_VERSION (--rust-target $RUST_TARGET), libclang from $LIBCLANG_WHEEL."
    echo "// Functions: $(wc -l <"$WORK/bound.txt"), each looked up separately when the library loads."
    echo
    cat "$WORK/bindings.rs"
} >"$OUTPUT"
say "wrote $OUTPUT ($(wc -l <"$OUTPUT") lines)"
