//! The 5-point update and the vectorised column sweep the stencil kernels run: each thread
//! computes [`VECTOR`] adjacent columns of a band of rows with 16-byte loads and stores.

use core::ops::Range;
use nvshmem_gpu::SymmetricSlice;
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::thread;
use nvshmem_halo::Patch;
#[cfg(target_arch = "nvptx64")]
use nvshmem_halo::Tiling;

/// Adjacent columns a thread computes, loaded and stored as one 16-byte vector. The host must pass
/// a [`Tiling`](nvshmem_halo::Tiling) with this `vector`.
pub const VECTOR: usize = 4;

/// Rows a thread loads before it stores any.
pub const BATCH: usize = 4;

/// [`VECTOR`] adjacent `f32`, 16-byte aligned, so that a load or store of one is a single
/// `ld.v4.f32` / `st.v4.f32`.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct Lanes(pub(crate) [f32; VECTOR]);

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
    let (a, a_new) = (
        a.as_symmetric_ptr().as_ptr(),
        a_new.as_symmetric_ptr().as_ptr(),
    );
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
