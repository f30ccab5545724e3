//! The layout of one PE's local array, as its kernels see it: owned cells, halos, neighbours and
//! where its edges land in theirs.

use super::{Boundary, Decomposition2d, Split};

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
    use crate::decomposition::{Decomposition1d, ProcessGrid};

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
