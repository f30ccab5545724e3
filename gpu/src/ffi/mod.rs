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
//! The declarations are written out one a line in `generated.rs`, so that `grep` finds every C
//! name with its signature; `gpu/generate-ffi.py` writes that file from its tables of NVSHMEM's
//! families and types. This layer uses nothing of the typed one above it (`gpu/tests/layers.rs`
//! checks that): its types are C's (`nvshmem_team_t`, [`double2`]) and its constants NVSHMEM's.
//!
//! # Safety
//! Every function here is NVSHMEM's own; its contract is the one NVSHMEM's API reference states for
//! it. They resolve only in kernels linked by `nvshmem-builder`.
#![allow(missing_docs, non_camel_case_types)]

#[rustfmt::skip]
mod generated;

pub use generated::*;

/// `nvshmem_team_t`: a team handle (`NVSHMEM_TEAM_WORLD` is 0, `NVSHMEM_TEAM_INVALID` -1).
pub type nvshmem_team_t = i32;

/// CUDA's `double2`, the element of `nvshmemx_double2_maxloc_reduce_block`.
#[repr(C, align(16))]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct double2 {
    pub x: f64,
    pub y: f64,
}

/// `NVSHMEM_SIGNAL_SET`: a signal operation that stores the value (its value is defined once, in
/// `nvshmem-abi`, the crate below this one).
pub const NVSHMEM_SIGNAL_SET: core::ffi::c_int = nvshmem_abi::SignalOp::Set as core::ffi::c_int;
/// `NVSHMEM_SIGNAL_ADD`: a signal operation that adds the value atomically.
pub const NVSHMEM_SIGNAL_ADD: core::ffi::c_int = nvshmem_abi::SignalOp::Add as core::ffi::c_int;
