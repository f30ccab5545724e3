//! Plain loads after a signal wait read the slot's new data, even where they read the same slot
//! before.

use nvshmem_gpu::{SymmetricPtr, kernel};
// What the kernels use exists only on the GPU, like the kernels themselves.
#[cfg(target_arch = "nvptx64")]
use crate::{my_share, record, tid};
#[cfg(target_arch = "nvptx64")]
use device_api_layout::{self as layout, next, prev};
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{Cmp, SignalOp, pe, signal, thread};

/// Slot reuse with plain loads after the signal (see [`layout::slot_reuse`]): sending block `l`
/// of every PE puts round after round into lane `l`'s slots on the next PE with a block-scope
/// `put_signal` (setting the slot's word to the round plus one); receiving block `LANES + l`
/// waits in thread 0 for each round's word, meets its block, and every thread reads its share of
/// the slot with plain loads and counts the elements that do not hold the round's value. Then
/// thread 0 acknowledges the round to the previous PE, whose sender reuses the slot `SLOTS` rounds
/// later. The receiving blocks never fence on their own: the wait's acquire alone must keep the
/// lines read `SLOTS` rounds earlier out of the loads. With `planted` the wait is NVSHMEM's
/// `nvshmem_signal_wait_until` called directly, without the wrapper's acquire: the defect the
/// check must find (NVSHMEM 3.4.5's wait has no fence; 3.8.0's has one of its own).
///
/// # Safety
/// The buffers are symmetric with the sizes of [`layout::slot_reuse`] (`source`: `LANES ×
/// ELEMENTS`; `data`: `LANES × SLOTS × ELEMENTS`; `words`: `LANES × WORDS`, zeroed; `results`:
/// `RESULTS`); every PE launches it cooperatively as `BLOCKS` blocks of `THREADS` threads.
#[kernel]
pub unsafe fn slot_reuse(
    planted: bool,
    rounds: u32,
    source: SymmetricPtr<u64>,
    data: SymmetricPtr<u64>,
    words: SymmetricPtr<u64>,
    results: SymmetricPtr<u64>,
) {
    use layout::slot_reuse::*;
    let (me, n) = (pe::my_pe(), pe::n_pes());
    let block = thread::block_idx_x() as usize;
    let (lane, sends) = (block % LANES, block < LANES);
    let t = tid();
    // SAFETY: the buffers have the documented sizes on every PE, so every offset is in bounds;
    // `next` and `prev` are valid PEs; each block-scope call and `sync_threads` is reached by the
    // whole block; each wait is for a round the other PE's block reaches without waiting for this
    // block's later rounds, and the launch is cooperative, so none hangs.
    unsafe {
        let word = |k: usize| words.add(lane * WORDS + k);
        let slot_data = |round: u64| data.add((lane * SLOTS + round as usize % SLOTS) * ELEMENTS);
        if sends {
            let (to, source) = (next(me, n), source.add(lane * ELEMENTS));
            for round in 0..rounds as u64 {
                if round >= SLOTS as u64 {
                    if t == 0 {
                        signal::signal_wait_until(word(ACK), Cmp::Ge, round - SLOTS as u64 + 1);
                    }
                    thread::sync_threads();
                }
                for i in my_share(ELEMENTS) {
                    *source.add(i).as_ptr() = value(lane, round, me, i);
                }
                thread::sync_threads();
                let slot = round as usize % SLOTS;
                signal::block::put_signal(
                    slot_data(round),
                    source.as_ptr().cast_const(),
                    ELEMENTS,
                    word(slot),
                    round + 1,
                    SignalOp::Set,
                    to,
                );
            }
            return;
        }
        let from = prev(me, n);
        let (mut checked, mut stale) = (0u64, 0u64);
        let mut first_stale = [u64::MAX; 3];
        for round in 0..rounds as u64 {
            let signal = word(round as usize % SLOTS);
            if t == 0 {
                if planted {
                    nvshmem_gpu::ffi::nvshmem_signal_wait_until(
                        signal.as_ptr(),
                        Cmp::Ge as i32,
                        round + 1,
                    );
                } else {
                    signal::signal_wait_until(signal, Cmp::Ge, round + 1);
                }
            }
            thread::sync_threads();
            let slot = slot_data(round);
            for i in my_share(ELEMENTS) {
                let got = *slot.add(i).as_ptr();
                checked += 1;
                if got != value(lane, round, from, i) {
                    if stale == 0 {
                        first_stale = [round, i as u64, got];
                    }
                    stale += 1;
                }
            }
            // Every thread has read the slot before the previous PE may write it again.
            thread::sync_threads();
            if t == 0 {
                signal::signal_op(word(ACK), round + 1, SignalOp::Set, from);
            }
        }
        let base = lane * LANE_RESULTS + t * THREAD_RESULTS;
        for (k, word) in [checked, stale].into_iter().chain(first_stale).enumerate() {
            record(results, base + k, word);
        }
    }
}
