//! What a runner's iterations are, and what every iteration shares: its end (the meeting, the
//! planted stale halo) and the norms' sums once the run is over.

use crate::kernels::{CommonKernels, launch_one};
use jacobi_args::STALE_ITERATION;
use nvshmem_halo::NormTarget;
use nvshmem_halo::host::{HaloGrids, NormBuffers};
use nvshmem_host::{Kernel, LaunchShape, Nvshmem, OnStream};
use std::error::Error;

/// What a runner's iterations are: launching `schedule.iterations` iterations of its variant from
/// `grids.current()`, leaving the result there and the norms in `norms`.
pub trait Iterations {
    /// Zeroes whatever a run numbers by iteration (signal words), before a fresh run; the caller
    /// then makes every PE pass a barrier.
    fn reset(&mut self) -> Result<(), Box<dyn Error>>;

    /// Enqueues iteration `k` on `on`'s stream (returns without waiting for it): from
    /// `grids.current()` into `grids.next()`, which the caller then swaps, with `norm` the
    /// iteration's norm target.
    fn iteration(
        &self,
        on: OnStream<'_>,
        common: &CommonKernels<'_>,
        grids: &HaloGrids<'_, f32>,
        norm: NormTarget,
        k: u32,
    ) -> Result<(), Box<dyn Error>>;

    /// Launches the iterations on the handle's stream (returns without waiting for them): by
    /// default [`each_iteration`].
    fn run(
        &self,
        nvshmem: &Nvshmem,
        common: &CommonKernels<'_>,
        grids: &mut HaloGrids<'_, f32>,
        norms: &NormBuffers<'_>,
    ) -> Result<(), Box<dyn Error>> {
        let on = nvshmem.on(nvshmem.stream())?;
        let ks = 0..norms.schedule().iterations;
        each_iteration(self, on, common, grids, norms, ks)
    }

    /// The kernel that computes the stencil: the report names it with its registers per thread
    /// and its resident blocks per multiprocessor, as loaded.
    fn stencil(&self) -> &Kernel<'_>;
}

/// Enqueues iterations `ks` of `iterations` on `on`'s stream, one after the other, swapping
/// `grids` after each, then the launch that sums the last one's norm: the sequence leaves every
/// norm it computed in `norms`' totals.
pub fn each_iteration<I: Iterations + ?Sized>(
    iterations: &I,
    on: OnStream<'_>,
    common: &CommonKernels<'_>,
    grids: &mut HaloGrids<'_, f32>,
    norms: &NormBuffers<'_>,
    ks: std::ops::Range<u32>,
) -> Result<(), Box<dyn Error>> {
    for k in ks.clone() {
        iterations.iteration(on, common, grids, norms.target(k, ks.start), k)?;
        grids.swap();
    }
    if let Some(last) = ks.last() {
        close_norm(on, common, norms.closing(last))?;
    }
    Ok(())
}

/// Launches `norm_close` with `norm` (a target that only sums) on `on`'s stream, after the
/// stencil launches whose norm it sums.
pub(crate) fn close_norm(
    on: OnStream<'_>,
    common: &CommonKernels<'_>,
    norm: NormTarget,
) -> Result<(), Box<dyn Error>> {
    if norm.sums() {
        // SAFETY: norm_close(norm) with a target of buffers the caller keeps alive until the
        // stream has finished it, after the launches that added to it.
        unsafe { launch_one(on, &common.norm_close, &[&norm])? };
    }
    Ok(())
}

/// How the PEs meet at the end of an iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meeting {
    /// Inside the stencil kernel, whose last block meets the other PEs.
    InKernel,
    /// In the barrier kernel, launched after the iteration's kernels (skipped on one PE).
    Barrier,
    /// Not at all: the halos are synchronised by neighbour signals.
    Signals,
}

/// The end of iteration `k` after its stencil kernel, which wrote `grids.next()`, on `on`'s
/// stream: the meeting, then `between` (the unpacking of received columns). The norm needs no
/// launch: the stencil kernel put this PE's total to every PE.
///
/// With `--stale-halo`, after iteration `STALE_ITERATION` the PEs meet whatever the variant, so
/// that every halo has arrived, and the last PE then sets one of its halos back to its initial
/// cells (the `stale_halo` kernel): the next iteration reads the neighbour's cells of one
/// iteration before, as it would if their data landed after the signal it waited for.
pub fn end_iteration(
    on: OnStream<'_>,
    common: &CommonKernels<'_>,
    grids: &HaloGrids<'_, f32>,
    k: u32,
    meeting: Meeting,
    between: impl FnOnce() -> Result<(), Box<dyn Error>>,
) -> Result<(), Box<dyn Error>> {
    let stale_halo = common.stale_halo.as_ref().filter(|_| k == STALE_ITERATION);
    let (my_pe, n_pes) = (on.nvshmem().my_pe(), on.nvshmem().n_pes());
    // ANCHOR: host_barrier
    let launches_barrier =
        meeting == Meeting::Barrier || (meeting == Meeting::Signals && stale_halo.is_some());
    if n_pes > 1 && launches_barrier {
        // SAFETY: barrier_all(), which every PE launches at this meeting.
        unsafe { launch_one(on, &common.barrier, &[])? };
    }
    // ANCHOR_END: host_barrier
    between()?;
    if let Some(kernel) = stale_halo
        && my_pe + 1 == n_pes
    {
        let (next, patch) = (grids.next_slice()?, *grids.patch());
        // SAFETY: stale_halo(a, patch), a safe kernel, on the array this iteration wrote, which
        // the run keeps alive past the launch; laid out as `patch` says, and every PE's pushes
        // into it completed before the meeting above, the next ones come after this PE's next
        // iteration, later on this stream.
        unsafe { on.launch(kernel, LaunchShape::linear(64, 256), &[&next, &patch])? };
    }
    Ok(())
}

/// Sums each row of every PE's totals into its norm, once the PEs' runs are over and they have met
/// (their puts of totals are complete), and returns the norms, one per row
/// ([`NormSchedule::row`](nvshmem_halo::NormSchedule::row)).
pub(crate) fn sum_norms(
    nvshmem: &Nvshmem,
    common: &CommonKernels<'_>,
    norms: &NormBuffers<'_>,
) -> Result<Vec<f64>, Box<dyn Error>> {
    let rows = norms.schedule().rows();
    // SAFETY: norm_sum(totals, norms, rows) on buffers of `rows` rows, after the caller's meeting.
    unsafe {
        nvshmem.on(nvshmem.stream())?.launch(
            &common.norm_sum,
            LaunchShape::linear(rows.div_ceil(128), 128),
            &[&norms.totals(), &norms.norms_squared(), &rows],
        )?
    };
    Ok(norms.norms(nvshmem)?)
}
