//! Put with signal at every scope, the signal operations, and the waits that see them.

use nvshmem_gpu::{SymmetricPtr, kernel};
// What the kernels use exists only on the GPU, like the kernels themselves.
#[cfg(target_arch = "nvptx64")]
use crate::{record, tid};
#[cfg(target_arch = "nvptx64")]
use device_api_layout::{N, next};
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{Cmp, SignalOp, p2p, pe, signal, sync};

/// Puts with signal at every scope into the next PE, signal operations on every PE, and the
/// waits that see them (see [`layout::signal`]).
///
/// # Safety
/// `source` holds `N` elements, `data` `DATA_REGIONS × N`, `signals` `SIGNALS` zeroed words,
/// `results` `RESULTS`, all symmetric; every PE launches it cooperatively as one block of
/// `THREADS` threads.
#[kernel]
pub unsafe fn signal_families(
    source: SymmetricPtr<u64>,
    data: SymmetricPtr<u64>,
    signals: SymmetricPtr<u64>,
    results: SymmetricPtr<u64>,
) {
    let (me, n) = (pe::my_pe(), pe::n_pes());
    let to = next(me, n);
    let t = tid();
    let bytes = N * core::mem::size_of::<u64>();
    // SAFETY: as for `rma_families`: sizes as documented, valid PEs, whole warps and blocks at the
    // scoped calls and barriers.
    unsafe {
        let word = |k: usize| signals.add(k);
        if t == 0 {
            // ANCHOR: put_signal
            signal::put_signal(data, source.as_ptr(), N, word(0), 1, SignalOp::Add, to);
            // ANCHOR_END: put_signal
            signal::putmem_signal_nbi(
                data.add(3 * N),
                source.as_ptr(),
                bytes,
                word(3),
                1,
                SignalOp::Add,
                to,
            );
            for q in 0..n {
                signal::signal_op(word(5), 1, SignalOp::Add, q);
            }
            signal::signal_op(word(6), me as u64 + 100, SignalOp::Set, to);
        }
        if t < 32 {
            signal::warp::put_signal_nbi(
                data.add(N),
                source.as_ptr(),
                N,
                word(1),
                7,
                SignalOp::Set,
                to,
            );
            signal::warp::putmem_signal(
                data.add(4 * N),
                source.as_ptr(),
                bytes,
                word(4),
                3,
                SignalOp::Set,
                to,
            );
        }
        signal::block::put_signal(
            data.add(2 * N),
            source.as_ptr(),
            N,
            word(2),
            1,
            SignalOp::Add,
            to,
        );
        sync::quiet();
        if t == 0 {
            // ANCHOR: signal_wait
            record(results, 0, signal::signal_wait_until(word(0), Cmp::Ge, 1));
            p2p::wait_until(word(1), Cmp::Eq, 7u64);
            // ANCHOR_END: signal_wait
            record(results, 1, signal::signal_wait_until(word(2), Cmp::Eq, 1));
            signal::signal_wait_until(word(3), Cmp::Ge, 1);
            signal::signal_wait_until(word(4), Cmp::Eq, 3);
            record(
                results,
                2,
                signal::signal_wait_until(word(5), Cmp::Eq, n as u64),
            );
            record(results, 3, signal::signal_wait_until(word(6), Cmp::Ne, 0));
            record(results, 4, signal::signal_fetch(word(5)));
            record(results, 5, signal::signal_fetch(word(1)));
        }
        sync::barrier_all_block();
    }
}
