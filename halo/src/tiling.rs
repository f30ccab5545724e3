//! How a stencil kernel covers a [`Patch`] with thread blocks.
//!
//! A block of `block_x` threads covers `block_x` consecutive local columns (so a warp reads and
//! writes whole 128-byte lines of a row) and a *band* of up to `rows_per_band` local rows; each
//! thread walks down its column through the band. Grid x counts column blocks, grid y counts bands.
//!
//! Two orders of bands exist: [`Tiling::band`] (top to bottom) and
//! [`Tiling::boundary_first_band`], where bands 0 and 1 are the first and last owned rows alone, so
//! that the blocks which feed the halo exchange are scheduled first and the interior follows while
//! the halos are in flight.
//!
//! ```
//! use nvshmem_halo::{Patch, Tiling};
//! let tiling = Tiling { block_x: 128, rows_per_band: 16 };
//! let patch = Patch::whole(1022, 100); // local rows 1..=100
//! assert_eq!(tiling.grid(&patch), (8, 7));
//! assert_eq!(tiling.band(&patch, 6), 97..101);
//! assert_eq!(tiling.boundary_first_grid(&patch), (8, 9));
//! assert_eq!(tiling.boundary_first_band(&patch, 1), 100..101);
//! assert_eq!(tiling.boundary_first_band(&patch, 2), 2..18);
//! ```

use crate::Patch;
use core::ops::Range;

/// The shape of the blocks that cover a patch; see the [module documentation](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct Tiling {
    /// Threads per block, one local column each.
    pub block_x: u32,
    /// Local rows per band (each thread computes up to this many cells).
    pub rows_per_band: u32,
}

impl Tiling {
    /// Column blocks needed to cover all `pitch` local columns.
    pub const fn column_blocks(&self, patch: &Patch) -> u32 {
        patch.pitch.div_ceil(self.block_x)
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
        let tiling = Tiling {
            block_x: 128,
            rows_per_band: 8,
        };
        assert_eq!(tiling.column_blocks(&Patch::whole(16382, 4)), 128);
        assert_eq!(tiling.column_blocks(&Patch::whole(100, 4)), 1);
        assert_eq!(tiling.column_blocks(&Patch::whole(127, 4)), 2);
    }
}
