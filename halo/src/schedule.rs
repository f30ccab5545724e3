//! The iteration loop's schedule: on which iterations the residual norm is computed, and where its
//! value is kept.

/// The norm is computed after iteration `k` (counting from 0) when `(k + 1)` is a multiple of
/// `every`, and after the last iteration; norm number `j` (0, 1, …) is kept in slot `j` of an array
/// of [`count`](Self::count) values, so no value is overwritten before the host reads it.
///
/// ```
/// let schedule = nvshmem_halo::NormSchedule::new(10, 4).unwrap();
/// let computed: Vec<u32> = (0..10).filter(|&k| schedule.computes(k)).collect();
/// assert_eq!(computed, [3, 7, 9]);
/// assert_eq!((schedule.index(3), schedule.index(7), schedule.index(9)), (0, 1, 2));
/// assert_eq!(schedule.count(), 3);
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

    /// The iteration whose norm is in slot `j`.
    pub const fn iteration_of(&self, j: u32) -> u32 {
        let k = (j + 1) * self.every - 1;
        if k < self.iterations {
            k
        } else {
            self.iterations - 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::NormSchedule;

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
}
