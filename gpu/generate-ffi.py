#!/usr/bin/env python3
"""Writes gpu/src/ffi/generated.rs: NVSHMEM's device functions under their C names, one literal
`pub fn` each, so that every C name can be found with grep.

    gpu/generate-ffi.py            rewrites gpu/src/ffi/generated.rs
    gpu/generate-ffi.py --check    exits 1 if the file differs from what the script writes

The tables below are NVSHMEM 3.4.5's device API, and what NVSHMEM 3.7 added that the crate wraps, (its headers' NVSHMEMI_REPT_FOR_* type lists and
the function families of nvshmem_defines.h and nvshmemx_defines.h), without the functions the
crate leaves out (`half` and `bfloat16`, the sized forms; see the crate documentation's "Not
wrapped" list). `gpu/tests/coverage.rs` checks the result against the device bitcode in both
directions: every name declared exists there, every public function there is declared or listed as
left out. One declaration a line, so that grep shows a function's whole signature (ffi/mod.rs keeps
rustfmt off the file).
"""

import sys
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent / "src" / "ffi" / "generated.rs"

# (Rust type, C type name) tables.
FIXED_WIDTH = [
    ("f32", "float"), ("f64", "double"), ("i8", "int8"), ("i16", "int16"), ("i32", "int32"),
    ("i64", "int64"), ("u8", "uint8"), ("u16", "uint16"), ("u32", "uint32"), ("u64", "uint64"),
    ("isize", "ptrdiff"), ("usize", "size"),
]
C_ONLY = [
    ("c_char", "char"), ("c_schar", "schar"), ("c_short", "short"), ("c_int", "int"),
    ("c_long", "long"), ("c_longlong", "longlong"), ("c_uchar", "uchar"), ("c_ushort", "ushort"),
    ("c_uint", "uint"), ("c_ulong", "ulong"), ("c_ulonglong", "ulonglong"),
]
# NVSHMEMI_REPT_FOR_WAIT_TYPES.
WAIT = [
    ("c_short", "short"), ("c_int", "int"), ("c_long", "long"), ("c_longlong", "longlong"),
    ("c_ushort", "ushort"), ("c_uint", "uint"), ("c_ulong", "ulong"),
    ("c_ulonglong", "ulonglong"), ("i32", "int32"), ("i64", "int64"), ("u32", "uint32"),
    ("u64", "uint64"), ("usize", "size"), ("isize", "ptrdiff"),
]
ATOMIC = [
    ("f32", "float"), ("f64", "double"), ("i32", "int32"), ("i64", "int64"), ("c_int", "int"),
    ("c_long", "long"), ("c_longlong", "longlong"), ("isize", "ptrdiff"), ("usize", "size"),
    ("u32", "uint32"), ("u64", "uint64"), ("c_uint", "uint"), ("c_ulong", "ulong"),
    ("c_ulonglong", "ulonglong"),
]
COMPARE_SWAP = [pair for pair in ATOMIC if pair[1] not in ("float", "double")]
ATOMIC_ADD = [
    ("i32", "int32"), ("c_int", "int"), ("c_long", "long"), ("usize", "size"), ("u32", "uint32"),
    ("u64", "uint64"), ("c_uint", "uint"), ("c_ulong", "ulong"), ("c_ulonglong", "ulonglong"),
]
ATOMIC_BITWISE = [
    ("i32", "int32"), ("i64", "int64"), ("u32", "uint32"), ("u64", "uint64"), ("c_uint", "uint"),
    ("c_ulong", "ulong"), ("c_ulonglong", "ulonglong"),
]
# NVSHMEMI_REPT_FOR_BITWISE_REDUCE_TYPES.
BITWISE_REDUCE = [
    ("c_uchar", "uchar"), ("c_ushort", "ushort"), ("c_uint", "uint"), ("c_ulong", "ulong"),
    ("c_ulonglong", "ulonglong"), ("i8", "int8"), ("i16", "int16"), ("i32", "int32"),
    ("i64", "int64"), ("u8", "uint8"), ("u16", "uint16"), ("u32", "uint32"), ("u64", "uint64"),
    ("usize", "size"),
]
# NVSHMEMI_REPT_FOR_STANDARD_REDUCE_TYPES without half and bfloat16.
ARITH_REDUCE = BITWISE_REDUCE + [
    ("c_char", "char"), ("c_schar", "schar"), ("c_short", "short"), ("c_int", "int"),
    ("c_long", "long"), ("c_longlong", "longlong"), ("f32", "float"), ("f64", "double"),
]

# Signatures by family: NAME is the C function name with `{c}` for the C type name; `{T}` in the
# parameters and result is the Rust type.
PE = "pe: c_int"
RMA = [
    ("nvshmem_{c}_p", f"dest: *mut {{T}}, value: {{T}}, {PE}", None),
    ("nvshmem_{c}_g", f"source: *const {{T}}, {PE}", "{T}"),
]
for op in ["put", "put_nbi", "get", "get_nbi"]:
    RMA.append((f"nvshmem_{{c}}_{op}", f"dest: *mut {{T}}, source: *const {{T}}, nelems: usize, {PE}", None))
for scope in ["warp", "block"]:
    for op in ["put", "put_nbi", "get", "get_nbi"]:
        RMA.append((f"nvshmemx_{{c}}_{op}_{scope}", f"dest: *mut {{T}}, source: *const {{T}}, nelems: usize, {PE}", None))
STRIDED = f"dest: *mut {{T}}, source: *const {{T}}, dst: isize, sst: isize, nelems: usize, {PE}"
RMA += [("nvshmem_{c}_iput", STRIDED, None), ("nvshmem_{c}_iget", STRIDED, None)]
for scope in ["warp", "block"]:
    RMA += [(f"nvshmemx_{{c}}_iput_{scope}", STRIDED, None), (f"nvshmemx_{{c}}_iget_{scope}", STRIDED, None)]
PUT_SIGNAL = f"dest: *mut {{T}}, source: *const {{T}}, nelems: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, {PE}"
RMA += [("nvshmem_{c}_put_signal", PUT_SIGNAL, None), ("nvshmem_{c}_put_signal_nbi", PUT_SIGNAL, None)]
for scope in ["warp", "block"]:
    RMA += [(f"nvshmemx_{{c}}_put_signal_{scope}", PUT_SIGNAL, None), (f"nvshmemx_{{c}}_put_signal_nbi_{scope}", PUT_SIGNAL, None)]
TEAM = "team: nvshmem_team_t"
for op, params in [
    ("broadcast", f"{TEAM}, dest: *mut {{T}}, source: *const {{T}}, nelems: usize, pe_root: c_int"),
    ("fcollect", f"{TEAM}, dest: *mut {{T}}, source: *const {{T}}, nelems: usize"),
    ("alltoall", f"{TEAM}, dest: *mut {{T}}, source: *const {{T}}, nelems: usize"),
]:
    RMA.append((f"nvshmem_{{c}}_{op}", params, "c_int"))
    RMA += [(f"nvshmemx_{{c}}_{op}_{scope}", params, "c_int") for scope in ["warp", "block"]]

ONE = "ivar: *mut {T}, cmp: c_int, cmp_value: {T}"
ALL = "ivars: *mut {T}, nelems: usize, status: *const c_int, cmp: c_int, cmp_value: {T}"
SOME = "ivars: *mut {T}, nelems: usize, indices: *mut usize, status: *const c_int, cmp: c_int, cmp_value: {T}"
ALL_V = "ivars: *mut {T}, nelems: usize, status: *const c_int, cmp: c_int, cmp_values: *mut {T}"
SOME_V = "ivars: *mut {T}, nelems: usize, indices: *mut usize, status: *const c_int, cmp: c_int, cmp_values: *mut {T}"
WAITS = [
    ("nvshmem_{c}_wait_until", ONE, None),
    ("nvshmem_{c}_wait_until_all", ALL, None),
    ("nvshmem_{c}_wait_until_any", ALL, "usize"),
    ("nvshmem_{c}_wait_until_some", SOME, "usize"),
    ("nvshmem_{c}_wait_until_all_vector", ALL_V, None),
    ("nvshmem_{c}_wait_until_any_vector", ALL_V, "usize"),
    ("nvshmem_{c}_wait_until_some_vector", SOME_V, "usize"),
    ("nvshmem_{c}_test", ONE, "c_int"),
    ("nvshmem_{c}_test_all", ALL, "c_int"),
    ("nvshmem_{c}_test_any", ALL, "usize"),
    ("nvshmem_{c}_test_some", SOME, "usize"),
    ("nvshmem_{c}_test_all_vector", ALL_V, "c_int"),
    ("nvshmem_{c}_test_any_vector", ALL_V, "usize"),
    ("nvshmem_{c}_test_some_vector", SOME_V, "usize"),
]
VALUE = f"dest: *mut {{T}}, value: {{T}}, {PE}"
ATOMIC_STANDARD = [
    ("nvshmem_{c}_atomic_fetch", f"source: *const {{T}}, {PE}", "{T}"),
    ("nvshmem_{c}_atomic_set", VALUE, None),
    ("nvshmem_{c}_atomic_swap", VALUE, "{T}"),
]
ATOMIC_COMPARE_SWAP = [
    ("nvshmem_{c}_atomic_compare_swap", f"dest: *mut {{T}}, cond: {{T}}, value: {{T}}, {PE}", "{T}"),
]
ATOMIC_ADDS = [
    ("nvshmem_{c}_atomic_fetch_add", VALUE, "{T}"),
    ("nvshmem_{c}_atomic_add", VALUE, None),
    ("nvshmem_{c}_atomic_fetch_inc", f"dest: *mut {{T}}, {PE}", "{T}"),
    ("nvshmem_{c}_atomic_inc", f"dest: *mut {{T}}, {PE}", None),
]
ATOMIC_BITWISES = [(f"nvshmem_{{c}}_atomic_fetch_{op}", VALUE, "{T}") for op in ["and", "or", "xor"]] + [
    (f"nvshmem_{{c}}_atomic_{op}", VALUE, None) for op in ["and", "or", "xor"]
]


def reductions(op):
    params = f"{TEAM}, dest: *mut {{T}}, source: *const {{T}}, nreduce: usize"
    out = []
    for kind in ["reduce", "reducescatter"]:
        out.append((f"nvshmem_{{c}}_{op}_{kind}", params, "c_int"))
        out += [(f"nvshmemx_{{c}}_{op}_{kind}_{scope}", params, "c_int") for scope in ["warp", "block"]]
    return out


def scoped(name, params, result):
    """`name` at thread scope (nvshmem_NAME) and warp and block scope (nvshmemx_NAME_SCOPE)."""
    return [(f"nvshmem_{name}", params, result)] + [
        (f"nvshmemx_{name}_{scope}", params, result) for scope in ["warp", "block"]
    ]


BYTES_RMA = f"dest: *mut c_void, source: *const c_void, bytes: usize, {PE}"
BYTES_SIGNAL = f"dest: *mut c_void, source: *const c_void, bytes: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, {PE}"
BYTES = (
    scoped("putmem", BYTES_RMA, None)
    + scoped("putmem_nbi", BYTES_RMA, None)
    + scoped("getmem", BYTES_RMA, None)
    + scoped("getmem_nbi", BYTES_RMA, None)
    + scoped("putmem_signal", BYTES_SIGNAL, None)
    + scoped("putmem_signal_nbi", BYTES_SIGNAL, None)
    + scoped("broadcastmem", f"{TEAM}, dest: *mut c_void, source: *const c_void, nelems: usize, pe_root: c_int", "c_int")
    + scoped("fcollectmem", f"{TEAM}, dest: *mut c_void, source: *const c_void, nelems: usize", "c_int")
    + scoped("alltoallmem", f"{TEAM}, dest: *mut c_void, source: *const c_void, nelems: usize", "c_int")
)
UNTYPED = [
    ("Signals", [
        ("nvshmemx_signal_op", "sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int", None),
        ("nvshmem_signal_fetch", "sig_addr: *mut u64", "u64"),
        ("nvshmem_signal_wait_until", "sig_addr: *mut u64, cmp: c_int, cmp_value: u64", "u64"),
    ]),
    ("Setup, queries and pointers", [
        ("nvshmem_my_pe", "", "c_int"),
        ("nvshmem_n_pes", "", "c_int"),
        ("nvshmem_global_exit", "status: c_int", None),
        ("nvshmem_info_get_version", "major: *mut c_int, minor: *mut c_int", None),
        ("nvshmem_info_get_name", "name: *mut c_char", None),
        ("nvshmemx_vendor_get_version_info", "major: *mut c_int, minor: *mut c_int, patch: *mut c_int", None),
        ("nvshmem_ptr", "ptr: *const c_void, pe: c_int", "*mut c_void"),
        ("nvshmemx_mc_ptr", f"{TEAM}, ptr: *const c_void", "*mut c_void"),
    ]),
    ("Ordering and barriers", [
        ("nvshmem_quiet", "", None),
        ("nvshmem_fence", "", None),
        *scoped("barrier_all", "", None),
        *scoped("sync_all", "", None),
        ("nvshmem_barrier", TEAM, "c_int"),
        ("nvshmemx_barrier_warp", TEAM, "c_int"),
        ("nvshmemx_barrier_warpgroup", TEAM, "c_int"),
        ("nvshmemx_barrier_block", TEAM, "c_int"),
        *scoped("team_sync", TEAM, "c_int"),
    ]),
    ("Teams", [
        ("nvshmem_team_my_pe", TEAM, "c_int"),
        ("nvshmem_team_n_pes", TEAM, "c_int"),
        ("nvshmem_team_translate_pe", "src_team: nvshmem_team_t, src_pe: c_int, dest_team: nvshmem_team_t", "c_int"),
        ("nvshmemx_double2_maxloc_reduce_block", f"{TEAM}, dest: *mut double2, source: *const double2, nreduce: usize", "c_int"),
    ]),
    ("Byte transfers and byte collectives", BYTES),
    # Absent from older bitcode: the wrappers that call these exist only with the crate's
    # `nvshmem-3-7` feature, which nvshmem-builder turns on for NVSHMEM 3.7 and later
    # (nvshmem_gpu::FIRST_RELEASE lists them for the coverage test).
    ("NVSHMEM 3.7 and later: flush, float and double atomic add", [
        ("nvshmemx_flush", "", None),
        ("nvshmemx_flush_warp", "", None),
        ("nvshmemx_flush_block", "", None),
        ("nvshmemx_float_atomic_fetch_add", "dest: *mut f32, value: f32, pe: c_int", "f32"),
        ("nvshmemx_float_atomic_add", "dest: *mut f32, value: f32, pe: c_int", None),
        ("nvshmemx_double_atomic_fetch_add", "dest: *mut f64, value: f64, pe: c_int", "f64"),
        ("nvshmemx_double_atomic_add", "dest: *mut f64, value: f64, pe: c_int", None),
    ]),
]

# (heading, functions, types) groups, in the order of the file.
TYPED = [
    ("RMA, put with signal, broadcast, fcollect and alltoall: fixed-width types", RMA, FIXED_WIDTH),
    ("RMA, put with signal, broadcast, fcollect and alltoall: C's platform-named types", RMA, C_ONLY),
    ("Waits and tests", WAITS, WAIT),
    ("Atomic fetch, set and swap", ATOMIC_STANDARD, ATOMIC),
    ("Atomic compare-swap", ATOMIC_COMPARE_SWAP, COMPARE_SWAP),
    ("Atomic (fetch-)add and (fetch-)inc", ATOMIC_ADDS, ATOMIC_ADD),
    ("Bitwise atomics", ATOMIC_BITWISES, ATOMIC_BITWISE),
    ("Sum reductions", reductions("sum"), ARITH_REDUCE),
    ("Product reductions", reductions("prod"), ARITH_REDUCE),
    ("Minimum reductions", reductions("min"), ARITH_REDUCE),
    ("Maximum reductions", reductions("max"), ARITH_REDUCE),
    ("Bitwise-and reductions", reductions("and"), BITWISE_REDUCE),
    ("Bitwise-or reductions", reductions("or"), BITWISE_REDUCE),
    ("Bitwise-xor reductions", reductions("xor"), BITWISE_REDUCE),
]


def declaration(name, params, result, rust="", c=""):
    text = f"    pub fn {name.format(c=c)}({params.replace('{T}', rust)})"
    if result:
        text += f" -> {result.replace('{T}', rust)}"
    return text + ";"


def render():
    lines = [
        "// @generated by gpu/generate-ffi.py: change the script and run it, not this file.",
        "",
        "use super::{double2, nvshmem_team_t};",
        "use core::ffi::{",
        "    c_char, c_int, c_long, c_longlong, c_schar, c_short, c_uchar, c_uint, c_ulong, c_ulonglong,",
        "    c_ushort, c_void,",
        "};",
    ]
    seen = set()
    groups = [(heading, [(f, rust, c) for rust, c in types for f in functions]) for heading, functions, types in TYPED]
    groups += [(heading, [(f, "", "") for f in functions]) for heading, functions in UNTYPED]
    for heading, entries in groups:
        lines += ["", f"// {heading}.", 'unsafe extern "C" {']
        for (name, params, result), rust, c in entries:
            full = name.format(c=c)
            if full in seen:
                sys.exit(f"{full} is declared twice")
            seen.add(full)
            lines.append(declaration(name, params, result, rust, c))
        lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    text = render()
    if sys.argv[1:] == ["--check"]:
        if OUTPUT.read_text() != text:
            sys.exit(f"{OUTPUT} is out of date: run gpu/generate-ffi.py")
        return
    if sys.argv[1:]:
        sys.exit(__doc__)
    OUTPUT.write_text(text)


if __name__ == "__main__":
    main()
