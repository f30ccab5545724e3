//! Splitting a grid over PEs: which cells each PE owns and who its neighbours are.
//!
//! Plain index arithmetic, shared by host and kernels and tested on the CPU. The grid here is the
//! set of cells that are *updated* (the interior of a stencil problem); every PE stores its part with
//! a halo of width 1 around it (see [`Patch`]), and where a side has no neighbour (an
//! [`Boundary::Open`] edge of the global grid) that halo holds the fixed boundary values.
//!
//! ```
//! use nvshmem_halo::{Boundary, Decomposition1d};
//! // 10 rows of 64 cells over 3 PEs: 4, 3 and 3 rows.
//! let rows = Decomposition1d::new(64, 10, 3, Boundary::Open)?;
//! assert_eq!(rows.owned(0), 0..4);
//! assert_eq!(rows.owned(2), 7..10);
//! assert_eq!(rows.neighbours(0).up, None);
//! assert_eq!(rows.neighbours(0).down, Some(1));
//! # Ok::<(), nvshmem_halo::DecompositionError>(())
//! ```

use core::fmt;
use core::ops::Range;

// Submodules, so that `Patch::whole` may build a `Decomposition2d` from its private fields.
mod patch;
mod process_grid;

pub use patch::{Direction, Patch};
pub use process_grid::ProcessGrid;

/// Local arrays keep rows aligned to this many elements (128 bytes of `f32`), so that a warp's
/// accesses to a row start on a cache line.
pub const ROW_ALIGNMENT: usize = 32;

/// What lies beyond the edge of the global grid along one axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Boundary {
    /// Nothing: the halo there holds boundary values that the application fixes.
    Open,
    /// The grid wraps around: the first PE's neighbour is the last one (itself when alone).
    Periodic,
}

/// Why a decomposition cannot be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecompositionError {
    /// There are no PEs (or no parts) to split over.
    NoPes,
    /// The extent to split is zero.
    EmptyGrid,
    /// More parts than cells along an axis: some PE would own nothing.
    MorePesThanCells {
        /// The cells along the axis.
        cells: usize,
        /// The parts asked for.
        parts: usize,
    },
    /// No process grid `px × py = n_pes` fits `nx × ny` cells with at least one cell per PE.
    NoProcessGrid {
        /// The PEs.
        n_pes: usize,
        /// Cells along x.
        nx: usize,
        /// Cells along y.
        ny: usize,
    },
    /// A process grid `px × py` was given that does not multiply to the PE count.
    GridMismatch {
        /// PEs along x.
        px: usize,
        /// PEs along y.
        py: usize,
        /// The PE count.
        n_pes: usize,
    },
    /// No process grid `px × py × pz = n_pes` fits `nx × ny × nz` cells with at least one cell per
    /// PE.
    NoProcessGrid3d {
        /// The PEs.
        n_pes: usize,
        /// Cells along x.
        nx: usize,
        /// Cells along y.
        ny: usize,
        /// Cells along z.
        nz: usize,
    },
    /// A 3-D process grid was given that does not multiply to the PE count.
    GridMismatch3d {
        /// PEs along x, y and z.
        dims: [usize; 3],
        /// The PE count.
        n_pes: usize,
    },
    /// A local array would have more elements than `u32` indices reach.
    TooLarge {
        /// Elements of one local array.
        elements: usize,
    },
}

impl fmt::Display for DecompositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DecompositionError::NoPes => write!(f, "there must be at least one PE"),
            DecompositionError::EmptyGrid => write!(f, "the grid must have at least one cell"),
            DecompositionError::MorePesThanCells { cells, parts } => write!(
                f,
                "{parts} PEs cannot split {cells} cells: every PE must own at least one"
            ),
            DecompositionError::NoProcessGrid { n_pes, nx, ny } => write!(
                f,
                "no process grid of {n_pes} PEs fits {nx} x {ny} cells with at least one cell per PE"
            ),
            DecompositionError::GridMismatch { px, py, n_pes } => {
                write!(f, "a {px} x {py} process grid does not hold {n_pes} PEs")
            }
            DecompositionError::NoProcessGrid3d { n_pes, nx, ny, nz } => write!(
                f,
                "no process grid of {n_pes} PEs fits {nx} x {ny} x {nz} cells with at least one cell \
                 per PE: use fewer PEs or more cells"
            ),
            DecompositionError::GridMismatch3d {
                dims: [px, py, pz],
                n_pes,
            } => write!(
                f,
                "a {px} x {py} x {pz} process grid does not hold {n_pes} PEs: give one whose \
                 product is the PE count"
            ),
            DecompositionError::TooLarge { elements } => write!(
                f,
                "a local array of {elements} elements is beyond 32-bit indexing (2^32 elements)"
            ),
        }
    }
}

impl core::error::Error for DecompositionError {}

/// `extent` consecutive indices split into `parts` contiguous ranges as evenly as possible: the
/// first `extent % parts` ranges hold one index more.
///
/// ```
/// let split = nvshmem_halo::Split::new(10, 4)?;
/// assert_eq!([split.len(0), split.len(1), split.len(2), split.len(3)], [3, 3, 2, 2]);
/// assert_eq!(split.range(2), 6..8);
/// assert_eq!(split.owner(7), 2);
/// # Ok::<(), nvshmem_halo::DecompositionError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    extent: usize,
    parts: usize,
}

impl Split {
    /// Splits `extent` indices into `parts` ranges; each range must get at least one index.
    pub const fn new(extent: usize, parts: usize) -> Result<Split, DecompositionError> {
        if parts == 0 {
            Err(DecompositionError::NoPes)
        } else if extent == 0 {
            Err(DecompositionError::EmptyGrid)
        } else if parts > extent {
            Err(DecompositionError::MorePesThanCells {
                cells: extent,
                parts,
            })
        } else {
            Ok(Split { extent, parts })
        }
    }

    /// The number of indices split.
    pub const fn extent(&self) -> usize {
        self.extent
    }

    /// The number of ranges.
    pub const fn parts(&self) -> usize {
        self.parts
    }

    /// The length of range `part`.
    ///
    /// # Panics
    /// If `part >= parts()`.
    pub const fn len(&self, part: usize) -> usize {
        assert!(part < self.parts, "part out of range");
        self.extent / self.parts + (part < self.extent % self.parts) as usize
    }

    /// Whether range `part` is empty: never, since every range holds at least one index.
    pub const fn is_empty(&self, part: usize) -> bool {
        self.len(part) == 0
    }

    /// The first index of range `part`.
    ///
    /// # Panics
    /// If `part >= parts()`.
    pub const fn start(&self, part: usize) -> usize {
        assert!(part < self.parts, "part out of range");
        let remainder = self.extent % self.parts;
        let extra = if part < remainder { part } else { remainder };
        part * (self.extent / self.parts) + extra
    }

    /// Range `part`.
    ///
    /// # Panics
    /// If `part >= parts()`.
    pub const fn range(&self, part: usize) -> Range<usize> {
        let start = self.start(part);
        start..start + self.len(part)
    }

    /// The longest range's length (that of range 0).
    pub const fn max_len(&self) -> usize {
        self.extent.div_ceil(self.parts)
    }

    /// The range that holds `index`.
    ///
    /// # Panics
    /// If `index >= extent()`.
    pub const fn owner(&self, index: usize) -> usize {
        assert!(index < self.extent, "index out of range");
        let small = self.extent / self.parts;
        let remainder = self.extent % self.parts;
        let in_large = remainder * (small + 1);
        if index < in_large {
            index / (small + 1)
        } else {
            remainder + (index - in_large) / small
        }
    }

    /// The part before `part` (or after it, when `after`), wrapping around when periodic.
    pub(crate) const fn beside(
        &self,
        part: usize,
        after: bool,
        boundary: Boundary,
    ) -> Option<usize> {
        let last = self.parts - 1;
        match (after, boundary) {
            (false, _) if part > 0 => Some(part - 1),
            (true, _) if part < last => Some(part + 1),
            (false, Boundary::Periodic) => Some(last),
            (true, Boundary::Periodic) => Some(0),
            (_, Boundary::Open) => None,
        }
    }
}

/// The PEs next to one PE: `up` holds the rows before its own, `down` those after, `left` the
/// columns before, `right` those after. `None` at an open edge of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Neighbours {
    /// The PE owning the rows just before this PE's first row.
    pub up: Option<usize>,
    /// The PE owning the rows just after this PE's last row.
    pub down: Option<usize>,
    /// The PE owning the columns just before this PE's first column.
    pub left: Option<usize>,
    /// The PE owning the columns just after this PE's last column.
    pub right: Option<usize>,
}

/// A rectangle of cells: columns `x`, rows `y`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Box2d {
    /// Columns.
    pub x: Range<usize>,
    /// Rows.
    pub y: Range<usize>,
}

impl Box2d {
    /// Whether the box holds cell `(x, y)`.
    pub fn contains(&self, x: usize, y: usize) -> bool {
        self.x.contains(&x) && self.y.contains(&y)
    }

    /// The number of cells.
    pub fn cells(&self) -> usize {
        self.x.len() * self.y.len()
    }
}

/// An `nx × ny` grid split by rows over `n_pes` PEs: each PE owns whole rows, and exchanges one
/// halo row with the PE above and one with the PE below.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decomposition1d {
    nx: usize,
    rows: Split,
    boundary: Boundary,
}

impl Decomposition1d {
    /// Splits the `ny` rows of `nx` cells over `n_pes` PEs; `boundary` says whether the rows wrap
    /// around (top and bottom edges).
    ///
    /// ```
    /// use nvshmem_halo::{Boundary, Decomposition1d, DecompositionError};
    /// assert!(matches!(
    ///     Decomposition1d::new(8, 2, 3, Boundary::Open),
    ///     Err(DecompositionError::MorePesThanCells { cells: 2, parts: 3 })
    /// ));
    /// ```
    pub fn new(
        nx: usize,
        ny: usize,
        n_pes: usize,
        boundary: Boundary,
    ) -> Result<Decomposition1d, DecompositionError> {
        if nx == 0 {
            return Err(DecompositionError::EmptyGrid);
        }
        let decomposition = Decomposition1d {
            nx,
            rows: Split::new(ny, n_pes)?,
            boundary,
        };
        decomposition.as_2d().check_size()?;
        Ok(decomposition)
    }

    /// Cells per row.
    pub fn nx(&self) -> usize {
        self.nx
    }

    /// Rows.
    pub fn ny(&self) -> usize {
        self.rows.extent()
    }

    /// The PE count.
    pub fn n_pes(&self) -> usize {
        self.rows.parts()
    }

    /// How the rows are split.
    pub fn rows(&self) -> Split {
        self.rows
    }

    /// The rows PE `pe` owns.
    ///
    /// # Panics
    /// If `pe >= n_pes()`.
    pub fn owned(&self, pe: usize) -> Range<usize> {
        self.rows.range(pe)
    }

    /// PE `pe`'s neighbours (`left` and `right` are always `None`).
    ///
    /// # Panics
    /// If `pe >= n_pes()`.
    pub fn neighbours(&self, pe: usize) -> Neighbours {
        self.as_2d().neighbours(pe)
    }

    /// What PE `pe`'s kernels need to know about its part; see [`Patch`].
    ///
    /// # Panics
    /// If `pe >= n_pes()`.
    pub fn patch(&self, pe: usize) -> Patch {
        self.as_2d().patch(pe)
    }

    /// The same split, as a 2-D decomposition with one PE along x.
    pub fn as_2d(&self) -> Decomposition2d {
        Decomposition2d {
            columns: Split {
                extent: self.nx,
                parts: 1,
            },
            rows: self.rows,
            boundary_x: Boundary::Open,
            boundary_y: self.boundary,
        }
    }
}

/// An `nx × ny` grid split over a [`ProcessGrid`]: each PE owns a rectangle and exchanges halos
/// with up to four neighbours.
///
/// ```
/// use nvshmem_halo::{Boundary, Decomposition2d, ProcessGrid};
/// let open = Boundary::Open;
/// let grid = Decomposition2d::new(100, 60, ProcessGrid { px: 2, py: 3 }, open, open)?;
/// let owned = grid.owned(3); // column 1, row 1 of the process grid
/// assert_eq!((owned.x, owned.y), (50..100, 20..40));
/// let n = grid.neighbours(3);
/// assert_eq!((n.left, n.right, n.up, n.down), (Some(2), None, Some(1), Some(5)));
/// # Ok::<(), nvshmem_halo::DecompositionError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decomposition2d {
    columns: Split,
    rows: Split,
    boundary_x: Boundary,
    boundary_y: Boundary,
}

impl Decomposition2d {
    /// Splits `nx × ny` cells over `grid`.
    pub fn new(
        nx: usize,
        ny: usize,
        grid: ProcessGrid,
        boundary_x: Boundary,
        boundary_y: Boundary,
    ) -> Result<Decomposition2d, DecompositionError> {
        let decomposition = Decomposition2d {
            columns: Split::new(nx, grid.px)?,
            rows: Split::new(ny, grid.py)?,
            boundary_x,
            boundary_y,
        };
        decomposition.check_size()?;
        Ok(decomposition)
    }

    /// Splits `nx × ny` cells over `n_pes` PEs, on the grid [`ProcessGrid::choose`] picks.
    pub fn for_pes(
        nx: usize,
        ny: usize,
        n_pes: usize,
        boundary_x: Boundary,
        boundary_y: Boundary,
    ) -> Result<Decomposition2d, DecompositionError> {
        let grid = ProcessGrid::choose(n_pes, nx, ny, boundary_x, boundary_y)?;
        Decomposition2d::new(nx, ny, grid, boundary_x, boundary_y)
    }

    fn check_size(&self) -> Result<(), DecompositionError> {
        // In u128: the sides of a grid too large for 32-bit indices may overflow `usize` here.
        let pitch = (self.columns.max_len() as u128 + 2).next_multiple_of(ROW_ALIGNMENT as u128);
        let elements = pitch * (self.rows.max_len() as u128 + 2);
        if elements > u32::MAX as u128 {
            let elements = usize::try_from(elements).unwrap_or(usize::MAX);
            Err(DecompositionError::TooLarge { elements })
        } else {
            Ok(())
        }
    }

    /// The process grid.
    pub fn grid(&self) -> ProcessGrid {
        ProcessGrid {
            px: self.columns.parts(),
            py: self.rows.parts(),
        }
    }

    /// The PE count.
    pub fn n_pes(&self) -> usize {
        self.grid().n_pes()
    }

    /// Cells along x.
    pub fn nx(&self) -> usize {
        self.columns.extent()
    }

    /// Cells along y.
    pub fn ny(&self) -> usize {
        self.rows.extent()
    }

    /// How the columns are split over the grid's columns of PEs.
    pub fn columns(&self) -> Split {
        self.columns
    }

    /// How the rows are split over the grid's rows of PEs.
    pub fn rows(&self) -> Split {
        self.rows
    }

    /// Elements per row of every PE's local array: the widest part plus two halo columns, rounded
    /// up to [`ROW_ALIGNMENT`].
    pub fn pitch(&self) -> usize {
        (self.columns.max_len() + 2).next_multiple_of(ROW_ALIGNMENT)
    }

    /// The cells PE `pe` owns.
    ///
    /// # Panics
    /// If `pe >= n_pes()`.
    pub fn owned(&self, pe: usize) -> Box2d {
        let (column, row) = self.coordinates(pe);
        Box2d {
            x: self.columns.range(column),
            y: self.rows.range(row),
        }
    }

    /// The PE that owns cell `(x, y)`.
    ///
    /// # Panics
    /// If the cell is outside the grid.
    pub fn owner(&self, x: usize, y: usize) -> usize {
        self.grid().pe_at(self.columns.owner(x), self.rows.owner(y))
    }

    fn coordinates(&self, pe: usize) -> (usize, usize) {
        assert!(pe < self.n_pes(), "PE {pe} out of range");
        self.grid().coordinates(pe)
    }

    /// PE `pe`'s neighbours.
    ///
    /// # Panics
    /// If `pe >= n_pes()`.
    pub fn neighbours(&self, pe: usize) -> Neighbours {
        let (column, row) = self.coordinates(pe);
        let grid = self.grid();
        let at_column = |c: Option<usize>| c.map(|c| grid.pe_at(c, row));
        let at_row = |r: Option<usize>| r.map(|r| grid.pe_at(column, r));
        Neighbours {
            up: at_row(self.rows.beside(row, false, self.boundary_y)),
            down: at_row(self.rows.beside(row, true, self.boundary_y)),
            left: at_column(self.columns.beside(column, false, self.boundary_x)),
            right: at_column(self.columns.beside(column, true, self.boundary_x)),
        }
    }

    /// The cells PE `pe` sends per exchange: one row per vertical neighbour, one column per
    /// horizontal neighbour.
    pub fn halo_cells(&self, pe: usize) -> usize {
        let owned = self.owned(pe);
        let n = self.neighbours(pe);
        let rows = n.up.is_some() as usize + n.down.is_some() as usize;
        let columns = n.left.is_some() as usize + n.right.is_some() as usize;
        rows * owned.x.len() + columns * owned.y.len()
    }

    /// What PE `pe`'s kernels need to know about its part; see [`Patch`].
    ///
    /// # Panics
    /// If `pe >= n_pes()`.
    pub fn patch(&self, pe: usize) -> Patch {
        let owned = self.owned(pe);
        let n = self.neighbours(pe);
        let pe_or_none = |pe: Option<usize>| pe.map_or(-1, |pe| pe as i32);
        let (column, row) = self.coordinates(pe);
        // My first row lands in the bottom halo of the PE above; its height depends on its rows.
        let up_row = self.rows.beside(row, false, self.boundary_y);
        let left_column = self.columns.beside(column, false, self.boundary_x);
        Patch {
            nx: owned.x.len() as u32,
            ny: owned.y.len() as u32,
            pitch: self.pitch() as u32,
            rows: (self.rows.max_len() + 2) as u32,
            x0: owned.x.start as u32,
            y0: owned.y.start as u32,
            up: pe_or_none(n.up),
            down: pe_or_none(n.down),
            left: pe_or_none(n.left),
            right: pe_or_none(n.right),
            up_halo_row: up_row.map_or(0, |r| self.rows.len(r) as u32 + 1),
            left_halo_column: left_column.map_or(0, |c| self.columns.len(c) as u32 + 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_cover_every_index_once_in_order() {
        for extent in 1..40 {
            for parts in 1..=extent {
                let split = Split::new(extent, parts).unwrap();
                let mut next = 0;
                for part in 0..parts {
                    let range = split.range(part);
                    assert_eq!(range.start, next, "{extent}/{parts} part {part}");
                    assert!(!range.is_empty());
                    assert!(range.len() <= split.max_len());
                    assert!(split.max_len() - range.len() <= 1);
                    for index in range.clone() {
                        assert_eq!(split.owner(index), part);
                    }
                    next = range.end;
                }
                assert_eq!(next, extent);
            }
        }
    }

    #[test]
    fn bad_splits_are_refused() {
        assert_eq!(Split::new(5, 0), Err(DecompositionError::NoPes));
        assert_eq!(Split::new(0, 1), Err(DecompositionError::EmptyGrid));
        assert_eq!(
            Split::new(3, 4),
            Err(DecompositionError::MorePesThanCells { cells: 3, parts: 4 })
        );
        assert_eq!(
            Decomposition1d::new(0, 4, 1, Boundary::Open),
            Err(DecompositionError::EmptyGrid)
        );
        let open = Boundary::Open;
        assert_eq!(
            ProcessGrid::choose(7, 3, 2, open, open),
            Err(DecompositionError::NoProcessGrid {
                n_pes: 7,
                nx: 3,
                ny: 2
            })
        );
        assert!(matches!(
            Decomposition1d::new(1 << 20, 1 << 13, 1, open),
            Err(DecompositionError::TooLarge { .. })
        ));
        // Found by the `decomposition` fuzz target: the array's size overflowed `usize`.
        assert!(matches!(
            Decomposition1d::new(u32::MAX as usize, u32::MAX as usize, 1, open),
            Err(DecompositionError::TooLarge { .. })
        ));
    }

    #[test]
    fn rows_have_open_or_periodic_neighbours() {
        let open = Decomposition1d::new(8, 10, 4, Boundary::Open).unwrap();
        let n: Vec<_> = (0..4).map(|pe| open.neighbours(pe)).collect();
        assert_eq!((n[0].up, n[0].down), (None, Some(1)));
        assert_eq!((n[2].up, n[2].down), (Some(1), Some(3)));
        assert_eq!((n[3].up, n[3].down), (Some(2), None));
        assert!(n.iter().all(|n| n.left.is_none() && n.right.is_none()));

        let periodic = Decomposition1d::new(8, 10, 4, Boundary::Periodic).unwrap();
        assert_eq!(periodic.neighbours(0).up, Some(3));
        assert_eq!(periodic.neighbours(3).down, Some(0));
        let alone = Decomposition1d::new(8, 10, 1, Boundary::Periodic).unwrap();
        assert_eq!(
            (alone.neighbours(0).up, alone.neighbours(0).down),
            (Some(0), Some(0))
        );
        let alone_open = Decomposition1d::new(8, 10, 1, Boundary::Open).unwrap();
        assert_eq!(alone_open.neighbours(0), Neighbours::default());
    }

    #[test]
    fn neighbours_are_mutual() {
        for boundary in [Boundary::Open, Boundary::Periodic] {
            for (px, py) in [(1, 1), (1, 3), (2, 2), (3, 2), (4, 1), (2, 1)] {
                let d = Decomposition2d::new(13, 11, ProcessGrid { px, py }, boundary, boundary)
                    .unwrap();
                for pe in 0..d.n_pes() {
                    let n = d.neighbours(pe);
                    if let Some(up) = n.up {
                        assert_eq!(d.neighbours(up).down, Some(pe));
                    }
                    if let Some(left) = n.left {
                        assert_eq!(d.neighbours(left).right, Some(pe));
                    }
                    if let Some(down) = n.down {
                        assert_eq!(d.neighbours(down).up, Some(pe));
                    }
                    if let Some(right) = n.right {
                        assert_eq!(d.neighbours(right).left, Some(pe));
                    }
                }
            }
        }
    }

    #[test]
    fn boxes_tile_the_grid_and_neighbours_touch() {
        let open = Boundary::Open;
        for (px, py) in [(1, 1), (1, 4), (2, 2), (3, 2), (5, 1)] {
            let d = Decomposition2d::new(17, 9, ProcessGrid { px, py }, open, open).unwrap();
            let mut owners = vec![usize::MAX; 17 * 9];
            for pe in 0..d.n_pes() {
                let owned = d.owned(pe);
                for y in owned.y.clone() {
                    for x in owned.x.clone() {
                        assert_eq!(owners[y * 17 + x], usize::MAX, "cell owned twice");
                        owners[y * 17 + x] = pe;
                        assert_eq!(d.owner(x, y), pe);
                    }
                }
                let n = d.neighbours(pe);
                // The cell just above my first row belongs to `up`, and so on.
                let check =
                    |neighbour: Option<usize>, x: Option<usize>, y: Option<usize>| match (x, y) {
                        (Some(x), Some(y)) if x < 17 && y < 9 => {
                            assert_eq!(neighbour, Some(d.owner(x, y)))
                        }
                        _ => assert_eq!(neighbour, None),
                    };
                check(n.up, Some(owned.x.start), owned.y.start.checked_sub(1));
                check(n.down, Some(owned.x.start), Some(owned.y.end));
                check(n.left, owned.x.start.checked_sub(1), Some(owned.y.start));
                check(n.right, Some(owned.x.end), Some(owned.y.start));
            }
            assert!(owners.iter().all(|&pe| pe != usize::MAX));
        }
    }
}
