//! Kernels of the jacobi example: a 2-D 5-point Jacobi iteration in `f32`,
//! `a_new[y][x] = 0.25 (a[y][x+1] + a[y][x-1] + a[y+1][x] + a[y-1][x])`, on rows split over PEs
//! ([`nvshmem_halo::Decomposition1d`]), each PE's rows stored with one halo row above and below.
//!
//! One stencil kernel per way of exchanging the halos, all built on [`sweep`]:
//!
//! | kernel | halo push | synchronisation (by the host or in the kernel) |
//! |---|---|---|
//! | [`jacobi_p`] | every thread that computed edge cells stores each into the neighbour with `p` | host: `barrier_all_on_stream` |
//! | [`jacobi_put_block`] | each block that computed a piece of an edge row puts it with `put_nbi_block` | host: `barrier_all_on_stream` |
//! | [`jacobi_signal`] | as `put_block` | neighbour signals: quiet + `signal_op` SET, `wait_until_all` |
//! | [`jacobi_overlap`] | as `signal`, but the edge rows are their own bands, scheduled first | as `signal` |
//! | [`jacobi_persistent`] | as `overlap`, every iteration in one cooperative launch | signals between PEs, a grid barrier inside |
//!
//! A block of `block_x` threads covers `block_x × VECTOR` columns of a band of rows ([`Tiling`]);
//! each thread walks down its [`VECTOR`] columns with 16-byte loads and stores, loading [`BATCH`]
//! rows before it stores any, so that several loads are in flight per thread (a bandwidth-bound
//! kernel needs them). No NVSHMEM call sits in that loop: edge cells are sent after it. The norm's partial sums go through warp
//! shuffles into spread-out slots ([`nvshmem_halo::NORM_SLOTS`]), then [`norm_local`] and
//! [`norm_global`] add them up.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, stdarch_nvptx))]
// On the host (`cargo test` of the plain stencil code) the kernels do not exist, and with them
// go the uses of most imports.
#![cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports, dead_code))]

mod problem;
mod stencil;

pub use problem::*;
pub use stencil::*;

use core::ops::Range;
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::thread;
use nvshmem_gpu::{SymmetricPtr, grid, kernel, pe, rma, sync};
#[cfg(target_arch = "nvptx64")]
use nvshmem_halo::device;
use nvshmem_halo::{Direction, NORM_SLOTS_LEN, NormSchedule, Patch, Sides, SignalWords, Tiling};

/// One band of one column block with the signal handshake: waits for the halos the band reads,
/// computes it, pushes its edge rows and signals the neighbours once every block of an edge row has
/// pushed. Returns the band's residual.
///
/// # Safety
/// The whole block calls it; `current`/`next` are the symmetric arrays; `iteration` counts from 0
/// since `signals` were zeroed; every column block runs each edge band once per iteration.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn signalled_band(
    current: SymmetricPtr<f32>,
    next: SymmetricPtr<f32>,
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
    // SAFETY: the whole block runs this function; the arrays are laid out as `patch` says; the
    // neighbours raise the words every iteration; `blocks` blocks arrive per edge and iteration.
    unsafe {
        // ANCHOR: signalled_band
        if !needs.is_empty() {
            device::wait_block(signals, needs, iteration);
        }
        let residual = sweep(current.as_ptr(), next.as_ptr(), patch, first, rows.clone());
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
}

/// One iteration; every edge cell goes to the neighbour with its own `nvshmem_float_p`: after
/// computing its column of the band, each thread of a band holding an edge row puts its new edge
/// value (read back from its own store, so the stencil loop itself stays free of NVSHMEM calls).
/// Grid: [`Tiling::grid`]; the host puts a barrier after it.
///
/// # Safety
/// `a`, `a_new` are symmetric arrays laid out as `patch` says (every PE's patch of one
/// decomposition); the launch's block size is `tiling.block_x` (a multiple of 32) and its grid
/// `tiling.grid(&patch)`; `norm_slots` is null or one set of norm slots.
#[kernel]
pub unsafe fn jacobi_p(
    a: SymmetricPtr<f32>,
    a_new: SymmetricPtr<f32>,
    patch: Patch,
    tiling: Tiling,
    norm_slots: *mut f64,
) {
    check_vector(&tiling);
    let first = first_column(&tiling, thread::block_idx_x());
    let rows = tiling.band(&patch, thread::block_idx_y());
    // SAFETY: the launch matches `patch` and `tiling` (the caller's contract); an edge value is
    // read back by the thread that stored it and goes to the neighbour's halo cell of the same
    // column; the whole block reaches `add_norm`.
    unsafe {
        let residual = sweep(a.as_ptr(), a_new.as_ptr(), &patch, first, rows.clone());
        // ANCHOR: jacobi_p_edges
        for_owned_columns(&patch, first, |column| {
            if rows.start == 1 {
                let value = *a_new.as_ptr().add(patch.index(1, column));
                device::put_edge_element(a_new, &patch, Direction::Up, column, value);
            }
            if rows.end == patch.ny + 1 {
                let value = *a_new.as_ptr().add(patch.index(patch.ny, column));
                device::put_edge_element(a_new, &patch, Direction::Down, column, value);
            }
        });
        // ANCHOR_END: jacobi_p_edges
        add_norm(norm_slots, residual);
    }
}

/// One iteration of iteration number `iteration`, synchronised with the neighbours only: the
/// blocks of the first band wait for the PE above's signal, those of the last band for the PE
/// below's, and after pushing their edge row the last of them signals the neighbour. Bands in
/// top-to-bottom order, grid [`Tiling::grid`]; no barrier needed.
///
/// # Safety
/// As for [`jacobi_p`], and `signals` were zeroed before iteration 0 on every PE, and every PE
/// launches one such kernel per iteration.
#[kernel]
pub unsafe fn jacobi_signal(
    a: SymmetricPtr<f32>,
    a_new: SymmetricPtr<f32>,
    patch: Patch,
    tiling: Tiling,
    norm_slots: *mut f64,
    signals: SignalWords,
    iteration: u32,
) {
    check_vector(&tiling);
    let rows = tiling.band(&patch, thread::block_idx_y());
    // SAFETY: the caller's contract; the whole block runs both calls.
    unsafe {
        let residual = signalled_band(
            a,
            a_new,
            &patch,
            &tiling,
            signals,
            iteration,
            thread::block_idx_x(),
            rows,
        );
        add_norm(norm_slots, residual);
    }
}

/// [`jacobi_signal`] with the edge rows first: bands 0 and 1 of the grid are the first and last
/// owned row alone ([`Tiling::boundary_first_band`]), so their blocks are scheduled first, push
/// and signal early, and the interior blocks compute while the halos travel. Grid
/// [`Tiling::boundary_first_grid`].
///
/// # Safety
/// As for [`jacobi_signal`].
#[kernel]
pub unsafe fn jacobi_overlap(
    a: SymmetricPtr<f32>,
    a_new: SymmetricPtr<f32>,
    patch: Patch,
    tiling: Tiling,
    norm_slots: *mut f64,
    signals: SignalWords,
    iteration: u32,
) {
    check_vector(&tiling);
    let rows = tiling.boundary_first_band(&patch, thread::block_idx_y());
    // SAFETY: as for `jacobi_signal`.
    unsafe {
        let residual = signalled_band(
            a,
            a_new,
            &patch,
            &tiling,
            signals,
            iteration,
            thread::block_idx_x(),
            rows,
        );
        add_norm(norm_slots, residual);
    }
}

/// Every iteration of the run in one cooperative launch: the blocks walk the boundary-first bands
/// of each iteration as [`jacobi_overlap`] does (signals between PEs), then meet in a grid barrier
/// before the next iteration. On norm iterations block 0 sums this PE's slots into `totals`, meets
/// the other PEs in `nvshmem_barrier_all` and sums every PE's total into `norms`. The final values
/// are in `a` after an even number of iterations, in `a_new` after an odd one.
///
/// # Safety
/// As for [`jacobi_signal`]; launched cooperatively with a 1-D grid small enough to stay resident
/// next to the other PEs' on the same GPU; `norm_slots` holds two slot sets, `totals` (symmetric)
/// and `norms` hold `schedule.count()` `f64`; `grid_counter` is a zeroed `u32`.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub unsafe fn jacobi_persistent(
    a: SymmetricPtr<f32>,
    a_new: SymmetricPtr<f32>,
    patch: Patch,
    tiling: Tiling,
    schedule: NormSchedule,
    norm_slots: *mut f64,
    totals: SymmetricPtr<f64>,
    norms: *mut f64,
    signals: SignalWords,
    grid_counter: *mut u32,
) {
    check_vector(&tiling);
    // SAFETY: `grid_counter` is zeroed and the launch cooperative (the caller's contract).
    let mut barrier = unsafe { grid::GridBarrier::new(grid_counter) };
    let column_blocks = tiling.column_blocks(&patch);
    let items = column_blocks * tiling.boundary_first_bands(&patch);
    let (mut current, mut next) = (a, a_new);
    for iteration in 0..schedule.iterations {
        let mut residual = 0.0f32;
        let mut item = thread::block_idx_x();
        while item < items {
            let (column_block, band) = (item % column_blocks, item / column_blocks);
            let rows = tiling.boundary_first_band(&patch, band);
            // SAFETY: the whole block runs the band (`item` is uniform in the block); each item
            // is run by one block, so each edge gets `column_blocks` arrivals per iteration.
            residual += unsafe {
                signalled_band(
                    current,
                    next,
                    &patch,
                    &tiling,
                    signals,
                    iteration,
                    column_block,
                    rows,
                )
            };
            item += thread::grid_dim_x();
        }
        let computes_norm = schedule.computes(iteration);
        let j = schedule.index(iteration);
        // SAFETY: two slot sets; norm `j` uses set `j % 2` while set `(j + 1) % 2` is summed.
        let slots = unsafe { norm_slots.add((j as usize % 2) * NORM_SLOTS_LEN) };
        if computes_norm {
            // SAFETY: every block calls it (the condition is uniform).
            unsafe { device::add_to_norm_slots(slots, residual) };
        }
        // ANCHOR: persistent_grid_barrier
        // SAFETY: every thread of every block calls it once per iteration.
        unsafe { barrier.wait() };
        // ANCHOR_END: persistent_grid_barrier
        if computes_norm && thread::block_idx_x() == 0 {
            if thread::rank_in_block() == 0 {
                // SAFETY: every block's additions to `slots` are complete (grid barrier); one
                // thread per PE calls it, on every PE for the same norms.
                unsafe { finish_norm(slots, totals, norms, j) };
            }
            // The rest of block 0 waits here rather than running ahead into the next iteration's
            // warp shuffles while its thread 0 is inside NVSHMEM's barrier.
            // SAFETY: the whole of block 0 reaches it (the condition is uniform in the block).
            unsafe { thread::sync_threads() };
        }
        core::mem::swap(&mut current, &mut next);
    }
}

/// The end of norm `j` in [`jacobi_persistent`]: this PE's total into `totals[j]`, a barrier of
/// all PEs, then every PE's total summed into `norms[j]`. Kept out of line: it runs once per norm
/// on one thread, and inlined it would cost the stencil loop registers.
///
/// # Safety
/// One thread per PE calls it, on every PE for the same `j`, after every addition to `slots`;
/// `totals` (symmetric) and `norms` hold more than `j` values.
#[cfg(target_arch = "nvptx64")]
#[inline(never)]
unsafe fn finish_norm(slots: *mut f64, totals: SymmetricPtr<f64>, norms: *mut f64, j: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        *totals.as_ptr().add(j as usize) = device::sum_norm_slots(slots);
        sync::barrier_all();
        let mut sum = 0.0;
        for pe in 0..pe::n_pes() {
            sum += rma::g(totals.add(j as usize), pe);
        }
        *norms.add(j as usize) = sum;
    }
}
