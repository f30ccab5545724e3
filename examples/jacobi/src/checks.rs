//! `--check`: this PE's cells and final norm against a single-GPU run and a CPU run of the whole
//! problem, and what a comparison finds.

use crate::cpu::cpu_jacobi;
use crate::initial::initialize;
use crate::iteration::close_norm;
use crate::kernels::{CommonKernels, stencil_config};
use jacobi_args::Options;
use nvshmem_halo::host::{HaloGrids, NormBuffers};
use nvshmem_halo::{MeetingCounter, NormSchedule, Patch};
use nvshmem_host::Nvshmem;
use std::error::Error;

/// Largest `nx · ny · iters` also checked against the CPU.
pub(crate) const CPU_CHECK_LIMIT: u64 = 1 << 28;
/// Largest relative difference of the final norm that passes. The squared changes are the same bit
/// for bit in every run (the cells are); only their sums are grouped differently. A kernel thread
/// sums its cells' squares in `f32` (a band's rows × 4 per launch, up to some 2000 in the
/// persistent kernel, which adds every band a block walks at 16384²), warps in `f32` (5 steps),
/// the rest in `f64`. A sum of `m` non-negative `f32` terms is off by at most `(m - 1) · 2^-24`
/// relative, so each run's sum of squares by about `1.2e-4` at worst, its square root by half that;
/// rounding errors of long sums mostly cancel, and the norms measured differ by below `1e-8`.
pub(crate) const NORM_TOLERANCE: f64 = 1e-4;

/// One PE's cells and final norm against a reference run's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Comparison {
    /// Owned cells not equal to the reference's (a count, kept as `f64` with the rest).
    pub(crate) differing: f64,
    /// The largest |difference| of a cell, relative to the largest reference value.
    pub(crate) largest: f64,
    /// The final norm's relative difference.
    pub(crate) norm: f64,
}

impl Comparison {
    /// `mine` and `final_norm` against `expected` and `reference_norm`.
    pub(crate) fn of(
        mine: &[f32],
        expected: &[f32],
        final_norm: f64,
        reference_norm: f64,
    ) -> Comparison {
        Comparison {
            differing: differing_cells(mine, expected) as f64,
            largest: relative_difference(mine, expected),
            norm: relative(final_norm, reference_norm),
        }
    }

    /// Whether a cell differs at all, or the norm by more than [`NORM_TOLERANCE`].
    pub(crate) fn failed(&self) -> bool {
        self.differing != 0.0 || self.norm > NORM_TOLERANCE
    }

    /// Several PEs' comparisons as one: the differing cells summed, the differences' maxima.
    pub(crate) fn total(comparisons: impl Iterator<Item = Comparison>) -> Option<Comparison> {
        comparisons.reduce(|a, b| Comparison {
            differing: a.differing + b.differing,
            largest: a.largest.max(b.largest),
            norm: a.norm.max(b.norm),
        })
    }
}

impl std::fmt::Display for Comparison {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} cells differ (largest relative |diff| {:.3e}), norm {:.3e} off (limit \
             {NORM_TOLERANCE:e})",
            self.differing, self.largest, self.norm
        )
    }
}

/// Runs the whole problem on this PE's GPU alone (the plain stencil kernel, no neighbours) and
/// compares.
pub(crate) fn check_against_gpu(
    nvshmem: &Nvshmem,
    common: &CommonKernels<'_>,
    options: &Options,
    patch: &Patch,
    mine: &[f32],
    final_norm: f64,
) -> Result<Comparison, Box<dyn Error>> {
    let whole = Patch::whole(options.nx - 2, options.ny - 2);
    let mut grids = HaloGrids::<f32>::new(nvshmem, whole)?;
    let schedule = NormSchedule::new(options.iters, options.norm_every).expect("both ≥ 1");
    let norms = NormBuffers::new(nvshmem, schedule)?;
    initialize(nvshmem, common, &grids, options.ny)?;
    let config = stencil_config(options.tiling(), options.tiling().grid(&whole));
    for k in 0..schedule.iterations {
        let norm = norms.target(k, 0);
        let (current, next) = (grids.current_slice()?, grids.next_slice()?);
        // SAFETY: jacobi_put_block(a, a_new, patch, tiling, norm, meeting) on a whole-problem
        // patch (no neighbours: no halo transfers, no meeting), with the tiling's grid; the grids
        // and norms outlive the launches (synchronised below).
        unsafe {
            common.reference.launch(
                config,
                &[
                    &current,
                    &next,
                    &whole,
                    &options.tiling(),
                    &norm,
                    &MeetingCounter::NONE,
                ],
            )?;
        }
        grids.swap();
    }
    let last = schedule.iterations - 1;
    close_norm(nvshmem.on(nvshmem.stream())?, common, norms.closing(last))?;
    nvshmem.synchronize()?;
    let reference = grids.owned_cells()?;
    let reference_norm = norms.own_totals()?[schedule.last_row() as usize].sqrt();
    let expected = owned_part(&reference, options.nx - 2, patch);
    Ok(Comparison::of(mine, &expected, final_norm, reference_norm))
}

/// The cells of `patch` out of the whole interior (`nx` cells per row), row by row.
fn owned_part(interior: &[f32], nx: usize, patch: &Patch) -> Vec<f32> {
    let (x0, y0) = (patch.x0 as usize, patch.y0 as usize);
    (y0..y0 + patch.ny as usize)
        .flat_map(|y| {
            interior[y * nx + x0..y * nx + x0 + patch.nx as usize]
                .iter()
                .copied()
        })
        .collect()
}

/// Runs the whole problem on the CPU and compares this PE's cells and the final norm.
pub(crate) fn check_against_cpu(
    options: &Options,
    patch: &Patch,
    mine: &[f32],
    final_norm: f64,
) -> Comparison {
    let (nx, ny) = (options.nx, options.ny);
    let (cells, norm) = cpu_jacobi(nx, ny, options.iters);
    let interior: Vec<f32> = (1..ny - 1)
        .flat_map(|y| cells[y * nx + 1..y * nx + nx - 1].iter().copied())
        .collect();
    Comparison::of(
        mine,
        &owned_part(&interior, nx - 2, patch),
        final_norm,
        norm,
    )
}

/// How many cells of `got` are not equal to those of `expected` (a NaN never is), those missing
/// from either counted too.
fn differing_cells(got: &[f32], expected: &[f32]) -> usize {
    let unequal = got.iter().zip(expected).filter(|(g, e)| g != e).count();
    unequal + got.len().abs_diff(expected.len())
}

/// Largest |got - expected| over the largest |expected| (absolute where that is zero); infinity
/// on a NaN or a length mismatch.
fn relative_difference(got: &[f32], expected: &[f32]) -> f64 {
    if got.len() != expected.len() {
        return f64::INFINITY;
    }
    let mut largest_difference = 0.0f64;
    let mut largest_value = 0.0f64;
    for (&g, &e) in got.iter().zip(expected) {
        let difference = (f64::from(g) - f64::from(e)).abs();
        if difference.is_nan() {
            return f64::INFINITY;
        }
        largest_difference = largest_difference.max(difference);
        largest_value = largest_value.max(f64::from(e).abs());
    }
    if largest_value > 0.0 {
        largest_difference / largest_value
    } else {
        largest_difference
    }
}

/// |got - expected| / |expected| (absolute where `expected` is zero); infinity on a NaN.
fn relative(got: f64, expected: f64) -> f64 {
    let difference = (got - expected).abs();
    if difference.is_nan() {
        f64::INFINITY
    } else if expected != 0.0 {
        difference / expected.abs()
    } else {
        difference
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_must_be_equal_and_the_norm_close() {
        assert_eq!(differing_cells(&[1.0, 2.0], &[1.0, 2.0]), 0);
        assert_eq!(
            differing_cells(&[1.0, 2.0 + f32::EPSILON * 2.0], &[1.0, 2.0]),
            1
        );
        assert_eq!(differing_cells(&[f32::NAN, 1.0], &[f32::NAN, 1.0]), 1);
        assert_eq!(differing_cells(&[1.0], &[1.0, 2.0, 3.0]), 2);
        // One cell off by one unit in the last place: a failure, though a 1e-6 tolerance would pass it.
        let off = Comparison::of(&[1.0, 1.0 + f32::EPSILON], &[1.0, 1.0], 2.0, 2.0);
        assert_eq!((off.differing, off.norm), (1.0, 0.0));
        assert!(off.largest < 1e-6 && off.failed());
        let close = Comparison::of(&[1.0], &[1.0], 1.0 + 0.5 * NORM_TOLERANCE, 1.0);
        assert!(!close.failed());
        let far = Comparison::of(&[1.0], &[1.0], 1.0 + 2.0 * NORM_TOLERANCE, 1.0);
        assert!(far.failed());
    }

    #[test]
    fn differences_are_relative_to_the_largest_value() {
        assert_eq!(relative_difference(&[1.0, 2.0], &[1.0, 2.0]), 0.0);
        assert_eq!(relative_difference(&[1.0, 3.0], &[1.0, 2.0]), 0.5);
        assert_eq!(relative_difference(&[f32::NAN], &[1.0]), f64::INFINITY);
        assert_eq!(relative_difference(&[1.0], &[1.0, 2.0]), f64::INFINITY);
        assert!((relative(1.1, 1.0) - 0.1).abs() < 1e-12);
        assert_eq!(relative(f64::NAN, 1.0), f64::INFINITY);
    }

    #[test]
    fn owned_parts_are_cut_from_the_interior() {
        // A 4 × 3 interior numbered row by row; the patch of columns 1..3, rows 1..3.
        let interior: Vec<f32> = (0..12).map(|v| v as f32).collect();
        let patch = Patch {
            nx: 2,
            ny: 2,
            x0: 1,
            y0: 1,
            ..Patch::whole(2, 2)
        };
        assert_eq!(owned_part(&interior, 4, &patch), [5.0, 6.0, 9.0, 10.0]);
    }
}
