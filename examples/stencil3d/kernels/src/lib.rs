//! Kernels of the stencil3d example: a 3-D Jacobi sweep, 7-point or 27-point, in `f32` or `f64`,
//! on boxes of a 3-D process grid ([`nvshmem_halo::Decomposition3d`]), and the halo exchange
//! between sweeps.
//!
//! Each PE keeps two symmetric arrays laid out as its [`Patch3d`] says (owned box plus a halo
//! layer on every side), a symmetric packing buffer
//! ([`nvshmem_halo::packing::HaloPacking3d`]: a send slot per direction, two receive slots per
//! direction) and 26 symmetric signal words. Per iteration `k`:
//!
//! 1. `exchange_*` (one block per direction; 6 for 7 points, 26 for 27): the block of direction
//!    `d` packs the owned cells facing `d` (x and y faces are strided, edges and corners more so)
//!    into its send slot, puts them with a signal into the neighbour's receive slot for side `-d`
//!    and parity `k % 2`, setting the neighbour's word `-d` to `k + 1`; then it waits until its own
//!    word `d` is at least `k + 1` and unpacks receive slot `d` into the halo on side `d`.
//! 2. `stencil*_*` computes every owned cell of the other array from this one.
//!
//! Nothing writes into another PE's arrays, only into its receive slots; a neighbour can be one
//! iteration ahead at most (it needs this PE's cells of the iteration before), so two parities keep
//! it from overwriting a slot not yet unpacked.
//!
//! Every kernel is safe code (`#[kernel] pub fn`): slices are bounds-checked, PEs checked
//! ([`nvshmem_gpu::Pe::new`]); the sweep's one `unsafe` block reads and writes the arrays with
//! plain accesses after checking the frame once (its comment says why that is sound and pays).
//! The device-side arithmetic is [`update7`] and [`update27`],
//! which the runner's CPU reference calls too. They add in one fixed order and multiply once at the end, so there is no multiply-add for
//! a compiler to fuse, and every path rounds the same way: results compare bitwise.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use core::ops::{Add, Mul};
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{Block, Cmp, Pe, SignalOp, thread};
use nvshmem_gpu::{SymmetricSlice, kernel};
use nvshmem_halo::Patch3d;
#[cfg(target_arch = "nvptx64")]
use nvshmem_halo::{Direction3d, packing::HaloPacking3d};

/// The cell types of the stencil: `f32` and `f64`.
pub trait Real: Copy + Add<Output = Self> + Mul<Output = Self> + PartialEq {
    /// The 7-point weight, `1 / 7` rounded once.
    const SEVENTH: Self;
    /// The 27-point weight, `1 / 27` rounded once.
    const TWENTY_SEVENTH: Self;
    /// `numerator / 1024`, exact in both types for `numerator < 2^24`.
    fn ratio_1024(numerator: u32) -> Self;
}

impl Real for f32 {
    const SEVENTH: f32 = 1.0 / 7.0;
    const TWENTY_SEVENTH: f32 = 1.0 / 27.0;
    fn ratio_1024(numerator: u32) -> f32 {
        numerator as f32 / 1024.0
    }
}

impl Real for f64 {
    const SEVENTH: f64 = 1.0 / 7.0;
    const TWENTY_SEVENTH: f64 = 1.0 / 27.0;
    fn ratio_1024(numerator: u32) -> f64 {
        numerator as f64 / 1024.0
    }
}

/// The 7-point update from the cell at offset `(dx, dy, dz)` of `at`: centre, then -x, +x, -y, +y,
/// -z, +z, summed in that order, times 1/7.
#[inline(always)]
pub fn update7<T: Real>(at: impl Fn(i32, i32, i32) -> T) -> T {
    let sum = at(0, 0, 0) + at(-1, 0, 0) + at(1, 0, 0) + at(0, -1, 0) + at(0, 1, 0);
    (sum + at(0, 0, -1) + at(0, 0, 1)) * T::SEVENTH
}

/// The 27-point update: the sums of the three planes (`dz` = -1, 0, 1, each by [`plane9`]), added
/// in that order, times 1/27 ([`combine27`]). The order lets a thread that marches along z compute
/// each plane's sum once and use it for three cells.
#[inline(always)]
// ANCHOR: update27
pub fn update27<T: Real>(at: impl Fn(i32, i32, i32) -> T) -> T {
    combine27(
        plane9(|dx, dy| at(dx, dy, -1)),
        plane9(|dx, dy| at(dx, dy, 0)),
        plane9(|dx, dy| at(dx, dy, 1)),
    )
}

/// The nine cells of one plane around `(0, 0)`: each column's three cells (`dy` = -1, 0, 1) added,
/// then the columns `dx` = -1, 0, 1 added.
#[inline(always)]
pub fn plane9<T: Real>(at: impl Fn(i32, i32) -> T) -> T {
    let column = |dx| at(dx, -1) + at(dx, 0) + at(dx, 1);
    column(-1) + column(0) + column(1)
}

/// The 27-point update from the plane sums below, at and above the cell.
#[inline(always)]
pub fn combine27<T: Real>(below: T, centre: T, above: T) -> T {
    (below + centre + above) * T::TWENTY_SEVENTH
}
// ANCHOR_END: update27

/// The starting value of global cell `[x, y, z]` of the grid: non-zero almost everywhere, so every
/// halo carries data from the first exchange on.
pub fn initial<T: Real>(cell: [u32; 3]) -> T {
    let [x, y, z] = cell;
    T::ratio_1024((x.wrapping_mul(73) ^ y.wrapping_mul(179) ^ z.wrapping_mul(283)) % 1024 + 1)
}

/// The fixed value of a boundary cell, one step outside the grid, at global `[x, y, z]` (-1 or the
/// extent along the axes it lies outside).
pub fn boundary<T: Real>(cell: [i64; 3]) -> T {
    let [x, y, z] = cell;
    T::ratio_1024((x + 2 * y + 3 * z).rem_euclid(5) as u32 * 256)
}

/// The patch whose [`Patch3d::to_words`] the host put into `words`; traps if the slice is short.
pub fn read_patch(words: SymmetricSlice<u32>) -> Patch3d {
    assert!(
        words.len() >= Patch3d::WORDS,
        "the patch's words are fewer than a Patch3d"
    );
    // Each word once per thread, a relaxed load; the length checked above lets the reads' own
    // bounds checks fold away.
    let local: [u32; Patch3d::WORDS] = core::array::from_fn(|i| words.read(i));
    match Patch3d::from_words(&local) {
        Some(patch) => patch,
        None => unreachable!("WORDS words were read"),
    }
}

/// Local cell `[x, y, z]` moved by `(dx, dy, dz)`, whose steps stay inside the halo frame for an
/// owned cell.
#[inline(always)]
pub fn shifted(cell: [u32; 3], dx: i32, dy: i32, dz: i32) -> [u32; 3] {
    [
        cell[0].wrapping_add_signed(dx),
        cell[1].wrapping_add_signed(dy),
        cell[2].wrapping_add_signed(dz),
    ]
}

/// The `i`-th owned cell of `patch` in local coordinates, x fastest.
#[inline(always)]
pub fn owned_cell(patch: &Patch3d, i: usize) -> [u32; 3] {
    let (nx, ny) = (patch.n[0] as usize, patch.n[1] as usize);
    [
        (i % nx) as u32 + 1,
        (i / nx % ny) as u32 + 1,
        (i / (nx * ny)) as u32 + 1,
    ]
}

/// The number of owned cells.
pub fn owned_cells(patch: &Patch3d) -> usize {
    patch.n.iter().map(|&n| n as usize).product()
}

/// The block of direction `block` packs, puts with signal, waits and unpacks (module docs); a
/// block whose direction is `stale` leaves its halo as it was (the planted defect).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn exchange<T: Real + nvshmem_gpu::Element + nvshmem_gpu::RelaxedAccess>(
    field: SymmetricSlice<T>,
    packed: SymmetricSlice<T>,
    signals: SymmetricSlice<u64>,
    patch: &Patch3d,
    iteration: u32,
    stale: u32,
) {
    let block = thread::block_idx_x() as usize;
    if block >= Direction3d::COUNT {
        return;
    }
    let direction = Direction3d::from_index(block);
    // Open boundaries: a PE with a neighbour in `d` is that neighbour's neighbour in `-d`, so it
    // sends and receives on the same sides; no neighbour, nothing to do on this side.
    let Some(pe) = patch.neighbour(direction).and_then(Pe::new) else {
        return;
    };
    let packing = HaloPacking3d::for_patch(patch);
    let (first, step) = (
        thread::thread_idx_x() as usize,
        thread::block_dim_x() as usize,
    );
    let parity = iteration % 2;

    // ANCHOR: pack_put_signal
    let send = patch.send_region(direction);
    let outbox = packed.range(packing.send(direction)..packing.send(direction) + send.count());
    for i in (first..send.count()).step_by(step) {
        outbox.write(i, field.read(patch.index(send.cell(i))));
    }
    thread::sync_threads();
    let theirs = direction.opposite();
    let at = packing.receive(theirs, parity);
    let signal = signals.signal(theirs.index());
    let arrived = iteration as u64 + 1;
    Block.put_signal(
        packed.range(at..at + send.count()),
        outbox,
        signal,
        arrived,
        SignalOp::Set,
        pe,
    );
    // ANCHOR_END: pack_put_signal

    // ANCHOR: wait_unpack
    if first == 0 {
        signals.signal(block).wait_until(Cmp::Ge, arrived);
    }
    thread::sync_threads();
    if block as u32 == stale {
        return; // the planted defect: this halo is never refreshed
    }
    let halo = patch.halo_region(direction);
    let at = packing.receive(direction, parity);
    let inbox = packed.range(at..at + halo.count());
    for i in (first..halo.count()).step_by(step) {
        field.write(patch.index(halo.cell(i)), inbox.read(i));
    }
    // ANCHOR_END: wait_unpack
}

/// The sweep's view of a patch: the owned box `n` and the frame's extent along x and y (the
/// patch's `local`), passed as kernel parameters so that no thread reads the patch's words.
#[derive(Clone, Copy)]
pub struct SweepBox {
    /// Owned cells along x, y and z.
    pub n: [u32; 3],
    /// The frame's extent along x and y (owned cells, halo and row padding).
    pub local: [u32; 2],
}

impl SweepBox {
    /// The box of `patch`.
    pub fn of(patch: &Patch3d) -> SweepBox {
        SweepBox {
            n: patch.n,
            local: [patch.local[0], patch.local[1]],
        }
    }

    /// The elements a slice needs for the frame (the halo plane above the last owned one
    /// included), or `None` if the box does not fit its frame along x or y or the count
    /// overflows.
    pub fn frame(&self) -> Option<usize> {
        let [nx, ny, nz] = self.n.map(|n| n as usize);
        let [lx, ly] = self.local.map(|l| l as usize);
        if nx + 2 > lx || ny + 2 > ly {
            return None;
        }
        lx.checked_mul(ly)?.checked_mul(nz + 2)
    }
}

/// Planes a sweep thread loads before it writes any (see [`sweep`]).
#[cfg(target_arch = "nvptx64")]
const BATCH: usize = 4;

/// Every owned cell of `dest` from `source` with [`update7`] or [`update27`] (`POINTS`), one
/// thread per column: the block's threads cover a tile of x and y (thread x fastest), and each
/// marches along z through its block's share of the planes (`gridDim.z` shares).
///
/// Marching keeps what two neighbouring cells of a column share in registers: the 7-point cells
/// above and below, the 27-point plane sums ([`plane9`], [`combine27`]), so each plane's cells are
/// read once from memory (the cells beside them come from the cache). A thread loads [`BATCH`]
/// planes before it writes their cells: `source` and `dest` may be the same memory as far as the
/// compiler knows, so no load moves above a store, and one plane at a time would leave a thread
/// one plane's loads in flight. The cells are read and written with plain accesses, which the GPU
/// caches: a cell is read by up to nine threads, and the volatile accesses of
/// [`SymmetricSlice::read`] would send each of those reads to L2. One check per thread, before the
/// loop, that the frame fits both slices, replaces the per-access bounds checks.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn sweep<T: Real + nvshmem_gpu::Element, const POINTS: u32>(
    source: SymmetricSlice<T>,
    dest: SymmetricSlice<T>,
    area: SweepBox,
) {
    // Owned cells are 1..=n along each axis and the frame holds n + 2 along x and y and the planes
    // 0..=nz + 1, so every cell the loop touches (an owned cell, one step away at most) lies below
    // `frame`.
    let frame = area.frame();
    assert!(
        frame.is_some_and(|frame| frame <= source.len() && frame <= dest.len()),
        "the sweep's box does not fit the arrays"
    );
    let [nx, ny, nz] = area.n;
    let [lx, ly] = area.local.map(|l| l as usize);
    let (x, y) = (thread::global_index_x() + 1, thread::global_index_y() + 1);
    let planes = nz.div_ceil(thread::grid_dim_z().max(1));
    let first = thread::block_idx_z() * planes + 1;
    let end = (first + planes).min(nz + 1);
    if x > nx as usize || y > ny as usize || first >= end {
        return;
    }
    let (source, dest) = (
        source.as_symmetric_ptr().as_ptr() as *const T,
        dest.as_symmetric_ptr().as_ptr(),
    );
    let plane = lx * ly;
    // SAFETY: `at` reads cell `i` moved by at most one step along each axis, and `i` is an owned
    // cell of the loops below (x and y checked above, z in first..end ⊆ 1..=nz), so every index is
    // below `frame` (checked above), inside both allocations. No other PE writes these arrays (only
    // this PE's receive slots, module docs) and this launch writes only `dest`, so plain accesses
    // race with nothing.
    let at =
        |i: usize, dx: i32, dy: i32, dz: isize| unsafe {
            source
                .add(i.wrapping_add_signed(
                    dx as isize + dy as isize * lx as isize + dz * plane as isize,
                ))
                .read()
        };
    // SAFETY: as for `at`; `i` is an owned cell, below `frame`.
    let write = |i: usize, value: T| unsafe { dest.add(i).write(value) };
    let mut i = (first as usize * ly + y) * lx + x;
    let mut z = first;
    if POINTS == 7 {
        // `column[b]` is the cell of plane `b - 1` of the batch; its four side cells are `sides`.
        let mut column = [at(i, 0, 0, -1), at(i, 0, 0, 0)];
        let cell7 = |column: &[T], b: usize, sides: [T; 4]| {
            update7(|dx, dy, dz| match (dx, dy, dz) {
                (0, 0, -1) => column[b],
                (0, 0, 1) => column[b + 2],
                (-1, 0, 0) => sides[0],
                (1, 0, 0) => sides[1],
                (0, -1, 0) => sides[2],
                (0, 1, 0) => sides[3],
                _ => column[b + 1],
            })
        };
        let sides_of = |i: usize| {
            [
                at(i, -1, 0, 0),
                at(i, 1, 0, 0),
                at(i, 0, -1, 0),
                at(i, 0, 1, 0),
            ]
        };
        while z + BATCH as u32 <= end {
            let ahead: [T; BATCH] = core::array::from_fn(|b| at(i + b * plane, 0, 0, 1));
            let sides: [[T; 4]; BATCH] = core::array::from_fn(|b| sides_of(i + b * plane));
            let all: [T; BATCH + 2] =
                core::array::from_fn(|b| if b < 2 { column[b] } else { ahead[b - 2] });
            for (b, &sides) in sides.iter().enumerate() {
                write(i + b * plane, cell7(&all, b, sides));
            }
            column = [all[BATCH], all[BATCH + 1]];
            (i, z) = (i + BATCH * plane, z + BATCH as u32);
        }
        for _ in z..end {
            let all = [column[0], column[1], at(i, 0, 0, 1)];
            write(i, cell7(&all, 0, sides_of(i)));
            column = [all[1], all[2]];
            i += plane;
        }
    } else {
        let sum = |i: usize, dz: isize| plane9(|dx, dy| at(i, dx, dy, dz));
        let mut sums = [sum(i, -1), sum(i, 0)];
        while z + BATCH as u32 <= end {
            let ahead: [T; BATCH] = core::array::from_fn(|b| sum(i + b * plane, 1));
            let all: [T; BATCH + 2] =
                core::array::from_fn(|b| if b < 2 { sums[b] } else { ahead[b - 2] });
            for b in 0..BATCH {
                write(i + b * plane, combine27(all[b], all[b + 1], all[b + 2]));
            }
            sums = [all[BATCH], all[BATCH + 1]];
            (i, z) = (i + BATCH * plane, z + BATCH as u32);
        }
        for _ in z..end {
            let above = sum(i, 1);
            write(i, combine27(sums[0], sums[1], above));
            sums = [sums[1], above];
            i += plane;
        }
    }
}

/// The kernels of one cell type: `exchange_<T>`, `stencil7_<T>`, `stencil27_<T>`.
macro_rules! kernels {
    ($t:ty, $exchange:ident, $stencil7:ident, $stencil27:ident) => {
        /// The halo exchange of iteration `iteration` (module docs), one block per direction
        /// (6 blocks for 7 points, 26 for 27), cooperatively on every PE. `patch` holds the PE's
        /// [`Patch3d::to_words`]; signals start at 0 before iteration 0; `stale` names a direction
        /// whose halo is left unpacked (the planted defect), or is `u32::MAX`.
        #[kernel]
        pub fn $exchange(
            field: SymmetricSlice<$t>,
            packed: SymmetricSlice<$t>,
            signals: SymmetricSlice<u64>,
            patch: SymmetricSlice<u32>,
            iteration: u32,
            stale: u32,
        ) {
            let patch = read_patch(patch);
            exchange(field, packed, signals, &patch, iteration, stale);
        }

        sweep_kernel!($t, $stencil7, 7, "the 7-point [`update7`]");
        sweep_kernel!($t, $stencil27, 27, "the 27-point [`update27`]");
    };
}

/// A sweep kernel of cell type `$t` and `$points` points.
macro_rules! sweep_kernel {
    ($t:ty, $name:ident, $points:literal, $update:literal) => {
        #[doc = concat!("`dest`'s owned cells from `source` with ", $update, ": the box of")]
        /// `nx × ny × nz` owned cells in a frame `lx` cells wide and `ly` deep ([`SweepBox`]).
        #[kernel]
        pub fn $name(
            source: SymmetricSlice<$t>,
            dest: SymmetricSlice<$t>,
            nx: u32,
            ny: u32,
            nz: u32,
            lx: u32,
            ly: u32,
        ) {
            let area = SweepBox {
                n: [nx, ny, nz],
                local: [lx, ly],
            };
            sweep::<$t, $points>(source, dest, area);
        }
    };
}

kernels!(f32, exchange_f32, stencil7_f32, stencil27_f32);
kernels!(f64, exchange_f64, stencil7_f64, stencil27_f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_updates_average_in_a_fixed_order() {
        let ones = |_: i32, _: i32, _: i32| 1.0f64;
        assert_eq!(update7(ones), 7.0 * f64::SEVENTH);
        assert_eq!(update27(ones), 27.0 * f64::TWENTY_SEVENTH);
        // Only the centre: the weight itself.
        let centre = |x: i32, y: i32, z: i32| if (x, y, z) == (0, 0, 0) { 1.0f32 } else { 0.0 };
        assert_eq!(update27(centre), f32::TWENTY_SEVENTH);
        // The order is fixed: a cell that absorbs the others' low bits gives the same bits twice.
        let skewed = |x: i32, y: i32, z: i32| (x * 9 + y * 3 + z) as f32 * 1e-7 + 1e7;
        assert_eq!(update27(skewed).to_bits(), update27(skewed).to_bits());
    }

    #[test]
    fn owned_cells_walk_the_box_x_fastest() {
        let patch = Patch3d::whole([3, 2, 2]);
        assert_eq!(owned_cells(&patch), 12);
        assert_eq!(owned_cell(&patch, 0), [1, 1, 1]);
        assert_eq!(owned_cell(&patch, 4), [2, 2, 1]);
        assert_eq!(owned_cell(&patch, 11), [3, 2, 2]);
        assert_eq!(shifted([1, 1, 1], -1, 0, 1), [0, 1, 2]);
    }

    #[test]
    fn starting_values_are_exact_and_non_zero() {
        for x in 0..40 {
            let v: f32 = initial([x, 3, 5]);
            assert!(v > 0.0 && v <= 1.0);
            assert_eq!(v as f64, initial::<f64>([x, 3, 5]));
        }
        assert_eq!(boundary::<f64>([-1, 0, 0]), 1.0);
    }
}
