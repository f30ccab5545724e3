//! The 3-D process grid: how many PEs along each axis, and where each PE sits.

use super::Decomposition3d;
use crate::decomposition::{Boundary, DecompositionError};

/// A 3-D process grid: `px × py × pz` PEs; PE `pe` sits at `(pe % px, pe / px % py, pe / (px·py))`
/// (x fastest, as the cells are stored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessGrid3d {
    /// PEs along x.
    pub px: usize,
    /// PEs along y.
    pub py: usize,
    /// PEs along z.
    pub pz: usize,
}

impl ProcessGrid3d {
    /// The grid `px × py × pz`, which must hold exactly `n_pes` PEs.
    ///
    /// ```
    /// use nvshmem_halo::{DecompositionError, ProcessGrid3d};
    /// assert!(ProcessGrid3d::new([2, 1, 3], 6).is_ok());
    /// let mismatch = ProcessGrid3d::new([2, 2, 2], 6);
    /// assert!(matches!(mismatch, Err(DecompositionError::GridMismatch3d { .. })));
    /// ```
    pub fn new(dims: [usize; 3], n_pes: usize) -> Result<ProcessGrid3d, DecompositionError> {
        let [px, py, pz] = dims;
        if n_pes == 0 {
            Err(DecompositionError::NoPes)
        } else if px.checked_mul(py).and_then(|p| p.checked_mul(pz)) != Some(n_pes) {
            Err(DecompositionError::GridMismatch3d { dims, n_pes })
        } else {
            Ok(ProcessGrid3d { px, py, pz })
        }
    }

    /// The grid for `n_pes` PEs on `cells` that exchanges the fewest face-halo cells on its
    /// busiest PE (the most cube-like boxes); on a tie, the one with fewer PEs along x, then y
    /// (x faces are the most strided in memory, z faces are contiguous planes).
    ///
    /// ```
    /// use nvshmem_halo::{Boundary, ProcessGrid3d};
    /// let open = [Boundary::Open; 3];
    /// assert_eq!(ProcessGrid3d::choose(8, [64, 64, 64], open)?.dims(), [2, 2, 2]);
    /// assert_eq!(ProcessGrid3d::choose(4, [64, 64, 64], open)?.dims(), [1, 2, 2]);
    /// assert_eq!(ProcessGrid3d::choose(4, [1000, 10, 10], open)?.dims(), [4, 1, 1]);
    /// # Ok::<(), nvshmem_halo::DecompositionError>(())
    /// ```
    pub fn choose(
        n_pes: usize,
        cells: [usize; 3],
        boundaries: [Boundary; 3],
    ) -> Result<ProcessGrid3d, DecompositionError> {
        if n_pes == 0 {
            return Err(DecompositionError::NoPes);
        }
        let mut best: Option<(usize, ProcessGrid3d)> = None;
        for px in (1..=n_pes).filter(|px| n_pes.is_multiple_of(*px)) {
            let rest = n_pes / px;
            for py in (1..=rest).filter(|py| rest.is_multiple_of(*py)) {
                let grid = ProcessGrid3d {
                    px,
                    py,
                    pz: rest / py,
                };
                let Ok(decomposition) = Decomposition3d::new(cells, grid, boundaries) else {
                    continue;
                };
                let cost = (0..n_pes)
                    .map(|pe| decomposition.face_halo_cells(pe))
                    .max()
                    .unwrap_or(0);
                // Strictly less: the first grid found (fewest along x, then y) wins a tie.
                if best.is_none_or(|(least, _)| cost < least) {
                    best = Some((cost, grid));
                }
            }
        }
        let [nx, ny, nz] = cells;
        best.map(|(_, grid)| grid)
            .ok_or(DecompositionError::NoProcessGrid3d { n_pes, nx, ny, nz })
    }

    /// `[px, py, pz]`.
    pub fn dims(&self) -> [usize; 3] {
        [self.px, self.py, self.pz]
    }

    /// The PE count.
    pub fn n_pes(&self) -> usize {
        self.px * self.py * self.pz
    }

    /// PE `pe`'s position in the grid.
    pub fn coordinates(&self, pe: usize) -> [usize; 3] {
        [
            pe % self.px,
            pe / self.px % self.py,
            pe / (self.px * self.py),
        ]
    }

    /// The PE at `position`.
    pub fn pe_at(&self, position: [usize; 3]) -> usize {
        (position[2] * self.py + position[1]) * self.px + position[0]
    }
}
