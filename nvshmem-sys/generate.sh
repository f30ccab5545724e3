#!/usr/bin/env bash
# Regenerates src/bindings.rs: raw Rust bindings to NVSHMEM's host library, for run-time loading.
#
#   nvshmem-sys/generate.sh          (from anywhere; writes nvshmem-sys/src/bindings.rs)
#
# Everything it needs it downloads into a temporary folder, removed at exit (KEEP_WORK=1 keeps it):
#   - the NVSHMEM wheel (headers, and libnvshmem_host.so.3 to learn which functions it exports),
#   - the older NVSHMEM 3 wheels back to the oldest supported release (their host libraries only, to
#     learn in which release each function first appeared: src/first_release.rs),
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

NVSHMEM_RELEASE="3.8.0"
NVSHMEM_WHEEL="nvidia-nvshmem-cu13==$NVSHMEM_RELEASE"
# The latest patch release of each earlier series, oldest (the oldest the project supports) first.
OLDER_RELEASES=(3.4.5 3.5.21 3.6.5 3.7.2)
CUDA_WHEELS=("nvidia-cuda-runtime==13.0.96" "nvidia-cuda-crt==13.0.88" "nvidia-cuda-cccl==13.0.85")
LIBCLANG_WHEEL="libclang==18.1.1"
BINDGEN_VERSION="0.73.2"
RUST_TARGET="1.97"

CRATE_DIR="$(cd "$(dirname "$0")" && pwd)"
OUTPUT="$CRATE_DIR/src/bindings.rs"
SINCE_OUTPUT="$CRATE_DIR/src/first_release.rs"

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
for release in "${OLDER_RELEASES[@]}"; do
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
        --dest "$WORK/older/$release" "nvidia-nvshmem-cu13==$release"
    python3 -m zipfile -e "$WORK/older/$release"/*.whl "$WORK/older/$release/unpacked"
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
[[ "$NVSHMEM_VERSION" == "$NVSHMEM_RELEASE" ]] || { say "expected NVSHMEM $NVSHMEM_RELEASE, the wheel has $NVSHMEM_VERSION"; exit 1; }

BINDGEN_ROOT="${BINDGEN_ROOT:-$WORK/bindgen}"
BINDGEN="$BINDGEN_ROOT/bin/bindgen"
if [[ ! -x "$BINDGEN" || "$("$BINDGEN" --version)" != "bindgen $BINDGEN_VERSION" ]]; then
    say "building bindgen-cli $BINDGEN_VERSION into $BINDGEN_ROOT"
    cargo install --quiet --locked --force bindgen-cli --version "=$BINDGEN_VERSION" --root "$BINDGEN_ROOT"
fi

# The functions to bind: declared in the headers (bindgen keeps only declared ones) and exported.
exported() { nm -D --defined-only "$1" | awk '$2 == "T" {sub(/@.*/, "", $3); print $3}' | grep '^nvshmem' | sort -u; }
exported "$HOST_LIBRARY" >"$WORK/exported.txt"
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
    --allowlist-var 'NVSHMEM.*' --allowlist-var 'UNIQUEID_.*' --allowlist-var 'INIT_ARGS_.*' \
    --allowlist-var 'TEAM_CONFIG_.*' \
    --blocklist-var NVSHMEM_BUILD_VARS --blocklist-var NVSHMEM_TEAM_UNIQUID_INITIALIZER \
    --blocklist-type nvshmemi_team_op_t \
    --blocklist-type 'CU.*' --blocklist-type 'cuda.*' --blocklist-type '__half.*' --blocklist-type half \
    --blocklist-type '__nv_bfloat16.*' --blocklist-type 'nv_bfloat16' \
    --raw-line 'use crate::cuda::{__half, __nv_bfloat16, CUlibrary, CUmodule, cudaStream_t, half};' \
    -- -x c++ -std=c++17 \
    -I "$NVSHMEM/include" -I "$CUDA_INCLUDE" -I "$CUDA_INCLUDE/cccl" \
    -isystem "$(cc -print-file-name=include)"

# A function the loaded library lacks panics, when called, with a message naming it and the release
# that added it (src/since.rs, from src/first_release.rs), rather than bindgen's "Expected function,
# got error.".
perl -pi -e 's/self\s*\.\s*(\w+)\s*\.\s*as_ref\s*\(\)\s*\.\s*expect\s*\("Expected function, got error\."\)/self.$1.as_ref().unwrap_or_else(|_| crate::since::missing("$1"))/g' \
    "$WORK/bindings.rs"
if grep -q 'Expected function, got error' "$WORK/bindings.rs"; then
    say "bindgen's method bodies changed; update the rewrite of .expect(...) above"
    exit 1
fi

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

# The release that first exported each bound function the oldest release lacks.
cp "$WORK/bound.txt" "$WORK/missing.txt"
: >"$WORK/since-rows.txt"
{
    echo "// @generated by nvshmem-sys/generate.sh; do not edit: rerun the script."
    echo
    echo "/// The oldest NVSHMEM release whose host library was compared."
    echo "pub const OLDEST_RELEASE: &str = \"${OLDER_RELEASES[0]}\";"
    echo
    echo "/// Each bound function that NVSHMEM ${OLDER_RELEASES[0]}'s host library lacks, and the first release series"
    echo "/// that exports it (of ${OLDER_RELEASES[*]:1} $NVSHMEM_RELEASE, each its series' latest release), sorted by name."
    echo "pub const FIRST_RELEASE: &[(&str, &str)] = &["
    for release in "${OLDER_RELEASES[@]}" "$NVSHMEM_RELEASE"; do
        if [[ $release == "$NVSHMEM_RELEASE" ]]; then
            cp "$WORK/exported.txt" "$WORK/has.txt"
        else
            exported "$WORK/older/$release/unpacked/nvidia/nvshmem/lib/libnvshmem_host.so.3" >"$WORK/has.txt"
        fi
        if [[ $release != "${OLDER_RELEASES[0]}" ]]; then
            comm -12 "$WORK/missing.txt" "$WORK/has.txt" | sed "s/.*/    (\"&\", \"${release%.*}\"),/" >>"$WORK/since-rows.txt"
        fi
        comm -23 "$WORK/missing.txt" "$WORK/has.txt" >"$WORK/still-missing.txt"
        mv "$WORK/still-missing.txt" "$WORK/missing.txt"
    done
    sort "$WORK/since-rows.txt"
    echo "];"
} >"$SINCE_OUTPUT"
say "wrote $SINCE_OUTPUT ($(wc -l <"$WORK/since-rows.txt") functions newer than ${OLDER_RELEASES[0]})"

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
