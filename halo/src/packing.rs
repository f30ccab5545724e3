//! Packed halos: a 2-D patch's left and right edges are strided in its array (one element per
//! row), and so are a 3-D box's x and y faces, edges and corners; they travel through a contiguous
//! symmetric buffer instead: the sender packs its edge, puts it into the neighbour's receive slot,
//! and the receiver unpacks that into its halo.
//!
//! The receive slots come in two parities (iteration `k` uses parity `k % 2`), so that a
//! neighbour one iteration ahead cannot overwrite a slot before it has been unpacked.

use crate::{Decomposition3d, Direction, Direction3d, Patch, Patch3d};

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

/// The layout of one PE's packed-halo buffer for a 3-D decomposition: one slot per
/// [`Direction3d`] for what it sends that way, then one per direction and parity for what it
/// receives on that side. A slot holds the largest region any PE sends that way (the offsets must
/// be the same on every PE: the buffer is symmetric); a region's cells are packed in
/// [`Region3d::cell`](crate::Region3d::cell) order, which sender and receiver share because the
/// region's extents agree along the axes it does not step on.
///
/// ```
/// use nvshmem_halo::{Boundary, Decomposition3d, Direction3d, packing::HaloPacking3d};
/// let d = Decomposition3d::for_pes([9, 7, 5], 1, [Boundary::Open; 3])?;
/// let packing = HaloPacking3d::new(&d);
/// let low_x = Direction3d::new(-1, 0, 0);
/// assert_eq!((packing.capacity(low_x), packing.send(low_x)), (7 * 5, 0));
/// assert_eq!(packing.receive(low_x, 1), 2 * packing.slots());
/// # Ok::<(), nvshmem_halo::DecompositionError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HaloPacking3d {
    /// The largest box, `[nx, ny, nz]`.
    max: [usize; 3],
}

impl HaloPacking3d {
    /// The layout for every PE of `decomposition`.
    pub fn new(decomposition: &Decomposition3d) -> HaloPacking3d {
        HaloPacking3d {
            max: decomposition.splits().map(|s| s.max_len()),
        }
    }

    /// The layout for every PE of the decomposition `patch` belongs to (what kernels know).
    pub const fn for_patch(patch: &Patch3d) -> HaloPacking3d {
        let [x, y, z] = patch.max;
        HaloPacking3d {
            max: [x as usize, y as usize, z as usize],
        }
    }

    /// Elements of the slot for `direction`: the largest region sent that way.
    pub const fn capacity(&self, direction: Direction3d) -> usize {
        let step = direction.step();
        let mut cells = 1;
        let mut axis = 0;
        while axis < 3 {
            if step[axis] == 0 {
                cells *= self.max[axis];
            }
            axis += 1;
        }
        cells
    }

    /// Elements of one set of slots (one per direction).
    pub const fn slots(&self) -> usize {
        self.offset(Direction3d::COUNT)
    }

    /// Where the slot of direction number `index` starts within a set.
    const fn offset(&self, index: usize) -> usize {
        let mut offset = 0;
        let mut i = 0;
        while i < index {
            offset += self.capacity(Direction3d::from_index(i));
            i += 1;
        }
        offset
    }

    /// Elements of the buffer: the send set and two receive sets.
    pub const fn len(&self) -> usize {
        3 * self.slots()
    }

    /// Whether the buffer is empty: never for a decomposition.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where the cells this PE sends towards `direction` are packed.
    pub const fn send(&self, direction: Direction3d) -> usize {
        self.offset(direction.index())
    }

    /// Where the cells for this PE's halo on side `direction` arrive, for `parity` (0 or 1): the
    /// neighbour on that side puts there.
    pub const fn receive(&self, direction: Direction3d, parity: u32) -> usize {
        (1 + parity as usize % 2) * self.slots() + self.offset(direction.index())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Boundary;

    #[test]
    fn the_3d_slots_tile_the_buffer_and_hold_every_region() {
        for n_pes in [1, 2, 3, 4, 6, 8] {
            let d = Decomposition3d::for_pes([9, 8, 5], n_pes, [Boundary::Periodic; 3]).unwrap();
            let packing = HaloPacking3d::new(&d);
            assert_eq!(HaloPacking3d::for_patch(&d.patch(n_pes - 1)), packing);
            let mut slots: Vec<(usize, usize)> = Vec::new();
            for index in 0..Direction3d::COUNT {
                let direction = Direction3d::from_index(index);
                let capacity = packing.capacity(direction);
                slots.push((packing.send(direction), capacity));
                for parity in 0..2 {
                    slots.push((packing.receive(direction, parity), capacity));
                }
                for pe in 0..n_pes {
                    let patch = d.patch(pe);
                    assert!(patch.send_region(direction).count() <= capacity);
                    assert!(patch.halo_region(direction).count() <= capacity);
                }
            }
            slots.sort();
            let mut next = 0;
            for (start, len) in slots {
                assert_eq!(
                    start, next,
                    "{n_pes} PEs: slots must not overlap or leave gaps"
                );
                next = start + len;
            }
            assert_eq!(next, packing.len());
        }
    }

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
