//! Sending a band's edge rows to the neighbours: which edge rows a band holds, and the
//! block-cooperative push of a block's piece of them.

use core::ops::Range;
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{SymmetricSlice, thread};
use nvshmem_halo::Patch;
#[cfg(target_arch = "nvptx64")]
use nvshmem_halo::{Direction, Tiling, device};

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
