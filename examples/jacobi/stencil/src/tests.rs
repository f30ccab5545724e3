//! The kernels' stencil code run on the CPU: every PE's patch swept band by band, vector by
//! vector, with the halo exchange done by copying edge cells to where [`Patch::remote_index`]
//! says, must give the whole-grid result bit for bit.

use crate::fault::stale_side;
use crate::problem::{initial_cell, initial_interior};
use crate::push::pushed_edges;
use crate::sweep::{Lanes, VECTOR, checked_sweep, for_owned_columns, sweep, update};
use core::ops::Range;
use nvshmem_gpu::SymmetricSlice;
use nvshmem_halo::{Boundary, Decomposition2d, Direction, Patch, ProcessGrid, Tiling};

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
        Direction::Up | Direction::Down => (1..=patch.nx).map(|c| (patch.halo(side), c)).collect(),
        Direction::Left | Direction::Right => {
            (1..=patch.ny).map(|r| (r, patch.halo(side))).collect()
        }
    }
}

/// The interior after `iters` iterations on the PEs of `grid`, each patch initialised with
/// [`initial_cell`] and swept with the kernels' code, the halos exchanged by copying edge cells
/// to where [`Patch::remote_index`] says. With `stale_halo`, the last PE's halo then goes stale
/// after the first iteration as the `stale_halo` kernel makes it.
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
                let (row, column) = ((i / p.pitch as usize) as u32, (i % p.pitch as usize) as u32);
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
                cells(&mut next[last])[p.index(row, column)] = initial_cell(p, row, column, 0.0);
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
/// the largest expected value: what the exact check sees, and what a relative tolerance would.
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
    assert!(!refused(
        whole_a,
        whole_b.range(..patch.index(7, 4)),
        0,
        1..7
    ));
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
    // Near convergence on a small grid, its effect decays below a relative tolerance of 1e-6,
    // which would pass it; some cells still differ, which only an exact check sees.
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
