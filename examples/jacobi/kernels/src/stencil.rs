//! The 5-point Jacobi stencil both Jacobi examples share (`examples/jacobi/kernels` and, included
//! by path, `examples/jacobi2d-grid/kernels`): the update, the column sweep, the block-cooperative
//! row push, the plain stencil kernel (also the single-GPU reference), initialisation, the planted
//! defect of `--stale-halo`, the meeting kernel, and the norm and gather kernels.

use core::ops::Range;
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::thread;
use nvshmem_gpu::{SymmetricPtr, SymmetricSlice, kernel, pe, rma};
#[cfg(target_arch = "nvptx64")]
use nvshmem_halo::device;
use nvshmem_halo::{Direction, MeetingCounter, NormTarget, Patch, Tiling};

use crate::problem::initial_interior;

/// Adjacent columns a thread computes, loaded and stored as one 16-byte vector. The host must pass
/// a [`Tiling`] with this `vector`.
pub const VECTOR: usize = 4;

/// Rows a thread loads before it stores any.
pub const BATCH: usize = 4;

/// [`VECTOR`] adjacent `f32`, 16-byte aligned, so that a load or store of one is a single
/// `ld.v4.f32` / `st.v4.f32`.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct Lanes([f32; VECTOR]);

/// One Jacobi update from the four neighbours, summed in the order of NVIDIA's reference (east,
/// west, south, north); the runner's CPU reference uses the same order, so results agree bit for
/// bit.
#[inline(always)]
pub fn update(east: f32, west: f32, south: f32, north: f32) -> f32 {
    0.25 * (east + west + south + north)
}

/// Updates local rows `rows` of the [`VECTOR`] local columns from `first_column` on, from `a` into
/// `a_new`, and returns the sum of the squared changes. Only owned columns (`1..=patch.nx`) are
/// written: the halo columns may be written by neighbours meanwhile.
///
/// Each row of the vector is one 16-byte load of the row below (the centre and north rows are
/// carried from the rows before) and two 4-byte loads for the cells just left and right of the
/// vector, which lie in lines the neighbouring threads load; [`BATCH`] rows are loaded before any
/// is stored. A vector of owned cells only (all but the first and last of a row) is stored with
/// one 16-byte store; the loop is instantiated twice so that the compiler keeps that store whole.
///
/// # Safety
/// Unless it returns at once (`first_column > patch.nx` or `rows` empty): `rows.start >= 1`;
/// `patch.pitch` and `first_column` are multiples of [`VECTOR`], `first_column < patch.pitch`; `a`
/// and `a_new` are 16-byte aligned and hold `patch.index(rows.end, first_column) + VECTOR` elements
/// (local arrays laid out as `patch` says, with `rows` inside `1..=patch.ny`, do).
#[inline(always)]
pub unsafe fn sweep(
    a: *const f32,
    a_new: *mut f32,
    patch: &Patch,
    first_column: u32,
    rows: Range<u32>,
) -> f32 {
    if first_column > patch.nx || rows.is_empty() {
        return 0.0;
    }
    let owned: [bool; VECTOR] = core::array::from_fn(|i| {
        let column = first_column + i as u32;
        column >= 1 && column <= patch.nx
    });
    // SAFETY: the caller's contract.
    unsafe {
        if owned.iter().all(|&owned| owned) {
            sweep_rows::<true>(a, a_new, patch, first_column, rows, &owned)
        } else {
            sweep_rows::<false>(a, a_new, patch, first_column, rows, &owned)
        }
    }
}

/// [`sweep`] on the symmetric arrays of a safe kernel, after checking what `sweep` needs of the
/// values the host passed: the rows from the one above `rows` to the one below lie inside both
/// slices, which are 16-byte aligned, and the vector lies inside a row of the pitch (a multiple of
/// [`VECTOR`]). Traps (the launch fails; panics on the host) where they do not. The checks run once
/// per thread, before the loop, which stays [`sweep`]'s.
#[inline(always)]
pub fn checked_sweep(
    a: SymmetricSlice<f32>,
    a_new: SymmetricSlice<f32>,
    patch: &Patch,
    first_column: u32,
    rows: Range<u32>,
) -> f32 {
    // What `sweep` itself skips: a vector beyond the owned columns, an empty band.
    if first_column > patch.nx || rows.is_empty() {
        return 0.0;
    }
    // The vector's cells from the row above the band to the row below it; the single cells left
    // and right of the vector lie between.
    let end = patch.index(rows.end, first_column) + VECTOR;
    let (a_len, a_new_len) = (a.len(), a_new.len());
    let (a, a_new) = (a.as_symmetric_ptr().as_ptr(), a_new.as_symmetric_ptr().as_ptr());
    let vector = VECTOR as u32;
    // One test and one trap for all: a message per condition would raise the registers of the
    // loop below.
    assert!(
        rows.start >= 1
            && patch.pitch.is_multiple_of(vector)
            && first_column.is_multiple_of(vector)
            && first_column < patch.pitch
            && end <= a_len
            && end <= a_new_len
            && (a as usize).is_multiple_of(align_of::<Lanes>())
            && (a_new as usize).is_multiple_of(align_of::<Lanes>()),
        "the patch, the band or the vector does not fit the arrays"
    );
    // SAFETY: `sweep`'s conditions, checked above: `rows.start >= 1`, the pitch and the vector's
    // column are multiples of VECTOR with the vector inside the pitch, and both arrays are 16-byte
    // aligned and hold `end` elements. Remote PEs write only halo cells, between the reads of an
    // exchange's order; a host that breaks that order gets stale values of plain `f32`, not
    // accesses outside the arrays.
    unsafe { sweep(a, a_new, patch, first_column, rows) }
}

/// [`sweep`] for a vector whose cells are all owned (`ALL_OWNED`) or not.
///
/// # Safety
/// As for [`sweep`], with `rows` not empty and `first_column <= patch.nx`; `owned` says which
/// cells of the vector are owned (all of them when `ALL_OWNED`).
#[inline(always)]
unsafe fn sweep_rows<const ALL_OWNED: bool>(
    a: *const f32,
    a_new: *mut f32,
    patch: &Patch,
    first_column: u32,
    rows: Range<u32>,
    owned: &[bool; VECTOR],
) -> f32 {
    let pitch = patch.pitch as usize;
    let first = patch.index(rows.start, first_column);
    let mut residual = 0.0f32;
    // SAFETY: the vectors read lie in rows `rows.start - 1 ..= rows.end` (halo rows included),
    // columns `first_column .. first_column + VECTOR` (inside the pitch: the pitch is a multiple
    // of VECTOR); the single cells left and right of a vector lie one element before or after it,
    // which is inside the array because such a row is neither the first nor the last local row.
    // Only owned cells are written.
    unsafe {
        let mut here = a.add(first);
        let mut out = a_new.add(first);
        let load = |at: *const f32| (at as *const Lanes).read().0;
        let mut north = load(here.sub(pitch));
        let mut centre = load(here);
        let mut row = rows.start;
        while row + BATCH as u32 <= rows.end {
            let mut south = [[0.0f32; VECTOR]; BATCH];
            let mut west = [0.0f32; BATCH];
            let mut east = [0.0f32; BATCH];
            for k in 0..BATCH {
                south[k] = load(here.add((k + 1) * pitch));
                west[k] = *here.add(k * pitch).sub(1);
                east[k] = *here.add(k * pitch + VECTOR);
            }
            for k in 0..BATCH {
                let (above, middle) = match k {
                    0 => (north, centre),
                    1 => (centre, south[0]),
                    _ => (south[k - 2], south[k - 1]),
                };
                let new = row_update(&middle, west[k], east[k], &south[k], &above);
                residual += store::<ALL_OWNED>(out.add(k * pitch), &new, &middle, owned);
            }
            north = south[BATCH - 2];
            centre = south[BATCH - 1];
            here = here.add(BATCH * pitch);
            out = out.add(BATCH * pitch);
            row += BATCH as u32;
        }
        while row < rows.end {
            let south = load(here.add(pitch));
            let new = row_update(&centre, *here.sub(1), *here.add(VECTOR), &south, &north);
            residual += store::<ALL_OWNED>(out, &new, &centre, owned);
            north = centre;
            centre = south;
            here = here.add(pitch);
            out = out.add(pitch);
            row += 1;
        }
    }
    residual
}

/// The new values of one row of a vector: `middle` is the row itself, `west` and `east` the cells
/// just outside it.
#[inline(always)]
fn row_update(
    middle: &[f32; VECTOR],
    west: f32,
    east: f32,
    south: &[f32; VECTOR],
    north: &[f32; VECTOR],
) -> [f32; VECTOR] {
    core::array::from_fn(|i| {
        let left = if i == 0 { west } else { middle[i - 1] };
        let right = if i == VECTOR - 1 { east } else { middle[i + 1] };
        update(right, left, south[i], north[i])
    })
}

/// Stores the owned cells of `new` at `out` (one vector store when `ALL_OWNED`) and returns their
/// squared changes from `old`.
///
/// # Safety
/// `out` is 16-byte aligned and valid for a vector.
#[inline(always)]
unsafe fn store<const ALL_OWNED: bool>(
    out: *mut f32,
    new: &[f32; VECTOR],
    old: &[f32; VECTOR],
    owned: &[bool; VECTOR],
) -> f32 {
    let mut residual = 0.0f32;
    for i in 0..VECTOR {
        if ALL_OWNED || owned[i] {
            let change = new[i] - old[i];
            residual += change * change;
        }
    }
    // SAFETY: the caller's contract.
    unsafe {
        if ALL_OWNED {
            (out as *mut Lanes).write(Lanes(*new));
        } else {
            for i in 0..VECTOR {
                if owned[i] {
                    *out.add(i) = new[i];
                }
            }
        }
    }
    residual
}

/// The first local column of this thread's vector in column block `column_block`.
#[cfg(target_arch = "nvptx64")]
pub fn first_column(tiling: &Tiling, column_block: u32) -> u32 {
    tiling.thread_column(column_block, thread::thread_idx_x())
}

/// Traps (the launch fails) when the host's tiling does not use this crate's [`VECTOR`].
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn check_vector(tiling: &Tiling) {
    assert!(
        tiling.vector == VECTOR as u32,
        "the tiling's vector is not the kernels' VECTOR"
    );
}

/// Calls `each` with every owned column among this thread's vector.
#[inline(always)]
pub fn for_owned_columns(patch: &Patch, first_column: u32, mut each: impl FnMut(u32)) {
    for column in first_column..first_column + VECTOR as u32 {
        if column >= 1 && column <= patch.nx {
            each(column);
        }
    }
}

/// Whether the band `rows` holds an edge row with a neighbour above and below it: the rows whose
/// cells a block of the band sends, as `(up, down)`.
#[inline(always)]
pub fn pushed_edges(patch: &Patch, rows: &Range<u32>) -> (bool, bool) {
    (
        rows.start == 1 && patch.up >= 0,
        rows.end == patch.ny + 1 && patch.down >= 0,
    )
}

/// Puts the block's piece of the edge rows in `rows` (the owned columns among
/// [`Tiling::block_columns`]) into the neighbours' halos of `grid`, block-cooperatively, without
/// waiting. The whole block calls it, after computing `rows`; `grid` is the symmetric array just
/// written, which the launch does not write again.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn push_edges(
    grid: SymmetricSlice<f32>,
    patch: &Patch,
    tiling: &Tiling,
    column_block: u32,
    rows: &Range<u32>,
) {
    let (up, down) = pushed_edges(patch, rows);
    if !up && !down {
        return;
    }
    let columns = tiling.block_columns(patch, column_block);
    let first = columns.start.max(1);
    let end = columns.end.min(patch.nx + 1);
    // The row must be complete before it is sent.
    thread::sync_threads();
    if first >= end {
        return;
    }
    if up {
        device::put_edge_row_nbi_block(grid, patch, Direction::Up, first, end - first);
    }
    if down {
        device::put_edge_row_nbi_block(grid, patch, Direction::Down, first, end - first);
    }
}

/// The initial value of local `(row, column)` of `patch` (open boundaries): `boundary`, the row's
/// value of the fixed columns, in a left or right halo column without a neighbour; the global
/// cell's [`initial_interior`] in an owned cell and in a halo cell with a neighbour there (that
/// neighbour's own initial cell, so the first iteration reads the right halos before any exchange);
/// 0 elsewhere (the fixed top and bottom rows, the padding).
pub fn initial_cell(patch: &Patch, row: u32, column: u32, boundary: f32) -> f32 {
    let fixed = (column == 0 && patch.left < 0) || (column == patch.nx + 1 && patch.right < 0);
    // Local index `i` of a side of `n` owned cells with neighbours `before` and `after` (or -1).
    let inside = |i: u32, n: u32, before: i32, after: i32| {
        (1..=n).contains(&i) || (i == 0 && before >= 0) || (i == n + 1 && after >= 0)
    };
    if fixed {
        boundary
    } else if inside(row, patch.ny, patch.up, patch.down)
        && inside(column, patch.nx, patch.left, patch.right)
    {
        // A halo at index 0 has a neighbour before it, so `x0` (or `y0`) is at least 1.
        initial_interior(patch.x0 + column - 1, patch.y0 + row - 1)
    } else {
        0.0
    }
}

/// Sets every element of both arrays to its [`initial_cell`], `boundary[row]` being the fixed
/// columns' value of each local row. Any grid shape with open boundaries.
///
/// # Safety
/// `a`, `a_new` hold `patch.len()` elements, `boundary` holds `patch.rows`.
#[kernel]
pub unsafe fn initialize(
    a: SymmetricPtr<f32>,
    a_new: SymmetricPtr<f32>,
    patch: Patch,
    boundary: *const f32,
) {
    let pitch = patch.pitch as usize;
    for i in (thread::global_index_x()..patch.len()).step_by(thread::grid_size_x()) {
        let (row, column) = ((i / pitch) as u32, (i % pitch) as u32);
        // SAFETY: `row < patch.rows`, the length of `boundary`.
        let value = initial_cell(&patch, row, column, unsafe { *boundary.add(row as usize) });
        // SAFETY: `i < patch.len()`.
        unsafe {
            *a.as_ptr().add(i) = value;
            *a_new.as_ptr().add(i) = value;
        }
    }
}

/// The halo that `--stale-halo` spoils: the left one where the patch has a left neighbour, else the
/// upper one, else none.
pub fn stale_side(patch: &Patch) -> Option<Direction> {
    if patch.left >= 0 {
        Some(Direction::Left)
    } else if patch.up >= 0 {
        Some(Direction::Up)
    } else {
        None
    }
}

/// The defect `--stale-halo` plants for `--check` to find: sets the [`stale_side`] halo of `a`
/// back to its initial cells. Run after the first iteration's exchange on the array it wrote, it
/// leaves there the neighbour's cells of the iteration before, as a reader sees them when the data
/// lands after the signal it waited for. Grid-stride over the halo's cells. A safe kernel; for the
/// planted defect to show, `a` is laid out as `patch` says and no neighbour writes its halo during
/// the launch.
#[kernel]
pub fn stale_halo(a: SymmetricSlice<f32>, patch: Patch) {
    let Some(side) = stale_side(&patch) else {
        return;
    };
    let count = if side == Direction::Left {
        patch.ny
    } else {
        patch.nx
    };
    let first = thread::global_index_x() as u32 + 1;
    for along in (first..=count).step_by(thread::grid_size_x()) {
        let (row, column) = if side == Direction::Left {
            (along, 0)
        } else {
            (0, along)
        };
        a.write(patch.index(row, column), initial_cell(&patch, row, column, 0.0));
    }
}

/// One iteration; each block that computed a piece of an edge row puts it into the neighbour with
/// `nvshmemx_float_put_nbi_block`, and the PEs meet at the kernel's end
/// ([`device::meet_at_end`]), so the next launch reads complete halos. Grid: [`Tiling::grid`].
///
/// With no neighbours and [`MeetingCounter::NONE`] (the single-GPU reference) it is the plain
/// stencil.
///
/// A safe kernel: a patch or tiling that does not fit the arrays traps. For right results, `a` and
/// `a_new` are every PE's arrays of one decomposition, laid out as `patch` says; the launch's block
/// size is `tiling.block_x` (a multiple of 32) and its grid `tiling.grid(&patch)`; `norm` is
/// [`NormTarget::NONE`] or one norm's target; `meeting` is `NONE` (the patch has no neighbours) or
/// a counter of this launch, every PE launching the kernel in the same iteration.
#[kernel]
pub fn jacobi_put_block(
    a: SymmetricSlice<f32>,
    a_new: SymmetricSlice<f32>,
    patch: Patch,
    tiling: Tiling,
    norm: NormTarget,
    meeting: MeetingCounter,
) {
    check_vector(&tiling);
    let column_block = thread::block_idx_x();
    let rows = tiling.band(&patch, thread::block_idx_y());
    let first = first_column(&tiling, column_block);
    let residual = checked_sweep(a, a_new, &patch, first, rows.clone());
    push_edges(a_new, &patch, &tiling, column_block, &rows);
    device::add_norm(&norm, residual);
    let (up, down) = pushed_edges(&patch, &rows);
    // SAFETY: the meeting is this kernel's one barrier or collective (the edges and the norm go
    // by puts), and the runner launches its kernels one after another on one stream (or a graph
    // captured from one), so no kernel that meets runs beside this one on the PE.
    unsafe { device::meet_at_end(meeting, up || down) };
}

/// Every PE meets here (`nvshmem_barrier_all` from one thread): the iteration's puts are complete
/// everywhere before the next launch on the stream. The same meeting as the host's on-stream
/// barrier, but a plain kernel launch, which CUDA graph capture accepts where NVSHMEM's on-stream
/// barrier between PEs is refused. A safe kernel: the one thread that holds the PE's
/// [`Leader`](nvshmem_gpu::Leader) meets; a PE that does not launch it hangs the others.
#[kernel]
pub fn barrier_all() {
    if let Some(mut leader) = nvshmem_gpu::Thread::leader() {
        leader.barrier_all();
    }
}

/// Sums the norm of the last stencil launch before it, which no later stencil launch sums
/// ([`nvshmem_halo::host::NormBuffers::closing`]): one block of 32 threads, after the last stencil
/// launch on the same stream. A safe kernel: `norm` is a [`NormTarget`]; for a right norm every
/// launch whose norm it sums has finished, and nothing else uses those slots meanwhile.
#[kernel]
pub fn norm_close(norm: NormTarget) {
    device::add_norm(&norm, 0.0);
}

/// Sums each row of every PE's totals, in PE order, into `norms` (squared): the same sum on every
/// PE. Grid-stride over the `rows` rows; launched once the PEs have met after the run.
///
/// # Safety
/// `totals` holds `rows` rows of `n_pes` values, every PE's puts into them complete; `norms`
/// holds `rows` values.
#[kernel]
pub unsafe fn norm_sum(totals: SymmetricPtr<f64>, norms: *mut f64, rows: u32) {
    let n_pes = pe::n_pes() as usize;
    for j in (thread::global_index_x()..rows as usize).step_by(thread::grid_size_x()) {
        let mut sum = 0.0;
        for pe in 0..n_pes {
            // SAFETY: inside row `j` (the caller's contract).
            sum += unsafe { *totals.as_ptr().add(j * n_pes + pe) };
        }
        // SAFETY: `j < rows`.
        unsafe { *norms.add(j) = sum };
    }
}

/// Copies `len` 16-byte words from `a` to `b`, then back, `trips` times in all (odd trips go
/// `a → b`, even ones `b → a`), grid-stride: one launch whose time over `trips` is the copy rate
/// of a working set of this size (in L2 when it fits), without a launch per copy.
///
/// # Safety
/// `a` and `b` hold `len` 16-byte aligned words each.
#[kernel]
pub unsafe fn copy_trips(a: *mut Lanes, b: *mut Lanes, len: usize, trips: u32) {
    const IN_FLIGHT: usize = 4;
    let (start, stride) = (thread::global_index_x(), thread::grid_size_x());
    for trip in 0..trips {
        let (from, to) = if trip % 2 == 0 { (a, b) } else { (b, a) };
        let mut i = start;
        // Several loads before any store, as the stencil does, so that the copy is not held
        // back by one load's latency at a time.
        while i + (IN_FLIGHT - 1) * stride < len {
            // SAFETY: every index is below `len` (the loop's condition).
            unsafe {
                let words: [Lanes; IN_FLIGHT] = core::array::from_fn(|k| *from.add(i + k * stride));
                for (k, word) in words.into_iter().enumerate() {
                    *to.add(i + k * stride) = word;
                }
            }
            i += IN_FLIGHT * stride;
        }
        while i < len {
            // SAFETY: `i < len`.
            unsafe { *to.add(i) = *from.add(i) };
            i += stride;
        }
    }
}

/// Does nothing: back-to-back launches of it time one launch, the floor of an iteration that
/// launches a kernel.
#[kernel]
pub fn nothing() {}

/// Copies `count` values of `source` from every PE into `dest`, PE by PE (`nvshmem_double_g`).
///
/// # Safety
/// `source` holds `count` values on every PE; `dest` holds `count × n_pes` values; every PE has
/// written its `source` before a barrier that precedes this launch.
#[kernel]
pub unsafe fn gather(source: SymmetricPtr<f64>, count: u32, dest: *mut f64) {
    let n = count as usize * pe::n_pes() as usize;
    for i in (thread::global_index_x()..n).step_by(thread::grid_size_x()) {
        let (pe, k) = (i / count as usize, i % count as usize);
        // SAFETY: `k < count`, `pe < n_pes`, `i < count × n_pes`.
        unsafe { *dest.add(i) = rma::g(source.add(k), pe as i32) };
    }
}

/// The kernels' stencil code run on the CPU: every PE's patch swept band by band, vector by
/// vector, with the halo exchange done by copying edge cells to where [`Patch::remote_index`]
/// says, must give the whole-grid result bit for bit. (`./x test` runs them with `cargo test
/// --manifest-path examples/jacobi/kernels/Cargo.toml`: the kernel crates are not workspace
/// members.)
#[cfg(test)]
mod tests {
    use super::*;
    use nvshmem_halo::{Boundary, Decomposition2d, ProcessGrid};

    /// A local array, 16-byte aligned as the kernels need.
    fn aligned(len: usize) -> Vec<Lanes> {
        vec![Lanes([0.0; VECTOR]); len.div_ceil(VECTOR)]
    }

    fn cells(array: &mut [Lanes]) -> &mut [f32] {
        let len = array.len() * VECTOR;
        // SAFETY: `Lanes` is `VECTOR` packed `f32`.
        unsafe { core::slice::from_raw_parts_mut(array.as_mut_ptr().cast(), len) }
    }

    /// The cells of `array` from `start` on, as the symmetric slice a safe kernel gets.
    fn slice(array: &mut [Lanes], start: usize) -> SymmetricSlice<f32> {
        let cells = &mut cells(array)[start..];
        // SAFETY: host memory stands in for a symmetric allocation in these tests.
        unsafe { SymmetricSlice::from_raw_parts(cells.as_mut_ptr(), cells.len()) }
    }

    /// The fixed columns' value of global row `y` (any non-zero values do).
    fn boundary(y: usize) -> f32 {
        (y as f32 * 0.37).sin()
    }

    /// The whole `nx × ny` grid (fixed edges included) after `iters` plain iterations, from the
    /// initial state written independently of [`initial_cell`].
    fn whole_grid(nx: usize, ny: usize, iters: usize) -> Vec<f32> {
        let mut a = vec![0.0f32; nx * ny];
        for y in 0..ny {
            a[y * nx] = boundary(y);
            a[y * nx + nx - 1] = boundary(y);
        }
        for y in 1..ny - 1 {
            for x in 1..nx - 1 {
                a[y * nx + x] = initial_interior(x as u32 - 1, y as u32 - 1);
            }
        }
        let mut b = a.clone();
        for _ in 0..iters {
            for y in 1..ny - 1 {
                for x in 1..nx - 1 {
                    let i = y * nx + x;
                    b[i] = update(a[i + 1], a[i - 1], a[i + nx], a[i - nx]);
                }
            }
            std::mem::swap(&mut a, &mut b);
        }
        a
    }

    /// The halo cells of `patch` on `side`, as local `(row, column)`.
    fn halo_cells(patch: &Patch, side: Direction) -> Vec<(u32, u32)> {
        match side {
            Direction::Up | Direction::Down => {
                (1..=patch.nx).map(|c| (patch.halo(side), c)).collect()
            }
            Direction::Left | Direction::Right => {
                (1..=patch.ny).map(|r| (r, patch.halo(side))).collect()
            }
        }
    }

    /// The interior after `iters` iterations on the PEs of `grid`, each patch initialised with
    /// [`initial_cell`] and swept with the kernels' code, the halos exchanged by copying edge cells
    /// to where [`Patch::remote_index`] says. With `stale_halo`, the last PE's halo then goes stale
    /// after the first iteration as the [`stale_halo`] kernel makes it.
    fn distributed(
        nx: usize,
        ny: usize,
        iters: usize,
        grid: ProcessGrid,
        tiling: Tiling,
        boundary_first: bool,
        stale_halo: bool,
    ) -> Vec<f32> {
        let open = Boundary::Open;
        let d = Decomposition2d::new(nx - 2, ny - 2, grid, open, open).unwrap();
        let patches: Vec<Patch> = (0..d.n_pes()).map(|pe| d.patch(pe)).collect();
        // What the `initialize` kernel does.
        let mut current: Vec<Vec<Lanes>> = patches
            .iter()
            .map(|p| {
                let mut array = aligned(p.len());
                let a = cells(&mut array);
                for (i, cell) in a.iter_mut().enumerate().take(p.len()) {
                    let (row, column) =
                        ((i / p.pitch as usize) as u32, (i % p.pitch as usize) as u32);
                    let y = p.y0 as usize + row as usize;
                    let fixed = if y < ny { boundary(y) } else { 0.0 };
                    *cell = initial_cell(p, row, column, fixed);
                }
                array
            })
            .collect();
        let mut next = current.clone();
        for k in 0..iters {
            // Which edge rows some band of each patch sends ([`pushed_edges`]): the pushes below
            // send only those, so a band that sends without saying so (and so would skip its
            // `quiet` before the meeting) fails the comparison.
            let mut pushes = vec![(false, false); patches.len()];
            for (pe, p) in patches.iter().enumerate() {
                let (column_blocks, bands) = if boundary_first {
                    tiling.boundary_first_grid(p)
                } else {
                    tiling.grid(p)
                };
                for band in 0..bands {
                    let rows = if boundary_first {
                        tiling.boundary_first_band(p, band)
                    } else {
                        tiling.band(p, band)
                    };
                    let (up, down) = pushed_edges(p, &rows);
                    pushes[pe] = (pushes[pe].0 || up, pushes[pe].1 || down);
                    for column_block in 0..column_blocks {
                        for thread in 0..tiling.block_x {
                            let first_column = tiling.thread_column(column_block, thread);
                            if first_column >= p.pitch {
                                continue;
                            }
                            // The safe kernels' sweep: its checks pass every band of every
                            // tiling of a patch.
                            checked_sweep(
                                slice(&mut current[pe], 0),
                                slice(&mut next[pe], 0),
                                p,
                                first_column,
                                rows.clone(),
                            );
                        }
                    }
                }
            }
            // The pushes: every edge cell, read back from the array just written.
            let mut sent: Vec<(usize, usize, f32)> = Vec::new();
            for (pe, p) in patches.iter().enumerate() {
                let written = cells(&mut next[pe]);
                for direction in Direction::ALL {
                    let said = match direction {
                        Direction::Up => pushes[pe].0,
                        Direction::Down => pushes[pe].1,
                        Direction::Left | Direction::Right => true,
                    };
                    if !said {
                        continue;
                    }
                    let (count, vertical) = match direction {
                        Direction::Up | Direction::Down => (p.nx, true),
                        Direction::Left | Direction::Right => (p.ny, false),
                    };
                    for along in 1..=count {
                        let (row, column) = if vertical {
                            (p.edge(direction), along)
                        } else {
                            (along, p.edge(direction))
                        };
                        if let Some((to, index)) = p.remote_index(direction, along) {
                            sent.push((to as usize, index, written[p.index(row, column)]));
                        }
                    }
                }
            }
            for (to, index, value) in sent {
                cells(&mut next[to])[index] = value;
            }
            let last = patches.len() - 1;
            let p = &patches[last];
            if stale_halo
                && k == 0
                && let Some(side) = stale_side(p)
            {
                for (row, column) in halo_cells(p, side) {
                    cells(&mut next[last])[p.index(row, column)] =
                        initial_cell(p, row, column, 0.0);
                }
            }
            std::mem::swap(&mut current, &mut next);
        }
        // Reassemble the interior.
        let mut interior = vec![f32::NAN; (nx - 2) * (ny - 2)];
        for (pe, p) in patches.iter().enumerate() {
            let a = cells(&mut current[pe]);
            for y in 0..p.ny as usize {
                for x in 0..p.nx as usize {
                    interior[(p.y0 as usize + y) * (nx - 2) + p.x0 as usize + x] =
                        a[p.index(y as u32 + 1, x as u32 + 1)];
                }
            }
        }
        interior
    }

    /// The interior of [`whole_grid`].
    fn whole_interior(nx: usize, ny: usize, iters: usize) -> Vec<f32> {
        let whole = whole_grid(nx, ny, iters);
        (1..ny - 1)
            .flat_map(|y| whole[y * nx + 1..y * nx + nx - 1].to_vec())
            .collect()
    }

    /// How many cells differ (`!=`: a NaN always differs), and the largest difference relative to
    /// the largest expected value: the exact check and the tolerance the runners used to apply.
    fn differences(got: &[f32], expected: &[f32]) -> (usize, f64) {
        let differing = got.iter().zip(expected).filter(|(g, e)| g != e).count();
        let largest = expected
            .iter()
            .fold(0.0f64, |m, e| m.max(f64::from(e.abs())));
        let worst = got.iter().zip(expected).fold(0.0f64, |m, (g, e)| {
            m.max((f64::from(*g) - f64::from(*e)).abs())
        });
        (differing, worst / largest)
    }

    const TILING: Tiling = Tiling {
        block_x: 4,
        rows_per_band: 5,
        vector: VECTOR as u32,
    };

    #[test]
    fn distributed_sweeps_agree_with_the_whole_grid_bit_for_bit() {
        for (nx, ny, iters) in [(45, 38, 9), (71, 20, 13)] {
            let interior = whole_interior(nx, ny, iters);
            for (px, py) in [(1, 1), (1, 3), (2, 2), (3, 1), (2, 3)] {
                for rows_per_band in [1, 3, 5, 16] {
                    for boundary_first in [false, true] {
                        let tiling = Tiling {
                            block_x: 4,
                            rows_per_band,
                            vector: VECTOR as u32,
                        };
                        let got = distributed(
                            nx,
                            ny,
                            iters,
                            ProcessGrid { px, py },
                            tiling,
                            boundary_first,
                            false,
                        );
                        assert!(
                            got.iter()
                                .zip(&interior)
                                .all(|(g, e)| g.to_bits() == e.to_bits()),
                            "{nx} x {ny}, {px} x {py} PEs, {rows_per_band} rows per band, \
                             boundary first {boundary_first}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_sweep_writes_owned_cells_only_and_returns_the_squared_change() {
        let patch = Patch::whole(3, 6); // owned columns 1..=3, pitch 32
        let pitch = patch.pitch as usize;
        let mut a = aligned(patch.len());
        for row in 0..patch.rows as usize {
            cells(&mut a)[row * pitch] = 4.0; // left halo column
        }
        let mut b = aligned(patch.len());
        cells(&mut b).fill(-1.0);
        // SAFETY: both arrays have the patch's layout and are aligned.
        let residual = unsafe {
            sweep(
                cells(&mut a).as_ptr(),
                cells(&mut b).as_mut_ptr(),
                &patch,
                0,
                1..7,
            )
        };
        // Column 1 of rows 1..=6 becomes 1.0 (0.25 × 4), columns 2 and 3 stay 0: six changes of 1.
        assert_eq!(residual, 6.0);
        let b = cells(&mut b);
        for row in 1..=6 {
            assert_eq!(
                &b[row * pitch..row * pitch + 5],
                [-1.0, 1.0, 0.0, 0.0, -1.0]
            );
        }
        assert_eq!(b[0..5], [-1.0; 5]);
        // Beyond the owned columns nothing is computed.
        // SAFETY: as above.
        let beyond = unsafe { sweep(cells(&mut a).as_ptr(), b.as_mut_ptr(), &patch, 4, 1..7) };
        assert_eq!(beyond, 0.0);
        let mut seen = Vec::new();
        for_owned_columns(&patch, 0, |c| seen.push(c));
        assert_eq!(seen, [1, 2, 3]);
    }

    #[test]
    fn the_checked_sweep_refuses_what_does_not_fit_the_arrays() {
        let patch = Patch::whole(3, 6); // 8 rows of pitch 32
        let mut a = aligned(patch.len());
        let mut b = aligned(patch.len());
        let refused = |a: SymmetricSlice<f32>, b: SymmetricSlice<f32>, first, rows: Range<u32>| {
            let patch = &patch;
            std::panic::catch_unwind(move || checked_sweep(a, b, patch, first, rows)).is_err()
        };
        let (whole_a, whole_b) = (slice(&mut a, 0), slice(&mut b, 0));
        assert!(!refused(whole_a, whole_b, 0, 1..7));
        // The band's last row is the array's last but one: the row below it is read too.
        let short = whole_b.range(..patch.index(7, 0));
        assert!(refused(whole_a, short, 0, 1..7));
        assert!(!refused(whole_a, whole_b.range(..patch.index(7, 4)), 0, 1..7));
        // A band from the halo row, a vector off the lanes, a misaligned array.
        assert!(refused(whole_a, whole_b, 0, 0..7));
        assert!(refused(whole_a, whole_b, 2, 1..7));
        assert!(refused(whole_a, slice(&mut b, 1), 0, 1..7));
        // A patch claiming more rows than the arrays hold.
        let tall = Patch::whole(3, 10);
        let tall_rows = 1..tall.ny + 1;
        let (a, b) = (whole_a, whole_b);
        assert!(std::panic::catch_unwind(move || checked_sweep(a, b, &tall, 0, tall_rows)).is_err());
        // What the sweep skips needs no check.
        assert!(!refused(whole_a, whole_b, 4, 0..7));
    }

    #[test]
    fn a_halo_one_iteration_late_is_caught_by_the_exact_check() {
        for (nx, ny, iters) in [(45, 38, 9), (71, 20, 13)] {
            let interior = whole_interior(nx, ny, iters);
            for (px, py) in [(1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (2, 3)] {
                let got = distributed(nx, ny, iters, ProcessGrid { px, py }, TILING, false, true);
                let (differing, relative) = differences(&got, &interior);
                assert!(
                    differing > 0,
                    "{nx} x {ny}, {px} x {py} PEs: the stale halo changed no cell"
                );
                assert!(relative > 0.0);
            }
        }
        // Near convergence on a small grid, its effect decays below the tolerance the check used
        // to apply (1e-6 relative), which would have passed it; some cells still differ.
        let interior = whole_interior(18, 18, 600);
        for (px, py) in [(1, 2), (2, 1)] {
            let got = distributed(18, 18, 600, ProcessGrid { px, py }, TILING, false, true);
            let (differing, relative) = differences(&got, &interior);
            assert!(
                differing > 0 && relative < 1e-6,
                "{px} x {py} PEs: {differing} cells differ, by up to {relative:e} relative"
            );
        }
    }

    #[test]
    fn the_stale_halo_is_the_left_one_else_the_upper_one() {
        let open = Boundary::Open;
        let last = |px, py| {
            let d = Decomposition2d::new(20, 20, ProcessGrid { px, py }, open, open).unwrap();
            stale_side(&d.patch(d.n_pes() - 1))
        };
        assert_eq!(last(1, 1), None);
        assert_eq!(last(1, 2), Some(Direction::Up));
        assert_eq!(last(2, 1), Some(Direction::Left));
        assert_eq!(last(2, 2), Some(Direction::Left));
    }

    #[test]
    fn initial_cells_are_never_zero_and_differ_along_rows_and_columns() {
        let scale = (1u32 << 23) as f32;
        for line in [0, 1, 7, 16381, 1 << 20] {
            let row = (0..1 << 16).map(|x| initial_interior(x, line));
            let column = (0..1 << 16).map(|y| initial_interior(line, y));
            for values in [row.collect::<Vec<f32>>(), column.collect()] {
                let mut k: Vec<u32> = values
                    .iter()
                    .map(|&value| {
                        let k = value * scale;
                        assert!(k >= 1.0 && k <= scale && k.fract() == 0.0, "{value}");
                        k as u32
                    })
                    .collect();
                k.sort_unstable();
                k.dedup();
                assert_eq!(k.len(), values.len(), "line {line}");
            }
        }
    }
}
