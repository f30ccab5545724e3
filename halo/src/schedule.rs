//! The iteration loop's schedule: on which iterations the residual norm is computed, and where its
//! value is kept.

/// Rows of norm totals a run keeps, used in turn: norm `j` goes to row `j % NORM_ROWS`. A run's
/// memory so does not grow with its length. A row is used again only [`NORM_ROWS`] norms later,
/// long after the puts into it completed (each iteration ends in a meeting of the PEs or the end
/// of its kernel), and the host reads the rows only once the run is over, the last norm's among
/// them.
pub const NORM_ROWS: u32 = 64;

/// The norm is computed after iteration `k` (counting from 0) when `(k + 1)` is a multiple of
/// `every`, and after the last iteration; norm number `j` (0, 1, …) is kept in
/// [`row`](Self::row) `j % NORM_ROWS` of a ring of [`NORM_ROWS`] values.
///
/// ```
/// let schedule = nvshmem_halo::NormSchedule::new(10, 4).unwrap();
/// let computed: Vec<u32> = (0..10).filter(|&k| schedule.computes(k)).collect();
/// assert_eq!(computed, [3, 7, 9]);
/// assert_eq!((schedule.index(3), schedule.index(7), schedule.index(9)), (0, 1, 2));
/// assert_eq!((schedule.count(), schedule.last_row()), (3, 2));
/// let long = nvshmem_halo::NormSchedule::new(1_000_000_000, 1).unwrap();
/// assert_eq!((long.rows(), long.last_row()), (schedule.rows(), 999_999_999 % 64));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct NormSchedule {
    /// Iterations in the run.
    pub iterations: u32,
    /// Iterations between norms.
    pub every: u32,
}

impl NormSchedule {
    /// `None` if either is zero.
    pub const fn new(iterations: u32, every: u32) -> Option<NormSchedule> {
        if iterations == 0 || every == 0 {
            None
        } else {
            Some(NormSchedule { iterations, every })
        }
    }

    /// Whether the norm is computed in iteration `k`.
    pub const fn computes(&self, k: u32) -> bool {
        (k + 1).is_multiple_of(self.every) || k + 1 == self.iterations
    }

    /// The slot of iteration `k`'s norm (meaningful where [`computes`](Self::computes) is true).
    pub const fn index(&self, k: u32) -> u32 {
        (k + 1).div_ceil(self.every) - 1
    }

    /// The number of norms in the run.
    pub const fn count(&self) -> u32 {
        self.iterations.div_ceil(self.every)
    }

    /// The rows of totals the run's buffers hold: [`NORM_ROWS`], however long the run is.
    pub const fn rows(&self) -> u32 {
        NORM_ROWS
    }

    /// The row that norm `j` goes to.
    pub const fn row(j: u32) -> u32 {
        j % NORM_ROWS
    }

    /// The row of the run's last norm, the one the run reports.
    pub const fn last_row(&self) -> u32 {
        Self::row(self.count() - 1)
    }

    /// What the launch of iteration `k` does with the norms, in a sequence of launches on one
    /// stream that started with iteration `first`: the norm it adds to (its own, if it computes
    /// one) and the norm it sums (iteration `k - 1`'s, if that one computed one and was launched
    /// in the same sequence), as norm numbers.
    ///
    /// ```
    /// let schedule = nvshmem_halo::NormSchedule::new(10, 4).unwrap(); // norms after 3, 7 and 9
    /// assert_eq!(schedule.launch(3, 0), (Some(0), None));
    /// assert_eq!(schedule.launch(4, 0), (None, Some(0)));
    /// assert_eq!(schedule.launch(4, 4), (None, None)); // 3 was another sequence's
    /// assert_eq!(schedule.launch(9, 0), (Some(2), None));
    /// assert_eq!(schedule.norm_of(9), Some(2)); // summed after the last launch
    /// ```
    pub const fn launch(&self, k: u32, first: u32) -> (Option<u32>, Option<u32>) {
        let sums = if k > first { self.norm_of(k - 1) } else { None };
        (self.norm_of(k), sums)
    }

    /// The number of the norm iteration `k` computes, if it computes one; after the last launch of
    /// a sequence, a launch that only sums takes the last iteration's.
    pub const fn norm_of(&self, k: u32) -> Option<u32> {
        if self.computes(k) {
            Some(self.index(k))
        } else {
            None
        }
    }

    /// The iteration whose norm is in slot `j`.
    pub const fn iteration_of(&self, j: u32) -> u32 {
        // The last slot's `(j + 1) * every` may pass `u32::MAX` when `every` does not divide the
        // iterations; that slot holds the last iteration's norm.
        match (j + 1).checked_mul(self.every) {
            Some(end) if end - 1 < self.iterations => end - 1,
            _ => self.iterations - 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{NORM_ROWS, NormSchedule};

    #[test]
    fn every_norm_gets_its_own_slot() {
        for iterations in 1..30 {
            for every in 1..35 {
                let s = NormSchedule::new(iterations, every).unwrap();
                let computed: Vec<u32> = (0..iterations).filter(|&k| s.computes(k)).collect();
                assert_eq!(
                    computed.len() as u32,
                    s.count(),
                    "{iterations} every {every}"
                );
                assert_eq!(*computed.last().unwrap(), iterations - 1);
                for (j, &k) in computed.iter().enumerate() {
                    assert_eq!(s.index(k), j as u32);
                    assert_eq!(s.iteration_of(j as u32), k);
                }
            }
        }
        assert!(NormSchedule::new(0, 1).is_none());
        assert!(NormSchedule::new(1, 0).is_none());
    }

    /// Every norm of a sequence of launches is added to by one launch and summed by the next, or
    /// by the closing launch after the last; the two norms of one launch use different slot sets.
    #[test]
    fn every_norm_is_added_once_and_summed_once() {
        for iterations in 1..30 {
            for every in 1..12 {
                let s = NormSchedule::new(iterations, every).unwrap();
                for first in 0..iterations {
                    let (mut added, mut summed) = (Vec::new(), Vec::new());
                    for k in first..iterations {
                        let (adds, sums) = s.launch(k, first);
                        added.extend(adds);
                        summed.extend(sums);
                        if let (Some(a), Some(b)) = (adds, sums) {
                            assert_ne!(a % 2, b % 2, "{iterations} every {every} at {k}");
                        }
                    }
                    summed.extend(s.norm_of(iterations - 1));
                    assert_eq!(added, summed, "{iterations} every {every} from {first}");
                    let expected: Vec<u32> = (first..iterations)
                        .filter(|&k| s.computes(k))
                        .map(|k| s.index(k))
                        .collect();
                    assert_eq!(added, expected);
                }
            }
        }
    }

    /// Found by the `decomposition` fuzz target: the last slot's end overflowed `u32`.
    #[test]
    fn the_last_slot_of_a_huge_run_is_its_last_iteration() {
        let s = NormSchedule::new(u32::MAX, u32::MAX - 1).unwrap();
        assert_eq!(s.count(), 2);
        assert_eq!(s.iteration_of(1), u32::MAX - 1);
    }

    /// A run's rows do not grow with its length: 10^9 iterations need no more than 10^3.
    #[test]
    fn the_rows_are_bounded_whatever_the_length() {
        for every in [1, 7, 100] {
            let short = NormSchedule::new(1000, every).unwrap();
            let long = NormSchedule::new(1_000_000_000, every).unwrap();
            assert!(long.rows() <= short.rows(), "every {every}");
            assert!(long.rows() <= NORM_ROWS);
        }
        // Consecutive norms never share a row, and the last norm's row is its own.
        let s = NormSchedule::new(1000, 1).unwrap();
        assert_ne!(NormSchedule::row(998), NormSchedule::row(999));
        assert_eq!(s.last_row(), 999 % NORM_ROWS);
    }

    proptest::proptest! {
        #[test]
        fn every_slot_maps_back_to_its_iteration(iterations in 1u32.., every in 1u32..) {
            let s = NormSchedule::new(iterations, every).unwrap();
            let last = s.iteration_of(s.count() - 1);
            proptest::prop_assert_eq!(last, iterations - 1);
            proptest::prop_assert!(s.computes(last));
            proptest::prop_assert_eq!(s.index(last), s.count() - 1);
            let first = s.iteration_of(0);
            proptest::prop_assert!(s.computes(first));
            proptest::prop_assert_eq!(s.index(first), 0);
        }
    }
}
