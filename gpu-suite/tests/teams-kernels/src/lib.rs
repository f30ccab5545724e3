//! Kernels of the device-API GPU tests that need NVSHMEM's full multi-PE-per-GPU mode: team
//! queries, team barriers and syncs at every scope, and the collectives (reductions with every
//! operator, reduce-scatter, broadcast, fcollect, alltoall, their byte forms, max-location) over a
//! team. The host test (`tests/gpu_device_api/collectives.rs`) runs them over `Team::WORLD` and
//! over teams it splits, and checks the results against the `layout/` crate's.
//!
//! Every kernel takes the same parameters and runs as one block of `THREADS` threads on every PE
//! of the team, launched cooperatively, in the order they appear here. The collectives are split
//! over several small kernels because `ptxas` (and the driver's JIT) slow down sharply on one huge
//! function.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use nvshmem_gpu::{SymmetricPtr, Team, collective::MaxLoc, kernel};
// What the kernels use exists only on the GPU, like the kernels themselves.
#[cfg(target_arch = "nvptx64")]
use device_api_layout as layout;
#[cfg(target_arch = "nvptx64")]
use layout::THREADS;
#[cfg(target_arch = "nvptx64")]
use layout::collective::{
    ALLTOALL_INTS, ALLTOALL_REALS, COUNT, MEM_INTS, SMALL, SOURCE, VARIANTS, int_source as ints_of,
    maxloc_source, real_source as reals_of,
};
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{atomic, collective, collective::op, pe, sync, team, thread};

#[cfg(target_arch = "nvptx64")]
fn tid() -> usize {
    thread::rank_in_block() as usize
}

/// The kernels' parameters, with helpers for their regions.
#[cfg(target_arch = "nvptx64")]
#[derive(Clone, Copy)]
struct Buffers {
    team: Team,
    counters: SymmetricPtr<u64>,
    queries: SymmetricPtr<i64>,
    int_source: SymmetricPtr<i32>,
    ints: SymmetricPtr<i32>,
    real_source: SymmetricPtr<f64>,
    reals: SymmetricPtr<f64>,
    maxloc: SymmetricPtr<MaxLoc>,
}

#[cfg(target_arch = "nvptx64")]
impl Buffers {
    /// Region `r` of the `i32` results.
    fn ints(self, r: usize) -> SymmetricPtr<i32> {
        assert!(r < layout::collective::INT_REGIONS);
        // SAFETY: `ints` holds INT_REGIONS × SOURCE elements (the kernels' contract), r checked.
        unsafe { self.ints.add(r * SOURCE) }
    }

    /// Region `r` of the `f64` results.
    fn reals(self, r: usize) -> SymmetricPtr<f64> {
        assert!(r < layout::collective::REAL_REGIONS);
        // SAFETY: `reals` holds REAL_REGIONS × SOURCE elements (the kernels' contract), r checked.
        unsafe { self.reals.add(r * SOURCE) }
    }
}

/// Declares a kernel with the common parameters whose body gets them as `b: Buffers`.
macro_rules! team_kernel {
    ($(#[$doc:meta])* $name:ident, |$b:ident| $body:block) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// This PE is a member of `team`, which has at most `MAX_PES` PEs; `counters` holds
        /// `VARIANTS` zeroed words, `queries` `QUERIES + VARIANTS`, the sources `SOURCE` elements,
        /// `ints` `INT_REGIONS × SOURCE`, `reals` `REAL_REGIONS × SOURCE`, `maxloc` 2, all
        /// symmetric ([`layout::collective`]); every PE of `team` launches the kernels of this
        /// crate cooperatively as one block of `THREADS` threads, in order.
        #[kernel]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name(
            team: Team,
            counters: SymmetricPtr<u64>,
            queries: SymmetricPtr<i64>,
            int_source: SymmetricPtr<i32>,
            ints: SymmetricPtr<i32>,
            real_source: SymmetricPtr<f64>,
            reals: SymmetricPtr<f64>,
            maxloc: SymmetricPtr<MaxLoc>,
        ) {
            let $b = Buffers { team, counters, queries, int_source, ints, real_source, reals, maxloc };
            $body
        }
    };
}

team_kernel!(
    /// Fills the sources, records the team queries, and runs every team barrier and sync variant
    /// after each member added one to a counter on every member; records the counters.
    team_queries_and_barriers,
    |b| {
        let (me, t) = (pe::my_pe(), tid());
        let team = b.team;
        // ANCHOR: team_queries
        let size = team::n_pes(team);
        let Some(rank) = team::my_pe(team) else {
            return;
        };
        let members = move || (0..size).filter_map(move |k| team::translate_pe(team, k, Team::WORLD));
        // ANCHOR_END: team_queries
        // SAFETY: the buffers have the documented sizes; every barrier is reached by one thread,
        // warp 0, the warpgroup (the whole block of 128 threads) or the whole block of every member,
        // as its scope requires, in the same order.
        unsafe {
            for i in (t..SOURCE).step_by(THREADS as usize) {
                *b.int_source.add(i).as_ptr() = ints_of(me, i);
                *b.real_source.add(i).as_ptr() = reals_of(me, i);
            }
            if t == 0 {
                let (value, location) = maxloc_source(me);
                *b.maxloc.as_ptr() = MaxLoc { value, location };
                let as_i64 = |v: Option<i32>| v.map_or(-1, i64::from);
                let q = |slot: usize, value: i64| *b.queries.add(slot).as_ptr() = value;
                q(0, rank as i64);
                q(1, size as i64);
                q(2, as_i64(team::translate_pe(team, 0, Team::WORLD)));
                q(3, as_i64(team::translate_pe(Team::WORLD, me, team)));
                q(4, as_i64(team::translate_pe(team, size, Team::WORLD)));
                q(5, team::my_pe(Team::SHARED).is_some() as i64);
                q(6, team::n_pes(Team::NODE) as i64);
            }
            thread::sync_threads();
            for variant in 0..VARIANTS {
                if t == 0 {
                    for pe in members() {
                        atomic::add(b.counters.add(variant), 1, pe);
                    }
                    sync::quiet();
                }
                thread::sync_threads();
                match variant {
                    0 if t == 0 => sync::barrier(team),
                    1 if t < 32 => sync::barrier_warp(team),
                    2 => sync::barrier_block(team),
                    3 => sync::barrier_warpgroup(team),
                    4 if t == 0 => sync::team_sync(team),
                    5 if t < 32 => sync::team_sync_warp(team),
                    6 => sync::team_sync_block(team),
                    _ => {}
                }
                thread::sync_threads();
                if t == 0 {
                    let counted = core::ptr::read_volatile(b.counters.add(variant).as_ptr());
                    *b.queries.add(layout::collective::QUERIES + variant).as_ptr() = counted as i64;
                }
            }
            sync::barrier_block(team);
        }
    }
);

team_kernel!(
    /// Thread-scope reductions of `i32`: `Sum`, `Min` (of `COUNT + 3` elements: 16-byte pieces and
    /// a tail), `Max`, reduce-scatter `Sum`, and a `Sum` of `SMALL` elements.
    team_reduce_thread_a,
    |b| {
        if tid() == 0 {
            // SAFETY: one thread per member calls each, in the same order; sizes as documented.
            unsafe {
                // ANCHOR: team_reduce
                collective::reduce(b.team, op::Sum, b.ints(0), b.int_source, COUNT);
                collective::reduce(b.team, op::Min, b.ints(1), b.int_source, COUNT + 3);
                collective::reduce(b.team, op::Max, b.ints(2), b.int_source, COUNT);
                collective::reducescatter(b.team, op::Sum, b.ints(7), b.int_source, COUNT);
                // ANCHOR_END: team_reduce
                collective::reduce(b.team, op::Sum, b.ints(17), b.int_source, SMALL);
            }
        }
    }
);

team_kernel!(
    /// Thread-scope reductions of `i32`: `Or`, `Xor` (in place: over a copy of the source),
    /// `Prod`; then a `Sum` over a copy of the source into region 16, each member adds one to its
    /// copy (region 15), and the same `Sum` again: the second must see every member's new values,
    /// not what the first one read (lines the first left in this multiprocessor's L1).
    team_reduce_thread_b,
    |b| {
        if tid() == 0 {
            // SAFETY: as for `team_reduce_thread_a`; regions 5 and 15 hold `SOURCE` elements, so
            // the copies of `COUNT` fit. A member changes its copy only after the first `Sum`
            // returned, when every member has read it (the pull ends with a team sync).
            unsafe {
                collective::reduce(b.team, op::Or, b.ints(4), b.int_source, COUNT);
                let in_place = b.ints(5);
                core::ptr::copy_nonoverlapping(b.int_source.as_ptr(), in_place.as_ptr(), COUNT);
                collective::reduce(b.team, op::Xor, in_place, in_place, COUNT);
                collective::reduce(b.team, op::Prod, b.ints(6), b.int_source, COUNT);
                let (changing, twice) = (b.ints(15), b.ints(16));
                core::ptr::copy_nonoverlapping(b.int_source.as_ptr(), changing.as_ptr(), COUNT);
                collective::reduce(b.team, op::Sum, twice, changing, COUNT);
                for i in 0..COUNT {
                    *changing.add(i).as_ptr() += 1;
                }
                collective::reduce(b.team, op::Sum, twice, changing, COUNT);
            }
        }
    }
);

team_kernel!(
    /// Warp-scope reduction and reduce-scatter of `f64` (`Sum`).
    team_reduce_warp,
    |b| {
        if tid() < 32 {
            // SAFETY: warp 0 of every member calls each, in the same order; sizes as documented.
            unsafe {
                collective::warp::reduce(b.team, op::Sum, b.reals(0), b.real_source, COUNT);
                collective::warp::reducescatter(b.team, op::Sum, b.reals(1), b.real_source, COUNT);
            }
        }
    }
);

team_kernel!(
    /// Block-scope reduction `And` of `i32`.
    team_reduce_block_a,
    |b| {
        // SAFETY: the whole block of every member calls it; sizes as documented.
        unsafe { collective::block::reduce(b.team, op::And, b.ints(3), b.int_source, COUNT) };
    }
);

team_kernel!(
    /// Block-scope reduce-scatter `Max` of `i32`, and the max-location reduction.
    team_reduce_block_b,
    |b| {
        // SAFETY: the whole block of every member calls each, in the same order; sizes as
        // documented.
        unsafe {
            collective::block::reducescatter(b.team, op::Max, b.ints(14), b.int_source, COUNT);
            collective::block::maxloc_reduce(b.team, b.maxloc.add(1), b.maxloc);
        }
    }
);

team_kernel!(
    /// Broadcast of `i32` from team PE `1 % n` (thread scope) and of bytes from team PE 0 (block
    /// scope).
    team_broadcast,
    |b| {
        let size = team::n_pes(b.team);
        // SAFETY: one thread, then the whole block, of every member; sizes as documented.
        unsafe {
            // ANCHOR: team_broadcast
            if tid() == 0 {
                collective::broadcast(b.team, b.ints(8), b.int_source, COUNT, 1 % size);
            }
            collective::block::broadcastmem(
                b.team,
                b.ints(11),
                b.int_source,
                COUNT * core::mem::size_of::<i32>(),
                0,
            );
            // ANCHOR_END: team_broadcast
        }
    }
);

team_kernel!(
    /// fcollectmem (block), fcollect (thread, `i32`), alltoall of `f64` (thread), alltoall (warp,
    /// `i32`), alltoallmem (block); then a team barrier.
    team_collect,
    |b| {
        let t = tid();
        let int_bytes = MEM_INTS * core::mem::size_of::<i32>();
        // SAFETY: one thread, warp 0 or the whole block of every member calls each, in the same
        // order on every member; sizes as documented.
        unsafe {
            collective::block::fcollectmem(b.team, b.ints(12), b.int_source, int_bytes);
            // ANCHOR: team_collect
            if t == 0 {
                collective::fcollect(b.team, b.ints(9), b.int_source, COUNT);
                collective::alltoall(b.team, b.reals(2), b.real_source, ALLTOALL_REALS);
            }
            // ANCHOR_END: team_collect
            if t < 32 {
                collective::warp::alltoall(b.team, b.ints(10), b.int_source, ALLTOALL_INTS);
            }
            collective::block::alltoallmem(b.team, b.ints(13), b.int_source, int_bytes);
            sync::barrier_block(b.team);
        }
    }
);

/// The safe layer's collectives through a `Leader` over the world team, at block, thread and warp
/// scope, in safe code (see [`layout::safe_collectives`]): every PE launches it cooperatively as
/// one block of `THREADS` threads, with `source` holding `REGION` elements and `out` `REGIONS ×
/// REGION` zeroed ones.
#[kernel]
pub fn safe_collectives(
    source: nvshmem_gpu::SymmetricSlice<i32>,
    out: nvshmem_gpu::SymmetricSlice<i32>,
) {
    use layout::safe_collectives::*;
    use nvshmem_gpu::{Block, Pe, Thread, Warp};
    let (me, n) = (Pe::me().index() as usize, Pe::count() as usize);
    let region = |r: usize, len: usize| out.range(r * REGION..r * REGION + len);
    for i in (tid()..REGION).step_by(THREADS as usize) {
        source.write(i, source_value(me, i));
    }
    thread::sync_threads();
    let whole = source.range(..n * BLOCK);
    if let Some(mut leader) = Block::leader() {
        // Every PE's source is written before any PE reads it.
        leader.barrier_all();
        leader.reduce(Team::WORLD, op::Sum, region(0, n * BLOCK), whole);
        leader.broadcast(Team::WORLD, region(1, n * BLOCK), whole, n as i32 - 1);
        leader.fcollect(Team::WORLD, region(2, n * BLOCK), source.range(..BLOCK));
        leader.alltoall(Team::WORLD, region(3, n * BLOCK), whole);
        leader.reducescatter(Team::WORLD, op::Sum, region(4, BLOCK), whole);
        leader.barrier_all();
    }
    thread::sync_threads();
    if let Some(mut leader) = Thread::leader() {
        leader.reduce(Team::WORLD, op::Max, region(5, 1), source.range(..1));
        leader.sync_all();
    }
    thread::sync_threads();
    if let Some(mut leader) = Warp::leader() {
        leader.reduce(Team::WORLD, op::Min, region(6, 1), source.range(1..2));
        leader.barrier(Team::WORLD);
    }
}
