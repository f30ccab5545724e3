//! The defect `--stale-halo` plants for `--check` to find: one halo left as it was an iteration
//! before.

#[cfg(target_arch = "nvptx64")]
use crate::problem::initial_cell;
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::thread;
use nvshmem_gpu::{SymmetricSlice, kernel};
use nvshmem_halo::{Direction, Patch};

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
        a.write(
            patch.index(row, column),
            initial_cell(&patch, row, column, 0.0),
        );
    }
}
