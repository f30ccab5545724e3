//! Kernels of the jacobi example: a 2-D 5-point Jacobi iteration in `f32`,
//! `a_new[y][x] = 0.25 (a[y][x+1] + a[y][x-1] + a[y+1][x] + a[y-1][x])`, on rows split over PEs
//! ([`nvshmem_halo::Decomposition1d`]), each PE's rows stored with one halo row above and below.
//!
//! One stencil kernel per way of exchanging the halos, all built on the sweep of `jacobi-stencil`
//! ([`jacobi_stencil::sweep`], shared with the grid kernels):
//!
//! | kernel | halo push | synchronisation (by the host or in the kernel) |
//! |---|---|---|
//! | `jacobi_p` | every thread that computed edge cells stores each into the neighbour with `p` | the last block meets the other PEs in `barrier_all` |
//! | `jacobi_put_block` | each block that computed a piece of an edge row puts it with `put_nbi_block` | the last block meets the other PEs in `barrier_all` |
//! | `jacobi_signal` | as `put_block` | neighbour signals: quiet + `signal_op` SET, `wait_until_all` |
//! | `jacobi_overlap` | as `signal`, but the edge rows are their own bands, scheduled first | as `signal` |
//! | `jacobi_persistent` | as `overlap`, every iteration in one cooperative launch | signals between PEs, a grid barrier inside |
//!
//! A block of `block_x` threads covers `block_x × VECTOR` columns of a band of rows ([`Tiling`]);
//! each thread walks down its [`VECTOR`](jacobi_stencil::sweep::VECTOR) columns with 16-byte
//! loads and stores, loading [`BATCH`](jacobi_stencil::sweep::BATCH) rows before it stores any, so
//! that several loads are in flight per thread (a bandwidth-bound kernel needs them). No NVSHMEM
//! call sits in that loop: edge cells are sent after it. The norm's partial sums go through warp
//! shuffles into spread-out slots ([`nvshmem_halo::NORM_SLOTS`]); the first warp of the next launch
//! puts the PE's total to every PE (`nvshmem_halo::device::add_norm`, `norm_close` after the last
//! launch), and `norm_sum` adds up each norm's row once the run is over: no norm costs a barrier,
//! nor a block a wait.
//!
//! `jacobi_p`, `jacobi_put_block`, `jacobi_signal` and `jacobi_overlap` are safe kernels
//! (`#[kernel] pub fn`): their arrays are [`SymmetricSlice`]s and their other parameters
//! `KernelParam`s, and the one `unsafe` block they reach is
//! [`sweep`](jacobi_stencil::sweep::sweep)'s, behind [`checked_sweep`], which checks once per
//! thread what the vectorised loop needs.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
// On the host the kernels do not exist, and with them go the uses of most imports.
#![cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports, dead_code))]

// The kernels both Jacobi modules hold, entry points of this crate's PTX as its own are.
pub use jacobi_stencil::{fault::*, floors::*, kernels::*};

use core::ops::Range;
use jacobi_stencil::push::pushed_edges;
use jacobi_stencil::sweep::{checked_sweep, for_owned_columns};
#[cfg(target_arch = "nvptx64")]
use jacobi_stencil::{push::push_edges, sweep::check_vector, sweep::first_column};
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::thread;
use nvshmem_gpu::{SymmetricPtr, SymmetricSlice, grid, kernel};
#[cfg(target_arch = "nvptx64")]
use nvshmem_halo::device;
use nvshmem_halo::{
    Direction, MeetingCounter, NormSchedule, NormTarget, Patch, Sides, SignalWords, Tiling,
};

/// One band of one column block with the signal handshake: waits for the halos the band reads,
/// computes it, pushes its edge rows and signals the neighbours once every block of an edge row has
/// pushed. Returns the band's residual. The whole block calls it; `current`/`next` are the
/// symmetric arrays; `iteration` counts from 0 since `signals` were zeroed; every column block
/// runs each edge band once per iteration.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn signalled_band(
    current: SymmetricSlice<f32>,
    next: SymmetricSlice<f32>,
    patch: &Patch,
    tiling: &Tiling,
    signals: SignalWords,
    iteration: u32,
    column_block: u32,
    rows: Range<u32>,
) -> f32 {
    let mut needs = Sides::NONE;
    if rows.start == 1 && patch.up >= 0 {
        needs = needs.with(Direction::Up);
    }
    if rows.end == patch.ny + 1 && patch.down >= 0 {
        needs = needs.with(Direction::Down);
    }
    let first = first_column(tiling, column_block);
    let blocks = tiling.column_blocks(patch);
    // ANCHOR: signalled_band
    if !needs.is_empty() {
        device::wait_block(signals, needs, iteration);
    }
    let residual = checked_sweep(current, next, patch, first, rows.clone());
    push_edges(next, patch, tiling, column_block, &rows);
    if rows.start == 1 {
        device::arrive_block(signals, patch, Direction::Up, blocks, iteration);
    }
    if rows.end == patch.ny + 1 {
        device::arrive_block(signals, patch, Direction::Down, blocks, iteration);
    }
    // ANCHOR_END: signalled_band
    residual
}

/// One iteration; every edge cell goes to the neighbour with its own `nvshmem_float_p`: after
/// computing its column of the band, each thread of a band holding an edge row puts its new edge
/// value (read back from its own store, so the stencil loop itself stays free of NVSHMEM calls);
/// the PEs meet at the kernel's end, as in [`jacobi_put_block`]. Grid: [`Tiling::grid`].
///
/// A safe kernel, as [`jacobi_put_block`] is: the arrays are slices, the sweep is
/// [`checked_sweep`], and each edge cell goes out through [`SymmetricSlice::p`].
#[kernel]
pub fn jacobi_p(
    a: SymmetricSlice<f32>,
    a_new: SymmetricSlice<f32>,
    patch: Patch,
    tiling: Tiling,
    norm: NormTarget,
    meeting: MeetingCounter,
) {
    check_vector(&tiling);
    let first = first_column(&tiling, thread::block_idx_x());
    let rows = tiling.band(&patch, thread::block_idx_y());
    let residual = checked_sweep(a, a_new, &patch, first, rows.clone());
    // ANCHOR: jacobi_p_edges
    for_owned_columns(&patch, first, |column| {
        if rows.start == 1 {
            put_edge_cell(a_new, &patch, Direction::Up, 1, column);
        }
        if rows.end == patch.ny + 1 {
            put_edge_cell(a_new, &patch, Direction::Down, patch.ny, column);
        }
    });
    // ANCHOR_END: jacobi_p_edges
    device::add_norm(&norm, residual);
    let (up, down) = pushed_edges(&patch, &rows);
    // SAFETY: the meeting is this kernel's one barrier or collective (the edges and the norm go
    // by `p`s), and the runner launches its kernels one after another on one stream (or a graph
    // captured from one), so no kernel that meets runs beside this one on the PE.
    unsafe { device::meet_at_end(meeting, up || down) };
}

/// Sends this PE's cell `(row, column)` of `grid`, an edge cell towards `direction`, into the
/// neighbour's halo there (`nvshmem_float_p`); nothing where there is no neighbour. Kept out of
/// line: only edge threads call it, and inlined, its checks' trap paths raised the registers of the
/// whole kernel, sweep included.
#[cfg(target_arch = "nvptx64")]
#[inline(never)]
fn put_edge_cell(
    grid: SymmetricSlice<f32>,
    patch: &Patch,
    direction: Direction,
    row: u32,
    column: u32,
) {
    if let Some((pe, index)) = patch.remote_index(direction, column) {
        let value = grid.read(patch.index(row, column));
        let pe = nvshmem_gpu::Pe::new(pe).expect("the patch's neighbours are PEs of the job");
        grid.p(index, value, pe);
    }
}

/// One iteration of iteration number `iteration`, synchronised with the neighbours only: the
/// blocks of the first band wait for the PE above's signal, those of the last band for the PE
/// below's, and after pushing their edge row the last of them signals the neighbour. Bands in
/// top-to-bottom order, grid [`Tiling::grid`]; no barrier needed.
///
/// A safe kernel, as [`jacobi_put_block`] is; for right results also `signals` were zeroed before
/// iteration 0 on every PE, and every PE launches one such kernel per iteration.
#[kernel]
pub fn jacobi_signal(
    a: SymmetricSlice<f32>,
    a_new: SymmetricSlice<f32>,
    patch: Patch,
    tiling: Tiling,
    norm: NormTarget,
    signals: SignalWords,
    iteration: u32,
) {
    check_vector(&tiling);
    let rows = tiling.band(&patch, thread::block_idx_y());
    let column_block = thread::block_idx_x();
    let residual = signalled_band(
        a,
        a_new,
        &patch,
        &tiling,
        signals,
        iteration,
        column_block,
        rows,
    );
    device::add_norm(&norm, residual);
}

/// [`jacobi_signal`] with the edge rows first: bands 0 and 1 of the grid are the first and last
/// owned row alone ([`Tiling::boundary_first_band`]), so their blocks are scheduled first, push
/// and signal early, and the interior blocks compute while the halos travel. Grid
/// [`Tiling::boundary_first_grid`]. A safe kernel, as [`jacobi_signal`] is.
#[kernel]
pub fn jacobi_overlap(
    a: SymmetricSlice<f32>,
    a_new: SymmetricSlice<f32>,
    patch: Patch,
    tiling: Tiling,
    norm: NormTarget,
    signals: SignalWords,
    iteration: u32,
) {
    check_vector(&tiling);
    let rows = tiling.boundary_first_band(&patch, thread::block_idx_y());
    let column_block = thread::block_idx_x();
    let residual = signalled_band(
        a,
        a_new,
        &patch,
        &tiling,
        signals,
        iteration,
        column_block,
        rows,
    );
    device::add_norm(&norm, residual);
}

/// Every iteration of the run in one cooperative launch: the blocks walk the boundary-first bands
/// of each iteration as [`jacobi_overlap`] does (signals between PEs), add to the iteration's norm
/// if it has one, and sum the iteration before's (first warp; targets picked from `norms` by
/// [`NormTarget::at`]), then meet in a grid barrier before the next iteration; the first warp
/// sums the last norm after the last barrier. The final values are in `a` after an even number of
/// iterations, in `a_new` after an odd one.
///
/// # Safety
/// `a`, `a_new` are symmetric arrays of [`Patch::len`] elements, launched as [`jacobi_signal`] is
/// but cooperatively with a 1-D grid small enough to stay resident
/// next to the other PEs' on the same GPU; `norms` is the start of buffers holding
/// `schedule.rows()` rows of norms ([`nvshmem_halo::host::NormBuffers::base`]); `grid_counter` is a
/// `u32` zeroed once, before the first launch, and used only by this kernel's grid barrier.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub unsafe fn jacobi_persistent(
    a: SymmetricPtr<f32>,
    a_new: SymmetricPtr<f32>,
    patch: Patch,
    tiling: Tiling,
    schedule: NormSchedule,
    norms: NormTarget,
    signals: SignalWords,
    grid_counter: *mut u32,
) {
    check_vector(&tiling);
    // SAFETY: `grid_counter` serves only this grid's barriers and the launch is cooperative (the
    // caller's contract).
    let barrier = unsafe { grid::GridBarrier::new(grid_counter) };
    let column_blocks = tiling.column_blocks(&patch);
    let items = column_blocks * tiling.boundary_first_bands(&patch);
    let n_pes = nvshmem_gpu::pe::n_pes() as u32;
    // SAFETY: both arrays hold `patch.len()` elements of one symmetric allocation each (the
    // caller's contract).
    let (mut current, mut next) = unsafe {
        (
            SymmetricSlice::from_raw_parts(a.as_ptr(), patch.len()),
            SymmetricSlice::from_raw_parts(a_new.as_ptr(), patch.len()),
        )
    };
    for iteration in 0..schedule.iterations {
        let mut residual = 0.0f32;
        let mut item = thread::block_idx_x();
        while item < items {
            let (column_block, band) = (item % column_blocks, item / column_blocks);
            let rows = tiling.boundary_first_band(&patch, band);
            // The whole block runs the band (`item` is uniform in the block); each item is run by
            // one block, so each edge gets `column_blocks` arrivals per iteration.
            residual += signalled_band(
                current,
                next,
                &patch,
                &tiling,
                signals,
                iteration,
                column_block,
                rows,
            );
            item += thread::grid_dim_x();
        }
        // This iteration's norm, if it computes one, and the sum of the last iteration's, whose
        // additions the grid barrier since completed.
        let (adds, sums) = schedule.launch(iteration, 0);
        // Only an iteration with a norm makes a target: made in every one, its addresses stayed
        // live across the band loop and pushed two of the loop's values out to local memory,
        // reloaded before each band's first loads.
        if adds.is_some() || sums.is_some() {
            // SAFETY: the buffers hold two slot sets and `schedule.rows()` rows; every block adds
            // (the conditions are uniform); the set added to was last summed an iteration ago,
            // the set summed is the other one.
            let target = unsafe { norms.at(adds, sums, n_pes) };
            device::add_norm(&target, residual);
        }
        // ANCHOR: persistent_grid_barrier
        // Every thread of every block calls it once per iteration, as the barrier needs.
        barrier.wait();
        // ANCHOR_END: persistent_grid_barrier
        core::mem::swap(&mut current, &mut next);
    }
    // The last iteration's norm, after the last grid barrier.
    let last = schedule.norm_of(schedule.iterations - 1);
    // SAFETY: as above; no block adds any more.
    let target = unsafe { norms.at(None, last, n_pes) };
    device::add_norm(&target, 0.0);
}
