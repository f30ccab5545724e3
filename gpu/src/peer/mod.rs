//! The load/store path: transfers and thread-scope collectives between PEs whose memory is mapped
//! into each other's address space (NVLink or PCIe peers, and a PE itself), done with the calling
//! threads' own loads and stores instead of NVSHMEM's device library.
//!
//! [`crate::rma`]'s `put`, `get`, their `_nbi` and byte forms, and [`crate::signal`]'s puts with
//! signal, at every scope, call [`transfer`] and [`put_signal`]; [`crate::collective`]'s
//! thread-scope `alltoall`, `fcollect`, `reduce` and `reducescatter` call [`push_blocks`] and
//! [`pull_reduce`]. Each falls back to NVSHMEM's own call where the peer is not mapped (or, for the
//! collectives, where the team is not all mapped or the data is small).
//!
//! Why: NVSHMEM's device bitcode, which a Rust kernel links, is built for clang
//! (`__clang_llvm_bitcode_lib__`), and there its copy loop moves one 16-byte piece per iteration as
//! four 4-byte loads and a `volatile` vector store. CUDA C++ that includes NVSHMEM's headers gets a
//! plain `int4` loop that `nvcc` unrolls, so one thread copying alone waits a memory round trip per
//! piece with the bitcode and a quarter of one with the headers; the bitcode's reductions likewise
//! combine one element per iteration. This module is the header path in Rust: the same peer
//! addresses, the same ordering and group synchronisation, wider pieces in flight.
//!
//! # Turning it off
//! With `nvshmem-gpu`'s `nvshmem-only` feature every one of these calls is NVSHMEM's own: the
//! functions here run the fallback they are given and the load/store code is not compiled. The
//! feature changes how data moves, not what arrives, so it serves to compare the two paths or to
//! rule this one out when a result looks wrong. `nvshmem-builder` turns it on with
//! `PtxBuilder::load_store(false)`; a kernel crate can also enable it in its `Cargo.toml`.
//!
//! Signal additions that this path issues itself follow NVSHMEM's rule for them, as the host
//! establishes it when it loads the module ([`connectivity`]).

#[cfg(any(test, not(feature = "nvshmem-only")))]
mod collective;
mod connectivity;
#[cfg(all(target_arch = "nvptx64", not(feature = "nvshmem-only")))]
mod copy;
#[cfg(any(test, not(feature = "nvshmem-only")))]
mod striped;

use crate::call_scope::Scope;
use crate::team::Team;
use core::ffi::{c_int, c_void};

/// Which way the bytes go: to the peer (`put`) or from it (`get`).
#[derive(Clone, Copy)]
pub(crate) enum Way {
    /// Local `local` to `symmetric` on the peer.
    Put,
    /// `symmetric` on the peer to local `local`.
    Get,
}

/// Which blocks of its `source` each member sends in [`push_blocks`].
#[derive(Clone, Copy)]
pub(crate) enum Push {
    /// Block `k` to member `k` (alltoall: `source` holds a block per member).
    Alltoall,
    /// The one block to every member (fcollect: `source` holds one block).
    Fcollect,
}

/// Which elements of the members' `source` [`pull_reduce`] combines.
#[derive(Clone, Copy)]
pub(crate) enum Pull {
    /// All `count` (reduce: `source` holds `count`).
    Reduce,
    /// Block `rank` of `count` elements, `rank` being this PE's number in the team
    /// (reduce-scatter: `source` holds a block per member).
    ReduceScatter,
}

/// Moves `bytes` bytes between local memory at `local` and the symmetric address `symmetric` on
/// PE `pe`, the threads of `scope` sharing the work: with their loads and stores if `pe`'s memory
/// is mapped here, else with `nvshmem`, NVSHMEM's own call for the same transfer.
///
/// # Safety
/// Every thread of the group calls it with the same arguments; `symmetric` is a symmetric address
/// valid for `bytes` bytes on every PE, `local` is valid for `bytes` bytes, `pe` is a valid PE;
/// the buffers do not overlap; `nvshmem` is NVSHMEM's call for this transfer.
#[inline(always)]
pub(crate) unsafe fn transfer(
    scope: Scope,
    way: Way,
    symmetric: *mut c_void,
    local: *mut c_void,
    bytes: usize,
    pe: i32,
    nvshmem: impl FnOnce(),
) {
    #[cfg(all(target_arch = "nvptx64", not(feature = "nvshmem-only")))]
    // SAFETY: the caller's contract, which is `copy::transfer`'s.
    unsafe {
        copy::transfer(scope, way, symmetric, local, bytes, pe, nvshmem)
    }
    #[cfg(not(all(target_arch = "nvptx64", not(feature = "nvshmem-only"))))]
    {
        let _ = (scope, way, symmetric, local, bytes, pe);
        nvshmem()
    }
}

/// `put_signal` of `bytes` bytes from local `source` to `symmetric` on PE `pe`, then the signal
/// operation `op` (`NVSHMEM_SIGNAL_SET` or `NVSHMEM_SIGNAL_ADD`) with `value` on the signal word
/// `signal` there: over loads and stores if `pe`'s memory is mapped here, else with `nvshmem`,
/// NVSHMEM's own call.
///
/// # Safety
/// As for [`transfer`] (a put), and `signal` is a symmetric `u64`, `op` a signal operation.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // NVSHMEM's put_signal arguments, the scope and the fallback
pub(crate) unsafe fn put_signal(
    scope: Scope,
    symmetric: *mut c_void,
    source: *const c_void,
    bytes: usize,
    signal: *mut u64,
    value: u64,
    op: c_int,
    pe: i32,
    nvshmem: impl FnOnce(),
) {
    #[cfg(all(target_arch = "nvptx64", not(feature = "nvshmem-only")))]
    // SAFETY: the caller's contract, which is `copy::put_signal`'s.
    unsafe {
        copy::put_signal(
            scope, symmetric, source, bytes, signal, value, op, pe, nvshmem,
        )
    }
    #[cfg(not(all(target_arch = "nvptx64", not(feature = "nvshmem-only"))))]
    {
        let _ = (scope, symmetric, source, bytes, signal, value, op, pe);
        nvshmem()
    }
}

/// The thread-scope alltoall (`Push::Alltoall`) or fcollect (`Push::Fcollect`) of `block_bytes`
/// bytes per member over loads and stores, if the team and the sizes allow it; returns whether it
/// did the collective (if not, the caller runs NVSHMEM's).
///
/// # Safety
/// As for `collective::push_blocks`: one thread of every member calls it, in the same order
/// relative to other collective calls on `team`, from a cooperatively launched kernel, with the
/// buffers that `push` says; this PE is in `team`.
#[inline(always)]
pub(crate) unsafe fn push_blocks(
    team: Team,
    push: Push,
    dest: *mut u8,
    source: *const u8,
    block_bytes: usize,
) -> bool {
    #[cfg(not(feature = "nvshmem-only"))]
    // SAFETY: the caller's contract.
    unsafe {
        collective::push_blocks(team, push, dest, source, block_bytes)
    }
    #[cfg(feature = "nvshmem-only")]
    {
        let _ = (team, push, dest, source, block_bytes);
        false
    }
}

/// The thread-scope reduce (`Pull::Reduce`) or reduce-scatter (`Pull::ReduceScatter`) of `count`
/// elements with `combine` (the operator, as NVSHMEM computes it) over loads, if the team and the
/// sizes allow it; returns whether it did the collective (if not, the caller runs NVSHMEM's).
///
/// # Safety
/// As for `collective::pull_reduce`: one thread of every member calls it, in the same order
/// relative to other collective calls on `team`, from a cooperatively launched kernel, with the
/// buffers that `pull` says; this PE is in `team`.
#[inline(always)]
pub(crate) unsafe fn pull_reduce<T: crate::RelaxedAccess, C: Fn(T, T) -> T + Copy>(
    team: Team,
    pull: Pull,
    dest: *mut T,
    source: *const T,
    count: usize,
    combine: C,
) -> bool {
    #[cfg(not(feature = "nvshmem-only"))]
    // SAFETY: the caller's contract.
    unsafe {
        collective::pull_reduce(team, pull, dest, source, count, combine)
    }
    #[cfg(feature = "nvshmem-only")]
    {
        let _ = (team, pull, dest, source, count, combine);
        false
    }
}
