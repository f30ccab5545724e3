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

use crate::decomposition::{Boundary, DecompositionError, ROW_ALIGNMENT, Split};
use core::ops::Range;

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

/// One of the 26 directions from a box to its neighbours: a step of -1, 0 or +1 along each axis,
/// not all zero. Numbered 0..26: the 6 faces first (-x, +x, -y, +y, -z, +z), then the 12 edges,
/// then the 8 corners, so that
/// a 7-point stencil uses directions `0..6` and a 27-point one all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Direction3d {
    step: [i8; 3],
}

/// The directions in their numbering (see [`Direction3d`]).
const ALL_STEPS: [[i8; 3]; 26] = {
    // Faces by axis, low side first; then edges (two steps) and corners (three), x fastest.
    let mut steps = [[0i8; 3]; 26];
    steps[0] = [-1, 0, 0];
    steps[1] = [1, 0, 0];
    steps[2] = [0, -1, 0];
    steps[3] = [0, 1, 0];
    steps[4] = [0, 0, -1];
    steps[5] = [0, 0, 1];
    let mut next = 6;
    let mut moves = 2;
    while moves <= 3 {
        let mut code = 0;
        while code < 27 {
            let step = [
                (code % 3) as i8 - 1,
                (code / 3 % 3) as i8 - 1,
                (code / 9) as i8 - 1,
            ];
            let count = (step[0] != 0) as usize + (step[1] != 0) as usize + (step[2] != 0) as usize;
            if count == moves {
                steps[next] = step;
                next += 1;
            }
            code += 1;
        }
        moves += 1;
    }
    steps
};

impl Direction3d {
    /// Number of directions.
    pub const COUNT: usize = 26;

    /// Number of face directions (the first ones in the numbering).
    pub const FACES: usize = 6;

    /// The direction with steps `dx`, `dy`, `dz` (each -1, 0 or 1, not all 0).
    ///
    /// # Panics
    /// If a step is out of range or all are zero.
    pub const fn new(dx: i8, dy: i8, dz: i8) -> Direction3d {
        assert!(
            dx.abs() <= 1 && dy.abs() <= 1 && dz.abs() <= 1,
            "steps are -1, 0 or 1"
        );
        assert!(dx != 0 || dy != 0 || dz != 0, "a direction moves");
        Direction3d { step: [dx, dy, dz] }
    }

    /// Direction number `index` (0..26).
    ///
    /// # Panics
    /// If `index >= 26`.
    pub const fn from_index(index: usize) -> Direction3d {
        Direction3d {
            step: ALL_STEPS[index],
        }
    }

    /// This direction's number.
    pub const fn index(self) -> usize {
        let mut i = 0;
        while i < Self::COUNT {
            let s = ALL_STEPS[i];
            if s[0] == self.step[0] && s[1] == self.step[1] && s[2] == self.step[2] {
                return i;
            }
            i += 1;
        }
        unreachable!()
    }

    /// The steps `[dx, dy, dz]`.
    pub const fn step(self) -> [i8; 3] {
        self.step
    }

    /// Whether this is one of the six faces.
    pub const fn is_face(self) -> bool {
        self.index() < Self::FACES
    }

    /// The side a neighbour in this direction sees this PE on.
    pub const fn opposite(self) -> Direction3d {
        Direction3d {
            step: [-self.step[0], -self.step[1], -self.step[2]],
        }
    }
}

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
            position[axis] = match direction.step[axis] {
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
                    .filter(|&a| d.step[a] == 0)
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

/// A box of local cells: `extent[a]` cells from `start[a]` along each axis (local coordinates, the
/// halo counting as 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region3d {
    /// The first cell.
    pub start: [u32; 3],
    /// Cells along each axis.
    pub extent: [u32; 3],
}

impl Region3d {
    /// The number of cells.
    pub const fn count(&self) -> usize {
        self.extent[0] as usize * self.extent[1] as usize * self.extent[2] as usize
    }

    /// Cell `i` of the region, x fastest: the order in which its cells are packed.
    pub const fn cell(&self, i: usize) -> [u32; 3] {
        let (ex, ey) = (self.extent[0] as usize, self.extent[1] as usize);
        [
            self.start[0] + (i % ex) as u32,
            self.start[1] + (i / ex % ey) as u32,
            self.start[2] + (i / (ex * ey)) as u32,
        ]
    }
}

/// One PE's part of a 3-D decomposition, as its kernels see it (`Copy`, `#[repr(C)]`, integers
/// only). The local array holds `local[0] × local[1] × local[2]` elements, the same on every PE,
/// x fastest; owned cell `(x, y, z)` (from the box's first cell) sits at local `(x + 1, y + 1,
/// z + 1)`, and layers 0 and `n + 1` along each axis are the halo. Neighbours are PE numbers per
/// [`Direction3d`] index, -1 where there is none.
///
/// Kernels that take only numbers and slices receive it as [`Patch3d::WORDS`] `u32` words
/// ([`to_words`](Self::to_words), [`from_words`](Self::from_words)).
///
/// ```
/// use nvshmem_halo::{Boundary, Decomposition3d, Direction3d, Patch3d, ProcessGrid3d};
/// let grid = ProcessGrid3d::new([1, 1, 2], 2)?; // z split 2 + 1
/// let d = Decomposition3d::new([7, 5, 3], grid, [Boundary::Open; 3])?;
/// let top = d.patch(1);
/// assert_eq!((top.n, top.origin), ([7, 5, 1], [0, 0, 2]));
/// // Its lower z face goes to PE 0, whose upper z halo is its local plane 3.
/// let down = Direction3d::new(0, 0, -1);
/// assert_eq!(top.neighbour(down), Some(0));
/// assert_eq!(top.send_region(down).start, [1, 1, 1]);
/// assert_eq!(d.patch(0).halo_region(down.opposite()).start, [1, 1, 3]);
/// assert_eq!(Patch3d::from_words(&top.to_words()), Some(top));
/// # Ok::<(), nvshmem_halo::DecompositionError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct Patch3d {
    /// Owned cells along x, y, z.
    pub n: [u32; 3],
    /// Global coordinates of the first owned cell.
    pub origin: [u32; 3],
    /// The largest box of the decomposition, `[nx, ny, nz]` (the same on every PE).
    pub max: [u32; 3],
    /// The local array's extents, on every PE (`Decomposition3d::local_dims`).
    pub local: [u32; 3],
    /// The neighbour PE per direction index, or -1.
    pub neighbours: [i32; Direction3d::COUNT],
}

impl Patch3d {
    /// `u32` words of [`to_words`](Self::to_words).
    pub const WORDS: usize = 12 + Direction3d::COUNT;

    /// A patch for a grid of `cells` that one PE owns whole, with no neighbours: the layout of a
    /// single-GPU run of the same problem.
    ///
    /// # Panics
    /// If the grid is empty or too large for 32-bit indices.
    pub fn whole(cells: [usize; 3]) -> Patch3d {
        let grid = ProcessGrid3d {
            px: 1,
            py: 1,
            pz: 1,
        };
        Decomposition3d::new(cells, grid, [Boundary::Open; 3])
            .expect("a whole grid with at least one cell, within 32-bit indices")
            .patch(0)
    }

    /// Elements of the local array.
    pub const fn len(&self) -> usize {
        self.local[0] as usize * self.local[1] as usize * self.local[2] as usize
    }

    /// Whether the local array is empty: never for a patch of a decomposition.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element index of local cell `[x, y, z]` (halo layers count as 0 and `n + 1`).
    pub const fn index(&self, cell: [u32; 3]) -> usize {
        let [x, y, z] = cell;
        (z as usize * self.local[1] as usize + y as usize) * self.local[0] as usize + x as usize
    }

    /// The neighbour PE in `direction`, if there is one.
    pub const fn neighbour(&self, direction: Direction3d) -> Option<i32> {
        let pe = self.neighbours[direction.index()];
        if pe >= 0 { Some(pe) } else { None }
    }

    /// The owned cells this PE sends towards `direction`: along each axis its first owned layer
    /// (step -1), its last (step +1) or all owned cells (step 0).
    pub const fn send_region(&self, direction: Direction3d) -> Region3d {
        self.region(direction, false)
    }

    /// The halo cells on side `direction` of this PE, where the neighbour there puts its cells:
    /// along each axis the halo layer 0 (step -1), `n + 1` (step +1) or all owned cells (step 0).
    pub const fn halo_region(&self, direction: Direction3d) -> Region3d {
        self.region(direction, true)
    }

    const fn region(&self, direction: Direction3d, halo: bool) -> Region3d {
        let mut region = Region3d {
            start: [1; 3],
            extent: [1; 3],
        };
        let mut axis = 0;
        while axis < 3 {
            let n = self.n[axis];
            match direction.step[axis] {
                0 => region.extent[axis] = n,
                -1 => region.start[axis] = if halo { 0 } else { 1 },
                _ => region.start[axis] = if halo { n + 1 } else { n },
            }
            axis += 1;
        }
        region
    }

    /// The patch as `u32` words: `n`, `origin`, `max`, `local`, then the neighbours (as `i32`
    /// bits).
    pub fn to_words(&self) -> [u32; Self::WORDS] {
        let mut words = [0; Self::WORDS];
        let head = self.n.iter().chain(&self.origin).chain(&self.max);
        let head = head.chain(&self.local);
        for (word, value) in words.iter_mut().zip(head) {
            *word = *value;
        }
        for (word, pe) in words[12..].iter_mut().zip(&self.neighbours) {
            *word = *pe as u32;
        }
        words
    }

    /// The patch [`to_words`](Self::to_words) wrote, or `None` if `words` is too short.
    pub fn from_words(words: &[u32]) -> Option<Patch3d> {
        if words.len() < Self::WORDS {
            return None;
        }
        let three = |at: usize| [words[at], words[at + 1], words[at + 2]];
        let mut neighbours = [-1; Direction3d::COUNT];
        for (pe, word) in neighbours.iter_mut().zip(&words[12..]) {
            *pe = *word as i32;
        }
        Some(Patch3d {
            n: three(0),
            origin: three(3),
            max: three(6),
            local: three(9),
            neighbours,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPEN: [Boundary; 3] = [Boundary::Open; 3];
    const PERIODIC: [Boundary; 3] = [Boundary::Periodic; 3];

    fn all_directions() -> impl Iterator<Item = Direction3d> {
        (0..Direction3d::COUNT).map(Direction3d::from_index)
    }

    #[test]
    fn directions_are_numbered_faces_edges_corners() {
        let mut seen = std::collections::HashSet::new();
        for (i, d) in all_directions().enumerate() {
            assert_eq!(d.index(), i);
            assert!(seen.insert(d.step()));
            let moves = d.step().iter().filter(|&&s| s != 0).count();
            let expected = if i < 6 {
                1
            } else if i < 18 {
                2
            } else {
                3
            };
            assert_eq!(moves, expected, "direction {i}");
            assert_eq!(d.opposite().opposite(), d);
            assert_ne!(d.opposite(), d);
            assert_eq!(d.is_face(), i < 6);
        }
        assert_eq!(Direction3d::new(-1, 0, 0).index(), 0);
        assert_eq!(Direction3d::new(1, 0, 0).index(), 1);
        assert_eq!(Direction3d::new(0, 0, 1).index(), 5);
    }

    #[test]
    fn process_grids_are_as_cubic_as_the_cells_allow() {
        let cube = [60, 60, 60];
        let chosen: Vec<_> = [1, 2, 3, 4, 6, 8]
            .iter()
            .map(|&n| ProcessGrid3d::choose(n, cube, OPEN).unwrap().dims())
            .collect();
        assert_eq!(
            chosen,
            [
                [1, 1, 1],
                [1, 1, 2],
                [1, 1, 3],
                [1, 2, 2],
                [1, 2, 3],
                [2, 2, 2]
            ]
        );
        // Long along x: split x.
        assert_eq!(
            ProcessGrid3d::choose(4, [400, 10, 10], OPEN)
                .unwrap()
                .dims(),
            [4, 1, 1]
        );
        // Too few cells for the PEs.
        assert_eq!(
            ProcessGrid3d::choose(8, [1, 1, 7], OPEN),
            Err(DecompositionError::NoProcessGrid3d {
                n_pes: 8,
                nx: 1,
                ny: 1,
                nz: 7
            })
        );
        assert_eq!(
            ProcessGrid3d::choose(0, cube, OPEN),
            Err(DecompositionError::NoPes)
        );
        let grid = ProcessGrid3d::new([3, 2, 2], 12).unwrap();
        for pe in 0..12 {
            assert_eq!(grid.pe_at(grid.coordinates(pe)), pe);
        }
        assert_eq!(grid.coordinates(7), [1, 0, 1]);
        assert!(ProcessGrid3d::new([3, 2, 2], 11).is_err());
        assert!(ProcessGrid3d::new([usize::MAX, 2, 2], 4).is_err());
    }

    #[test]
    fn boxes_tile_odd_grids_and_every_neighbour_touches() {
        let cells = [9usize, 7, 5];
        for boundaries in [OPEN, PERIODIC] {
            for n_pes in [1, 2, 3, 4, 6, 8] {
                let d = Decomposition3d::for_pes(cells, n_pes, boundaries).unwrap();
                let mut owners = vec![usize::MAX; 9 * 7 * 5];
                for pe in 0..n_pes {
                    let owned = d.owned(pe);
                    for z in owned.z.clone() {
                        for y in owned.y.clone() {
                            for x in owned.x.clone() {
                                let cell = &mut owners[(z * 7 + y) * 9 + x];
                                assert_eq!(*cell, usize::MAX, "cell owned twice");
                                *cell = pe;
                                assert_eq!(d.owner([x, y, z]), pe);
                            }
                        }
                    }
                    for direction in all_directions() {
                        // The cell one step beyond the box's first corner along `direction`
                        // belongs to the neighbour (or lies off an open grid).
                        let start = [owned.x.start, owned.y.start, owned.z.start];
                        let end = [owned.x.end, owned.y.end, owned.z.end];
                        let mut beyond = [0i64; 3];
                        for a in 0..3 {
                            beyond[a] = match direction.step()[a] {
                                -1 => start[a] as i64 - 1,
                                0 => start[a] as i64,
                                _ => end[a] as i64,
                            };
                        }
                        let inside = (0..3).all(|a| (0..cells[a] as i64).contains(&beyond[a]));
                        let expected = if inside || boundaries == PERIODIC {
                            let wrapped: [usize; 3] = core::array::from_fn(|a| {
                                beyond[a].rem_euclid(cells[a] as i64) as usize
                            });
                            Some(d.owner(wrapped))
                        } else {
                            None
                        };
                        assert_eq!(
                            d.neighbour(pe, direction),
                            expected,
                            "PE {pe} {direction:?}"
                        );
                        if let Some(other) = expected {
                            assert_eq!(d.neighbour(other, direction.opposite()), Some(pe));
                        }
                    }
                }
                assert!(owners.iter().all(|&pe| pe != usize::MAX));
            }
        }
    }

    #[test]
    fn sent_regions_land_on_the_receivers_halo_cell_for_cell() {
        // Odd sizes, every PE count: each cell a PE sends towards `d` is, in global coordinates,
        // the cell the neighbour's halo on side `-d` stands for.
        let cells = [11usize, 6, 7];
        for boundaries in [OPEN, PERIODIC] {
            for n_pes in [1, 2, 3, 4, 6, 8] {
                let d = Decomposition3d::for_pes(cells, n_pes, boundaries).unwrap();
                for pe in 0..n_pes {
                    let me = d.patch(pe);
                    for direction in all_directions() {
                        let Some(to) = me.neighbour(direction) else {
                            continue;
                        };
                        let them = d.patch(to as usize);
                        let send = me.send_region(direction);
                        let halo = them.halo_region(direction.opposite());
                        assert_eq!(send.count(), halo.count(), "PE {pe} {direction:?}");
                        assert!(send.count() > 0);
                        for i in 0..send.count() {
                            let (s, h) = (send.cell(i), halo.cell(i));
                            for a in 0..3 {
                                assert!(s[a] >= 1 && s[a] <= me.n[a], "sends an owned cell");
                                let sent = (me.origin[a] + s[a] - 1) as i64;
                                let stands_for = them.origin[a] as i64 + h[a] as i64 - 1;
                                assert_eq!(
                                    sent,
                                    stands_for.rem_euclid(cells[a] as i64),
                                    "PE {pe} {direction:?} cell {i} axis {a}"
                                );
                            }
                            assert!(them.index(h) < them.len());
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn patches_lay_out_the_halo_frame_and_round_trip_as_words() {
        let d = Decomposition3d::new([9, 7, 5], ProcessGrid3d::new([2, 2, 2], 8).unwrap(), OPEN)
            .unwrap();
        assert_eq!(d.local_dims(), [32, 6, 5]);
        let p = d.patch(0);
        assert_eq!((p.n, p.origin), ([5, 4, 3], [0, 0, 0]));
        assert_eq!(p.len(), 32 * 6 * 5);
        assert_eq!(p.index([1, 2, 3]), (3 * 6 + 2) * 32 + 1);
        let up_corner = Direction3d::new(1, 1, 1);
        assert_eq!(p.neighbour(up_corner), Some(7));
        assert_eq!(p.neighbour(Direction3d::new(-1, 0, 0)), None);
        assert_eq!(
            p.halo_region(up_corner),
            Region3d {
                start: [6, 5, 4],
                extent: [1, 1, 1]
            }
        );
        let x_face = p.send_region(Direction3d::new(1, 0, 0));
        assert_eq!((x_face.start, x_face.extent), ([5, 1, 1], [1, 4, 3]));
        for pe in 0..8 {
            let patch = d.patch(pe);
            assert_eq!(Patch3d::from_words(&patch.to_words()), Some(patch));
        }
        assert_eq!(Patch3d::from_words(&[0; 3]), None);
        let whole = Patch3d::whole([9, 7, 5]);
        assert_eq!((whole.n, whole.neighbours), ([9, 7, 5], [-1; 26]));
        assert!(matches!(
            Decomposition3d::new(
                [1 << 12, 1 << 12, 1 << 12],
                ProcessGrid3d::new([1, 1, 1], 1).unwrap(),
                OPEN
            ),
            Err(DecompositionError::TooLarge { .. })
        ));
    }

    #[test]
    fn one_pe_on_a_periodic_axis_is_its_own_neighbour() {
        let d = Decomposition3d::for_pes([4, 4, 4], 1, PERIODIC).unwrap();
        assert!(all_directions().all(|dir| d.neighbour(0, dir) == Some(0)));
        let open = Decomposition3d::for_pes([4, 4, 4], 1, OPEN).unwrap();
        assert!(all_directions().all(|dir| open.neighbour(0, dir).is_none()));
        assert_eq!(open.face_halo_cells(0), 0);
    }
}
