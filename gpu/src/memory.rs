//! Atomics, strong loads and fences on this GPU's own memory, in the terms of the PTX memory model
//! (no NVSHMEM: for atomics on other PEs' memory see [`crate::atomic`], for ordering NVSHMEM
//! transfers [`crate::sync`]).
//!
//! PTX gives each memory operation a *scope*, the set of threads it orders with (`.cta`: the block,
//! `.gpu`: every thread of this GPU, `.sys`: also other GPUs and the host), and *semantics*:
//! `relaxed` (atomic, but orders nothing else), `acquire` (later accesses stay after it), `release`
//! (earlier accesses stay before it), `acq_rel` (both). A fence applies semantics to the thread's
//! accesses around it without accessing memory. Acquiring at `.gpu` scope or wider also drops the
//! multiprocessor's L1 cache lines, so that stale copies of what other multiprocessors wrote are
//! not read; polling with relaxed loads and acquiring once, with a fence, after the awaited value
//! was seen, keeps the cached lines of the other blocks on the same multiprocessor.
//!
//! Everything here exists only when compiling for `nvptx64`.
//!
//! ```ignore
//! # fn example(flag: *const u32) {
//! use nvshmem_gpu::memory;
//! // SAFETY: `flag` is a device u32 that other blocks raise with a release.
//! unsafe { while memory::load_relaxed_gpu(flag) == 0 {} }
//! memory::fence_acq_rel_gpu(); // what the raising block wrote before is now visible here
//! # }
//! ```
#![cfg(any(target_arch = "nvptx64", doc))]

use core::arch::asm;

/// `atom.acq_rel.gpu.add.u32`: adds `value` to the `u32` at `address` and returns the value before,
/// ordering this thread's earlier accesses before it and its later ones after it, GPU-wide.
///
/// # Safety
/// `address` is a valid, 4-byte aligned device address of a `u32`.
#[inline]
pub unsafe fn atomic_add_acq_rel_gpu(address: *mut u32, value: u32) -> u32 {
    let before: u32;
    // SAFETY: the caller's contract above.
    unsafe {
        asm!(
            "atom.acq_rel.gpu.add.u32 {before}, [{address}], {value};",
            before = out(reg32) before,
            address = in(reg64) address,
            value = in(reg32) value,
            options(nostack),
        )
    };
    before
}

/// `atom.release.gpu.add.u32`: adds `value` to the `u32` at `address` and returns the value before,
/// ordering this thread's earlier accesses (and, through a block barrier, its block's) before it,
/// GPU-wide, without the acquire half: later accesses may still hit this multiprocessor's L1 lines.
/// The thread that must see the other adders' work follows the increment with
/// [`fence_acq_rel_gpu`].
///
/// # Safety
/// `address` is a valid, 4-byte aligned device address of a `u32`.
#[inline]
pub unsafe fn atomic_add_release_gpu(address: *mut u32, value: u32) -> u32 {
    let before: u32;
    // SAFETY: the caller's contract above.
    unsafe {
        asm!(
            "atom.release.gpu.add.u32 {before}, [{address}], {value};",
            before = out(reg32) before,
            address = in(reg64) address,
            value = in(reg32) value,
            options(nostack),
        )
    };
    before
}

/// `atom.relaxed.gpu.add.u32`: adds `value` to the `u32` at `address` and returns the value before,
/// atomically but ordering nothing else (no fence, and so no wait for this thread's earlier stores
/// and no drop of the L1 cache): for counters whose result is ordered by a later barrier.
///
/// # Safety
/// `address` is a valid, 4-byte aligned device address of a `u32`.
#[inline]
pub unsafe fn atomic_add_relaxed_gpu(address: *mut u32, value: u32) -> u32 {
    let before: u32;
    // SAFETY: the caller's contract above.
    unsafe {
        asm!(
            "atom.relaxed.gpu.add.u32 {before}, [{address}], {value};",
            before = out(reg32) before,
            address = in(reg64) address,
            value = in(reg32) value,
            options(nostack),
        )
    };
    before
}

/// `red.add.f64`: adds `value` atomically to the `f64` at `address`, without reading it back
/// (relaxed, GPU-wide).
///
/// # Safety
/// `address` is a valid, 8-byte aligned device address of an `f64`.
#[inline]
pub unsafe fn atomic_add_f64(address: *mut f64, value: f64) {
    // SAFETY: the caller's contract above.
    unsafe {
        asm!(
            "red.add.f64 [{address}], {value};",
            address = in(reg64) address,
            value = in(reg64) value,
            options(nostack),
        )
    };
}

/// `ld.relaxed.gpu.u32`: a strong load that sees other multiprocessors' writes without ordering
/// later accesses (and so without invalidating the L1 cache).
///
/// # Safety
/// `address` is a valid, 4-byte aligned device address of a `u32`.
#[inline]
pub unsafe fn load_relaxed_gpu(address: *const u32) -> u32 {
    let value: u32;
    // SAFETY: the caller's contract above.
    unsafe {
        asm!(
            "ld.relaxed.gpu.u32 {value}, [{address}];",
            value = out(reg32) value,
            address = in(reg64) address,
            options(nostack, readonly),
        )
    };
    value
}

/// `ld.acquire.gpu.u32`: reads the `u32` at `address` as an acquire at GPU scope: when it reads
/// what a release wrote (or a value that a chain of atomic read-modify-writes built on one), this
/// thread's later accesses see what the releasing threads wrote before. It drops the
/// multiprocessor's L1 lines as a `fence.acq_rel.gpu` does, but without the fence's wait for every
/// access of this thread still in flight, which at the end of a short launch is on the critical
/// path.
///
/// # Safety
/// `address` is a valid, 4-byte aligned device address of a `u32`.
#[inline]
pub unsafe fn load_acquire_gpu(address: *const u32) -> u32 {
    let value: u32;
    // SAFETY: the caller's contract above.
    unsafe {
        asm!(
            "ld.acquire.gpu.u32 {value}, [{address}];",
            value = out(reg32) value,
            address = in(reg64) address,
            options(nostack),
        )
    };
    value
}

/// `fence.acq_rel.gpu`: after a relaxed load that saw a release, makes it an acquire: this
/// thread's (and, through a block barrier, its block's) later accesses see what the releasing
/// threads wrote before, GPU-wide.
#[inline]
pub fn fence_acq_rel_gpu() {
    // SAFETY: a fence has no preconditions.
    unsafe { asm!("fence.acq_rel.gpu;", options(nostack)) };
}

/// `ld.acquire.sys`: reads the 2-, 4- or 8-byte `T` at `address` as an acquire at system scope, for
/// its ordering alone (the value is dropped): when it reads what a release wrote (on any GPU, or
/// the host), this thread's later accesses see what that writer wrote before. Unlike a
/// `fence.acq_rel.sys` it does not first wait for this thread's own stores to reach the other GPUs,
/// which a wait that follows the thread's own put or `p` would pay for in every round trip.
///
/// # Safety
/// `address` is a valid, aligned address of a `T` of 2, 4 or 8 bytes (others fail to build).
#[inline(always)]
pub unsafe fn load_acquire_system<T>(address: *const T) {
    const {
        assert!(
            matches!(size_of::<T>(), 2 | 4 | 8),
            "an acquire load reads 2, 4 or 8 bytes"
        )
    };
    // SAFETY: the caller's contract above; the asm only reads.
    unsafe {
        match size_of::<T>() {
            2 => {
                asm!("ld.acquire.sys.b16 {v}, [{a}];", v = out(reg16) _, a = in(reg64) address, options(nostack))
            }
            4 => {
                asm!("ld.acquire.sys.b32 {v}, [{a}];", v = out(reg32) _, a = in(reg64) address, options(nostack))
            }
            _ => {
                asm!("ld.acquire.sys.b64 {v}, [{a}];", v = out(reg64) _, a = in(reg64) address, options(nostack))
            }
        }
    }
}

/// `fence.acq_rel.sys`: orders this thread's earlier reads before its (and, through a block
/// barrier, its block's) later ones, system-wide.
#[inline]
pub fn fence_acq_rel_system() {
    // SAFETY: a fence has no preconditions.
    unsafe { asm!("fence.acq_rel.sys;", options(nostack)) };
}
