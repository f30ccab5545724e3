//! `--graph K`: the iterations captured into CUDA graphs and replayed.

use crate::iteration::{Iterations, each_iteration, sum_norms};
use crate::kernels::CommonKernels;
use jacobi_args::Options;
use nvshmem_halo::NormSchedule;
use nvshmem_halo::host::{HaloGrids, NormBuffers};
use nvshmem_host::timing::StreamTimer;
use nvshmem_host::{Graph, Nvshmem};
use std::error::Error;

/// `--graph K`: the iterations as two CUDA graphs of `K` each, captured once on a stream of their
/// own and replayed in turn, the first for chunks 0, 2, 4… of the run, the second for 1, 3, 5….
///
/// Replays repeat their captured arguments, so each graph holds what its chunks have in common:
/// the grids' parity (`K` iterations from the first graph's start, `2K` back to it), the
/// packed-column parity, and the norms' places. The norms go to buffers of a two-chunk schedule
/// (`2K` iterations, every `--norm-every`), the first graph's into the first half, the second's
/// into the other, so consecutive norms use alternate slot sets across replays too; each graph
/// ends with the launch that sums its last norm. The replays leave the last chunk's totals there;
/// the final norm is the last of its norms.
pub(crate) struct Graphs<'nv> {
    stream: std::sync::Arc<cudarc::driver::CudaStream>,
    pair: [Graph<'nv>; 2],
    norms: NormBuffers<'nv>,
    k: u32,
}

impl<'nv> Graphs<'nv> {
    /// Captures both graphs on a new stream, uploads them and replays each once (a warm-up, like
    /// the plain loop's; the caller initialises the grids again).
    pub(crate) fn capture(
        nvshmem: &'nv Nvshmem,
        common: &CommonKernels<'_>,
        iterations: &dyn Iterations,
        grids: &mut HaloGrids<'_, f32>,
        k: u32,
        options: &Options,
    ) -> Result<Graphs<'nv>, Box<dyn Error>> {
        let stream = nvshmem.context().new_stream()?;
        let schedule = NormSchedule::new(2 * k, options.norm_every).expect("both ≥ 1");
        let norms = NormBuffers::new(nvshmem, schedule)?;
        let mut chunk = |first: u32| {
            nvshmem.capture(&stream, |on| {
                each_iteration(iterations, on, common, grids, &norms, first..first + k)
            })
        };
        let pair = [chunk(0)?, chunk(k)?];
        for graph in &pair {
            graph.upload()?;
            // SAFETY: the grids, norm buffers and the variant's buffers the graph uses outlive
            // `Graphs` (they are the caller's, or held here); every PE replays the same graphs in
            // the same order.
            unsafe { graph.replay()? };
        }
        stream.synchronize()?;
        nvshmem.barrier_all();
        Ok(Graphs {
            stream,
            pair,
            norms,
            k,
        })
    }

    /// The timed run of `iters` iterations (whole chunks) from the grids' current state: the
    /// seconds the replays took on the GPU and the final norm. Leaves the result in
    /// `grids.current()`.
    pub(crate) fn replay(
        &mut self,
        nvshmem: &Nvshmem,
        common: &CommonKernels<'_>,
        grids: &mut HaloGrids<'_, f32>,
        iters: u32,
    ) -> Result<(f64, f64), Box<dyn Error>> {
        self.norms.reset()?;
        // The replays run on their own stream, which does not wait for the handle's: the initial
        // state and the zeroed norms must be in place first, on every PE.
        nvshmem.synchronize()?;
        nvshmem.barrier_all();
        let chunks = iters / self.k;
        let timer = StreamTimer::on(nvshmem, &self.stream)?;
        timer.start()?;
        for c in 0..chunks {
            // SAFETY: as in `capture`.
            unsafe { self.pair[c as usize % 2].replay()? };
        }
        timer.stop()?;
        let seconds = timer.seconds()?;
        self.stream.synchronize()?;
        nvshmem.barrier_all();
        if iters % 2 == 1 {
            grids.swap();
        }
        let last = self
            .norms
            .schedule()
            .index((chunks - 1) % 2 * self.k + self.k - 1);
        Ok((
            seconds,
            sum_norms(nvshmem, common, &self.norms)?[NormSchedule::row(last) as usize],
        ))
    }
}
