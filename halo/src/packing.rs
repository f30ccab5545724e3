//! Packed column halos: a patch's left and right edges are strided in its array (one element per
//! row), so they travel through a contiguous symmetric buffer instead: the sender packs its edge
//! columns, puts each into the neighbour's receive column, and the receiver unpacks that into its
//! halo column.
//!
//! The receive columns come in two parities (iteration `k` uses parity `k % 2`), so that a
//! neighbour one iteration ahead cannot overwrite a column before it has been unpacked.

use crate::{Direction, Patch};

/// The layout of one PE's packed-column buffer: [`len`](Self::len) elements, six columns of
/// `patch.rows` elements indexed by local row (0 and `ny + 1` unused): the two it sends, then the
/// two it receives for parity 0, then for parity 1.
///
/// ```
/// use nvshmem_halo::{Direction, Patch, packing::ColumnPacking};
/// let packing = ColumnPacking::new(&Patch::whole(8, 6)); // 8 local rows
/// assert_eq!(packing.len(), 48);
/// assert_eq!(packing.send(Direction::Right), 8);
/// assert_eq!(packing.receive(Direction::Left, 1), 32);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnPacking {
    rows: usize,
}

impl ColumnPacking {
    /// The layout for `patch` (the same on every PE of a decomposition).
    pub const fn new(patch: &Patch) -> ColumnPacking {
        ColumnPacking {
            rows: patch.rows as usize,
        }
    }

    /// Elements of the buffer.
    pub const fn len(&self) -> usize {
        6 * self.rows
    }

    /// Whether the buffer is empty: never for a patch of a decomposition.
    pub const fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Where the column this PE sends towards `direction` (its edge on that side) starts.
    ///
    /// # Panics
    /// For [`Direction::Up`] and [`Direction::Down`]: rows are contiguous and need no packing.
    pub const fn send(&self, direction: Direction) -> usize {
        match direction {
            Direction::Left => 0,
            Direction::Right => self.rows,
            Direction::Up | Direction::Down => panic!("only columns are packed"),
        }
    }

    /// Where the column this PE receives for its halo on side `direction` starts, for `parity`
    /// (0 or 1). The neighbour on that side puts its edge there.
    ///
    /// # Panics
    /// As for [`send`](Self::send).
    pub const fn receive(&self, direction: Direction, parity: u32) -> usize {
        let side = match direction {
            Direction::Left => 0,
            Direction::Right => 1,
            Direction::Up | Direction::Down => panic!("only columns are packed"),
        };
        (2 + 2 * (parity as usize % 2) + side) * self.rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_six_columns_do_not_overlap() {
        let packing = ColumnPacking::new(&Patch::whole(5, 7));
        let mut starts = vec![
            packing.send(Direction::Left),
            packing.send(Direction::Right),
        ];
        for parity in 0..2 {
            for side in [Direction::Left, Direction::Right] {
                starts.push(packing.receive(side, parity));
            }
        }
        starts.sort();
        assert_eq!(starts, [0, 9, 18, 27, 36, 45]);
        assert_eq!(packing.len(), 54);
        assert_eq!(
            packing.receive(Direction::Right, 2),
            packing.receive(Direction::Right, 0)
        );
    }
}
