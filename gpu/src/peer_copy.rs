//! The load/store path of the RMA wrappers: when the target PE's memory is mapped into this PE's
//! address space (NVLink or PCIe peer access, and this PE itself), `put`, `get` and their `_nbi`
//! and byte forms copy with the calling threads' own loads and stores instead of calling
//! NVSHMEM's device library; otherwise they call it (its proxy path).
//!
//! Why: NVSHMEM's device bitcode (`libnvshmem_device.bc`, what a Rust kernel links) is built with
//! `__clang_llvm_bitcode_lib__`, under which its copy loop loads four 32-bit words one by one and
//! stores them with a `volatile` inline-asm vector store, one 16-byte piece per iteration. CUDA C++
//! code that includes NVSHMEM's headers gets the plain `int4` loop instead, which `nvcc` turns into
//! 16-byte loads and stores unrolled four times. With one thread per copy the bitcode loop moved
//! half the bytes per second (bench/results/bench-2026-11-29-1156.md, thread-scope `put_bw`: 0.54
//! of CUDA C++). This module is the header path in Rust: the same peer address
//! (`nvshmem_ptr`: the peer's heap base plus the offset), the same split of the bytes into 16-,
//! 8-, 4- and 1-byte pieces dealt out over the threads of the group ([`crate::striped_copy`]),
//! plain stores (ordered, like NVSHMEM's, by `quiet`, `fence` and barriers), and the same group
//! synchronisation before and after, in the same order: the group waits first, then looks up the
//! peer's address. Looked up before the wait, the address made a block-scope `get_nbi` of 4 KiB
//! 5 % slower than CUDA C++, and block- and warp-scope puts of 4 KiB 3-8 % slower than in this
//! order (H200, 2026-11-29; bench/results/bench-2026-11-29-1827.md, notes).

use crate::{SignalOp, connectivity, ffi, striped_copy, thread};
use core::ffi::c_void;

/// The threads that share one transfer: NVSHMEM's thread, warp and block scopes.
#[derive(Clone, Copy)]
pub(crate) enum Scope {
    /// The calling thread alone.
    Thread,
    /// The 32 threads of the calling warp.
    Warp,
    /// Every thread of the calling block.
    Block,
}

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

/// Which way the bytes go: to the peer (`put`) or from it (`get`).
#[derive(Clone, Copy)]
pub(crate) enum Way {
    /// Local `local` to `symmetric` on the peer.
    Put,
    /// `symmetric` on the peer to local `local`.
    Get,
}

/// Moves `bytes` bytes between local memory at `local` and the symmetric address `symmetric` on
/// PE `pe`: with the group's loads and stores if `pe`'s memory is mapped here, else with
/// `nvshmem`, NVSHMEM's own call for the same transfer. The group waits before and after.
///
/// Both ways end at the same wait, as in NVSHMEM's header path (on the unmapped way the group
/// waits twice at the end: inside NVSHMEM's call, then here). When each ended at its own wait,
/// a kernel that calls a block-scope transfer in a loop reached its loop test through a block
/// that both waits jumped to, and `ptxas` left the test and two branches after the barrier
/// instead of overlapping them with the copy: block-scope `get_nbi` of 1 MiB over 132 blocks ran
/// at 0.934 of CUDA C++'s bandwidth on one PE and 0.950 with 2 PEs on one GPU; with the shared
/// wait, 0.963 and 0.991, and 0.964 → 1.035 between two GPUs (H200, 2026-11-30;
/// bench/results/rma-wait-2026-11-30.txt).
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
/// The signal's address is looked up before the fence, as NVSHMEM's header path does; calling
/// `nvshmemx_signal_op` after the fence looked it up again, a load behind the fence's cache
/// invalidation on every signal.
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
    op: SignalOp,
    pe: i32,
    nvshmem: impl FnOnce(),
) {
    // SAFETY: the caller's contract: the whole group is here, so it may synchronise; `symmetric`
    // and `signal` are symmetric (mapped where the other is) and `pe` valid.
    unsafe {
        scope.sync();
        match peer_address(symmetric, pe) {
            Some(remote) => {
                let remote_signal = peer_address(signal.cast(), pe);
                let rank = copy(scope, remote, source.cast_mut(), bytes);
                scope.sync();
                if rank == 0 {
                    core::arch::asm!("fence.sc.sys;", options(nostack));
                    match remote_signal {
                        Some(word) if signal_through_mapping(op) => {
                            signal_at(word.cast(), value, op)
                        }
                        _ => ffi::nvshmemx_signal_op(signal, value, op as i32, pe),
                    }
                }
            }
            None => nvshmem(),
        }
        scope.sync();
    }
}

/// Whether `op` on a mapped peer's signal word may go through the mapping, as NVSHMEM decides in
/// `nvshmemi_signal_op`: a `Set` always, an `Add` only when the job's connectivity is load/store
/// ([`connectivity::atomics_through_mapping`]); otherwise NVSHMEM's call applies it, through the
/// transport that applies every other PE's additions to that word.
#[inline(always)]
fn signal_through_mapping(op: SignalOp) -> bool {
    match op {
        SignalOp::Set => true,
        SignalOp::Add => connectivity::atomics_through_mapping(connectivity::job_connectivity()),
    }
}

/// Applies `op` with `value` to the signal word at `word`, a peer's word mapped here, as NVSHMEM
/// does on that path: a volatile store (`Set`) or a system-scope atomic addition (`Add`).
///
/// # Safety
/// `word` is a peer's signal word, mapped in this PE's address space, and
/// [`signal_through_mapping`] allows `op` there.
#[inline(always)]
unsafe fn signal_at(word: *mut u64, value: u64, op: SignalOp) {
    // SAFETY: the caller's contract.
    unsafe {
        match op {
            SignalOp::Set => word.write_volatile(value),
            SignalOp::Add => core::arch::asm!(
                "red.relaxed.sys.add.u64 [{word}], {value};",
                word = in(reg64) word,
                value = in(reg64) value,
                options(nostack),
            ),
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
    unsafe { striped_copy::copy(dest.cast(), source.cast_const().cast(), bytes, rank, size) };
    rank
}
