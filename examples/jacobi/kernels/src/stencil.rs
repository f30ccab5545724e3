//! The 5-point Jacobi stencil both Jacobi examples share (`examples/jacobi/kernels` and, included
//! by path, `examples/jacobi2d-grid/kernels`): the update, the column sweep, the block-cooperative
//! row push, the plain stencil kernel (also the single-GPU reference), initialisation and the norm
//! and gather kernels.

use core::ops::Range;
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::thread;
use nvshmem_gpu::{SymmetricPtr, kernel, pe, rma};
#[cfg(target_arch = "nvptx64")]
use nvshmem_halo::device;
use nvshmem_halo::{Direction, Patch, Tiling};

/// Rows a thread loads before it stores any.
pub const BATCH: usize = 4;

/// One Jacobi update from the four neighbours, summed in the order of NVIDIA's reference (east,
/// west, south, north); the runner's CPU reference uses the same order, so results agree bit for
/// bit.
#[inline(always)]
pub fn update(east: f32, west: f32, south: f32, north: f32) -> f32 {
    0.25 * (east + west + south + north)
}

/// Updates local rows `rows` of local `column` from `a` into `a_new` and returns the sum of the
/// squared changes. Calls `edge(row, value)` for every new value. Columns outside `1..=patch.nx`
/// (halo and padding) compute nothing.
///
/// # Safety
/// `a` and `a_new` are local arrays laid out as `patch` says; `rows` lies inside `1..=patch.ny`.
#[inline(always)]
pub unsafe fn sweep(
    a: *const f32,
    a_new: *mut f32,
    patch: &Patch,
    column: u32,
    rows: Range<u32>,
    mut edge: impl FnMut(u32, f32),
) -> f32 {
    if column == 0 || column > patch.nx || rows.is_empty() {
        return 0.0;
    }
    let pitch = patch.pitch as usize;
    let first = patch.index(rows.start, column);
    let mut residual = 0.0f32;
    // SAFETY: every address below is within rows `rows.start - 1 ..= rows.end` (halo rows
    // included) and columns `column - 1 ..= column + 1` (halo columns included) of the arrays.
    unsafe {
        let mut here = a.add(first);
        let mut out = a_new.add(first);
        let mut north = *here.sub(pitch);
        let mut centre = *here;
        let mut row = rows.start;
        while row + BATCH as u32 <= rows.end {
            let mut south = [0.0f32; BATCH];
            let mut west = [0.0f32; BATCH];
            let mut east = [0.0f32; BATCH];
            for k in 0..BATCH {
                south[k] = *here.add((k + 1) * pitch);
                west[k] = *here.add(k * pitch).sub(1);
                east[k] = *here.add(k * pitch + 1);
            }
            for k in 0..BATCH {
                let old = if k == 0 { centre } else { south[k - 1] };
                let above = match k {
                    0 => north,
                    1 => centre,
                    _ => south[k - 2],
                };
                let new = update(east[k], west[k], south[k], above);
                *out.add(k * pitch) = new;
                edge(row + k as u32, new);
                let change = new - old;
                residual += change * change;
            }
            north = south[BATCH - 2];
            centre = south[BATCH - 1];
            here = here.add(BATCH * pitch);
            out = out.add(BATCH * pitch);
            row += BATCH as u32;
        }
        while row < rows.end {
            let south = *here.add(pitch);
            let new = update(*here.add(1), *here.sub(1), south, north);
            *out = new;
            edge(row, new);
            let change = new - centre;
            residual += change * change;
            north = centre;
            centre = south;
            here = here.add(pitch);
            out = out.add(pitch);
            row += 1;
        }
    }
    residual
}

/// This thread's local column.
#[cfg(target_arch = "nvptx64")]
pub fn column_of(column_block: u32) -> u32 {
    column_block * thread::block_dim_x() + thread::thread_idx_x()
}

/// Adds the block's residuals to the norm slots, when the launch computes the norm.
///
/// # Safety
/// The whole block calls it; `slots` is null or holds `NORM_SLOTS_LEN` `f64`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn add_norm(slots: *mut f64, residual: f32) {
    if !slots.is_null() {
        // SAFETY: the whole block calls it (converged), `slots` is a slot set.
        unsafe { device::add_to_norm_slots(slots, residual) };
    }
}

/// Puts the block's piece of the edge rows in `rows` (columns `column_block * block_x ..`, owned
/// columns only) into the neighbours' halos of `grid`, block-cooperatively, without waiting.
///
/// # Safety
/// The whole block calls it, after computing `rows`; `grid` is the symmetric array just written.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn push_edges(
    grid: SymmetricPtr<f32>,
    patch: &Patch,
    tiling: &Tiling,
    column_block: u32,
    rows: &Range<u32>,
) {
    let up = rows.start == 1 && patch.up >= 0;
    let down = rows.end == patch.ny + 1 && patch.down >= 0;
    if !up && !down {
        return;
    }
    let first = (column_block * tiling.block_x).max(1);
    let end = ((column_block + 1) * tiling.block_x).min(patch.nx + 1);
    // SAFETY: the whole block calls this; the row must be complete before it is sent.
    unsafe { thread::sync_threads() };
    if first >= end {
        return;
    }
    // SAFETY: the block calls these together; columns `first..end` are owned columns, inside the
    // pitch; the rows were just written and are not written again in this launch.
    unsafe {
        if up {
            device::put_edge_row_nbi_block(grid, patch, Direction::Up, first, end - first);
        }
        if down {
            device::put_edge_row_nbi_block(grid, patch, Direction::Down, first, end - first);
        }
    }
}

/// Sets every element of both arrays: 0, except the left and right halo columns where the patch
/// has no neighbour there (the fixed boundary columns of the global grid), which get
/// `boundary[row]` for each local row. Any grid shape.
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
        let (row, column) = (i / pitch, i % pitch);
        let fixed =
            (column == 0 && patch.left < 0) || (column == patch.nx as usize + 1 && patch.right < 0);
        let value = if fixed {
            // SAFETY: `row < patch.rows`, the length of `boundary`.
            unsafe { *boundary.add(row) }
        } else {
            0.0
        };
        // SAFETY: `i < patch.len()`.
        unsafe {
            *a.as_ptr().add(i) = value;
            *a_new.as_ptr().add(i) = value;
        }
    }
}

/// One iteration; each block that computed a piece of an edge row puts it into the neighbour with
/// `nvshmemx_float_put_nbi_block`. Grid: [`Tiling::grid`]; the host puts a barrier after it.
///
/// With no neighbours (one PE, or the single-GPU reference) it is the plain stencil.
///
/// # Safety
/// `a`, `a_new` are symmetric arrays laid out as `patch` says (every PE's patch of one
/// decomposition); the launch's block size is `tiling.block_x` (a multiple of 32) and its grid
/// `tiling.grid(&patch)`; `norm_slots` is null or one set of norm slots.
#[kernel]
pub unsafe fn jacobi_put_block(
    a: SymmetricPtr<f32>,
    a_new: SymmetricPtr<f32>,
    patch: Patch,
    tiling: Tiling,
    norm_slots: *mut f64,
) {
    let column_block = thread::block_idx_x();
    let rows = tiling.band(&patch, thread::block_idx_y());
    // SAFETY: the launch matches `patch` and `tiling` (the caller's contract); the whole block
    // reaches `push_edges` and `add_norm`.
    unsafe {
        let residual = sweep(
            a.as_ptr(),
            a_new.as_ptr(),
            &patch,
            column_of(column_block),
            rows.clone(),
            |_, _| {},
        );
        push_edges(a_new, &patch, &tiling, column_block, &rows);
        add_norm(norm_slots, residual);
    }
}

/// Sums this PE's norm slots into `totals[j]` and zeroes them. One thread.
///
/// # Safety
/// `slots` is a slot set that no running kernel adds to; `totals` holds more than `j` values.
#[kernel]
pub unsafe fn norm_local(slots: *mut f64, totals: SymmetricPtr<f64>, j: u32) {
    if thread::global_index_x() == 0 {
        // SAFETY: the caller's contract.
        unsafe { *totals.as_ptr().add(j as usize) = device::sum_norm_slots(slots) };
    }
}

/// Sums `totals[j]` of every PE into `norms[j]` (`nvshmem_double_g`). One thread; launched after a
/// barrier that follows every PE's [`norm_local`] for `j`.
///
/// # Safety
/// `totals` is symmetric and `norms` local, both holding more than `j` values.
#[kernel]
pub unsafe fn norm_global(totals: SymmetricPtr<f64>, norms: *mut f64, j: u32) {
    if thread::global_index_x() == 0 {
        let mut sum = 0.0;
        for pe in 0..pe::n_pes() {
            // SAFETY: `totals` holds more than `j` values on every PE.
            sum += unsafe { rma::g(totals.add(j as usize), pe) };
        }
        // SAFETY: `norms` holds more than `j` values.
        unsafe { *norms.add(j as usize) = sum };
    }
}

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

/// The kernels' stencil code run on the CPU: every PE's patch swept band by band, column by
/// column, with the halo exchange done by copying edge cells to where [`Patch::remote_index`]
/// says, must give the whole-grid result bit for bit. (Run with `cargo test --manifest-path
/// examples/jacobi/kernels/Cargo.toml`; the kernel crates are not workspace members.)
#[cfg(test)]
mod tests {
    use super::*;
    use nvshmem_halo::{Boundary, Decomposition2d, ProcessGrid};

    /// The whole `nx × ny` grid (fixed edges included) after `iters` plain iterations.
    fn whole_grid(nx: usize, ny: usize, iters: usize) -> Vec<f32> {
        let boundary = |y: usize| (y as f32 * 0.37).sin();
        let mut a = vec![0.0f32; nx * ny];
        for y in 0..ny {
            a[y * nx] = boundary(y);
            a[y * nx + nx - 1] = boundary(y);
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

    fn distributed(
        nx: usize,
        ny: usize,
        iters: usize,
        grid: ProcessGrid,
        tiling: Tiling,
        boundary_first: bool,
    ) -> Vec<f32> {
        let boundary = |y: usize| (y as f32 * 0.37).sin();
        let open = Boundary::Open;
        let d = Decomposition2d::new(nx - 2, ny - 2, grid, open, open).unwrap();
        let patches: Vec<Patch> = (0..d.n_pes()).map(|pe| d.patch(pe)).collect();
        // What the `initialize` kernel does.
        let mut current: Vec<Vec<f32>> = patches
            .iter()
            .map(|p| {
                let mut a = vec![0.0f32; p.len()];
                for row in 0..p.rows as usize {
                    let y = p.y0 as usize + row;
                    let value = if y < ny { boundary(y) } else { 0.0 };
                    if p.left < 0 {
                        a[row * p.pitch as usize] = value;
                    }
                    if p.right < 0 {
                        a[row * p.pitch as usize + p.nx as usize + 1] = value;
                    }
                }
                a
            })
            .collect();
        let mut next = current.clone();
        for _ in 0..iters {
            let mut sent: Vec<(usize, usize, f32)> = Vec::new();
            for (pe, p) in patches.iter().enumerate() {
                let (_, bands) = if boundary_first {
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
                    for column in 0..p.pitch {
                        // SAFETY: both arrays have the patch's layout.
                        unsafe {
                            sweep(
                                current[pe].as_ptr(),
                                next[pe].as_mut_ptr(),
                                p,
                                column,
                                rows.clone(),
                                |row, value| {
                                    for (direction, along, on_edge) in [
                                        (Direction::Up, column, row == 1),
                                        (Direction::Down, column, row == p.ny),
                                        (Direction::Left, row, column == 1),
                                        (Direction::Right, row, column == p.nx),
                                    ] {
                                        if let (true, Some((to, index))) =
                                            (on_edge, p.remote_index(direction, along))
                                        {
                                            sent.push((to as usize, index, value));
                                        }
                                    }
                                },
                            )
                        };
                    }
                }
            }
            for (to, index, value) in sent {
                next[to][index] = value;
            }
            std::mem::swap(&mut current, &mut next);
        }
        // Reassemble the interior.
        let mut interior = vec![f32::NAN; (nx - 2) * (ny - 2)];
        for (pe, p) in patches.iter().enumerate() {
            for y in 0..p.ny as usize {
                for x in 0..p.nx as usize {
                    interior[(p.y0 as usize + y) * (nx - 2) + p.x0 as usize + x] =
                        current[pe][p.index(y as u32 + 1, x as u32 + 1)];
                }
            }
        }
        interior
    }

    #[test]
    fn distributed_sweeps_agree_with_the_whole_grid_bit_for_bit() {
        let (nx, ny, iters) = (45, 38, 9);
        let whole = whole_grid(nx, ny, iters);
        let interior: Vec<f32> = (1..ny - 1)
            .flat_map(|y| whole[y * nx + 1..y * nx + nx - 1].to_vec())
            .collect();
        for (px, py) in [(1, 1), (1, 3), (2, 2), (3, 1), (2, 3)] {
            for rows_per_band in [1, 3, 5, 16] {
                for boundary_first in [false, true] {
                    let tiling = Tiling {
                        block_x: 32,
                        rows_per_band,
                    };
                    let got = distributed(
                        nx,
                        ny,
                        iters,
                        ProcessGrid { px, py },
                        tiling,
                        boundary_first,
                    );
                    assert!(
                        got.iter()
                            .zip(&interior)
                            .all(|(g, e)| g.to_bits() == e.to_bits()),
                        "{px} x {py}, {rows_per_band} rows per band, boundary first {boundary_first}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_sweep_returns_the_squared_change() {
        let patch = Patch::whole(3, 6);
        let pitch = patch.pitch as usize;
        let mut a = vec![0.0f32; patch.len()];
        for row in 0..patch.rows as usize {
            a[row * pitch] = 4.0; // left halo column
        }
        let mut b = a.clone();
        // SAFETY: both arrays have the patch's layout.
        let residual = unsafe { sweep(a.as_ptr(), b.as_mut_ptr(), &patch, 1, 1..7, |_, _| {}) };
        // Column 1 of rows 1..=6 becomes 1.0 (0.25 × 4): six changes of 1.
        assert_eq!(residual, 6.0);
        assert!((1..=6).all(|row| b[row * pitch + 1] == 1.0));
        // SAFETY: as above; column 0 (halo) and beyond nx compute nothing.
        assert_eq!(
            unsafe { sweep(a.as_ptr(), b.as_mut_ptr(), &patch, 0, 1..7, |_, _| {}) },
            0.0
        );
        assert_eq!(
            unsafe { sweep(a.as_ptr(), b.as_mut_ptr(), &patch, 4, 1..7, |_, _| {}) },
            0.0
        );
    }
}
