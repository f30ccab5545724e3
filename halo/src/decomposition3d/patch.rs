//! One PE's part of a 3-D decomposition as its kernels see it, and the regions of its local array
//! that it sends and receives.

use super::{Decomposition3d, Direction3d, ProcessGrid3d};
use crate::decomposition::Boundary;

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
            match direction.step()[axis] {
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
