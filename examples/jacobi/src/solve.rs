//! The whole run of one PE, once its runner has loaded its kernels.

use crate::checks::{CPU_CHECK_LIMIT, check_against_cpu, check_against_gpu};
use crate::floors::Floors;
use crate::graphs::Graphs;
use crate::initial::initialize;
use crate::iteration::{Iterations, sum_norms};
use crate::kernels::CommonKernels;
use crate::program::Verdict;
use crate::report::{PeReport, print_results};
use jacobi_args::Options;
use nvshmem_halo::host::{HaloGrids, NormBuffers};
use nvshmem_halo::{Decomposition2d, NormSchedule};
use nvshmem_host::timing::StreamTimer;
use nvshmem_host::{Nvshmem, SymmetricBuffer};
use std::error::Error;

/// The whole run of one PE: copy rate (PE 0), a short warm-up, the timed run, the checks, the
/// report. `iterations` is the runner's variant.
pub fn solve(
    nvshmem: &Nvshmem,
    common: &CommonKernels<'_>,
    options: &Options,
    decomposition: &Decomposition2d,
    iterations: &mut dyn Iterations,
) -> Result<Verdict, Box<dyn Error>> {
    let me = nvshmem.my_pe() as usize;
    let patch = decomposition.patch(me);
    let schedule = NormSchedule::new(options.iters, options.norm_every).expect("both ≥ 1");

    // The floors' yardsticks: the copy rates measured by PE 0 while the others wait, then the
    // launch and the meeting, every PE at once as in the run.
    let floors = Floors::measure(nvshmem, common, options)?;

    let mut grids = HaloGrids::<f32>::new(nvshmem, patch)?;
    let mut norms = NormBuffers::new(nvshmem, schedule)?;
    let mut report_buffer: SymmetricBuffer<'_, f64> = nvshmem.alloc_zeroed(PeReport::LEN)?;

    // A short warm-up (first launches, first touches), then the timed run from a fresh start.
    {
        let warm_up = NormSchedule::new(options.iters.min(4), options.norm_every).expect("≥ 1");
        let warm_norms = NormBuffers::new(nvshmem, warm_up)?;
        initialize(nvshmem, common, &grids, options.ny)?;
        iterations.reset()?;
        nvshmem.barrier_all();
        iterations.run(nvshmem, common, &mut grids, &warm_norms)?;
        nvshmem.synchronize()?;
        nvshmem.barrier_all();
    }
    let graphs = match options.graph {
        Some(k) => Some(Graphs::capture(
            nvshmem,
            common,
            &*iterations,
            &mut grids,
            k,
            options,
        )?),
        None => None,
    };
    initialize(nvshmem, common, &grids, options.ny)?;
    iterations.reset()?;
    norms.reset()?;
    nvshmem.barrier_all();

    let (seconds, final_norm) = match graphs {
        Some(mut graphs) => graphs.replay(nvshmem, common, &mut grids, options.iters)?,
        None => {
            let timer = StreamTimer::new(nvshmem)?;
            timer.start()?;
            iterations.run(nvshmem, common, &mut grids, &norms)?;
            timer.stop()?;
            let seconds = timer.seconds()?;
            nvshmem.synchronize()?;
            nvshmem.barrier_all();
            let final_norm = sum_norms(nvshmem, common, &norms)?[schedule.last_row() as usize];
            (seconds, final_norm)
        }
    };
    let mine = grids.owned_cells()?;

    let mut report = PeReport {
        seconds,
        gpu: None,
        cpu: None,
    };
    if options.check {
        report.gpu = Some(check_against_gpu(
            nvshmem, common, options, &patch, &mine, final_norm,
        )?);
        let updates = (options.nx as u64) * (options.ny as u64) * u64::from(options.iters);
        if updates <= CPU_CHECK_LIMIT {
            report.cpu = Some(check_against_cpu(options, &patch, &mine, final_norm));
        }
    }

    // Every PE's report, to every PE (all learn the verdict; PE 0 prints).
    let reports = report.gather(nvshmem, common, &mut report_buffer)?;
    let failed = reports.iter().any(PeReport::failed);
    if me == 0 {
        print_results(
            options,
            decomposition,
            iterations.stencil(),
            &floors,
            final_norm,
            &reports,
            failed,
        )?;
    }
    nvshmem.barrier_all();
    Ok(if failed { Verdict::Fail } else { Verdict::Pass })
}
