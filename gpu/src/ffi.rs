//! NVSHMEM's device functions under their C names, with their C signatures.
//!
//! These are the declarations the typed layer is built on, kept public so that code ported from CUDA
//! C++ can call `nvshmem_float_put` and friends unchanged. Prefer the typed functions of
//! [`crate::rma`], [`crate::signal`], [`crate::p2p`], [`crate::atomic`], [`crate::sync`],
//! [`crate::collective`] and [`crate::team`]: they take [`crate::SymmetricPtr`] where NVSHMEM needs a
//! symmetric address, enums for comparison and signal operators, and reject at compile time the
//! types a family lacks.
//!
//! Every function of NVSHMEM 3.4.5's device library in the families of the standard API is declared
//! here, for every C type it exists for: the fixed-width names the typed layer uses (`float`,
//! `double`, `int8`…`int64`, `uint8`…`uint64`, `ptrdiff`, `size`) and the remaining standard C names
//! (`char`, `schar`, `short`, `int`, `long`, `longlong`, `uchar`, `ushort`, `uint`, `ulong`,
//! `ulonglong`). Left out (see the crate documentation's exclusion list): `half` and `bfloat16`
//! (stable Rust has no such types) and the sized forms (`nvshmem_put32`, …; the typed forms of the
//! unsigned type of that width do the same). The coverage test (`gpu/tests/coverage.rs`) checks this
//! list against the device bitcode in both directions.
//!
//! # Safety
//! Every function here is NVSHMEM's own; its contract is the one NVSHMEM's API reference states for
//! it. They resolve only in kernels linked by `nvshmem-builder`.
#![allow(missing_docs)]

use core::ffi::{
    c_char, c_int, c_long, c_longlong, c_schar, c_short, c_uchar, c_uint, c_ulong, c_ulonglong,
    c_void,
};

#[allow(non_camel_case_types)]
type c_ushort = u16;

/// `nvshmem_team_t`.
type Team = i32;

/// Declares C functions in one `extern "C"` block and records their names in `$group`.
macro_rules! extern_fns {
    ($group:ident; $( fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) $(-> $ret:ty)? ; )*) => {
        unsafe extern "C" { $( pub fn $name($($arg: $ty),*) $(-> $ret)?; )* }
        pub(crate) const $group: &[&str] = &[$(stringify!($name)),*];
    };
}

/// The standard C type names without a typed-layer counterpart, as `(Rust type, C name)` pairs.
macro_rules! for_each_c_only_type {
    ($callback:ident $($args:tt)*) => {
        $callback! {
            $($args)*
            c_char => char,
            c_schar => schar,
            c_short => short,
            c_int => int,
            c_long => long,
            c_longlong => longlong,
            c_uchar => uchar,
            c_ushort => ushort,
            c_uint => uint,
            c_ulong => ulong,
            c_ulonglong => ulonglong,
        }
    };
}

/// Every C type of NVSHMEM's wait and test functions (`NVSHMEMI_REPT_FOR_WAIT_TYPES`).
macro_rules! for_each_wait_c_type {
    ($callback:ident $($args:tt)*) => {
        $callback! {
            $($args)*
            c_short => short, c_int => int, c_long => long, c_longlong => longlong,
            c_ushort => ushort, c_uint => uint, c_ulong => ulong, c_ulonglong => ulonglong,
            i32 => int32, i64 => int64, u32 => uint32, u64 => uint64, usize => size,
            isize => ptrdiff,
        }
    };
}

/// The C types of atomic fetch, set and swap in the device library.
macro_rules! for_each_atomic_c_type {
    ($callback:ident $($args:tt)*) => {
        $callback! {
            $($args)*
            f32 => float, f64 => double,
            i32 => int32, i64 => int64, c_int => int, c_long => long, c_longlong => longlong,
            isize => ptrdiff, usize => size, u32 => uint32, u64 => uint64, c_uint => uint,
            c_ulong => ulong, c_ulonglong => ulonglong,
        }
    };
}

/// The C types of atomic compare-swap in the device library.
macro_rules! for_each_compare_swap_c_type {
    ($callback:ident $($args:tt)*) => {
        $callback! {
            $($args)*
            i32 => int32, i64 => int64, c_int => int, c_long => long, c_longlong => longlong,
            isize => ptrdiff, usize => size, u32 => uint32, u64 => uint64, c_uint => uint,
            c_ulong => ulong, c_ulonglong => ulonglong,
        }
    };
}

/// The C types of atomic add and inc (and their fetching forms) in the device library.
macro_rules! for_each_atomic_add_c_type {
    ($callback:ident $($args:tt)*) => {
        $callback! {
            $($args)*
            i32 => int32, c_int => int, c_long => long, usize => size, u32 => uint32,
            u64 => uint64, c_uint => uint, c_ulong => ulong, c_ulonglong => ulonglong,
        }
    };
}

/// The C types of the bitwise atomics in the device library.
macro_rules! for_each_atomic_bitwise_c_type {
    ($callback:ident $($args:tt)*) => {
        $callback! {
            $($args)*
            i32 => int32, i64 => int64, u32 => uint32, u64 => uint64, c_uint => uint,
            c_ulong => ulong, c_ulonglong => ulonglong,
        }
    };
}

/// The C types of the bitwise reductions (`NVSHMEMI_REPT_FOR_BITWISE_REDUCE_TYPES`).
macro_rules! for_each_bitwise_reduce_c_type {
    ($callback:ident $($args:tt)*) => {
        $callback! {
            $($args)*
            c_uchar => uchar, c_ushort => ushort, c_uint => uint, c_ulong => ulong,
            c_ulonglong => ulonglong, i8 => int8, i16 => int16, i32 => int32, i64 => int64,
            u8 => uint8, u16 => uint16, u32 => uint32, u64 => uint64, usize => size,
        }
    };
}

/// The C types of the arithmetic reductions (`NVSHMEMI_REPT_FOR_STANDARD_REDUCE_TYPES` without
/// `half` and `bfloat16`).
macro_rules! for_each_arith_reduce_c_type {
    ($callback:ident $($args:tt)*) => {
        for_each_bitwise_reduce_c_type! {
            $callback $($args)*
            c_char => char, c_schar => schar, c_short => short, c_int => int, c_long => long,
            c_longlong => longlong, f32 => float, f64 => double,
        }
    };
}

macro_rules! declare_rma {
    ($group:ident; $($rust:ty => $c:ident),* $(,)?) => { paste::paste! { extern_fns! { $group; $(
        fn [<nvshmem_ $c _p>](dest: *mut $rust, value: $rust, pe: c_int);
        fn [<nvshmem_ $c _g>](source: *const $rust, pe: c_int) -> $rust;
        fn [<nvshmem_ $c _put>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        fn [<nvshmem_ $c _put_nbi>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        fn [<nvshmem_ $c _get>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        fn [<nvshmem_ $c _get_nbi>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        fn [<nvshmemx_ $c _put_warp>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        fn [<nvshmemx_ $c _put_nbi_warp>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        fn [<nvshmemx_ $c _get_warp>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        fn [<nvshmemx_ $c _get_nbi_warp>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        fn [<nvshmemx_ $c _put_block>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        fn [<nvshmemx_ $c _put_nbi_block>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        fn [<nvshmemx_ $c _get_block>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        fn [<nvshmemx_ $c _get_nbi_block>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        fn [<nvshmem_ $c _iput>](dest: *mut $rust, source: *const $rust, dst: isize, sst: isize, nelems: usize, pe: c_int);
        fn [<nvshmem_ $c _iget>](dest: *mut $rust, source: *const $rust, dst: isize, sst: isize, nelems: usize, pe: c_int);
        fn [<nvshmemx_ $c _iput_warp>](dest: *mut $rust, source: *const $rust, dst: isize, sst: isize, nelems: usize, pe: c_int);
        fn [<nvshmemx_ $c _iget_warp>](dest: *mut $rust, source: *const $rust, dst: isize, sst: isize, nelems: usize, pe: c_int);
        fn [<nvshmemx_ $c _iput_block>](dest: *mut $rust, source: *const $rust, dst: isize, sst: isize, nelems: usize, pe: c_int);
        fn [<nvshmemx_ $c _iget_block>](dest: *mut $rust, source: *const $rust, dst: isize, sst: isize, nelems: usize, pe: c_int);
        fn [<nvshmem_ $c _put_signal>](dest: *mut $rust, source: *const $rust, nelems: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int);
        fn [<nvshmem_ $c _put_signal_nbi>](dest: *mut $rust, source: *const $rust, nelems: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int);
        fn [<nvshmemx_ $c _put_signal_warp>](dest: *mut $rust, source: *const $rust, nelems: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int);
        fn [<nvshmemx_ $c _put_signal_nbi_warp>](dest: *mut $rust, source: *const $rust, nelems: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int);
        fn [<nvshmemx_ $c _put_signal_block>](dest: *mut $rust, source: *const $rust, nelems: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int);
        fn [<nvshmemx_ $c _put_signal_nbi_block>](dest: *mut $rust, source: *const $rust, nelems: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int);
        fn [<nvshmem_ $c _broadcast>](team: Team, dest: *mut $rust, source: *const $rust, nelems: usize, pe_root: c_int) -> c_int;
        fn [<nvshmemx_ $c _broadcast_warp>](team: Team, dest: *mut $rust, source: *const $rust, nelems: usize, pe_root: c_int) -> c_int;
        fn [<nvshmemx_ $c _broadcast_block>](team: Team, dest: *mut $rust, source: *const $rust, nelems: usize, pe_root: c_int) -> c_int;
        fn [<nvshmem_ $c _fcollect>](team: Team, dest: *mut $rust, source: *const $rust, nelems: usize) -> c_int;
        fn [<nvshmemx_ $c _fcollect_warp>](team: Team, dest: *mut $rust, source: *const $rust, nelems: usize) -> c_int;
        fn [<nvshmemx_ $c _fcollect_block>](team: Team, dest: *mut $rust, source: *const $rust, nelems: usize) -> c_int;
        fn [<nvshmem_ $c _alltoall>](team: Team, dest: *mut $rust, source: *const $rust, nelems: usize) -> c_int;
        fn [<nvshmemx_ $c _alltoall_warp>](team: Team, dest: *mut $rust, source: *const $rust, nelems: usize) -> c_int;
        fn [<nvshmemx_ $c _alltoall_block>](team: Team, dest: *mut $rust, source: *const $rust, nelems: usize) -> c_int;
    )* } } };
}
crate::element::for_each_element!(declare_rma RMA_TYPED;);
for_each_c_only_type!(declare_rma RMA_C_ONLY;);

macro_rules! declare_wait {
    ($group:ident; $($rust:ty => $c:ident),* $(,)?) => { paste::paste! { extern_fns! { $group; $(
        fn [<nvshmem_ $c _wait_until>](ivar: *mut $rust, cmp: c_int, cmp_value: $rust);
        fn [<nvshmem_ $c _wait_until_all>](ivars: *mut $rust, nelems: usize, status: *const c_int, cmp: c_int, cmp_value: $rust);
        fn [<nvshmem_ $c _wait_until_any>](ivars: *mut $rust, nelems: usize, status: *const c_int, cmp: c_int, cmp_value: $rust) -> usize;
        fn [<nvshmem_ $c _wait_until_some>](ivars: *mut $rust, nelems: usize, indices: *mut usize, status: *const c_int, cmp: c_int, cmp_value: $rust) -> usize;
        fn [<nvshmem_ $c _wait_until_all_vector>](ivars: *mut $rust, nelems: usize, status: *const c_int, cmp: c_int, cmp_values: *mut $rust);
        fn [<nvshmem_ $c _wait_until_any_vector>](ivars: *mut $rust, nelems: usize, status: *const c_int, cmp: c_int, cmp_values: *mut $rust) -> usize;
        fn [<nvshmem_ $c _wait_until_some_vector>](ivars: *mut $rust, nelems: usize, indices: *mut usize, status: *const c_int, cmp: c_int, cmp_values: *mut $rust) -> usize;
        fn [<nvshmem_ $c _test>](ivar: *mut $rust, cmp: c_int, cmp_value: $rust) -> c_int;
        fn [<nvshmem_ $c _test_all>](ivars: *mut $rust, nelems: usize, status: *const c_int, cmp: c_int, cmp_value: $rust) -> c_int;
        fn [<nvshmem_ $c _test_any>](ivars: *mut $rust, nelems: usize, status: *const c_int, cmp: c_int, cmp_value: $rust) -> usize;
        fn [<nvshmem_ $c _test_some>](ivars: *mut $rust, nelems: usize, indices: *mut usize, status: *const c_int, cmp: c_int, cmp_value: $rust) -> usize;
        fn [<nvshmem_ $c _test_all_vector>](ivars: *mut $rust, nelems: usize, status: *const c_int, cmp: c_int, cmp_values: *mut $rust) -> c_int;
        fn [<nvshmem_ $c _test_any_vector>](ivars: *mut $rust, nelems: usize, status: *const c_int, cmp: c_int, cmp_values: *mut $rust) -> usize;
        fn [<nvshmem_ $c _test_some_vector>](ivars: *mut $rust, nelems: usize, indices: *mut usize, status: *const c_int, cmp: c_int, cmp_values: *mut $rust) -> usize;
    )* } } };
}
for_each_wait_c_type!(declare_wait WAIT;);

macro_rules! declare_atomic_standard {
    ($group:ident; $($rust:ty => $c:ident),* $(,)?) => { paste::paste! { extern_fns! { $group; $(
        fn [<nvshmem_ $c _atomic_fetch>](source: *const $rust, pe: c_int) -> $rust;
        fn [<nvshmem_ $c _atomic_set>](dest: *mut $rust, value: $rust, pe: c_int);
        fn [<nvshmem_ $c _atomic_swap>](dest: *mut $rust, value: $rust, pe: c_int) -> $rust;
    )* } } };
}
for_each_atomic_c_type!(declare_atomic_standard ATOMIC_STANDARD;);

macro_rules! declare_compare_swap {
    ($group:ident; $($rust:ty => $c:ident),* $(,)?) => { paste::paste! { extern_fns! { $group; $(
        fn [<nvshmem_ $c _atomic_compare_swap>](dest: *mut $rust, cond: $rust, value: $rust, pe: c_int) -> $rust;
    )* } } };
}
for_each_compare_swap_c_type!(declare_compare_swap ATOMIC_COMPARE_SWAP;);

macro_rules! declare_atomic_add {
    ($group:ident; $($rust:ty => $c:ident),* $(,)?) => { paste::paste! { extern_fns! { $group; $(
        fn [<nvshmem_ $c _atomic_fetch_add>](dest: *mut $rust, value: $rust, pe: c_int) -> $rust;
        fn [<nvshmem_ $c _atomic_add>](dest: *mut $rust, value: $rust, pe: c_int);
        fn [<nvshmem_ $c _atomic_fetch_inc>](dest: *mut $rust, pe: c_int) -> $rust;
        fn [<nvshmem_ $c _atomic_inc>](dest: *mut $rust, pe: c_int);
    )* } } };
}
for_each_atomic_add_c_type!(declare_atomic_add ATOMIC_ADD;);

macro_rules! declare_atomic_bitwise {
    ($group:ident; $($rust:ty => $c:ident),* $(,)?) => { paste::paste! { extern_fns! { $group; $(
        fn [<nvshmem_ $c _atomic_fetch_and>](dest: *mut $rust, value: $rust, pe: c_int) -> $rust;
        fn [<nvshmem_ $c _atomic_fetch_or>](dest: *mut $rust, value: $rust, pe: c_int) -> $rust;
        fn [<nvshmem_ $c _atomic_fetch_xor>](dest: *mut $rust, value: $rust, pe: c_int) -> $rust;
        fn [<nvshmem_ $c _atomic_and>](dest: *mut $rust, value: $rust, pe: c_int);
        fn [<nvshmem_ $c _atomic_or>](dest: *mut $rust, value: $rust, pe: c_int);
        fn [<nvshmem_ $c _atomic_xor>](dest: *mut $rust, value: $rust, pe: c_int);
    )* } } };
}
for_each_atomic_bitwise_c_type!(declare_atomic_bitwise ATOMIC_BITWISE;);

macro_rules! declare_reduce {
    ($group:ident, $op:ident; $($rust:ty => $c:ident),* $(,)?) => { paste::paste! { extern_fns! { $group; $(
        fn [<nvshmem_ $c _ $op _reduce>](team: Team, dest: *mut $rust, source: *const $rust, nreduce: usize) -> c_int;
        fn [<nvshmemx_ $c _ $op _reduce_warp>](team: Team, dest: *mut $rust, source: *const $rust, nreduce: usize) -> c_int;
        fn [<nvshmemx_ $c _ $op _reduce_block>](team: Team, dest: *mut $rust, source: *const $rust, nreduce: usize) -> c_int;
        fn [<nvshmem_ $c _ $op _reducescatter>](team: Team, dest: *mut $rust, source: *const $rust, nreduce: usize) -> c_int;
        fn [<nvshmemx_ $c _ $op _reducescatter_warp>](team: Team, dest: *mut $rust, source: *const $rust, nreduce: usize) -> c_int;
        fn [<nvshmemx_ $c _ $op _reducescatter_block>](team: Team, dest: *mut $rust, source: *const $rust, nreduce: usize) -> c_int;
    )* } } };
}
for_each_arith_reduce_c_type!(declare_reduce REDUCE_SUM, sum;);
for_each_arith_reduce_c_type!(declare_reduce REDUCE_PROD, prod;);
for_each_arith_reduce_c_type!(declare_reduce REDUCE_MIN, min;);
for_each_arith_reduce_c_type!(declare_reduce REDUCE_MAX, max;);
for_each_bitwise_reduce_c_type!(declare_reduce REDUCE_AND, and;);
for_each_bitwise_reduce_c_type!(declare_reduce REDUCE_OR, or;);
for_each_bitwise_reduce_c_type!(declare_reduce REDUCE_XOR, xor;);

extern_fns! { BYTES;
    fn nvshmem_putmem(dest: *mut c_void, source: *const c_void, bytes: usize, pe: c_int);
    fn nvshmem_putmem_nbi(dest: *mut c_void, source: *const c_void, bytes: usize, pe: c_int);
    fn nvshmem_getmem(dest: *mut c_void, source: *const c_void, bytes: usize, pe: c_int);
    fn nvshmem_getmem_nbi(dest: *mut c_void, source: *const c_void, bytes: usize, pe: c_int);
    fn nvshmemx_putmem_warp(dest: *mut c_void, source: *const c_void, bytes: usize, pe: c_int);
    fn nvshmemx_putmem_nbi_warp(dest: *mut c_void, source: *const c_void, bytes: usize, pe: c_int);
    fn nvshmemx_getmem_warp(dest: *mut c_void, source: *const c_void, bytes: usize, pe: c_int);
    fn nvshmemx_getmem_nbi_warp(dest: *mut c_void, source: *const c_void, bytes: usize, pe: c_int);
    fn nvshmemx_putmem_block(dest: *mut c_void, source: *const c_void, bytes: usize, pe: c_int);
    fn nvshmemx_putmem_nbi_block(dest: *mut c_void, source: *const c_void, bytes: usize, pe: c_int);
    fn nvshmemx_getmem_block(dest: *mut c_void, source: *const c_void, bytes: usize, pe: c_int);
    fn nvshmemx_getmem_nbi_block(dest: *mut c_void, source: *const c_void, bytes: usize, pe: c_int);
    fn nvshmem_putmem_signal(dest: *mut c_void, source: *const c_void, bytes: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int);
    fn nvshmem_putmem_signal_nbi(dest: *mut c_void, source: *const c_void, bytes: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int);
    fn nvshmemx_putmem_signal_warp(dest: *mut c_void, source: *const c_void, bytes: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int);
    fn nvshmemx_putmem_signal_nbi_warp(dest: *mut c_void, source: *const c_void, bytes: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int);
    fn nvshmemx_putmem_signal_block(dest: *mut c_void, source: *const c_void, bytes: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int);
    fn nvshmemx_putmem_signal_nbi_block(dest: *mut c_void, source: *const c_void, bytes: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int);
    fn nvshmem_broadcastmem(team: Team, dest: *mut c_void, source: *const c_void, nelems: usize, pe_root: c_int) -> c_int;
    fn nvshmemx_broadcastmem_warp(team: Team, dest: *mut c_void, source: *const c_void, nelems: usize, pe_root: c_int) -> c_int;
    fn nvshmemx_broadcastmem_block(team: Team, dest: *mut c_void, source: *const c_void, nelems: usize, pe_root: c_int) -> c_int;
    fn nvshmem_fcollectmem(team: Team, dest: *mut c_void, source: *const c_void, nelems: usize) -> c_int;
    fn nvshmemx_fcollectmem_warp(team: Team, dest: *mut c_void, source: *const c_void, nelems: usize) -> c_int;
    fn nvshmemx_fcollectmem_block(team: Team, dest: *mut c_void, source: *const c_void, nelems: usize) -> c_int;
    fn nvshmem_alltoallmem(team: Team, dest: *mut c_void, source: *const c_void, nelems: usize) -> c_int;
    fn nvshmemx_alltoallmem_warp(team: Team, dest: *mut c_void, source: *const c_void, nelems: usize) -> c_int;
    fn nvshmemx_alltoallmem_block(team: Team, dest: *mut c_void, source: *const c_void, nelems: usize) -> c_int;
}

extern_fns! { SIGNAL;
    fn nvshmemx_signal_op(sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int);
    fn nvshmem_signal_fetch(sig_addr: *mut u64) -> u64;
    fn nvshmem_signal_wait_until(sig_addr: *mut u64, cmp: c_int, cmp_value: u64) -> u64;
}

extern_fns! { SETUP;
    fn nvshmem_my_pe() -> c_int;
    fn nvshmem_n_pes() -> c_int;
    fn nvshmem_global_exit(status: c_int);
    fn nvshmem_info_get_version(major: *mut c_int, minor: *mut c_int);
    fn nvshmem_info_get_name(name: *mut c_char);
    fn nvshmemx_vendor_get_version_info(major: *mut c_int, minor: *mut c_int, patch: *mut c_int);
    fn nvshmem_ptr(ptr: *const c_void, pe: c_int) -> *mut c_void;
    fn nvshmemx_mc_ptr(team: Team, ptr: *const c_void) -> *mut c_void;
}

extern_fns! { ORDERING;
    fn nvshmem_quiet();
    fn nvshmem_fence();
    fn nvshmem_barrier_all();
    fn nvshmemx_barrier_all_warp();
    fn nvshmemx_barrier_all_block();
    fn nvshmem_sync_all();
    fn nvshmemx_sync_all_warp();
    fn nvshmemx_sync_all_block();
    fn nvshmem_barrier(team: Team) -> c_int;
    fn nvshmemx_barrier_warp(team: Team) -> c_int;
    fn nvshmemx_barrier_warpgroup(team: Team) -> c_int;
    fn nvshmemx_barrier_block(team: Team) -> c_int;
    fn nvshmem_team_sync(team: Team) -> c_int;
    fn nvshmemx_team_sync_warp(team: Team) -> c_int;
    fn nvshmemx_team_sync_block(team: Team) -> c_int;
}

extern_fns! { TEAMS;
    fn nvshmem_team_my_pe(team: Team) -> c_int;
    fn nvshmem_team_n_pes(team: Team) -> c_int;
    fn nvshmem_team_translate_pe(src_team: Team, src_pe: c_int, dest_team: Team) -> c_int;
    fn nvshmemx_double2_maxloc_reduce_block(team: Team, dest: *mut crate::collective::MaxLoc, source: *const crate::collective::MaxLoc, nreduce: usize) -> c_int;
}

/// Every function declared in this module, by group.
#[doc(hidden)]
pub const DECLARED: &[&[&str]] = &[
    RMA_TYPED,
    RMA_C_ONLY,
    WAIT,
    ATOMIC_STANDARD,
    ATOMIC_COMPARE_SWAP,
    ATOMIC_ADD,
    ATOMIC_BITWISE,
    REDUCE_SUM,
    REDUCE_PROD,
    REDUCE_MIN,
    REDUCE_MAX,
    REDUCE_AND,
    REDUCE_OR,
    REDUCE_XOR,
    BYTES,
    SIGNAL,
    SETUP,
    ORDERING,
    TEAMS,
];
