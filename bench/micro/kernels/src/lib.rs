//! Kernels of the micro-benchmarks (`bench/micro`), modelled on what NVSHMEM's perftests measure.
//!
//! Every kernel here has a twin of the same name and parameters in `bench/reference/micro.cu`,
//! written in CUDA C++ against NVSHMEM's headers; the two runners launch them the same way, so the
//! numbers compare the code each compiler makes of the same NVSHMEM calls. Keep the twins in step:
//! a change here is a change there.
//!
//! | kernel | launch | what one launch does |
//! |---|---|---|
//! | `put_bw_block`, `put_bw_warp`, `put_bw_thread` | grid × threads, PE 0 only | `iters` times: every block / warp / thread puts its share of `count` elements (`put_nbi` at that scope); then `quiet` |
//! | `get_bw_block`, `get_bw_warp`, `get_bw_thread` | same | the same with `get_nbi` |
//! | `p_latency` | 1 × 1, PE 0 only | `iters` times: `p` of one `u64`, `quiet` |
//! | `put_latency_thread`, `put_latency_warp`, `put_latency_block` | 1 × 1 / 32 / threads, PE 0 only | `iters` times: blocking `put` of `count` elements, `quiet` |
//! | `barrier_latency_thread`, `barrier_latency_warp`, `barrier_latency_block` | 1 × 1 / 32 / threads, cooperative, every PE | `warmup` + `iters` `barrier_all`; the `iters` are timed on the GPU's clock |
//! | `reduce_latency_thread`, `reduce_latency_warp`, `reduce_latency_block` | 1 × 1 / 32 / threads, cooperative, every PE | `warmup` + `iters` sum reductions of `count` `u64` over all PEs; the `iters` are timed on the GPU's clock |
//! | `alltoall_latency_thread`, `alltoall_latency_warp`, `alltoall_latency_block` | same | the same with `alltoall` of `count` `u64` to every PE |
//! | `pingpong_p` | 1 × 1, cooperative, every PE | PEs 0 and 1 bounce a counter: `p` to the other's word, `wait_until` the own word holds it; `warmup` + `iters` round trips, each on the next of `places` words, the `iters` timed |
//! | `pingpong_signal` | same | the same with `put_signal` of `count` elements and `signal_wait_until` |
//! | `delay` | 1 × 1 | spins `ns` nanoseconds (keeps the stream busy while the host enqueues the timed launch) |
//! | `release` | 1 × 1, PE 0 only | `p` of `value` to `word` on every other PE, `quiet` (the end of a case: the others wait for it on the host) |
//!
//! Shares are whole granules of [`GRANULE`] elements, so every transfer starts 128-byte aligned.
//!
//! [`safe_bandwidth`] holds the bandwidth kernels again, written on nvshmem-gpu's safe layer: their
//! twins are the kernels above, not C++ ones, and `micro --safe` runs them in their place.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, asm_experimental_arch))]
// On the host (`cargo test` of the share and ping-pong arithmetic) the kernels do not exist, and
// with them go the uses of most imports.
#![cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports, dead_code))]

pub mod safe_bandwidth;

#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::thread;
use nvshmem_gpu::{
    Cmp, SignalOp, SymmetricPtr, Team, collective, kernel, p2p, pe, rma, signal, sync,
};

/// Elements per granule of a share: 16 `u64`, 128 bytes.
pub const GRANULE: usize = 16;

/// Threads per warp.
pub const WARP: usize = 32;

/// The part of `total` elements that worker `index` of `workers` moves, as `(first, count)`.
///
/// Whole granules are dealt out as evenly as possible (workers differ by at most one granule); a
/// trailing part of less than a granule goes to the last worker. Workers beyond the granule count
/// get nothing.
pub fn share(total: usize, workers: usize, index: usize) -> (usize, usize) {
    let granules = total / GRANULE;
    let start = granules * index / workers * GRANULE;
    let end = if index + 1 == workers {
        total
    } else {
        granules * (index + 1) / workers * GRANULE
    };
    (start, end - start)
}

/// The GPU's nanosecond clock (`%globaltimer`), the same on every multiprocessor.
#[cfg(target_arch = "nvptx64")]
#[inline]
fn globaltimer() -> u64 {
    let now: u64;
    // SAFETY: reading a special register; the asm is volatile and may touch memory as far as the
    // compiler knows, so it is not moved across the calls it brackets.
    unsafe { core::arch::asm!("mov.u64 {now}, %globaltimer;", now = out(reg64) now) };
    now
}

/// Spins for `ns` nanoseconds of the GPU's clock.
///
/// # Safety
/// None beyond a valid launch; it touches no memory.
#[kernel]
pub unsafe fn delay(ns: u64) {
    let start = globaltimer();
    while globaltimer().wrapping_sub(start) < ns {}
}

/// Writes `value` into `word` on every PE but this one, then `quiet`: PE 0 launches it at the end
/// of a case, and the other PEs, which wait for the word on the host, go on.
///
/// # Safety
/// `word` is a symmetric `u64` that no other launch writes meanwhile.
#[kernel]
pub unsafe fn release(word: SymmetricPtr<u64>, value: u64) {
    let me = pe::my_pe();
    for other in (0..pe::n_pes()).filter(|&other| other != me) {
        // SAFETY: the caller's contract; `other` is a PE.
        unsafe { rma::p(word, value, other) };
    }
    sync::quiet();
}

/// Bandwidth, block scope: block `b` puts its share of `count` elements from `source` to `dest` on
/// `peer`, `iters` times, then the block's first thread calls `quiet`.
///
/// # Safety
/// `dest` and `source` hold `count` elements on every PE; `peer` is a PE; the launch is
/// one-dimensional.
#[kernel]
pub unsafe fn put_bw_block(
    dest: SymmetricPtr<u64>,
    source: SymmetricPtr<u64>,
    count: usize,
    iters: u32,
    peer: i32,
) {
    let (first, n) = share(
        count,
        thread::grid_dim_x() as usize,
        thread::block_idx_x() as usize,
    );
    if n > 0 {
        for _ in 0..iters {
            // SAFETY: the share lies inside both buffers; every thread of the block calls it with
            // the same arguments (the condition is the same for the whole block).
            unsafe { rma::block::put_nbi(dest.add(first), source.as_ptr().add(first), n, peer) };
        }
    }
    quiet_once_per_block();
}

/// Bandwidth, block scope, get: block `b` gets its share of `count` elements of `source` on `peer`
/// into `dest`, `iters` times, then the block's first thread calls `quiet`.
///
/// # Safety
/// As for [`put_bw_block`].
#[kernel]
pub unsafe fn get_bw_block(
    dest: SymmetricPtr<u64>,
    source: SymmetricPtr<u64>,
    count: usize,
    iters: u32,
    peer: i32,
) {
    let (first, n) = share(
        count,
        thread::grid_dim_x() as usize,
        thread::block_idx_x() as usize,
    );
    if n > 0 {
        for _ in 0..iters {
            // SAFETY: as in put_bw_block.
            unsafe { rma::block::get_nbi(dest.as_ptr().add(first), source.add(first), n, peer) };
        }
    }
    quiet_once_per_block();
}

/// Every thread of the block waits for the others, then the first completes the block's transfers
/// (its `quiet` covers the whole block's, which the barrier ordered before it).
#[cfg(target_arch = "nvptx64")]
fn quiet_once_per_block() {
    thread::sync_threads();
    if thread::thread_idx_x() == 0 {
        sync::quiet();
    }
}

/// This warp's number in the grid and the grid's warp count.
#[cfg(target_arch = "nvptx64")]
fn warp_in_grid() -> (usize, usize) {
    let per_block = thread::block_dim_x() as usize / WARP;
    let warp = thread::block_idx_x() as usize * per_block + thread::thread_idx_x() as usize / WARP;
    (warp, thread::grid_dim_x() as usize * per_block)
}

/// Bandwidth, warp scope: every warp puts its share, `iters` times; then the block's first thread
/// calls `quiet`. Block size a multiple of 32.
///
/// # Safety
/// As for [`put_bw_block`].
#[kernel]
pub unsafe fn put_bw_warp(
    dest: SymmetricPtr<u64>,
    source: SymmetricPtr<u64>,
    count: usize,
    iters: u32,
    peer: i32,
) {
    let (warp, warps) = warp_in_grid();
    let (first, n) = share(count, warps, warp);
    if n > 0 {
        for _ in 0..iters {
            // SAFETY: the share lies inside both buffers; the whole warp calls it alike.
            unsafe { rma::warp::put_nbi(dest.add(first), source.as_ptr().add(first), n, peer) };
        }
    }
    quiet_once_per_block();
}

/// Bandwidth, warp scope, get.
///
/// # Safety
/// As for [`put_bw_block`].
#[kernel]
pub unsafe fn get_bw_warp(
    dest: SymmetricPtr<u64>,
    source: SymmetricPtr<u64>,
    count: usize,
    iters: u32,
    peer: i32,
) {
    let (warp, warps) = warp_in_grid();
    let (first, n) = share(count, warps, warp);
    if n > 0 {
        for _ in 0..iters {
            // SAFETY: as in put_bw_warp.
            unsafe { rma::warp::get_nbi(dest.as_ptr().add(first), source.add(first), n, peer) };
        }
    }
    quiet_once_per_block();
}

/// Bandwidth, thread scope: every thread puts its share, `iters` times, then calls `quiet`.
///
/// # Safety
/// As for [`put_bw_block`].
#[kernel]
pub unsafe fn put_bw_thread(
    dest: SymmetricPtr<u64>,
    source: SymmetricPtr<u64>,
    count: usize,
    iters: u32,
    peer: i32,
) {
    let (first, n) = share(count, thread::grid_size_x(), thread::global_index_x());
    if n > 0 {
        for _ in 0..iters {
            // SAFETY: the share lies inside both buffers.
            unsafe { rma::put_nbi(dest.add(first), source.as_ptr().add(first), n, peer) };
        }
    }
    sync::quiet();
}

/// Bandwidth, thread scope, get.
///
/// # Safety
/// As for [`put_bw_block`].
#[kernel]
pub unsafe fn get_bw_thread(
    dest: SymmetricPtr<u64>,
    source: SymmetricPtr<u64>,
    count: usize,
    iters: u32,
    peer: i32,
) {
    let (first, n) = share(count, thread::grid_size_x(), thread::global_index_x());
    if n > 0 {
        for _ in 0..iters {
            // SAFETY: the share lies inside both buffers.
            unsafe { rma::get_nbi(dest.as_ptr().add(first), source.add(first), n, peer) };
        }
    }
    sync::quiet();
}

/// Latency of `p`: `iters` times, one `u64` to `dest` on `peer`, then `quiet`. Launch 1 × 1.
///
/// # Safety
/// `dest` holds one element on every PE; `peer` is a PE.
#[kernel]
pub unsafe fn p_latency(dest: SymmetricPtr<u64>, iters: u32, peer: i32) {
    for i in 0..iters {
        // SAFETY: the caller's contract.
        unsafe {
            rma::p(dest, u64::from(i), peer);
            sync::quiet();
        }
    }
}

/// Latency of a blocking `put` of `count` elements by one thread, then `quiet`. Launch 1 × 1.
///
/// # Safety
/// `dest` and `source` hold `count` elements on every PE; `peer` is a PE.
#[kernel]
pub unsafe fn put_latency_thread(
    dest: SymmetricPtr<u64>,
    source: SymmetricPtr<u64>,
    count: usize,
    iters: u32,
    peer: i32,
) {
    for _ in 0..iters {
        // SAFETY: the caller's contract.
        unsafe {
            rma::put(dest, source.as_ptr(), count, peer);
            sync::quiet();
        }
    }
}

/// Latency of a warp-cooperative blocking `put`, then `quiet` by every lane. Launch 1 × 32.
///
/// # Safety
/// As for [`put_latency_thread`].
#[kernel]
pub unsafe fn put_latency_warp(
    dest: SymmetricPtr<u64>,
    source: SymmetricPtr<u64>,
    count: usize,
    iters: u32,
    peer: i32,
) {
    for _ in 0..iters {
        // SAFETY: the caller's contract; the whole warp calls it alike.
        unsafe {
            rma::warp::put(dest, source.as_ptr(), count, peer);
            sync::quiet();
        }
    }
}

/// Latency of a block-cooperative blocking `put`, then `quiet` by every thread. Launch 1 block.
///
/// # Safety
/// As for [`put_latency_thread`].
#[kernel]
pub unsafe fn put_latency_block(
    dest: SymmetricPtr<u64>,
    source: SymmetricPtr<u64>,
    count: usize,
    iters: u32,
    peer: i32,
) {
    for _ in 0..iters {
        // SAFETY: the caller's contract; the whole block calls it alike.
        unsafe {
            rma::block::put(dest, source.as_ptr(), count, peer);
            sync::quiet();
        }
    }
}

/// Generates a barrier-latency kernel for one scope.
macro_rules! barrier_latency {
    ($(#[$doc:meta])* $name:ident => $barrier:path) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `elapsed_ns` is device memory for one `u64`; every PE launches it cooperatively with the
        /// same `warmup` and `iters`, one block of the scope's size.
        #[kernel]
        pub unsafe fn $name(warmup: u32, iters: u32, elapsed_ns: *mut u64) {
            for _ in 0..warmup {
                // SAFETY: every PE's block calls it alike (the caller's contract).
                unsafe { $barrier() };
            }
            let start = globaltimer();
            for _ in 0..iters {
                // SAFETY: as above.
                unsafe { $barrier() };
            }
            let end = globaltimer();
            if thread::thread_idx_x() == 0 {
                // SAFETY: the caller's contract.
                unsafe { *elapsed_ns = end.wrapping_sub(start) };
            }
        }
    };
}

barrier_latency! {
    /// `barrier_all` by one thread per PE: `warmup` untimed, then `iters` timed. Launch 1 × 1.
    barrier_latency_thread => sync::barrier_all
}
barrier_latency! {
    /// `barrier_all_warp` by one warp per PE. Launch 1 × 32.
    barrier_latency_warp => sync::barrier_all_warp
}
barrier_latency! {
    /// `barrier_all_block` by one block per PE. Launch 1 block.
    barrier_latency_block => sync::barrier_all_block
}

/// Generates a collective-latency kernel: `warmup` untimed calls of `$call` over every PE, then
/// `iters` timed ones.
macro_rules! collective_latency {
    (
        $(#[$doc:meta])*
        $name:ident => |$team:ident, $dest:ident, $source:ident, $count:ident| $call:expr
    ) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `dest` and `source` hold what the collective touches on every PE, `elapsed_ns` is device
        /// memory for one `u64`; every PE launches it cooperatively with the same arguments, one
        /// block of the scope's size; NVSHMEM allows collectives here (one PE per GPU, or its full
        /// multi-PE-per-GPU mode).
        #[kernel]
        pub unsafe fn $name(
            dest: SymmetricPtr<u64>,
            source: SymmetricPtr<u64>,
            count: usize,
            warmup: u32,
            iters: u32,
            elapsed_ns: *mut u64,
        ) {
            /// One call of the collective over `$team`.
            ///
            /// # Safety
            /// The kernel's contract.
            #[inline(always)]
            unsafe fn call(
                $team: Team,
                $dest: SymmetricPtr<u64>,
                $source: SymmetricPtr<u64>,
                $count: usize,
            ) {
                // SAFETY: the kernel's contract, passed on.
                unsafe { $call }
            }
            for _ in 0..warmup {
                // SAFETY: every PE's block calls it alike (the caller's contract).
                unsafe { call(Team::WORLD, dest, source, count) };
            }
            let start = globaltimer();
            for _ in 0..iters {
                // SAFETY: as above.
                unsafe { call(Team::WORLD, dest, source, count) };
            }
            let end = globaltimer();
            if thread::thread_idx_x() == 0 {
                // SAFETY: the caller's contract.
                unsafe { *elapsed_ns = end.wrapping_sub(start) };
            }
        }
    };
}

collective_latency! {
    /// Sum reductions of `count` `u64` from `source` into `dest` over every PE, by one thread per
    /// PE. Launch 1 × 1.
    reduce_latency_thread => |team, dest, source, count|
        collective::reduce(team, collective::op::Sum, dest, source, count)
}
collective_latency! {
    /// The same by one warp per PE. Launch 1 × 32.
    reduce_latency_warp => |team, dest, source, count|
        collective::warp::reduce(team, collective::op::Sum, dest, source, count)
}
collective_latency! {
    /// The same by one block per PE. Launch 1 block.
    reduce_latency_block => |team, dest, source, count|
        collective::block::reduce(team, collective::op::Sum, dest, source, count)
}
collective_latency! {
    /// `alltoall` of `count` `u64` to every PE (`dest` and `source` hold `count × n_pes`), by one
    /// thread per PE. Launch 1 × 1.
    alltoall_latency_thread => |team, dest, source, count|
        collective::alltoall(team, dest, source, count)
}
collective_latency! {
    /// The same by one warp per PE. Launch 1 × 32.
    alltoall_latency_warp => |team, dest, source, count|
        collective::warp::alltoall(team, dest, source, count)
}
collective_latency! {
    /// The same by one block per PE. Launch 1 block.
    alltoall_latency_block => |team, dest, source, count|
        collective::block::alltoall(team, dest, source, count)
}

/// Ping-pong with `p` and `wait_until`: PE 0 writes `base + i + 1` into the word `flag` on PE 1 and
/// waits until its own `flag` holds it; PE 1 waits for it and writes it back. Round trip `i` uses
/// the word at place `i % places` of `flags` (places `place_words` apart), so that one launch times
/// the round trips over that many places of memory, not one. `warmup` round trips, then `iters`
/// timed ones; PE 0 and 1 store the nanoseconds of the timed ones in `elapsed_ns`. Other PEs return
/// at once. Launch 1 × 1.
///
/// # Safety
/// `places` ≥ 1, and the symmetric allocation of `flags` holds a `u64` at each place
/// `flags + k × place_words`, `k < places`, below `base + 1` on PEs 0 and 1 and written by nothing
/// else; `elapsed_ns` is device memory for one `u64`; PEs 0 and 1 launch it with the same
/// arguments at the same time (cooperatively, or under MPS on a shared GPU).
#[kernel]
pub unsafe fn pingpong_p(
    flags: SymmetricPtr<u64>,
    places: u32,
    place_words: usize,
    warmup: u32,
    iters: u32,
    base: u64,
    elapsed_ns: *mut u64,
) {
    let me = pe::my_pe();
    if me > 1 {
        return;
    }
    let peer = 1 - me;
    let mut place = 0u32;
    let mut start = globaltimer();
    for i in 0..warmup + iters {
        if i == warmup {
            start = globaltimer();
        }
        let seq = base + u64::from(i) + 1;
        // SAFETY: the caller's contract (`place < places`); the other PE runs the mirror image of
        // this loop.
        unsafe {
            let flag = flags.add(place as usize * place_words);
            if me == 0 {
                rma::p(flag, seq, peer);
                p2p::wait_until(flag, Cmp::Eq, seq);
            } else {
                p2p::wait_until(flag, Cmp::Eq, seq);
                rma::p(flag, seq, peer);
            }
        }
        place = next_place(place, places);
    }
    let end = globaltimer();
    // SAFETY: the caller's contract.
    unsafe { *elapsed_ns = end.wrapping_sub(start) };
}

/// Ping-pong with `put_signal` and `signal_wait_until`: as [`pingpong_p`], but each side puts
/// `count` elements of `source` into the other's `data` and sets the other's signal word (the
/// round trip's place of `sigs`) to the round's number with the same call.
///
/// # Safety
/// As for [`pingpong_p`], with `sigs` for `flags`; `data` and `source` hold `count` elements on PEs
/// 0 and 1.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub unsafe fn pingpong_signal(
    data: SymmetricPtr<u64>,
    source: SymmetricPtr<u64>,
    count: usize,
    sigs: SymmetricPtr<u64>,
    places: u32,
    place_words: usize,
    warmup: u32,
    iters: u32,
    base: u64,
    elapsed_ns: *mut u64,
) {
    let me = pe::my_pe();
    if me > 1 {
        return;
    }
    let peer = 1 - me;
    let mut place = 0u32;
    let mut start = globaltimer();
    for i in 0..warmup + iters {
        if i == warmup {
            start = globaltimer();
        }
        let seq = base + u64::from(i) + 1;
        // SAFETY: the caller's contract (`place < places`); the other PE runs the mirror image of
        // this loop.
        unsafe {
            let sig = sigs.add(place as usize * place_words);
            if me == 0 {
                signal::put_signal(data, source.as_ptr(), count, sig, seq, SignalOp::Set, peer);
                signal::signal_wait_until(sig, Cmp::Eq, seq);
            } else {
                signal::signal_wait_until(sig, Cmp::Eq, seq);
                signal::put_signal(data, source.as_ptr(), count, sig, seq, SignalOp::Set, peer);
            }
        }
        place = next_place(place, places);
    }
    let end = globaltimer();
    // SAFETY: the caller's contract.
    unsafe { *elapsed_ns = end.wrapping_sub(start) };
}

/// The place after `place` of `places`, back to 0 after the last (a ping-pong's walk over its
/// words, without a division in the timed loop).
fn next_place(place: u32, places: u32) -> u32 {
    if place + 1 >= places { 0 } else { place + 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ping_pong_walks_every_place_in_turn() {
        let mut place = 0;
        let walk: Vec<u32> = (0..7)
            .map(|_| {
                let now = place;
                place = next_place(place, 3);
                now
            })
            .collect();
        assert_eq!(walk, [0, 1, 2, 0, 1, 2, 0]);
        assert_eq!(next_place(0, 1), 0);
    }

    #[test]
    fn shares_cover_everything_once_in_whole_granules() {
        for total in [512usize, 8192, 131072, 33554432, 16 * 3 + 5] {
            for workers in [1usize, 7, 132, 4224, 135168] {
                let mut next = 0;
                for index in 0..workers {
                    let (first, count) = share(total, workers, index);
                    assert_eq!(first, next, "total {total} workers {workers} index {index}");
                    assert_eq!(first % GRANULE, 0);
                    if index + 1 < workers {
                        assert_eq!(count % GRANULE, 0);
                    }
                    next = first + count;
                }
                assert_eq!(next, total);
            }
        }
    }

    #[test]
    fn shares_differ_by_at_most_one_granule() {
        let counts: Vec<usize> = (0..132).map(|i| share(1 << 17, 132, i).1).collect();
        let (min, max) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
        assert!(max - min <= GRANULE, "{min}..{max}");
    }
}
