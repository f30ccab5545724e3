//! Transfers over loads and stores: `put`, `get` and their `_nbi` and byte forms, and puts with
//! signal, for a PE whose memory is mapped here, at thread, warp and block scope.
//!
//! As NVSHMEM's header path does it: the same peer address (`nvshmem_ptr`: the peer's heap base
//! plus the offset), the bytes split into 16-, 8-, 4- and 1-byte pieces dealt out over the threads
//! of the group ([`super::striped`]), relaxed loads and stores (ordered, like NVSHMEM's plain ones,
//! by `quiet`, `fence` and barriers; atomic, so that the safe layer's reads and writes of the same
//! elements by other threads do not race with them), and the group's synchronisation before and
//! after, in the same order: the group
//! waits first, then looks up the peer's address. Looked up before the wait, the address would be
//! held live across the barrier, one more register through it, which the small block- and
//! warp-scope transfers pay for.

use super::{Scope, Way, connectivity, striped};
use crate::relaxed::RelaxedAccess;
use crate::{ffi, thread};
use core::ffi::{c_int, c_void};

impl Scope {
    /// This thread's rank in the group and the group's size.
    #[inline(always)]
    fn rank_and_size(self) -> (usize, usize) {
        match self {
            Scope::Thread => (0, 1),
            Scope::Warp => (thread::lane_id() as usize, 32),
            Scope::Block => (
                thread::rank_in_block() as usize,
                (thread::block_dim_x() * thread::block_dim_y() * thread::block_dim_z()) as usize,
            ),
        }
    }

    /// Waits for the whole group (`__syncwarp`, `__syncthreads`; nothing for one thread).
    ///
    /// # Safety
    /// Every thread of the group reaches the same call.
    #[inline(always)]
    unsafe fn sync(self) {
        // SAFETY: the caller's contract.
        unsafe {
            match self {
                Scope::Thread => {}
                Scope::Warp => thread::sync_warp(),
                Scope::Block => thread::sync_threads(),
            }
        }
    }
}

/// Moves `bytes` bytes between local memory at `local` and the symmetric address `symmetric` on
/// PE `pe`: with the group's loads and stores if `pe`'s memory is mapped here, else with
/// `nvshmem`, NVSHMEM's own call for the same transfer. The group waits before and after.
///
/// Both ways end at the same wait, as in NVSHMEM's header path (on the unmapped way the group
/// waits twice at the end: inside NVSHMEM's call, then here). With a wait at the end of each way,
/// a kernel that transfers in a loop would reach its loop test through a block both waits jump to,
/// and `ptxas` would schedule the test after the barrier instead of overlapping it with the copy.
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
    // SAFETY: the caller's contract: the whole group is here, `symmetric` is symmetric and `pe`
    // valid; the remote range is the peer's mapping of `symmetric`.
    unsafe {
        scope.sync();
        match peer_address(symmetric, pe) {
            Some(remote) => {
                let (dest, source) = match way {
                    Way::Put => (remote, local),
                    Way::Get => (local, remote),
                };
                copy(scope, dest, source, bytes);
            }
            None => nvshmem(),
        }
        scope.sync();
    }
}

/// `put_signal` over loads and stores, as NVSHMEM's header path does it: the group copies
/// `bytes` bytes from local `source` to `symmetric` on PE `pe`, waits, then its first thread makes
/// the data visible system-wide (`fence.sc.sys`) and applies `op` with `value` to `signal` on `pe`
/// through the peer's mapping ([`signal_at`]) where NVSHMEM would ([`signal_through_mapping`]),
/// else with `nvshmemx_signal_op`. If `pe`'s memory is not mapped here, `nvshmem`,
/// NVSHMEM's own call, does it all. The group waits before and after, as in [`transfer`].
///
/// The signal's address, and whether the signal may go through the mapping, are looked up before
/// the fence, as NVSHMEM's header path does; calling `nvshmemx_signal_op` after the fence looked
/// the address up again, a load behind the fence's cache invalidation on every signal.
///
/// # Safety
/// As for [`transfer`] (a put), and `signal` is a symmetric `u64`, `op` `NVSHMEM_SIGNAL_SET` or
/// `NVSHMEM_SIGNAL_ADD`.
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
    // SAFETY: the caller's contract: the whole group is here, so it may synchronise; `symmetric`
    // and `signal` are symmetric (mapped where the other is) and `pe` valid.
    unsafe {
        scope.sync();
        match peer_address(symmetric, pe) {
            Some(remote) => {
                let mapped_signal =
                    peer_address(signal.cast(), pe).filter(|_| signal_through_mapping(op));
                let rank = copy(scope, remote, source.cast_mut(), bytes);
                scope.sync();
                if rank == 0 {
                    core::arch::asm!("fence.sc.sys;", options(nostack));
                    match mapped_signal {
                        Some(word) => signal_at(word.cast(), value, op),
                        None => ffi::nvshmemx_signal_op(signal, value, op, pe),
                    }
                }
            }
            None => nvshmem(),
        }
        scope.sync();
    }
}

/// Whether the signal operation `op` on a mapped peer's signal word may go through the mapping: a
/// set always, as NVSHMEM does, an addition only where the host has found that NVSHMEM would add
/// through the mapping too ([`connectivity`]); otherwise NVSHMEM's call applies it, through the
/// transport that applies every other PE's additions to that word.
#[inline(always)]
fn signal_through_mapping(op: c_int) -> bool {
    op == ffi::NVSHMEM_SIGNAL_SET || connectivity::mapped_signal_adds()
}

/// Applies `op` with `value` to the signal word at `word`, a peer's word mapped here, as NVSHMEM
/// does on that path: a store (`NVSHMEM_SIGNAL_SET`; NVSHMEM's is volatile, this one a relaxed
/// atomic store, which PTX makes the same `st.relaxed.sys`, and which does not race with the safe
/// layer's atomic waits on the word) or a system-scope atomic addition (`NVSHMEM_SIGNAL_ADD`).
///
/// # Safety
/// `word` is a peer's signal word, mapped in this PE's address space, and
/// [`signal_through_mapping`] allows `op` there.
#[inline(always)]
unsafe fn signal_at(word: *mut u64, value: u64, op: c_int) {
    // SAFETY: the caller's contract.
    unsafe {
        if op == ffi::NVSHMEM_SIGNAL_SET {
            u64::store_relaxed(word, value)
        } else {
            core::arch::asm!(
                "red.relaxed.sys.add.u64 [{word}], {value};",
                word = in(reg64) word,
                value = in(reg64) value,
                options(nostack),
            )
        }
    }
}

/// The address of `symmetric` on PE `pe` in this PE's address space (`nvshmem_ptr`), if mapped.
///
/// # Safety
/// `symmetric` is a symmetric address and `pe` a valid PE.
#[inline(always)]
unsafe fn peer_address(symmetric: *mut c_void, pe: i32) -> Option<*mut c_void> {
    // SAFETY: the caller's contract.
    let remote = unsafe { ffi::nvshmem_ptr(symmetric.cast_const(), pe) };
    (!remote.is_null()).then_some(remote)
}

/// The group copies `bytes` bytes from `source` to `dest`, each thread its share; returns this
/// thread's rank in the group.
///
/// # Safety
/// Every thread of the group calls it with the same arguments; both ranges are valid for `bytes`
/// bytes and do not overlap.
#[inline(always)]
unsafe fn copy(scope: Scope, dest: *mut c_void, source: *mut c_void, bytes: usize) -> usize {
    let (rank, size) = scope.rank_and_size();
    // SAFETY: the caller's contract.
    unsafe { striped::copy(dest.cast(), source.cast_const().cast(), bytes, rank, size) };
    rank
}
