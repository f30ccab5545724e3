//! Put with signal's ordering, checked in the kernel as it runs: the data is in place when its
//! signal is seen.

use nvshmem_gpu::{SymmetricPtr, kernel};
// What the kernels use exists only on the GPU, like the kernels themselves.
#[cfg(target_arch = "nvptx64")]
use crate::{my_share, record, tid};
#[cfg(target_arch = "nvptx64")]
use device_api_layout::{self as layout, next, prev};
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{Cmp, SignalOp, pe, rma, signal, sync, thread};

/// Sends `source` (`ELEMENTS` elements) to `dest` on PE `pe` with put-with-signal `call` (an index
/// into [`layout::signal_order::CALLS`]) at scope `$scope` (a path to a module of
/// `nvshmem_gpu::signal`), signalling `signal` with `op` and `value`. The `_nbi` calls are
/// completed (`quiet`) before returning, so that the caller may refill `source`.
#[cfg(target_arch = "nvptx64")]
macro_rules! put_with_signal {
    (
        $($scope:ident)::+, $call:expr, $dest:expr, $source:expr, $signal:expr, $value:expr,
        $op:expr, $pe:expr
    ) => {{
        use layout::signal_order::ELEMENTS;
        let bytes = ELEMENTS * core::mem::size_of::<u64>();
        let (dest, source, signal, value, op, pe) = ($dest, $source, $signal, $value, $op, $pe);
        match $call {
            0 => $($scope)::+::put_signal(dest, source, ELEMENTS, signal, value, op, pe),
            1 => {
                $($scope)::+::put_signal_nbi(dest, source, ELEMENTS, signal, value, op, pe);
                sync::quiet();
            }
            2 => $($scope)::+::putmem_signal(dest, source, bytes, signal, value, op, pe),
            _ => {
                $($scope)::+::putmem_signal_nbi(dest, source, bytes, signal, value, op, pe);
                sync::quiet();
            }
        }
    }};
}

/// Put-with-signal ordering over `rounds` rounds of variant `variant` (see
/// [`layout::signal_order`]). Each round every PE fills its `source` with the round's values,
/// sends it to the next PE's slot `round % SLOTS` of `data` with the variant's put-with-signal,
/// then waits for the previous PE's signal of this round and at once reads the slot, every thread
/// its share, counting the elements that do not hold the previous PE's values of this round. Once
/// the block has read, thread 0 acknowledges the round to the previous PE, which waits for that
/// before it reuses the slot, `SLOTS` rounds later; nothing else orders the reads after the data.
///
/// With `signal_first` (the planted defect that shows the check can fail) the data goes after the
/// signal: the signal with `signal_op`, and the data with a plain put only once the receiver has
/// acknowledged the round, so that every read is stale, whether the PEs run at once (MPS) or
/// time-slice the GPU.
///
/// # Safety
/// `variant < VARIANTS`; `source` holds `ELEMENTS` symmetric elements, `data` `SLOTS × ELEMENTS`,
/// `words` `VARIANTS × WORDS` zeroed, `results` `RESULTS`; no PE launches a variant before every
/// PE has finished the previous one (a host barrier between launches); every PE launches it
/// cooperatively as one block of `THREADS` threads.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub unsafe fn signal_order(
    variant: u32,
    rounds: u32,
    signal_first: bool,
    source: SymmetricPtr<u64>,
    data: SymmetricPtr<u64>,
    words: SymmetricPtr<u64>,
    results: SymmetricPtr<u64>,
) {
    use layout::signal_order::*;
    let (me, n) = (pe::my_pe(), pe::n_pes());
    let (to, from) = (next(me, n), prev(me, n));
    let v = variant as usize;
    let (call, scope, op_index) = parts(v);
    let op = [SignalOp::Set, SignalOp::Add][op_index];
    let t = tid();
    let sends = match scope {
        0 => t == 0,
        1 => t < 32,
        _ => true,
    };
    let (mut checked, mut stale) = (0u64, 0u64);
    let mut first_stale = [u64::MAX; 3];
    // SAFETY: the buffers have the documented sizes on every PE, so every offset is in bounds; `to`
    // and `from` are valid PEs; the warp- and block-scope calls are reached by the whole warp 0 or
    // the whole block with the same arguments, as is every `sync_threads`; each wait is for a round
    // the neighbour reaches without waiting for this PE's later rounds, so none hangs.
    unsafe {
        let word = |k: usize| words.add(v * WORDS + k);
        let ack = word(ACK);
        for round in 0..rounds as u64 {
            let slot = round as usize % SLOTS;
            let dest = data.add(slot * ELEMENTS);
            let signal = word(slot);
            if round >= SLOTS as u64 {
                signal::signal_wait_until(ack, Cmp::Ge, round - SLOTS as u64 + 1);
            }
            for i in my_share(ELEMENTS) {
                *source.add(i).as_ptr() = value(v, round, me, i);
            }
            thread::sync_threads();
            let sent = signal_sent(op_index, round);
            if signal_first {
                if t == 0 {
                    signal::signal_op(signal, sent, op, to);
                }
            } else if sends {
                let source = source.as_ptr().cast_const();
                match scope {
                    0 => put_with_signal!(signal, call, dest, source, signal, sent, op, to),
                    1 => put_with_signal!(signal::warp, call, dest, source, signal, sent, op, to),
                    _ => put_with_signal!(signal::block, call, dest, source, signal, sent, op, to),
                }
            }

            signal::signal_wait_until(signal, Cmp::Eq, signal_awaited(op_index, round));
            for i in my_share(ELEMENTS) {
                // Plain loads: the wait's acquire keeps out the lines this multiprocessor cached
                // when it read the slot `SLOTS` rounds ago.
                let got = *dest.add(i).as_ptr();
                checked += 1;
                if got != value(v, round, from, i) {
                    if stale == 0 {
                        first_stale = [round, i as u64, got];
                    }
                    stale += 1;
                }
            }
            // Every thread has its values (the comparisons used them) before thread 0 lets the
            // previous PE overwrite the slot.
            thread::sync_threads();
            if t == 0 {
                signal::signal_op(ack, round + 1, SignalOp::Set, from);
            }

            if signal_first {
                signal::signal_wait_until(ack, Cmp::Ge, round + 1);
                if sends {
                    let source = source.as_ptr().cast_const();
                    match scope {
                        0 => rma::put(dest, source, ELEMENTS, to),
                        1 => rma::warp::put(dest, source, ELEMENTS, to),
                        _ => rma::block::put(dest, source, ELEMENTS, to),
                    }
                }
            }
            thread::sync_threads();
        }
        let base = v * VARIANT_RESULTS + t * THREAD_RESULTS;
        for (k, word) in [checked, stale].into_iter().chain(first_stale).enumerate() {
            record(results, base + k, word);
        }
    }
}
