//! Kernels of the device-API GPU tests (`tests/gpu_device_api/`): one kernel per family of
//! NVSHMEM's device API that works with several PEs per GPU without MPS (RMA, signals,
//! point-to-point synchronisation, atomics, barriers over all PEs, the debugging timeouts), each
//! leaving results in symmetric buffers that the host compares with `device_api_layout`'s expected values,
//! `signal_order`, which checks in the kernel that put-with-signal's data is in place when
//! its signal is seen, and `slot_reuse`, which checks that plain loads after a signal wait read
//! that data even where they read the same slot before.
//! Every kernel but `slot_reuse` (`BLOCKS` blocks) runs as one block of `THREADS`
//! threads, launched cooperatively on every PE. Team barriers and collectives are in
//! `teams-kernels/`, a module of its own because NVSHMEM's collectives make large PTX that takes
//! long to JIT-compile.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use nvshmem_gpu::{SymmetricPtr, kernel};
// What the kernels use exists only on the GPU, like the kernels themselves.
#[cfg(target_arch = "nvptx64")]
use device_api_layout as layout;
#[cfg(target_arch = "nvptx64")]
use layout::{MAX_PES, N, THREADS, next, prev};
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{Cmp, SignalOp, Team, atomic, p2p, pe, rma, signal, sync, team, thread};

/// This thread's rank in the block.
#[cfg(target_arch = "nvptx64")]
fn tid() -> usize {
    thread::rank_in_block() as usize
}

/// The elements `tid, tid + THREADS, …` below `count`: this thread's share of a block-wide loop.
#[cfg(target_arch = "nvptx64")]
fn my_share(count: usize) -> impl Iterator<Item = usize> {
    (tid()..count).step_by(THREADS as usize)
}

/// Writes `value` to word `slot` of a local result buffer.
///
/// # Safety
/// `results` holds more than `slot` elements.
#[cfg(target_arch = "nvptx64")]
unsafe fn record<T>(results: SymmetricPtr<T>, slot: usize, value: T) {
    // SAFETY: the caller's contract above; a plain local store.
    unsafe { *results.add(slot).as_ptr() = value };
}

/// RMA at every scope: puts into the next PE, then gets from it (see [`layout::rma`]).
///
/// # Safety
/// Every buffer is symmetric with the sizes of [`layout::rma`] (`source`, `byte_source`: `N`;
/// `out`: `OUT_REGIONS × N`; `strided`: `STRIDED_REGIONS × N`, zeroed; `bytes`: `BYTE_REGIONS ×
/// N`, zeroed; `reals`: `REAL_REGIONS × N`; `reach`: `REACH_WORDS`); every PE launches it
/// cooperatively as one block of `THREADS` threads.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub unsafe fn rma_families(
    source: SymmetricPtr<i32>,
    out: SymmetricPtr<i32>,
    strided: SymmetricPtr<i32>,
    byte_source: SymmetricPtr<u8>,
    bytes: SymmetricPtr<u8>,
    reals: SymmetricPtr<f64>,
    reach: SymmetricPtr<i32>,
) {
    let (me, n) = (pe::my_pe(), pe::n_pes());
    let to = next(me, n);
    let t = tid();
    let warp0 = t < 32;
    // SAFETY: the buffers have the documented sizes on every PE, so every offset below is in
    // bounds; `to` is a valid PE; warp- and block-scope calls are reached by the whole warp 0 or
    // the whole block with the same arguments; the barriers are reached by the whole block on every
    // PE.
    unsafe {
        if t == 0 {
            rma::put(out, source.as_ptr(), N, to);
            rma::iput(strided, source.as_ptr(), 2, 1, N / 2, to);
            let (offset, length) = layout::rma::BYTE_SPANS[0];
            rma::putmem(
                bytes.add(offset),
                byte_source.as_ptr().add(offset),
                length,
                to,
            );
        }
        if warp0 {
            rma::warp::put_nbi(out.add(N), source.as_ptr(), N, to);
            rma::warp::iput(strided.add(N), source.as_ptr(), 1, 2, N / 2, to);
            let (offset, length) = layout::rma::BYTE_SPANS[1];
            rma::warp::putmem_nbi(
                bytes.add(N + offset),
                byte_source.as_ptr().add(offset),
                length,
                to,
            );
        }
        // ANCHOR: rma_block_put
        rma::block::put(out.add(2 * N), source.as_ptr(), N, to);
        rma::block::put_nbi(out.add(3 * N), source.as_ptr(), N, to);
        // ANCHOR_END: rma_block_put
        let (offset, length) = layout::rma::BYTE_SPANS[2];
        rma::block::putmem(
            bytes.add(2 * N + offset),
            byte_source.as_ptr().add(offset),
            length,
            to,
        );
        // ANCHOR: rma_p
        for i in my_share(N) {
            rma::p(reals.add(i), layout::rma::p_value(me, i), to);
        }
        // ANCHOR_END: rma_p
        // ANCHOR: rma_ptr
        let direct = rma::ptr(reals.add(2 * N), to);
        if let Some(peer) = direct {
            for i in my_share(N) {
                core::ptr::write_volatile(peer.as_ptr().add(i), layout::rma::direct_value(me, i));
            }
        }
        // ANCHOR_END: rma_ptr
        if t == 0 {
            record(reach, 0, direct.is_some() as i32);
            let own = rma::ptr(reals, me).map(|p| p.as_ptr());
            record(reach, 1, (own == Some(reals.as_ptr())) as i32);
        }
        // ANCHOR: rma_quiet_barrier
        sync::quiet();
        sync::barrier_all_block();
        // ANCHOR_END: rma_quiet_barrier

        if t == 0 {
            rma::get(out.add(4 * N).as_ptr(), source, N, to);
            rma::get_nbi(out.add(7 * N).as_ptr(), source, N, to);
            rma::iget(strided.add(3 * N).as_ptr(), source, 1, 2, N / 2, to);
        }
        if warp0 {
            rma::warp::get(out.add(5 * N).as_ptr(), source, N, to);
        }
        rma::block::get_nbi(out.add(6 * N).as_ptr(), source, N, to);
        rma::block::iget(strided.add(2 * N).as_ptr(), source, 2, 3, N / 3, to);
        let (offset, length) = layout::rma::BYTE_SPANS[3];
        rma::block::getmem(
            bytes.add(3 * N + offset).as_ptr(),
            byte_source.add(offset),
            length,
            to,
        );
        // ANCHOR: rma_g
        for i in my_share(N) {
            *reals.add(N + i).as_ptr() = rma::g(reals.add(i), to);
        }
        // ANCHOR_END: rma_g
        sync::quiet();
        sync::barrier_all_block();
    }
}

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

/// Every PE sets its flag on every PE; then the waits and tests of every form, on `u64`, `i32` and
/// `i16` (`short`) flags (see [`layout::p2p`] for the result slots).
///
/// # Safety
/// `flags`, `flags32`, `flags16` hold `MAX_PES` zeroed symmetric elements, `results` `RESULTS`;
/// at most `MAX_PES` PEs; every PE launches it cooperatively as one block.
#[kernel]
pub unsafe fn p2p_families(
    flags: SymmetricPtr<u64>,
    flags32: SymmetricPtr<i32>,
    flags16: SymmetricPtr<i16>,
    results: SymmetricPtr<i64>,
) {
    let (me, n) = (pe::my_pe(), pe::n_pes());
    let count = n as usize;
    if tid() != 0 || count > MAX_PES {
        return;
    }
    let from = prev(me, n);
    let mut values = [0u64; MAX_PES];
    for (q, value) in values.iter_mut().enumerate() {
        *value = q as u64 + 1;
    }
    let wrong = values.map(|v| v + 1);
    let mut skip_all_but_last = [1i32; MAX_PES];
    skip_all_but_last[count - 1] = 0;
    let mut skip_first = [0i32; MAX_PES];
    skip_first[0] = 1;
    let mut indices = [usize::MAX; MAX_PES];
    let as_i64 = |found: Option<usize>| found.map_or(-1, |i| i as i64);
    // SAFETY: the buffers hold `MAX_PES ≥ n` elements on every PE; every PE is valid; the waits are
    // satisfied by the `p`s every PE makes before waiting; the slices have `MAX_PES ≥ n` entries.
    unsafe {
        // ANCHOR: wait_until_all
        for q in 0..n {
            rma::p(flags.add(me as usize), me as u64 + 1, q);
            rma::p(flags32.add(me as usize), me + 1, q);
            rma::p(flags16.add(me as usize), me as i16 + 1, q);
        }
        sync::quiet();
        p2p::wait_until_all(flags, count, None, Cmp::Ne, 0);
        // ANCHOR_END: wait_until_all
        p2p::wait_until_all(flags32, count, None, Cmp::Ge, 1);
        p2p::wait_until(flags16.add(from as usize), Cmp::Eq, from as i16 + 1);
        p2p::wait_until_all_vector(flags, count, None, Cmp::Eq, &values);
        let r = |slot, value| record(results, slot, value);
        r(
            0,
            as_i64(p2p::wait_until_any(
                flags,
                count,
                Some(&skip_all_but_last[..]),
                Cmp::Eq,
                n as u64,
            )),
        );
        r(
            1,
            as_i64(p2p::wait_until_any_vector(
                flags,
                count,
                Some(&skip_all_but_last[..]),
                Cmp::Eq,
                &values,
            )),
        );
        let found = p2p::wait_until_some(flags, count, &mut indices, None, Cmp::Ge, 1);
        r(2, found as i64);
        for (q, index) in indices.iter().take(count).enumerate() {
            r(layout::p2p::SOME_INDICES + q, *index as i64);
        }
        r(
            3,
            p2p::wait_until_some_vector(flags, count, &mut indices, None, Cmp::Eq, &values) as i64,
        );
        let own = flags.add(me as usize);
        r(4, p2p::test(own, Cmp::Eq, me as u64 + 1) as i64);
        r(5, p2p::test(own, Cmp::Gt, 1000) as i64);
        r(6, p2p::test_all(flags, count, None, Cmp::Ge, 1) as i64);
        r(7, p2p::test_all(flags, count, None, Cmp::Ge, 2) as i64);
        r(8, as_i64(p2p::test_any(flags, count, None, Cmp::Eq, 1)));
        r(9, as_i64(p2p::test_any(flags, count, None, Cmp::Eq, 999)));
        indices = [usize::MAX; MAX_PES];
        r(
            10,
            p2p::test_some(
                flags,
                count,
                &mut indices,
                Some(&skip_first[..]),
                Cmp::Ge,
                1,
            ) as i64,
        );
        r(17, indices[0] as i64);
        r(
            11,
            p2p::test_all_vector(flags, count, None, Cmp::Eq, &values) as i64,
        );
        r(
            12,
            as_i64(p2p::test_any_vector(flags, count, None, Cmp::Eq, &wrong)),
        );
        indices = [usize::MAX; MAX_PES];
        r(
            13,
            p2p::test_some_vector(flags, count, &mut indices, None, Cmp::Eq, &values) as i64,
        );
        for (q, index) in indices.iter().take(count).enumerate() {
            r(layout::p2p::SOME_VECTOR_INDICES + q, *index as i64);
        }
        r(
            14,
            p2p::test(flags16.add(me as usize), Cmp::Eq, me as i16 + 1) as i64,
        );
        r(15, p2p::test_all(flags32, count, None, Cmp::Ge, 1) as i64);
        p2p::wait_until_timeout(flags.add(from as usize), Cmp::Eq, from as u64 + 1, 1 << 40);
        r(16, 1);
        sync::barrier_all();
    }
}

/// Every PE applies every atomic to PE 0's variables and sends what it fetched to PE 0's
/// `tickets` (see [`layout::atomic`]).
///
/// # Safety
/// The variable buffers hold the counts of [`layout::atomic`], zeroed and symmetric; `tickets`
/// `TICKETS × MAX_PES`, `results` `RESULTS`; at most `MAX_PES` PEs; every PE launches it
/// cooperatively as one block.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub unsafe fn atomic_families(
    ints: SymmetricPtr<i32>,
    longs: SymmetricPtr<i64>,
    uints: SymmetricPtr<u32>,
    ulongs: SymmetricPtr<u64>,
    sizes: SymmetricPtr<usize>,
    floats: SymmetricPtr<f32>,
    doubles: SymmetricPtr<f64>,
    isizes: SymmetricPtr<isize>,
    tickets: SymmetricPtr<i64>,
    results: SymmetricPtr<i64>,
) {
    use layout::atomic::ticket;
    let me = pe::my_pe();
    if tid() != 0 || pe::n_pes() as usize > MAX_PES {
        return;
    }
    let value = me + 1;
    // SAFETY: every offset is below the documented sizes; PE 0 exists; one thread per PE reaches
    // the barriers.
    unsafe {
        let send = |kind: usize, fetched: i64| {
            rma::p(tickets.add(kind * MAX_PES + me as usize), fetched, 0);
        };
        // Phase 1.
        send(ticket::INT_FETCH_ADD, atomic::fetch_add(ints, 1, 0) as i64);
        atomic::inc(ints.add(1), 0);
        send(
            ticket::INT_FETCH_INC,
            atomic::fetch_inc(ints.add(2), 0) as i64,
        );
        atomic::add(ints.add(3), value, 0);
        send(
            ticket::INT_COMPARE_SWAP,
            atomic::compare_swap(ints.add(4), 0, value, 0) as i64,
        );
        send(ticket::INT_SWAP, atomic::swap(ints.add(5), value, 0) as i64);
        atomic::set(ints.add(6), 42, 0);
        send(
            ticket::INT_FETCH_OR,
            atomic::fetch_or(ints.add(7), 1 << me, 0) as i64,
        );
        atomic::xor(ints.add(8), 1 << me, 0);
        atomic::or(ints.add(9), 0xFF, 0);
        atomic::or(ints.add(10), 0xF0F0, 0);
        send(
            ticket::INT_FETCH_XOR,
            atomic::fetch_xor(ints.add(11), value, 0) as i64,
        );

        send(
            ticket::LONG_FETCH_ADD,
            atomic::fetch_add(longs, 1i64 << 33, 0) >> 33,
        );
        atomic::inc(longs.add(1), 0);
        send(
            ticket::LONG_COMPARE_SWAP,
            atomic::compare_swap(longs.add(2), 0, value as i64, 0),
        );
        atomic::or(longs.add(3), 1i64 << (32 + me), 0);

        send(
            ticket::UINT_FETCH_ADD,
            (atomic::fetch_add(uints, 3u32, 0) / 3) as i64,
        );
        atomic::or(uints.add(1), 1u32 << me, 0);

        atomic::add(ulongs, 1u64 << 40, 0);
        send(
            ticket::ULONG_FETCH_INC,
            atomic::fetch_inc(ulongs.add(1), 0) as i64,
        );
        send(
            ticket::ULONG_FETCH_XOR,
            (atomic::fetch_xor(ulongs.add(2), 1u64 << (40 + me), 0) >> 40) as i64,
        );

        atomic::fetch_add(sizes, 1usize, 0);
        send(
            ticket::SIZE_COMPARE_SWAP,
            atomic::compare_swap(sizes.add(1), 0, value as usize, 0) as i64,
        );

        atomic::set(floats, 1.5f32, 0);
        send(
            ticket::FLOAT_SWAP,
            atomic::swap(floats.add(1), value as f32, 0) as i64,
        );
        atomic::set(doubles, 2.25f64, 0);

        send(
            ticket::ISIZE_COMPARE_SWAP,
            atomic::compare_swap(isizes, 0, -(value as isize), 0) as i64,
        );
        send(
            ticket::ISIZE_SWAP,
            atomic::swap(isizes.add(1), -(value as isize), 0) as i64,
        );
        sync::quiet();
        sync::barrier_all();

        // Phase 2: clear this PE's bits of what phase 1 set.
        atomic::and(ints.add(9), !(1 << me), 0);
        send(
            ticket::INT_FETCH_AND,
            atomic::fetch_and(ints.add(10), !(1 << (4 + me)), 0) as i64,
        );
        sync::quiet();
        sync::barrier_all();

        // Phase 3: everyone reads the finals.
        record(results, 0, atomic::fetch(ints.add(6), 0) as i64);
        record(results, 1, atomic::fetch(floats, 0).to_bits() as i64);
        record(results, 2, atomic::fetch(doubles, 0).to_bits() as i64);
        record(results, 3, atomic::fetch(longs, 0));
        record(results, 4, atomic::fetch(sizes, 0) as i64);
        record(results, 5, atomic::fetch(ulongs, 0) as i64);
        record(results, 6, atomic::fetch(isizes, 0) as i64);
        record(results, 7, atomic::fetch(uints, 0) as i64);
        sync::barrier_all();
    }
}

/// Adds one to `counter` on every PE of `pes` (thread 0), then completes the adds.
///
/// # Safety
/// `counter` is a symmetric `u64`; the PEs are valid.
#[cfg(target_arch = "nvptx64")]
pub unsafe fn add_everywhere(counter: SymmetricPtr<u64>, pes: impl Iterator<Item = i32>) {
    if tid() == 0 {
        // SAFETY: the caller's contract; the PEs are valid.
        unsafe {
            for q in pes {
                atomic::add(counter, 1, q);
            }
            sync::quiet();
        }
    }
}

/// Barriers and syncs over all PEs at every scope, the debugging barrier, and the queries that
/// need no team creation (see [`layout::world`]).
///
/// # Safety
/// `counters` holds `VARIANTS` zeroed words, `workspace` `MAX_PES + 1` zeroed words, `results`
/// `RESULTS`, all symmetric; every PE launches it cooperatively as one block.
#[kernel]
pub unsafe fn world_sync(
    counters: SymmetricPtr<u64>,
    workspace: SymmetricPtr<u64>,
    results: SymmetricPtr<i64>,
) {
    let (me, n) = (pe::my_pe(), pe::n_pes());
    let t = tid();
    // SAFETY: sizes as documented; each barrier variant is reached by one thread, warp 0 or the
    // whole block on every PE, as its scope requires, in the same order everywhere.
    unsafe {
        for variant in 0..layout::world::VARIANTS {
            add_everywhere(counters.add(variant), 0..n);
            thread::sync_threads();
            match variant {
                // ANCHOR: barrier_scopes
                0 if t == 0 => sync::barrier_all(),
                1 if t < 32 => sync::barrier_all_warp(),
                2 => sync::barrier_all_block(),
                3 if t == 0 => sync::sync_all(),
                4 if t < 32 => sync::sync_all_warp(),
                5 => sync::sync_all_block(),
                // ANCHOR_END: barrier_scopes
                6 if t == 0 => sync::barrier_all_timeout(workspace, 1 << 40),
                7 => sync::barrier_all_block_timeout(workspace, 1 << 40),
                _ => {}
            }
            thread::sync_threads();
            if t == 0 {
                let counted = core::ptr::read_volatile(counters.add(variant).as_ptr());
                record(results, variant, counted as i64);
            }
        }
        if t == 0 {
            let q = layout::world::QUERIES;
            let as_i64 = |v: Option<i32>| v.map_or(-1, i64::from);
            record(results, q, as_i64(team::my_pe(Team::WORLD)));
            record(results, q + 1, team::n_pes(Team::WORLD) as i64);
            record(results, q + 2, as_i64(team::my_pe(Team::NODE)));
            record(results, q + 3, team::n_pes(Team::NODE) as i64);
            record(
                results,
                q + 4,
                as_i64(team::translate_pe(Team::WORLD, me, Team::WORLD)),
            );
            record(
                results,
                q + 5,
                as_i64(team::translate_pe(Team::WORLD, n, Team::WORLD)),
            );
            let (spec_major, spec_minor) = pe::info_version();
            record(results, q + 6, spec_major as i64);
            record(results, q + 7, spec_minor as i64);
            let (major, minor, patch) = pe::vendor_version();
            record(results, q + 8, major as i64);
            record(results, q + 9, minor as i64);
            record(results, q + 10, patch as i64);
            let mut name = [0u8; nvshmem_gpu::pe::MAX_NAME_LEN];
            pe::info_name(&mut name);
            record(results, q + 11, name.starts_with(b"NVSHMEM v") as i64);
        }
        sync::barrier_all_block();
    }
}

/// Waits for a flag nobody sets, with a budget: must trap with a message naming this PE.
///
/// # Safety
/// `flag` is a zeroed symmetric `u64`; every PE launches it cooperatively as one block.
#[kernel]
pub unsafe fn wait_for_nobody(flag: SymmetricPtr<u64>, budget_cycles: u64) {
    if tid() == 0 {
        // SAFETY: `flag` is symmetric; the wait traps when its budget runs out.
        unsafe { p2p::wait_until_timeout(flag, Cmp::Eq, 1, budget_cycles) };
    }
}

/// A debugging barrier that the last PE skips: every other PE must trap with a message naming it.
///
/// # Safety
/// `workspace` holds `MAX_PES + 1` zeroed symmetric words; every PE launches it cooperatively as
/// one block.
#[kernel]
pub unsafe fn barrier_missing_last_pe(workspace: SymmetricPtr<u64>, budget_cycles: u64) {
    // ANCHOR: barrier_in_branch
    if pe::my_pe() != pe::n_pes() - 1 {
        // SAFETY: the workspace is as documented; the barrier traps when its budget runs out.
        unsafe { sync::barrier_all_block_timeout(workspace, budget_cycles) };
    }
    // ANCHOR_END: barrier_in_branch
}

/// The safe layer's atomics on slice elements (remote and local), its grid barrier and a 16-byte
/// vector access, in safe code (see [`layout::safe_atomics`]): launched cooperatively as `BLOCKS`
/// blocks of `THREADS` threads on every PE, with zeroed `counts` (`COUNTS` words) and `cells`
/// (`CELLS` words, 16-byte aligned).
#[kernel]
pub fn safe_atomics_and_grid(
    counts: nvshmem_gpu::SymmetricSlice<u64>,
    cells: nvshmem_gpu::SymmetricSlice<u32>,
) {
    use layout::safe_atomics::*;
    use nvshmem_gpu::{Pe, grid::GridBarrier};
    let barrier = GridBarrier::on(cells, BARRIER);
    let (me, block) = (Pe::me(), thread::block_idx_x() as usize);
    let first_thread = block == 0 && tid() == 0;

    // Contended atomics from every thread of every block.
    for q in 0..Pe::count() {
        let pe = Pe::new(q).expect("q < n_pes");
        counts.atomic_fetch_add(FETCH_ADDED, 1, pe);
        counts.atomic_add(ADDED, 2, pe);
    }
    let ticket = counts.local_fetch_add(LOCAL, 1) as usize;
    cells.local_fetch_add(TICKETS + ticket.min(GRID_THREADS - 1), 1);
    let zero = Pe::new(0).expect("PE 0 exists");
    if counts.atomic_compare_swap(CLAIMED, 0, me.index() as u64 + 1, zero) == 0 {
        counts.atomic_add(CLAIMS, 1, zero);
    }
    if first_thread {
        let before = counts.atomic_swap(SWAPPED, 100 + me.index() as u64, me.next());
        counts.atomic_add(FETCHED, before, me.next());
        counts.atomic_set(SET, 7, me.next());
    }
    sync::quiet();
    barrier.wait();
    if let Some(mut leader) = nvshmem_gpu::Thread::leader() {
        leader.barrier_all();
        // Every PE's swap into this PE's word is complete: read it back through NVSHMEM.
        let swapped = counts.atomic_fetch(SWAPPED, me);
        counts.local_fetch_add(FETCHED, swapped);
    }
    barrier.wait();

    // Rounds of the grid barrier: after each wait, every block must see every block in its round.
    for round in 1..=ROUNDS {
        if tid() == 0 {
            cells.write(ROUND_OF_BLOCK + block, round);
        }
        barrier.wait();
        if tid() == 0 {
            let blocks = thread::blocks_in_grid() as usize;
            if (0..blocks).any(|b| cells.read(ROUND_OF_BLOCK + b) != round) {
                cells.local_fetch_add(ERRORS, 1);
            }
        }
        barrier.wait();
    }

    // A 16-byte vector round trip.
    if first_thread {
        cells.write_vector(VECTOR, VECTOR_VALUES);
        let [a, b, c, d] = cells.read_vector::<4>(VECTOR);
        cells.write_strided(VECTOR + 4, 1, [d, c, b, a]);
    }
}
