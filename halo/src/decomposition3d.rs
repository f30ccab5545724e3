//! Splitting a 3-D grid over a 3-D process grid: each PE's box, its 26 neighbours (6 faces, 12
//! edges, 8 corners), and the regions of its local array that it sends and receives.
//!
//! The same plain arithmetic as [`crate::decomposition`], one axis more. Every PE stores its
//! `nx × ny × nz` owned cells with a halo of width 1 on every side (see [`Patch3d`]); a 7-point
//! stencil needs the six face halos, a 27-point one also the edge and corner halos, which come
//! straight from the diagonal neighbours (one exchange, no second pass through the faces).
//!
//! ```
//! use nvshmem_halo::{Boundary, Decomposition3d, Direction3d};
//! // 9 × 7 × 5 cells over 8 PEs: a 2 × 2 × 2 process grid, boxes of 5 or 4, 4 or 3, 3 or 2.
//! let d = Decomposition3d::for_pes([9, 7, 5], 8, [Boundary::Open; 3])?;
//! assert_eq!(d.grid().dims(), [2, 2, 2]);
//! let owned = d.owned(7); // the last corner
//! assert_eq!((owned.x, owned.y, owned.z), (5..9, 4..7, 3..5));
//! assert_eq!(d.neighbour(7, Direction3d::new(-1, -1, -1)), Some(0));
//! assert_eq!(d.neighbour(7, Direction3d::new(1, 0, 0)), None);
//! # Ok::<(), nvshmem_halo::DecompositionError>(())
//! ```

// One module per concern, their types re-exported here.
mod direction;
mod patch;
mod process_grid;

pub use direction::Direction3d;
pub use patch::{Patch3d, Region3d};
pub use process_grid::ProcessGrid3d;

use crate::decomposition::{Boundary, DecompositionError, ROW_ALIGNMENT, Split};
use core::ops::Range;

/// A box of cells: `x × y × z`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Box3d {
    /// Cells along x.
    pub x: Range<usize>,
    /// Cells along y.
    pub y: Range<usize>,
    /// Cells along z.
    pub z: Range<usize>,
}

impl Box3d {
    /// Whether the box holds cell `[x, y, z]`.
    pub fn contains(&self, cell: [usize; 3]) -> bool {
        self.x.contains(&cell[0]) && self.y.contains(&cell[1]) && self.z.contains(&cell[2])
    }

    /// The number of cells.
    pub fn cells(&self) -> usize {
        self.x.len() * self.y.len() * self.z.len()
    }
}

/// An `nx × ny × nz` grid split over a [`ProcessGrid3d`]: each PE owns a box (sizes along an axis
/// differ by at most one, so odd sizes are fine) and exchanges halos with up to 26 neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decomposition3d {
    splits: [Split; 3],
    boundaries: [Boundary; 3],
}

impl Decomposition3d {
    /// Splits `cells` (`[nx, ny, nz]`) over `grid`; `boundaries` says, per axis, whether the grid
    /// wraps around.
    pub fn new(
        cells: [usize; 3],
        grid: ProcessGrid3d,
        boundaries: [Boundary; 3],
    ) -> Result<Decomposition3d, DecompositionError> {
        let dims = grid.dims();
        let decomposition = Decomposition3d {
            splits: [
                Split::new(cells[0], dims[0])?,
                Split::new(cells[1], dims[1])?,
                Split::new(cells[2], dims[2])?,
            ],
            boundaries,
        };
        let elements = decomposition
            .local_dims()
            .iter()
            .map(|&n| n as u128)
            .product::<u128>();
        if elements > u32::MAX as u128 {
            let elements = usize::try_from(elements).unwrap_or(usize::MAX);
            return Err(DecompositionError::TooLarge { elements });
        }
        Ok(decomposition)
    }

    /// Splits `cells` over `n_pes` PEs, on the grid [`ProcessGrid3d::choose`] picks.
    pub fn for_pes(
        cells: [usize; 3],
        n_pes: usize,
        boundaries: [Boundary; 3],
    ) -> Result<Decomposition3d, DecompositionError> {
        let grid = ProcessGrid3d::choose(n_pes, cells, boundaries)?;
        Decomposition3d::new(cells, grid, boundaries)
    }

    /// The process grid.
    pub fn grid(&self) -> ProcessGrid3d {
        ProcessGrid3d {
            px: self.splits[0].parts(),
            py: self.splits[1].parts(),
            pz: self.splits[2].parts(),
        }
    }

    /// The PE count.
    pub fn n_pes(&self) -> usize {
        self.grid().n_pes()
    }

    /// The grid's cells, `[nx, ny, nz]`.
    pub fn cells(&self) -> [usize; 3] {
        self.splits.map(|s| s.extent())
    }

    /// How each axis is split over the PEs along it.
    pub fn splits(&self) -> [Split; 3] {
        self.splits
    }

    /// The local array's extents on every PE, `[pitch, rows, planes]`: the largest box plus a
    /// halo layer on each side, the x extent rounded up to [`ROW_ALIGNMENT`].
    pub fn local_dims(&self) -> [usize; 3] {
        let [x, y, z] = self.splits.map(|s| s.max_len() + 2);
        [x.next_multiple_of(ROW_ALIGNMENT), y, z]
    }

    /// The cells PE `pe` owns.
    ///
    /// # Panics
    /// If `pe >= n_pes()`.
    pub fn owned(&self, pe: usize) -> Box3d {
        let at = self.position(pe);
        Box3d {
            x: self.splits[0].range(at[0]),
            y: self.splits[1].range(at[1]),
            z: self.splits[2].range(at[2]),
        }
    }

    /// The PE that owns `cell`.
    ///
    /// # Panics
    /// If the cell is outside the grid.
    pub fn owner(&self, cell: [usize; 3]) -> usize {
        self.grid().pe_at([
            self.splits[0].owner(cell[0]),
            self.splits[1].owner(cell[1]),
            self.splits[2].owner(cell[2]),
        ])
    }

    fn position(&self, pe: usize) -> [usize; 3] {
        assert!(pe < self.n_pes(), "PE {pe} out of range");
        self.grid().coordinates(pe)
    }

    /// PE `pe`'s neighbour in `direction`: `None` where a step leaves the grid at an open
    /// boundary. With one PE along a periodic axis, the neighbour along it is the PE itself.
    ///
    /// # Panics
    /// If `pe >= n_pes()`.
    pub fn neighbour(&self, pe: usize, direction: Direction3d) -> Option<usize> {
        let at = self.position(pe);
        let mut position = [0; 3];
        for axis in 0..3 {
            let split = &self.splits[axis];
            position[axis] = match direction.step()[axis] {
                0 => at[axis],
                step => split.beside(at[axis], step > 0, self.boundaries[axis])?,
            };
        }
        Some(self.grid().pe_at(position))
    }

    /// The cells PE `pe` sends through its faces per exchange (one plane per face neighbour).
    pub fn face_halo_cells(&self, pe: usize) -> usize {
        let owned = self.owned(pe);
        let n = [owned.x.len(), owned.y.len(), owned.z.len()];
        (0..Direction3d::FACES)
            .map(Direction3d::from_index)
            .filter(|&d| self.neighbour(pe, d).is_some())
            .map(|d| {
                (0..3)
                    .filter(|&a| d.step()[a] == 0)
                    .map(|a| n[a])
                    .product::<usize>()
            })
            .sum()
    }

    /// What PE `pe`'s kernels need to know about its part; see [`Patch3d`].
    ///
    /// # Panics
    /// If `pe >= n_pes()`.
    pub fn patch(&self, pe: usize) -> Patch3d {
        let owned = self.owned(pe);
        let mut neighbours = [-1; Direction3d::COUNT];
        for (index, slot) in neighbours.iter_mut().enumerate() {
            if let Some(n) = self.neighbour(pe, Direction3d::from_index(index)) {
                *slot = n as i32;
            }
        }
        Patch3d {
            n: [owned.x.len(), owned.y.len(), owned.z.len()].map(|n| n as u32),
            origin: [owned.x.start, owned.y.start, owned.z.start].map(|n| n as u32),
            max: self.splits.map(|s| s.max_len() as u32),
            local: self.local_dims().map(|n| n as u32),
            neighbours,
        }
    }
}

#[cfg(test)]
mod tests;
