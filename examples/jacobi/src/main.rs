//! The 2-D Jacobi solver of NVIDIA's multi-GPU programming models, on NVSHMEM from Rust: a 5-point
//! stencil in `f32` on `nx × ny` cells, rows split over PEs, one halo row exchanged with each
//! neighbour per iteration, the residual norm every `--norm-every` iterations.
//!
//! ```text
//! cargo run --release -p jacobi -- [-n PES] [--pes-per-gpu K] [--timeout S]
//!     [--variant put-block|p|signal|overlap|persistent] [--nx N] [--ny N] [--iters K]
//!     [--norm-every M] [--check] [--stale-halo] [--block-x T] [--rows-per-thread R]
//!     [--graph K] [--append-result FILE]
//! ```
//!
//! The variants differ in how halos travel and how PEs synchronise (the kernels are in
//! `examples/jacobi/kernels`):
//!
//! | variant | halo rows travel by | PEs meet by |
//! |---|---|---|
//! | `put-block` | `nvshmemx_float_put_nbi_block`, one piece per block | `nvshmem_barrier_all` at the stencil kernel's end, each iteration |
//! | `p` | `nvshmem_float_p`, one per edge cell, as it is computed | `nvshmem_barrier_all` at the stencil kernel's end, each iteration |
//! | `signal` | `put_nbi_block` | neighbour signals: `quiet`, `signal_op` SET, `wait_until_all` |
//! | `overlap` | `put_nbi_block`, edge rows computed first, interior while halos fly | neighbour signals |
//! | `persistent` | as `overlap`, all iterations in one cooperative launch | neighbour signals, a grid barrier inside |
//!
//! The norm costs no launch and no barrier of its own: the stencil kernel's last block puts the
//! PE's total to every PE, and each PE sums the totals once the run is over. The run prints the time per
//! iteration, the bytes a bandwidth-bound solver must move per iteration (`2 · nx · ny · 4`: each
//! cell read once and written once), the rate achieved, the GPU's device-to-device copy rate
//! (measured in the same run), the fraction of that memory floor reached, and the stencil kernel's
//! registers per thread and resident blocks per multiprocessor as loaded, and the floors' yardsticks
//! measured in the same run (the copy rate of a working set of one grid, one launch, one meeting of
//! every PE); its last line, from PE 0, is machine-readable:
//!
//! ```text
//! result: variant=put-block pes=2 nx=16384 ny=16384 iters=200 norm_every=10 seconds_per_iter=… bytes_per_iter=… gbps=… copy_gbps=… floor_fraction=… check=pass norm=… registers=… blocks_per_sm=… fit_copy_gbps=… launch_us=… barrier_us=… [graph=K]
//! ```
//!
//! `--check` runs the whole problem again on each PE's GPU alone and compares every PE's cells with
//! it, and on small problems (`nx · ny · iters ≤ 2^28`) with a CPU run too: every cell must be equal
//! (a cell does not depend on how the rows are split; the interior starts non-zero, so every halo
//! carries data), the final norm within 1e-4 (its sums are grouped differently); the job exits
//! non-zero on a mismatch, and PE 0 prints `PE N differs: …` for each PE that failed.
//! `--stale-halo` (with `--check`, at least 2 PEs, any variant but `persistent`) plants a defect
//! for the check to find: after the first iteration, the last PE's upper halo goes back to its
//! initial cells, so the second iteration reads its neighbour's cells one iteration late, as a halo
//! whose data landed after its signal would be read; the check must fail. `--graph K` (`put-block`
//! and `p`) captures K iterations into two CUDA graphs, for even and odd chunks, and replays them
//! in turn instead of launching each piece; K divides `--iters` and is a multiple of
//! `--norm-every`. Started directly, it relaunches itself on `PES` processes through
//! `nvshmem-launch`, as the ring example does. Shared with `jacobi2d-grid`: the `jacobi` library
//! (`src/lib.rs`); this runner's command line is [`jacobi_args::rows`].

use clap::ValueEnum;
use cudarc::driver::{CudaSlice, DevicePtr};
use jacobi::{CommonKernels, Iterations, Meeting, Options, Program, Verdict};
use jacobi_args::rows::{Args, RULES, Variant};
use nvshmem_halo::host::{HaloGrids, HaloSignals, MeetingPlace, NormBuffers, resident_blocks};
use nvshmem_halo::{Decomposition2d, NormTarget, Tiling};
use nvshmem_host::{Kernel, LaunchShape, Nvshmem, OnStream};
use std::error::Error;
use std::process::ExitCode;

const KERNELS: nvshmem_host::ModuleImage = nvshmem_host::module_image!("JACOBI_KERNELS");

const PROGRAM: Program = Program { rules: RULES, run };

fn main() -> ExitCode {
    jacobi::main::<Args>(&PROGRAM)
}

fn run(
    nvshmem: &Nvshmem,
    options: &Options,
    decomposition: &Decomposition2d,
) -> Result<Verdict, Box<dyn Error>> {
    let module = nvshmem.load_module(KERNELS)?;
    let common = CommonKernels::load(&module, options)?;
    let variant = Variant::from_str(&options.variant, false)?;
    let mut iterations = JacobiIterations {
        variant,
        stencil: module.kernel(stencil_kernel(variant))?,
        tiling: options.tiling(),
        signals: HaloSignals::new(nvshmem)?,
        grid_counter: nvshmem.stream().alloc_zeros(1)?,
        meeting: MeetingPlace::new(nvshmem)?,
    };
    jacobi::solve(nvshmem, &common, options, decomposition, &mut iterations)
}

/// The stencil kernel of `variant`.
fn stencil_kernel(variant: Variant) -> &'static str {
    match variant {
        Variant::P => "jacobi_p",
        Variant::PutBlock => "jacobi_put_block",
        Variant::Signal => "jacobi_signal",
        Variant::Overlap => "jacobi_overlap",
        Variant::Persistent => "jacobi_persistent",
    }
}

/// One variant's iterations.
struct JacobiIterations<'m, 'nv> {
    variant: Variant,
    stencil: Kernel<'m>,
    tiling: Tiling,
    signals: HaloSignals<'nv>,
    grid_counter: CudaSlice<u32>,
    /// The blocks of the current launch that have reached the in-kernel meeting.
    meeting: MeetingPlace,
}

impl Iterations for JacobiIterations<'_, '_> {
    fn reset(&mut self) -> Result<(), Box<dyn Error>> {
        // Not the grid counter: zeroed at allocation, every complete grid barrier leaves it ready
        // for the next launch.
        self.signals.reset()?;
        Ok(())
    }

    fn run(
        &self,
        nvshmem: &Nvshmem,
        common: &CommonKernels<'_>,
        grids: &mut HaloGrids<'_, f32>,
        norms: &NormBuffers<'_>,
    ) -> Result<(), Box<dyn Error>> {
        let patch = *grids.patch();
        let tiling = self.tiling;
        let schedule = norms.schedule();
        if self.variant != Variant::Persistent {
            let on = nvshmem.on(nvshmem.stream())?;
            let ks = 0..schedule.iterations;
            return jacobi::each_iteration(self, on, common, grids, norms, ks);
        }
        let pes_per_gpu = u32::try_from(nvshmem_launch::pe_env::pes_per_gpu()).unwrap_or(u32::MAX);
        // Blocks beyond the work items would only slow every grid barrier.
        let items = tiling.column_blocks(&patch) * tiling.boundary_first_bands(&patch);
        let blocks = resident_blocks(&self.stencil, tiling.block_x, pes_per_gpu)?.min(items);
        let (grid_counter, _record) = self.grid_counter.device_ptr(nvshmem.stream());
        let config = LaunchShape {
            grid: (blocks, 1, 1),
            block: (tiling.block_x, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: jacobi_persistent's parameters, in order; the arrays are symmetric and laid
        // out as `patch` says; the norm buffers of `schedule`; a counter and the signals reset
        // before the run; the grid is within the cooperative limit, shared among the PEs of a
        // GPU.
        unsafe {
            self.stencil.launch_cooperative(
                config,
                &[
                    &grids.current(),
                    &grids.next(),
                    &patch,
                    &tiling,
                    &schedule,
                    &norms.base(),
                    &self.signals.words(),
                    &(grid_counter as *mut u32),
                ],
            )?;
        }
        for _ in 0..schedule.iterations {
            grids.swap();
        }
        Ok(())
    }

    fn iteration(
        &self,
        on: OnStream<'_>,
        common: &CommonKernels<'_>,
        grids: &HaloGrids<'_, f32>,
        norm: NormTarget,
        k: u32,
    ) -> Result<(), Box<dyn Error>> {
        if self.variant == Variant::Persistent {
            return Err(
                "the persistent variant runs every iteration in one launch, not one by \
                        one; use another --variant"
                    .into(),
            );
        }
        let (patch, tiling) = (*grids.patch(), self.tiling);
        let grid = if self.variant == Variant::Overlap {
            tiling.boundary_first_grid(&patch)
        } else {
            tiling.grid(&patch)
        };
        let config = jacobi::stencil_config(tiling, grid);
        let signalled = matches!(self.variant, Variant::Signal | Variant::Overlap);
        let meeting = if signalled {
            Meeting::Signals
        } else {
            Meeting::InKernel
        };
        let meeting_counter = self.meeting.counter();
        let (current, next) = (grids.current_slice()?, grids.next_slice()?);
        // SAFETY: the stencil kernels take (a, a_new, patch, tiling, norm), then the signalled
        // ones (signals, iteration) and the others (meeting); the arrays are symmetric and laid
        // out as `patch` says; the grid is the tiling's for the kernel's band order; `norm` is
        // NONE or this iteration's target; iterations count from 0 since the signals were reset;
        // the meeting counter is zero between launches (the last block resets it). The grids,
        // signals, norms and meeting place outlive the launches (the run synchronises before it
        // drops them).
        unsafe {
            if signalled {
                on.launch(
                    &self.stencil,
                    config,
                    &[
                        &current,
                        &next,
                        &patch,
                        &tiling,
                        &norm,
                        &self.signals.words(),
                        &k,
                    ],
                )?;
            } else {
                on.launch(
                    &self.stencil,
                    config,
                    &[&current, &next, &patch, &tiling, &norm, &meeting_counter],
                )?;
            }
        }
        jacobi::end_iteration(on, common, grids, k, meeting, || Ok(()))
    }

    fn stencil(&self) -> &Kernel<'_> {
        &self.stencil
    }
}
