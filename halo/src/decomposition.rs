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

/// One PE's part of a decomposed grid, as its kernels see it: a `Copy`, `#[repr(C)]` value passed
/// as a kernel parameter.
///
/// The PE stores its `nx × ny` owned cells in a local array of [`rows`](Self::rows) ×
/// [`pitch`](Self::pitch) elements, the same size on every PE (symmetric allocations must be):
/// owned cell `(x, y)` (counted from the patch's first cell) sits at local row `y + 1`, column
/// `x + 1`. Local row 0 and row `ny + 1` are the top and bottom halos, columns 0 and `nx + 1` the
/// left and right ones. Neighbour PEs are numbers, or -1 where there is none.
///
/// ```
/// use nvshmem_halo::{Boundary, Decomposition1d};
/// let rows = Decomposition1d::new(100, 10, 3, Boundary::Open)?;
/// let patch = rows.patch(1); // rows 4..7
/// assert_eq!((patch.nx, patch.ny, patch.y0), (100, 3, 4));
/// assert_eq!((patch.up, patch.down), (0, 2));
/// // My first row goes to PE 0's bottom halo: PE 0 owns 4 rows, so that is its local row 5.
/// assert_eq!(patch.send_up_row(), Some(5));
/// assert_eq!(patch.send_down_row(), Some(0));
/// # Ok::<(), nvshmem_halo::DecompositionError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub struct Patch {
    /// Owned cells along x.
    pub nx: u32,
    /// Owned cells along y.
    pub ny: u32,
    /// Elements per local row, on every PE (at least the widest patch's `nx + 2`).
    pub pitch: u32,
    /// Local rows, on every PE (the tallest patch's `ny + 2`).
    pub rows: u32,
    /// Global column of the first owned cell.
    pub x0: u32,
    /// Global row of the first owned cell.
    pub y0: u32,
    /// The PE above (owning the rows before), or -1.
    pub up: i32,
    /// The PE below (owning the rows after), or -1.
    pub down: i32,
    /// The PE to the left (owning the columns before), or -1.
    pub left: i32,
    /// The PE to the right (owning the columns after), or -1.
    pub right: i32,
    /// The local row of the PE above that receives this PE's first owned row (its bottom halo).
    pub up_halo_row: u32,
    /// The local column of the PE to the left that receives this PE's first owned column (its right
    /// halo).
    pub left_halo_column: u32,
}

impl Patch {
    /// A patch for a grid of `nx × ny` cells that a single PE owns whole, with no neighbours (open
    /// boundaries): the layout of a single-GPU run of the same problem.
    ///
    /// ```
    /// let whole = nvshmem_halo::Patch::whole(62, 40);
    /// assert_eq!((whole.pitch, whole.rows, whole.up), (64, 42, -1));
    /// ```
    pub fn whole(nx: usize, ny: usize) -> Patch {
        let decomposition = Decomposition2d {
            columns: Split {
                extent: nx,
                parts: 1,
            },
            rows: Split {
                extent: ny,
                parts: 1,
            },
            boundary_x: Boundary::Open,
            boundary_y: Boundary::Open,
        };
        decomposition.patch(0)
    }

    /// Elements of one local array (`rows × pitch`).
    pub const fn len(&self) -> usize {
        self.rows as usize * self.pitch as usize
    }

    /// Whether the local array is empty: never for a patch of a decomposition.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element index of local `(row, column)` (both counting the halo as 0).
    pub const fn index(&self, row: u32, column: u32) -> usize {
        row as usize * self.pitch as usize + column as usize
    }

    /// The neighbour PE in `direction`, if there is one.
    pub const fn neighbour(&self, direction: Direction) -> Option<i32> {
        let pe = match direction {
            Direction::Up => self.up,
            Direction::Down => self.down,
            Direction::Left => self.left,
            Direction::Right => self.right,
        };
        if pe >= 0 { Some(pe) } else { None }
    }

    /// The local row of the PE above that receives this PE's first owned row, if there is a PE
    /// above.
    pub const fn send_up_row(&self) -> Option<u32> {
        if self.up >= 0 {
            Some(self.up_halo_row)
        } else {
            None
        }
    }

    /// The local row of the PE below that receives this PE's last owned row (its top halo, row 0),
    /// if there is a PE below.
    pub const fn send_down_row(&self) -> Option<u32> {
        if self.down >= 0 { Some(0) } else { None }
    }

    /// The local column of the PE to the left that receives this PE's first owned column, if any.
    pub const fn send_left_column(&self) -> Option<u32> {
        if self.left >= 0 {
            Some(self.left_halo_column)
        } else {
            None
        }
    }

    /// Where the cell of this PE's edge in `direction` at local position `along` goes: the
    /// neighbour's PE and the element index in its local array (its halo on the opposite side).
    /// `along` is the local column for [`Direction::Up`] and [`Direction::Down`], the local row for
    /// [`Direction::Left`] and [`Direction::Right`]. `None` where there is no neighbour.
    ///
    /// ```
    /// use nvshmem_halo::{Boundary, Decomposition1d, Direction};
    /// let patch = Decomposition1d::new(30, 10, 3, Boundary::Open)?.patch(1);
    /// // Column 5 of my first row goes to PE 0's row 5 (its bottom halo), column 5.
    /// assert_eq!(patch.remote_index(Direction::Up, 5), Some((0, 5 * 32 + 5)));
    /// assert_eq!(patch.remote_index(Direction::Down, 5), Some((2, 5)));
    /// assert_eq!(patch.remote_index(Direction::Left, 1), None);
    /// # Ok::<(), nvshmem_halo::DecompositionError>(())
    /// ```
    pub const fn remote_index(&self, direction: Direction, along: u32) -> Option<(i32, usize)> {
        let Some(pe) = self.neighbour(direction) else {
            return None;
        };
        let index = match direction {
            Direction::Up => self.index(self.up_halo_row, along),
            Direction::Down => self.index(0, along),
            Direction::Left => self.index(along, self.left_halo_column),
            Direction::Right => self.index(along, 0),
        };
        Some((pe, index))
    }

    /// The local row (for [`Direction::Up`], [`Direction::Down`]) or column (for
    /// [`Direction::Left`], [`Direction::Right`]) of this PE's owned edge on that side: the cells it
    /// sends that way.
    pub const fn edge(&self, direction: Direction) -> u32 {
        match direction {
            Direction::Up | Direction::Left => 1,
            Direction::Down => self.ny,
            Direction::Right => self.nx,
        }
    }

    /// The local row or column of this PE's halo on that side: where the neighbour's cells arrive.
    pub const fn halo(&self, direction: Direction) -> u32 {
        match direction {
            Direction::Up | Direction::Left => 0,
            Direction::Down => self.ny + 1,
            Direction::Right => self.nx + 1,
        }
    }

    /// The local column of the PE to the right that receives this PE's last owned column (its left
    /// halo, column 0), if any.
    pub const fn send_right_column(&self) -> Option<u32> {
        if self.right >= 0 { Some(0) } else { None }
    }
}

/// The four sides of a patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Direction {
    /// Towards lower rows.
    Up = 0,
    /// Towards higher rows.
    Down = 1,
    /// Towards lower columns.
    Left = 2,
    /// Towards higher columns.
    Right = 3,
}

impl Direction {
    /// All four, in the order of their numbers.
    pub const ALL: [Direction; 4] = [
        Direction::Up,
        Direction::Down,
        Direction::Left,
        Direction::Right,
    ];

    /// The side a neighbour in this direction sees this PE on.
    pub const fn opposite(self) -> Direction {
        match self {
            Direction::Up => Direction::Down,
            Direction::Down => Direction::Up,
            Direction::Left => Direction::Right,
            Direction::Right => Direction::Left,
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

    #[test]
    fn patches_say_where_halos_go() {
        let open = Boundary::Open;
        // 10 rows over 3 PEs: 4, 3, 3.
        let d = Decomposition1d::new(30, 10, 3, open).unwrap();
        let p: Vec<_> = (0..3).map(|pe| d.patch(pe)).collect();
        assert_eq!(p[0].pitch, 32);
        assert!(p.iter().all(|p| p.rows == 6 && p.pitch == 32));
        assert_eq!((p[0].ny, p[1].ny, p[2].ny), (4, 3, 3));
        assert_eq!((p[0].y0, p[1].y0, p[2].y0), (0, 4, 7));
        assert_eq!(p[0].send_up_row(), None);
        assert_eq!(p[1].send_up_row(), Some(p[0].ny + 1));
        assert_eq!(p[2].send_up_row(), Some(p[1].ny + 1));
        assert_eq!(p[0].send_down_row(), Some(0));
        assert_eq!(p[2].send_down_row(), None);
        assert!(p.iter().all(|p| p.send_left_column().is_none()));

        // Periodic: PE 0's first row goes to the last PE's bottom halo.
        let d = Decomposition1d::new(30, 10, 3, Boundary::Periodic).unwrap();
        assert_eq!(d.patch(0).send_up_row(), Some(d.patch(2).ny + 1));
        assert_eq!(d.patch(2).send_down_row(), Some(0));

        // 2-D: 2 × 2 PEs on 7 × 5 cells: columns 4 + 3, rows 3 + 2.
        let d = Decomposition2d::new(7, 5, ProcessGrid { px: 2, py: 2 }, open, open).unwrap();
        let right_bottom = d.patch(3);
        assert_eq!((right_bottom.nx, right_bottom.ny), (3, 2));
        assert_eq!((right_bottom.x0, right_bottom.y0), (4, 3));
        assert_eq!(
            (
                right_bottom.up,
                right_bottom.left,
                right_bottom.down,
                right_bottom.right
            ),
            (1, 2, -1, -1)
        );
        assert_eq!(right_bottom.send_up_row(), Some(4)); // PE 1 owns 3 rows
        assert_eq!(right_bottom.send_left_column(), Some(5)); // PE 2 owns 4 columns
        assert_eq!(d.patch(0).send_right_column(), Some(0));
        assert_eq!(right_bottom.index(1, 1), 32 + 1);
        assert_eq!(right_bottom.len(), 5 * 32);
        assert_eq!(right_bottom.neighbour(Direction::Up), Some(1));
        assert_eq!(right_bottom.neighbour(Direction::Down), None);
    }

    #[test]
    fn edges_land_in_the_opposite_halo_of_the_neighbour() {
        for boundary in [Boundary::Open, Boundary::Periodic] {
            for (px, py) in [(1, 1), (1, 3), (2, 2), (3, 2)] {
                let d = Decomposition2d::new(11, 9, ProcessGrid { px, py }, boundary, boundary)
                    .unwrap();
                for pe in 0..d.n_pes() {
                    let patch = d.patch(pe);
                    for direction in Direction::ALL {
                        let vertical = matches!(direction, Direction::Up | Direction::Down);
                        let along = 1;
                        let Some((to, index)) = patch.remote_index(direction, along) else {
                            assert!(patch.neighbour(direction).is_none());
                            continue;
                        };
                        let theirs = d.patch(to as usize);
                        let (row, column) =
                            (index / theirs.pitch as usize, index % theirs.pitch as usize);
                        let halo = theirs.halo(direction.opposite()) as usize;
                        if vertical {
                            assert_eq!((row, column), (halo, along as usize));
                            assert_eq!(theirs.x0, patch.x0);
                        } else {
                            assert_eq!((row, column), (along as usize, halo));
                            assert_eq!(theirs.y0, patch.y0);
                        }
                        // The global cell sent is the one just beyond the receiver's owned box.
                        let sent_y = patch.y0 as i64
                            + if vertical {
                                patch.edge(direction) as i64 - 1
                            } else {
                                0
                            };
                        let sent_x = patch.x0 as i64
                            + if vertical {
                                0
                            } else {
                                patch.edge(direction) as i64 - 1
                            };
                        let (ny, nx) = (d.ny() as i64, d.nx() as i64);
                        let expected_y = (theirs.y0 as i64 + row as i64 - 1).rem_euclid(ny);
                        let expected_x = (theirs.x0 as i64 + column as i64 - 1).rem_euclid(nx);
                        if vertical {
                            assert_eq!(sent_y, expected_y, "PE {pe} {direction:?}");
                        } else {
                            assert_eq!(sent_x, expected_x, "PE {pe} {direction:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_whole_grid_is_one_patch() {
        let whole = Patch::whole(16382, 16382);
        assert_eq!((whole.pitch, whole.rows), (16384, 16384));
        assert_eq!(
            (whole.x0, whole.y0, whole.left, whole.right),
            (0, 0, -1, -1)
        );
        for direction in Direction::ALL {
            assert_eq!(direction.opposite().opposite(), direction);
        }
    }
}
