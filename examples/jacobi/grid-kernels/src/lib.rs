//! Kernels of the jacobi2d-grid example: the Jacobi stencil of `examples/jacobi` (the
//! `jacobi-stencil` crate, which its kernel crate shares) on a 2-D process grid
//! ([`nvshmem_halo::Decomposition2d`]), where a PE has up to four neighbours and its left and right
//! edges are columns, strided in its array.
//!
//! | kernel | rows (up, down) | columns (left, right) |
//! |---|---|---|
//! | `grid_p` | `nvshmem_float_p` per edge cell | `nvshmem_float_p` per edge cell, straight into the neighbour's halo column |
//! | `grid_pack` + `push_columns` + `unpack_columns` | `put_nbi_block` per block | packed: edge cells into a contiguous send column, one `put_nbi_block` per side into the neighbour's receive column, unpacked into the halo column after the barrier |
//!
//! Both are synchronised by a barrier kernel (`barrier_all`) between iterations.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
// On the host the kernels do not exist, and with them go the uses of most imports.
#![cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports, dead_code))]

// The kernels both Jacobi modules hold, entry points of this crate's PTX as its own are.
pub use jacobi_stencil::{fault::*, floors::*, kernels::*};

use jacobi_stencil::sweep::{for_owned_columns, sweep};
#[cfg(target_arch = "nvptx64")]
use jacobi_stencil::{push::push_edges, sweep::check_vector, sweep::first_column};
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::thread;
use nvshmem_gpu::{SymmetricPtr, SymmetricSlice, kernel};
#[cfg(target_arch = "nvptx64")]
use nvshmem_halo::device;
use nvshmem_halo::packing::ColumnPacking;
use nvshmem_halo::{Direction, NormTarget, Patch, Tiling};

/// One iteration; every edge cell goes to its neighbour with its own `nvshmem_float_p` (a corner
/// cell to two neighbours): after computing its vector of the band, each thread puts the edge
/// cells it holds, read back from its own stores. Grid [`Tiling::grid`]; the host puts a barrier
/// after it.
///
/// # Safety
/// `a`, `a_new` are symmetric arrays laid out as `patch` says (every PE's patch of one
/// decomposition); the block size is `tiling.block_x` (a multiple of 32), the grid
/// `tiling.grid(&patch)`; `norm` is [`NormTarget::NONE`] or one norm's target.
#[kernel]
pub unsafe fn grid_p(
    a: SymmetricPtr<f32>,
    a_new: SymmetricPtr<f32>,
    patch: Patch,
    tiling: Tiling,
    norm: NormTarget,
) {
    check_vector(&tiling);
    let first = first_column(&tiling, thread::block_idx_x());
    let rows = tiling.band(&patch, thread::block_idx_y());
    let value = |row: u32, column: u32| {
        // SAFETY: an owned cell this thread stored (same thread: visible).
        unsafe { *a_new.as_ptr().add(patch.index(row, column)) }
    };
    // SAFETY: the launch matches `patch` and `tiling` (the caller's contract); each edge value
    // goes to the neighbour's halo cell of the same column (up, down) or row (left, right); the
    // whole block reaches `add_norm`.
    unsafe {
        let residual = sweep(a.as_ptr(), a_new.as_ptr(), &patch, first, rows.clone());
        for_owned_columns(&patch, first, |column| {
            if rows.start == 1 {
                let edge = value(1, column);
                device::put_edge_element(a_new, &patch, Direction::Up, column, edge);
            }
            if rows.end == patch.ny + 1 {
                let edge = value(patch.ny, column);
                device::put_edge_element(a_new, &patch, Direction::Down, column, edge);
            }
            // Two plain tests rather than a loop over an array of sides (see `grid_pack`).
            let put_column = |direction: Direction| {
                for row in rows.clone() {
                    let edge = value(row, column);
                    device::put_edge_element(a_new, &patch, direction, row, edge);
                }
            };
            if column == 1 {
                put_column(Direction::Left);
            }
            if column == patch.nx {
                put_column(Direction::Right);
            }
        });
        device::add_norm(&norm, residual);
    }
}

/// One iteration; each block that computed a piece of an edge row puts it with `put_nbi_block`,
/// and the threads holding an edge column copy its new cells into this PE's send columns of
/// `packed` ([`ColumnPacking`]) for [`push_columns`]. Grid [`Tiling::grid`].
///
/// # Safety
/// As for [`grid_p`], and `packed` is this PE's packed-column buffer (symmetric,
/// `ColumnPacking::new(&patch).len()` elements).
#[kernel]
pub unsafe fn grid_pack(
    a: SymmetricPtr<f32>,
    a_new: SymmetricPtr<f32>,
    patch: Patch,
    tiling: Tiling,
    norm: NormTarget,
    packed: SymmetricPtr<f32>,
) {
    check_vector(&tiling);
    let column_block = thread::block_idx_x();
    let first = first_column(&tiling, column_block);
    let rows = tiling.band(&patch, thread::block_idx_y());
    let packing = ColumnPacking::new(&patch);
    // SAFETY: as for `grid_p` (`a_new` holds `patch.len()` elements); the send columns hold
    // `patch.rows` elements, indexed by local row; the whole block reaches `push_edges` and
    // `add_norm`.
    unsafe {
        let residual = sweep(a.as_ptr(), a_new.as_ptr(), &patch, first, rows.clone());
        // Two plain tests rather than a loop over an array of sides: the array would live in
        // local memory (a stack frame) in every thread.
        let pack = |direction: Direction, column: u32| {
            let start = packing.send(direction);
            for row in rows.clone() {
                *packed.as_ptr().add(start + row as usize) =
                    *a_new.as_ptr().add(patch.index(row, column));
            }
        };
        for_owned_columns(&patch, first, |column| {
            if column == 1 && patch.left >= 0 {
                pack(Direction::Left, column);
            }
            if column == patch.nx && patch.right >= 0 {
                pack(Direction::Right, column);
            }
        });
        let a_new = SymmetricSlice::from_raw_parts(a_new.as_ptr(), patch.len());
        push_edges(a_new, &patch, &tiling, column_block, &rows);
        device::add_norm(&norm, residual);
    }
}

/// Puts the packed edge columns to the neighbours: block 0 the left one, block 1 the right one,
/// into their receive columns of parity `parity` (the iteration number modulo 2). Launch 2 blocks
/// after [`grid_pack`]; the host puts a barrier after it.
///
/// # Safety
/// `packed` is the symmetric packed-column buffer of every PE's patch of one decomposition.
#[kernel]
pub unsafe fn push_columns(patch: Patch, packed: SymmetricPtr<f32>, parity: u32) {
    let packing = ColumnPacking::new(&patch);
    let direction = if thread::block_idx_x() == 0 {
        Direction::Left
    } else {
        Direction::Right
    };
    // SAFETY: every thread of the block calls it with the same arguments; the send columns were
    // filled by the previous kernel on the stream.
    unsafe { device::put_packed_column_nbi_block(packed, &packing, &patch, direction, parity) };
}

/// Copies the received columns of parity `parity` into the halo columns of `a_new`, where there
/// is a neighbour on that side. One thread per local row; launch after the barrier that follows
/// every PE's [`push_columns`].
///
/// # Safety
/// `a_new` is the array the iteration wrote, laid out as `patch` says; `packed` the packed-column
/// buffer.
#[kernel]
pub unsafe fn unpack_columns(
    a_new: SymmetricPtr<f32>,
    patch: Patch,
    packed: SymmetricPtr<f32>,
    parity: u32,
) {
    let row = thread::global_index_x() as u32;
    if row == 0 || row > patch.ny {
        return;
    }
    let packing = ColumnPacking::new(&patch);
    for direction in [Direction::Left, Direction::Right] {
        if patch.neighbour(direction).is_some() {
            let from = packing.receive(direction, parity) + row as usize;
            let to = patch.index(row, patch.halo(direction));
            // SAFETY: `row` is an owned row; both indices are inside their buffers.
            unsafe { *a_new.as_ptr().add(to) = *packed.as_ptr().add(from) };
        }
    }
}
