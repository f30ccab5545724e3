//! NVSHMEM's device functions under their C names.
//!
//! These are the declarations the typed layer is built on, kept public so that code ported from CUDA
//! C++ can call `nvshmem_float_put` and friends unchanged. Prefer the typed functions of
//! [`crate::rma`] and [`crate::sync`]: they take [`crate::SymmetricPtr`] where NVSHMEM needs a
//! symmetric address.
//!
//! Covered C types: those of the typed layer (`float`, `double`, `int8`…`int64`, `uint8`…`uint64`,
//! `ptrdiff`, `size`) and the remaining standard C names (`char`, `schar`, `short`, `int`, `long`,
//! `longlong`, `uchar`, `ushort`, `uint`, `ulong`, `ulonglong`). `half` and `bfloat16` are left out:
//! stable Rust has no such types.
//!
//! # Safety
//! Every function here is NVSHMEM's own; its contract is the one NVSHMEM's API reference states for
//! it. They resolve only in kernels linked by `nvshmem-builder`.
#![allow(missing_docs)]

use core::ffi::{
    c_char, c_int, c_long, c_longlong, c_schar, c_short, c_uchar, c_uint, c_ulong, c_ulonglong,
    c_void,
};

macro_rules! declare_typed_rma {
    ($($rust:ty => $c:ident),* $(,)?) => { paste::paste! { unsafe extern "C" { $(
        pub fn [<nvshmem_ $c _p>](dest: *mut $rust, value: $rust, pe: c_int);
        pub fn [<nvshmem_ $c _g>](source: *const $rust, pe: c_int) -> $rust;
        pub fn [<nvshmem_ $c _put>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        pub fn [<nvshmem_ $c _put_nbi>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        pub fn [<nvshmem_ $c _get>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        pub fn [<nvshmem_ $c _get_nbi>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        pub fn [<nvshmemx_ $c _put_warp>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        pub fn [<nvshmemx_ $c _put_nbi_warp>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        pub fn [<nvshmemx_ $c _get_warp>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        pub fn [<nvshmemx_ $c _get_nbi_warp>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        pub fn [<nvshmemx_ $c _put_block>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        pub fn [<nvshmemx_ $c _put_nbi_block>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        pub fn [<nvshmemx_ $c _get_block>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
        pub fn [<nvshmemx_ $c _get_nbi_block>](dest: *mut $rust, source: *const $rust, nelems: usize, pe: c_int);
    )* } } };
}
crate::element::for_each_element!(declare_typed_rma);

/// Invokes `$callback!` with the standard C type names that have no typed-layer counterpart.
macro_rules! for_each_c_only_type {
    ($callback:ident) => {
        $callback! {
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
#[allow(non_camel_case_types)]
type c_ushort = u16;
for_each_c_only_type!(declare_typed_rma);

macro_rules! declare_untyped_rma {
    ($($name:ident),* $(,)?) => { unsafe extern "C" { $(
        pub fn $name(dest: *mut c_void, source: *const c_void, nelems: usize, pe: c_int);
    )* } };
}
declare_untyped_rma! {
    nvshmem_putmem, nvshmem_putmem_nbi, nvshmem_getmem, nvshmem_getmem_nbi,
    nvshmemx_putmem_warp, nvshmemx_putmem_nbi_warp, nvshmemx_getmem_warp, nvshmemx_getmem_nbi_warp,
    nvshmemx_putmem_block, nvshmemx_putmem_nbi_block, nvshmemx_getmem_block, nvshmemx_getmem_nbi_block,
}

unsafe extern "C" {
    pub fn nvshmem_my_pe() -> c_int;
    pub fn nvshmem_n_pes() -> c_int;
    pub fn nvshmem_quiet();
    pub fn nvshmem_fence();
    pub fn nvshmem_barrier_all();
    pub fn nvshmemx_barrier_all_warp();
    pub fn nvshmemx_barrier_all_block();
    pub fn nvshmem_sync_all();
    pub fn nvshmemx_sync_all_warp();
    pub fn nvshmemx_sync_all_block();
}
