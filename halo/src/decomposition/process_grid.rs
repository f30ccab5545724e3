//! How PEs are arranged over a 2-D grid, and the arrangement that exchanges the fewest halo
//! cells.

use super::{Boundary, Decomposition2d, DecompositionError};

/// A process grid: `px` PEs along x times `py` along y; PE `pe` sits at column `pe % px`, row
/// `pe / px`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessGrid {
    /// PEs along x (columns of PEs).
    pub px: usize,
    /// PEs along y (rows of PEs).
    pub py: usize,
}

impl ProcessGrid {
    /// The grid for `n_pes` PEs on `nx × ny` cells that exchanges the fewest halo cells on its
    /// busiest PE; on a tie, the one with fewer PEs along x (row halos are contiguous, column halos
    /// strided).
    ///
    /// ```
    /// use nvshmem_halo::{Boundary, ProcessGrid};
    /// let open = Boundary::Open;
    /// assert_eq!(ProcessGrid::choose(4, 1000, 1000, open, open)?, ProcessGrid { px: 2, py: 2 });
    /// assert_eq!(ProcessGrid::choose(2, 1000, 1000, open, open)?, ProcessGrid { px: 1, py: 2 });
    /// assert_eq!(ProcessGrid::choose(4, 1000, 10, open, open)?, ProcessGrid { px: 4, py: 1 });
    /// # Ok::<(), nvshmem_halo::DecompositionError>(())
    /// ```
    pub fn choose(
        n_pes: usize,
        nx: usize,
        ny: usize,
        boundary_x: Boundary,
        boundary_y: Boundary,
    ) -> Result<ProcessGrid, DecompositionError> {
        if n_pes == 0 {
            return Err(DecompositionError::NoPes);
        }
        let mut best: Option<(usize, ProcessGrid)> = None;
        for px in 1..=n_pes {
            if !n_pes.is_multiple_of(px) {
                continue;
            }
            let grid = ProcessGrid { px, py: n_pes / px };
            let Ok(decomposition) = Decomposition2d::new(nx, ny, grid, boundary_x, boundary_y)
            else {
                continue;
            };
            let cost = (0..n_pes)
                .map(|pe| decomposition.halo_cells(pe))
                .max()
                .unwrap_or(0);
            if best.is_none_or(|(least, _)| cost < least) {
                best = Some((cost, grid));
            }
        }
        best.map(|(_, grid)| grid)
            .ok_or(DecompositionError::NoProcessGrid { n_pes, nx, ny })
    }

    /// The PE count.
    pub fn n_pes(&self) -> usize {
        self.px * self.py
    }

    /// PE `pe`'s position `(column, row)` in the grid.
    pub fn coordinates(&self, pe: usize) -> (usize, usize) {
        (pe % self.px, pe / self.px)
    }

    /// The PE at `(column, row)`.
    pub fn pe_at(&self, column: usize, row: usize) -> usize {
        row * self.px + column
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_grids_minimise_the_busiest_halo() {
        let (open, periodic) = (Boundary::Open, Boundary::Periodic);
        let choose = |n, nx, ny, b| {
            let g = ProcessGrid::choose(n, nx, ny, b, b).unwrap();
            (g.px, g.py)
        };
        assert_eq!(choose(1, 10, 10, open), (1, 1));
        assert_eq!(choose(2, 100, 100, open), (1, 2));
        assert_eq!(choose(4, 100, 100, open), (2, 2));
        // Periodic: alone along x, a PE still exchanges its columns with itself.
        assert_eq!(choose(4, 100, 100, periodic), (2, 2));
        assert_eq!(choose(2, 100, 100, periodic), (1, 2)); // tie: rows preferred
        assert_eq!(choose(8, 100, 100, open), (2, 4));
        assert_eq!(choose(6, 1000, 10, open), (6, 1));
        assert_eq!(choose(3, 2, 100, open), (1, 3));
        // Every PE must own a cell: 4 PEs on a 1 × 3 grid cannot be placed.
        assert!(ProcessGrid::choose(4, 1, 3, open, open).is_err());
        let grid = ProcessGrid { px: 3, py: 2 };
        assert_eq!(grid.coordinates(4), (1, 1));
        assert_eq!(grid.pe_at(1, 1), 4);
    }
}
