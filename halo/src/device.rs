//! The device side of the halo exchange (GPU target only): pushing edge cells into neighbours'
//! halos, the signal handshake, and the residual norm's partial sums.
//!
//! ```text
//! use nvshmem_halo::{device, Direction, Patch, SignalWords, Sides};
//! # fn example(a_new: nvshmem_gpu::SymmetricSlice<f32>, patch: Patch, signals: SignalWords, k: u32) {
//! // Every thread of the block, after this block computed columns 0..128 of its first owned row:
//! device::put_edge_row_nbi_block(a_new, &patch, Direction::Up, 0, 128);
//! device::arrive_block(signals, &patch, Direction::Up, 128, k); // the 128th block signals
//! // In the next iteration, before reading the top halo (the PE above signals every iteration):
//! device::wait_block(signals, Sides::NONE.with(Direction::Up), k + 1);
//! # }
//! ```
//!
//! The functions that take [`SignalWords`], [`NormTarget`] and [`MeetingCounter`] are safe: those
//! types point at memory of the right size by construction, slices are bounds-checked, and
//! neighbours are checked to be PEs of the job (a patch naming another PE traps). What they expect
//! of their callers beyond that (the whole block or grid calls them, the iterations are numbered
//! from 0, every PE meets) decides whether they hang or give a wrong value, never which memory they
//! touch.
//!
//! Memory ordering: a push is a put (remote stores); [`arrive_block`] completes this PE's pushes
//! (`nvshmem_quiet`) before the last block sets the neighbour's word, and [`wait_block`] orders the
//! block's later loads after the word was seen (the wait's acquire fence, which also drops stale
//! lines from the SM's L1 cache). Persistent kernels need the same for the cells other blocks of the same
//! PE wrote: [`nvshmem_gpu::grid::GridBarrier`] provides it.

use crate::packing::ColumnPacking;
use crate::{
    Direction, MeetingCounter, NORM_SLOT_STRIDE, NORM_SLOTS, NormTarget, Patch, Sides, SignalWords,
};
use nvshmem_gpu::signal::{self, SignalOp};
use nvshmem_gpu::{
    Block, Cmp, Element, Pe, SymmetricPtr, SymmetricSlice, memory, p2p, pe, rma, sync, thread, warp,
};

/// Sends `value`, this PE's cell at position `along` of its edge towards `direction`, into the
/// neighbour's halo in `grid` (`nvshmem_<T>_p`); does nothing where there is no neighbour.
/// `along` is the local column for up and down, the local row for left and right.
///
/// # Safety
/// `grid` is a symmetric array of [`Patch::len`] elements on every PE, laid out as `patch` says,
/// and `along` is inside the edge. Delivery is complete after `quiet` or a barrier.
#[inline]
pub unsafe fn put_edge_element<T: Element>(
    grid: SymmetricPtr<T>,
    patch: &Patch,
    direction: Direction,
    along: u32,
    value: T,
) {
    if let Some((pe, index)) = patch.remote_index(direction, along) {
        // SAFETY: `index` is inside the neighbour's array, which has the same length as ours
        // (symmetric allocation); `pe` is the neighbour's number.
        unsafe { rma::p(grid.add(index), value, pe) };
    }
}

/// Sends `count` cells of this PE's edge row towards `direction` ([`Direction::Up`] or
/// [`Direction::Down`]), from local column `first_column` on, into the neighbour's halo row in
/// `grid`, block-cooperatively and without waiting (`Block::put_nbi`,
/// `nvshmemx_<T>_put_nbi_block`); does nothing where there is no neighbour. Every thread of the
/// block calls it with the same arguments. Complete after `quiet` (as [`arrive_block`] and
/// [`meet_at_end`] do) or a barrier; until then the row must not be written again. A range outside
/// `grid` traps.
#[inline]
pub fn put_edge_row_nbi_block<T: Element>(
    grid: SymmetricSlice<T>,
    patch: &Patch,
    direction: Direction,
    first_column: u32,
    count: u32,
) {
    if let Some((pe, index)) = patch.remote_index(direction, first_column) {
        let source = patch.index(patch.edge(direction), first_column);
        put_row_nbi_block(grid, index, source, count as usize, pe);
    }
}

/// The put of [`put_edge_row_nbi_block`]: `count` elements of `grid` from `source` on into `dest`
/// on PE `pe`. Kept out of line, with plain traps for its checks: inlined, or with a message per
/// check, they raise the registers of the stencil loop that precedes it (the Jacobi kernels went
/// from 64 to 72 or more, and the persistent one, capped at 72, spilled some 60 bytes more).
#[inline(never)]
fn put_row_nbi_block<T: Element>(
    grid: SymmetricSlice<T>,
    dest: usize,
    source: usize,
    count: usize,
    pe: i32,
) {
    let (Some(to), Some(from)) = (
        grid.get_range(dest..dest + count),
        grid.get_range(source..source + count),
    ) else {
        panic!("the edge row lies outside the grid");
    };
    // Completed by the `quiet` of the block's arrival or meeting, which one thread makes after a
    // block barrier: the fence is cumulative, so it covers every thread's part.
    let _completed_later = Block.put_nbi(to, from, job_pe(pe));
}

/// `pe`, a neighbour named by a patch, as a PE of the job; traps (the launch fails) where the patch
/// names a PE the job does not have.
#[inline]
fn job_pe(pe: i32) -> Pe {
    match Pe::new(pe) {
        Some(pe) => pe,
        None => panic!("the patch names a neighbour that is not a PE of the job"),
    }
}

/// Puts this PE's packed edge column towards `direction` ([`Direction::Left`] or
/// [`Direction::Right`], rows `1..=ny` of its send column in `packed`) into the neighbour's receive
/// column for the opposite side and `parity`, block-cooperatively and without waiting
/// (`nvshmemx_<T>_put_nbi_block`); does nothing where there is no neighbour. Left and right
/// neighbours own the same rows, so the rows line up.
///
/// # Safety
/// Every thread of the block calls it with the same arguments; `packed` is a symmetric buffer of
/// `packing.len()` elements on every PE whose send column was filled before (an earlier kernel, or
/// before a block barrier); complete after `quiet` or a barrier.
#[inline]
pub unsafe fn put_packed_column_nbi_block<T: Element>(
    packed: SymmetricPtr<T>,
    packing: &ColumnPacking,
    patch: &Patch,
    direction: Direction,
    parity: u32,
) {
    if let Some(pe) = patch.neighbour(direction) {
        let to = packing.receive(direction.opposite(), parity) + 1;
        let from = packing.send(direction) + 1;
        // SAFETY: both columns hold `rows > ny` elements inside the buffer; the block calls it
        // together (the caller's contract).
        unsafe {
            rma::block::put_nbi(
                packed.add(to),
                packed.as_ptr().add(from),
                patch.ny as usize,
                pe,
            )
        };
    }
}

/// Waits until this PE's halos on `sides` hold the neighbours' cells of iteration `iteration - 1`:
/// until their signal words are at least `iteration`. Thread 0 of the block waits
/// (`nvshmem_uint64_wait_until_all`, which ends with an acquire), then the whole block continues,
/// with its later loads ordered after the words were seen. Every thread of the block calls it (it
/// synchronises the block); the neighbours on `sides` raise the words (with [`arrive_block`]) or
/// the kernel waits forever.
#[inline]
pub fn wait_block(signals: SignalWords, sides: Sides, iteration: u32) {
    if thread::rank_in_block() == 0 && !sides.is_empty() {
        let skip = sides.skip_mask();
        // SAFETY: `words` holds four symmetric u64 (`SignalWords`' invariant) and `skip` four
        // entries; a word that never reaches `iteration` is a hang.
        unsafe {
            p2p::wait_until_all(signals.words, 4, Some(&skip), Cmp::Ge, u64::from(iteration));
        }
    }
    thread::sync_threads();
}

/// Counts this block as done pushing towards `direction` in iteration `iteration`; the last of
/// the `blocks` blocks that push that way completes this PE's transfers (`nvshmem_quiet`) and sets
/// the neighbour's word for this side to `iteration + 1` (`nvshmemx_signal_op`, SET). Does nothing
/// where there is no neighbour.
///
/// Every thread of the block calls it, after its pushes; exactly `blocks` blocks call it per
/// iteration and direction, and iterations are numbered from 0 since the counters were zeroed:
/// otherwise the neighbour is signalled early (it reads a stale halo) or never (it waits forever).
#[inline]
pub fn arrive_block(
    signals: SignalWords,
    patch: &Patch,
    direction: Direction,
    blocks: u32,
    iteration: u32,
) {
    let Some(pe) = patch.neighbour(direction) else {
        return;
    };
    thread::sync_threads();
    if thread::rank_in_block() == 0 {
        let pe = job_pe(pe);
        // Completes this thread's pushes, which the barrier above ordered after those of the
        // other threads of the block (the fence is cumulative).
        sync::quiet();
        // SAFETY: `arrivals` holds four local counters (`SignalWords`' invariant); `direction` is
        // one of four.
        let counter = unsafe { signals.arrivals.add(direction as usize) };
        // SAFETY: a device address of a u32 only touched atomically.
        let before = unsafe { memory::atomic_add_acq_rel_gpu(counter, 1) };
        if before.wrapping_add(1) == blocks.wrapping_mul(iteration.wrapping_add(1)) {
            // SAFETY: `words` holds four symmetric u64 (`SignalWords`' invariant) and `pe` is a
            // PE of the job. The other blocks' pushes completed before their increments, which
            // this one acquired.
            unsafe {
                sync::quiet();
                signal::signal_op(
                    signals.words.add(direction.opposite() as usize),
                    u64::from(iteration) + 1,
                    SignalOp::Set,
                    pe.index(),
                );
            }
        }
    }
}

/// Adds every calling thread's `residual` to the norm `target` adds to (nothing when it adds to
/// none), and, when `target` sums an earlier launch's norm, sums it in the first warp of the
/// grid's first block and puts this PE's total into its place in the norm's row on every PE: the
/// puts are complete after `quiet` or a barrier. No block waits for the others, and the norm needs
/// no launch of its own ([`NormTarget`] says why the sum waits for the next launch).
///
/// Every thread of every block of the grid calls it once, with the same `target` (warps converged;
/// block size a multiple of 32; a grid of one or two dimensions), and no other kernel running
/// meanwhile uses its slots: otherwise the norm is wrong.
#[inline]
pub fn add_norm(target: &NormTarget, residual: f32) {
    if target.adds() {
        // SAFETY: the slots hold `NORM_SLOTS_LEN` values (`NormTarget`'s invariant).
        unsafe { add_to_norm_slots(target.slots, residual) };
    }
    let first_block = thread::block_idx_x() == 0 && thread::block_idx_y() == 0;
    if target.sums() && first_block && thread::rank_in_block() < 32 {
        // SAFETY: the target's invariant; the launch that added to the pending slots has finished
        // (the caller's order of launches), and this launch adds to other slots; the whole first
        // warp calls it (block sizes are multiples of 32).
        unsafe { put_total(*target) };
    }
}

/// Counts this block in at `counter` (one thread per block, after the block's work, which the
/// increment releases) and says whether it was the grid's last; the last also sets the counter back
/// to zero for the next launch or the next use, and has acquired every other block's work.
///
/// Only the last block acquires (a load of the counter after its increment): an acquire drops the
/// lines of the multiprocessor's L1 cache, which the stencil loads of the other blocks resident
/// there reuse, and a large grid has tens of thousands of blocks, each arriving here in every
/// launch with a meeting.
///
/// # Safety
/// `counter` is a local `u32`. It must be zero before the grid's first block arrives and touched by
/// nothing else until every block of the grid has arrived, or the answer is wrong.
#[inline(always)]
unsafe fn last_block_in(counter: *mut u32) -> bool {
    // SAFETY: the caller's contract.
    unsafe {
        let last = memory::atomic_add_release_gpu(counter, 1) + 1 == thread::blocks_in_grid();
        if last {
            // Every block's increment is a release and a read-modify-write of the counter, so
            // reading the total back as an acquire synchronises with all of them. A load, not a
            // fence: the fence waits for this thread's accesses in flight, at the end of every
            // launch with a meeting, which a short launch pays for in full.
            memory::load_acquire_gpu(counter);
            counter.write_volatile(0);
        }
        last
    }
}

/// The first warp's part of [`add_norm`]: sums and zeroes the pending slots, each lane two of them
/// (one round trip to memory, where one thread would make several), and lane 0 puts the total to
/// every PE. Kept out of line: the NVSHMEM calls and the slots' sum would otherwise raise the
/// registers of the stencil loop, and with them lower the resident blocks. The target comes by
/// value: by reference, every thread of the kernel would first store it to local memory, traffic
/// that competes with the stencil's own in every block.
///
/// # Safety
/// `target` sums a norm whose additions are complete and visible to this warp; called by the 32
/// lanes of one warp, converged.
#[inline(never)]
unsafe fn put_total(target: NormTarget) {
    let lane = thread::lane_id();
    // SAFETY: the pending slots hold `NORM_SLOTS_LEN` values (`NormTarget`'s invariant) that
    // nothing else touches meanwhile (the caller's contract).
    let total = warp::sum_f64(unsafe { take_lane_slots(target.pending, lane) });
    if lane == 0 {
        // SAFETY: the row holds one symmetric `f64` per PE (`NormTarget`'s invariant); `other` is
        // a PE of the job.
        unsafe {
            let row = target.totals.add(pe::my_pe() as usize);
            for other in 0..pe::n_pes() {
                rma::p(row, total, other);
            }
        }
    }
}

/// The end of an iteration that meets every PE inside its kernel: each block that pushed halo
/// data (`pushed`) completes its pushes (`quiet`), and the last block of this PE to finish meets
/// the other PEs in `nvshmem_barrier_all`, so the kernel ends only after every PE's pushes of the
/// iteration have arrived. This saves the launch of a barrier after the kernel.
///
/// Only the blocks that pushed call `quiet`, a fence of system scope: on a large grid most blocks
/// hold interior rows alone and push nothing, and a `quiet` would make each of them wait for its
/// memory accesses in flight for no transfer to complete (norm totals a block may have put need no
/// completion here: they are read once the run is over).
///
/// Nothing for [`MeetingCounter::NONE`]. Every thread of every block calls it once, last, with the
/// same `pushed` (whether the block put anything into a neighbour's halo in this launch); the
/// counter is zero when the kernel starts and used by nothing else; every PE launches such a kernel
/// in the same iteration. Otherwise the PEs meet early (a halo read stale) or never (a hang).
///
/// The meeting is a barrier outside the launch's [`Leader`](nvshmem_gpu::Leader), hence `unsafe`.
///
/// # Safety
/// No other barrier or collective of this PE runs while this one may: the kernel makes no other
/// barrier or collective (none through a `Leader`, no second `meet_at_end`), and no kernel that
/// makes one runs beside it on this PE (another stream, a graph). NVSHMEM updates a team's barrier
/// counter with a plain load-add-store, so two barriers of one PE at once lose a count: a hang, or
/// a PE leaving before the others' pushes arrived.
#[inline]
pub unsafe fn meet_at_end(meeting: MeetingCounter, pushed: bool) {
    // Alone, a PE pushes nothing and meets nobody: the kernel's end orders the next launch.
    if !meeting.is_some() || pe::n_pes() == 1 {
        return;
    }
    thread::sync_threads();
    if thread::rank_in_block() == 0 {
        // SAFETY: a counter in device memory (`MeetingCounter`'s invariant, not `NONE`); the
        // barrier above ordered the block's pushes before it; the barrier it may make runs alone
        // on this PE (the caller's contract).
        unsafe { arrive_at_meeting(meeting.counter, pushed) };
    }
}

/// One block's arrival at [`meet_at_end`] (one thread per block): completes this block's pushes,
/// if it pushed (ordered after its other threads' by the caller's block barrier, the fence being
/// cumulative), counts the block in, and the last block meets the other PEs. Kept out of line, as
/// [`put_total`] is.
///
/// # Safety
/// `meeting` points at a `u32` in device memory; no other barrier or collective of this PE runs
/// meanwhile ([`meet_at_end`]'s condition).
#[inline(never)]
unsafe fn arrive_at_meeting(meeting: *mut u32, pushed: bool) {
    // SAFETY: `meeting` is a counter and the barrier runs alone on this PE (the caller's
    // contract); a barrier some PE misses is a hang.
    unsafe {
        if pushed {
            sync::quiet();
        }
        if last_block_in(meeting) {
            sync::barrier_all();
        }
    }
}

/// Adds every calling thread's `value` into one of the [`NORM_SLOTS`] slots of `slots`: each warp
/// sums its lanes and lane 0 adds the sum to the slot its warp number picks. [`take_lane_slots`]
/// and a warp sum give the total.
///
/// Every thread of the block calls it (warps converged; block size a multiple of 32), or the sums
/// are wrong.
///
/// # Safety
/// `slots` holds [`crate::NORM_SLOTS_LEN`] `f64`.
#[inline]
unsafe fn add_to_norm_slots(slots: *mut f64, value: f32) {
    let sum = warp::sum(value);
    let rank = thread::rank_in_block();
    if rank.is_multiple_of(32) {
        let block = thread::block_idx_x() + thread::grid_dim_x() * thread::block_idx_y();
        let warps_per_block = (thread::block_dim_x() * thread::block_dim_y()).div_ceil(32);
        let warp = block.wrapping_mul(warps_per_block).wrapping_add(rank / 32);
        let slot = warp as usize % NORM_SLOTS * NORM_SLOT_STRIDE;
        // SAFETY: the slot is inside `slots` (the caller's contract).
        unsafe { memory::atomic_add_f64(slots.add(slot), f64::from(sum)) };
    }
}

/// Lane `lane`'s part of the norm slots' total: the slots `lane`, `lane + 32`, …, which it also
/// sets back to zero. Called by the lanes of one warp once every block's additions are visible to
/// them ([`add_norm`]'s first warp of the next launch); the warp's sum of the parts is the total.
///
/// # Safety
/// `slots` holds [`crate::NORM_SLOTS_LEN`] `f64` that nothing else touches meanwhile.
#[inline]
unsafe fn take_lane_slots(slots: *mut f64, lane: u32) -> f64 {
    let mut part = 0.0;
    // A count known to the compiler, so that the loads are all in flight at once.
    for k in 0..NORM_SLOTS / 32 {
        let slot = lane as usize % 32 + 32 * k;
        // SAFETY: inside `slots` (the caller's contract).
        unsafe {
            let address = slots.add(slot * NORM_SLOT_STRIDE);
            part += address.read_volatile();
            address.write_volatile(0.0);
        }
    }
    part
}
