//! How a stencil kernel covers a [`Patch`] with thread blocks.
//!
//! A block of `block_x` threads covers `block_x × vector` consecutive local columns, `vector`
//! adjacent columns per thread (so a warp reads and writes whole 128-byte lines of a row, with
//! 16-byte accesses when `vector` is 4), and a *band* of up to `rows_per_band` local rows; each
//! thread walks down its columns through the band. Grid x counts column blocks, grid y counts
//! bands.
//!
//! Two orders of bands exist: [`Tiling::band`] (top to bottom) and
//! [`Tiling::boundary_first_band`], where bands 0 and 1 are the first and last owned rows alone, so
//! that the blocks which feed the halo exchange are scheduled first and the interior follows while
//! the halos are in flight.
//!
//! ```
//! use nvshmem_halo::{Patch, Tiling};
//! let tiling = Tiling { block_x: 128, rows_per_band: 16, vector: 4 };
//! let patch = Patch::whole(1022, 100); // local rows 1..=100, 1024 local columns
//! assert_eq!(tiling.grid(&patch), (2, 7));
//! assert_eq!(tiling.block_columns(&patch, 1), 512..1024);
//! assert_eq!(tiling.band(&patch, 6), 97..101);
//! assert_eq!(tiling.boundary_first_grid(&patch), (2, 9));
//! assert_eq!(tiling.boundary_first_band(&patch, 1), 100..101);
//! assert_eq!(tiling.boundary_first_band(&patch, 2), 2..18);
//! ```

use crate::Patch;
use core::ops::Range;

/// The shape of the blocks that cover a patch; see the [module documentation](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct Tiling {
    /// Threads per block.
    pub block_x: u32,
    /// Local rows per band (each thread computes up to this many rows).
    pub rows_per_band: u32,
    /// Adjacent local columns per thread.
    pub vector: u32,
}

impl Tiling {
    /// Local columns one block covers.
    pub const fn columns_per_block(&self) -> u32 {
        self.block_x * self.vector
    }

    /// Column blocks needed to cover all `pitch` local columns.
    pub const fn column_blocks(&self, patch: &Patch) -> u32 {
        patch.pitch.div_ceil(self.columns_per_block())
    }

    /// The local columns of column block `column_block` (within the pitch).
    pub const fn block_columns(&self, patch: &Patch, column_block: u32) -> Range<u32> {
        let start = column_block * self.columns_per_block();
        let end = start + self.columns_per_block();
        start..if end < patch.pitch { end } else { patch.pitch }
    }

    /// The first of the `vector` local columns of thread `thread` of column block `column_block`.
    pub const fn thread_column(&self, column_block: u32, thread: u32) -> u32 {
        column_block * self.columns_per_block() + thread * self.vector
    }

    /// Bands in top-to-bottom order.
    pub const fn bands(&self, patch: &Patch) -> u32 {
        patch.ny.div_ceil(self.rows_per_band)
    }

    /// `(column blocks, bands)`: the launch grid for top-to-bottom order.
    pub const fn grid(&self, patch: &Patch) -> (u32, u32) {
        (self.column_blocks(patch), self.bands(patch))
    }

    /// The local rows of band `band` in top-to-bottom order (owned rows are `1..=ny`).
    pub const fn band(&self, patch: &Patch, band: u32) -> Range<u32> {
        let start = 1 + band * self.rows_per_band;
        let end = start + self.rows_per_band;
        start..if end < patch.ny + 1 {
            end
        } else {
            patch.ny + 1
        }
    }

    /// Bands in boundary-first order: the first and the last owned row (one band when the patch has
    /// a single row), then the interior rows.
    pub const fn boundary_first_bands(&self, patch: &Patch) -> u32 {
        if patch.ny <= 2 {
            patch.ny
        } else {
            2 + (patch.ny - 2).div_ceil(self.rows_per_band)
        }
    }

    /// `(column blocks, bands)`: the launch grid for boundary-first order.
    pub const fn boundary_first_grid(&self, patch: &Patch) -> (u32, u32) {
        (self.column_blocks(patch), self.boundary_first_bands(patch))
    }

    /// The local rows of band `band` in boundary-first order.
    pub const fn boundary_first_band(&self, patch: &Patch, band: u32) -> Range<u32> {
        match band {
            0 => 1..2,
            1 => patch.ny..patch.ny + 1,
            _ => {
                let start = 2 + (band - 2) * self.rows_per_band;
                let end = start + self.rows_per_band;
                start..if end < patch.ny { end } else { patch.ny }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered(ny: u32, bands: impl Iterator<Item = Range<u32>>) -> Vec<u32> {
        let mut rows: Vec<u32> = bands.flatten().collect();
        rows.sort();
        assert_eq!(rows, (1..=ny).collect::<Vec<_>>(), "rows covered once each");
        rows
    }

    #[test]
    fn both_orders_cover_every_owned_row_once() {
        for rows_per_band in [1, 3, 16] {
            let tiling = Tiling {
                block_x: 32,
                rows_per_band,
                vector: 1,
            };
            for ny in 1..60 {
                let patch = Patch::whole(40, ny as usize);
                let (_, bands) = tiling.grid(&patch);
                covered(ny, (0..bands).map(|b| tiling.band(&patch, b)));
                let (_, bands) = tiling.boundary_first_grid(&patch);
                covered(
                    ny,
                    (0..bands).map(|b| tiling.boundary_first_band(&patch, b)),
                );
                assert!((0..bands).all(|b| !tiling.boundary_first_band(&patch, b).is_empty()));
                assert_eq!(tiling.boundary_first_band(&patch, 0), 1..2);
            }
        }
    }

    #[test]
    fn column_blocks_cover_the_pitch() {
        for (block_x, vector) in [(128, 1), (128, 4), (32, 4)] {
            let tiling = Tiling {
                block_x,
                rows_per_band: 8,
                vector,
            };
            for nx in [1, 30, 100, 127, 1000, 16382] {
                let patch = Patch::whole(nx, 4);
                let blocks = tiling.column_blocks(&patch);
                let columns: Vec<u32> = (0..blocks)
                    .flat_map(|b| tiling.block_columns(&patch, b))
                    .collect();
                assert_eq!(columns, (0..patch.pitch).collect::<Vec<_>>());
                for b in 0..blocks {
                    let block = tiling.block_columns(&patch, b);
                    assert_eq!(tiling.thread_column(b, 0), block.start);
                    assert_eq!(tiling.thread_column(b, 1), block.start + vector);
                }
            }
        }
        let tiling = Tiling {
            block_x: 128,
            rows_per_band: 8,
            vector: 4,
        };
        assert_eq!(tiling.column_blocks(&Patch::whole(16382, 4)), 32);
    }
}
