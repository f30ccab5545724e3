//! What the two Jacobi runners share (`jacobi` and `jacobi2d-grid`, each including this file as its
//! `solver` module, so that its tests run in both): relaunching through the launcher (the flags
//! are in `flags.rs`), the problem's initial state, the norm bookkeeping of an iteration, the
//! timed run, the checks against a single-GPU and a CPU run, and the report with its
//! machine-readable `result:` line.
//!
//! The problem (NVIDIA's multi-GPU Jacobi, from a non-zero interior): `nx × ny` cells of `f32`; the
//! left and right columns hold `sin(2π y / (ny - 1))` for global row `y` and stay fixed, as do the
//! top and bottom rows (at zero); the `(nx - 2) × (ny - 2)` interior starts at the values of
//! `kernels/src/problem.rs` (never zero, all different along a row or a column, so that every halo
//! carries data a wrong exchange would change) and is split over the PEs.
//!
//! A cell's value does not depend on how the interior is split: every PE computes each cell's
//! update with the same operations in the same order as a single GPU and the CPU reference do. So
//! `--check` wants every cell equal to theirs, exactly; only the norm, whose sums are grouped
//! differently, has a tolerance.

#[path = "../kernels/src/problem.rs"]
mod problem;

pub use crate::flags::{Options, Rules, STALE_HALO_NEEDS_PES, STALE_ITERATION, parse, usage_error};
use clap::Parser;
use cudarc::driver::DevicePtr;
use nvshmem_halo::host::{HaloGrids, NormBuffers};
use nvshmem_halo::{Decomposition2d, MeetingCounter, NormSchedule, Patch, Tiling};
use nvshmem_host::timing::StreamTimer;
use nvshmem_host::{
    Bootstrap, CudaContext as _, Graph, Kernel, KernelArg, LaunchConfig, Module, Nvshmem, OnStream,
    SymmetricBuffer,
};
use std::error::Error;
use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

/// Largest `nx · ny · iters` also checked against the CPU.
pub const CPU_CHECK_LIMIT: u64 = 1 << 28;
/// Largest relative difference of the final norm that passes. The squared changes are the same bit
/// for bit in every run (the cells are); only their sums are grouped differently. A kernel thread
/// sums its cells' squares in `f32` (a band's rows × 4 per launch, up to some 2000 in the
/// persistent kernel, which adds every band a block walks at 16384²), warps in `f32` (5 steps),
/// the rest in `f64`. A sum of `m` non-negative `f32` terms is off by at most `(m - 1) · 2^-24`
/// relative, so each run's sum of squares by about `1.2e-4` at worst, its square root by half that;
/// rounding errors of long sums mostly cancel, and the norms measured differ by below `1e-8`.
pub const NORM_TOLERANCE: f64 = 1e-4;
/// Bytes per copy of the copy-rate measurement.
const COPY_BYTES: usize = 512 << 20;

/// How a PE's run ended.
pub enum Verdict {
    /// Everything passed.
    Pass,
    /// A check failed (PE 0 said where).
    Fail,
    /// The flags do not fit the job (only known once the PE count is).
    Usage(String),
}

/// A runner's part of one PE's run: loads its kernels and calls [`solve`].
pub type RunPe = fn(&Nvshmem, &Options, &Decomposition2d) -> Result<Verdict, Box<dyn Error>>;

/// What a runner passes to [`main`], beside its command line (a `clap::Parser` that flattens
/// [`Options`]).
pub struct Program {
    /// What its flags may be.
    pub rules: Rules,
    /// Runs one PE: the runner's part of [`solve`].
    pub run: RunPe,
}

/// The whole program, with `A` its command line: parses, relaunches through the launcher when
/// started directly, or runs this PE.
pub fn main<A: Parser + Into<Options>>(program: &Program) -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let options = parse::<A>(&program.rules, &args).unwrap_or_else(|error| error.exit());
    let name = A::command().get_name().to_string();
    match Bootstrap::detect() {
        Ok(Bootstrap::SinglePe) => {
            let status = nvshmem_launch::relaunch_current_program(&args, &options.job);
            ExitCode::from(status.clamp(0, 255) as u8)
        }
        Ok(bootstrap) => match run_pe(program, bootstrap, &options) {
            Ok(Verdict::Pass) => ExitCode::SUCCESS,
            Ok(Verdict::Usage(problem)) => usage_error::<A>(problem).exit(),
            Ok(Verdict::Fail) => ExitCode::FAILURE,
            Err(error) => {
                eprintln!("{name}: {error}");
                ExitCode::FAILURE
            }
        },
        Err(error) => {
            eprintln!("{name}: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run_pe(
    program: &Program,
    bootstrap: Bootstrap,
    options: &Options,
) -> Result<Verdict, Box<dyn Error>> {
    size_symmetric_heap(program, options, &bootstrap);
    let nvshmem = Nvshmem::init_with(bootstrap)?;
    let decomposition = match (program.rules.decompose)(options, nvshmem.n_pes() as usize) {
        Ok(decomposition) => decomposition,
        Err(problem) => return Ok(Verdict::Usage(problem)),
    };
    if options.stale_halo && nvshmem.n_pes() < 2 {
        return Ok(Verdict::Usage(format!(
            "--stale-halo {STALE_HALO_NEEDS_PES}"
        )));
    }
    let verdict = (program.run)(&nvshmem, options, &decomposition)?;
    nvshmem.finalize()?;
    Ok(verdict)
}

/// The symmetric heap one PE of `n_pes` needs, with room to spare: its two arrays, the
/// reference's two with `--check`, the norms' totals of the run, its warm-up, the graphs and the
/// check (each a ring of rows, whatever the run's length), and small buffers.
pub fn symmetric_heap_bytes(options: &Options, patch: &Patch, n_pes: usize) -> usize {
    let mut bytes = 2 * patch.len() * 4;
    if options.check {
        bytes += 2 * Patch::whole(options.nx - 2, options.ny - 2).len() * 4;
    }
    let schedule = NormSchedule::new(options.iters, options.norm_every).expect("both ≥ 1");
    bytes += 4 * NormBuffers::symmetric_len(schedule, n_pes) * 8;
    bytes + (256 << 20)
}

/// Sets `NVSHMEM_SYMMETRIC_SIZE` for this run unless the user did.
fn size_symmetric_heap(program: &Program, options: &Options, bootstrap: &Bootstrap) {
    if std::env::var_os("NVSHMEM_SYMMETRIC_SIZE").is_some() {
        return;
    }
    let n_pes = match bootstrap {
        Bootstrap::Launcher(identity) => identity.n_pes,
        _ => 1,
    };
    let Ok(decomposition) = (program.rules.decompose)(options, n_pes.max(1)) else {
        return;
    };
    let mib = symmetric_heap_bytes(options, &decomposition.patch(0), n_pes).div_ceil(1 << 20);
    // SAFETY: no other thread runs yet; NVSHMEM reads the variable during init, just after.
    unsafe { std::env::set_var("NVSHMEM_SYMMETRIC_SIZE", format!("{mib}M")) };
}

/// The kernels of the shared stencil module (`examples/jacobi/kernels/src/stencil.rs`).
pub struct CommonKernels<'m> {
    initialize: Kernel<'m>,
    reference: Kernel<'m>,
    norm_sum: Kernel<'m>,
    gather: Kernel<'m>,
    nothing: Kernel<'m>,
    copy_trips: Kernel<'m>,
    /// With `--stale-halo`: the kernel that spoils a halo.
    stale_halo: Option<Kernel<'m>>,
    /// Where the PEs meet between kernels: a launch of one thread calling `nvshmem_barrier_all`.
    /// NVSHMEM's on-stream barrier costs several times as much between PEs sharing a GPU, and
    /// NVSHMEM 3.4.5 refuses to have it captured into a graph between PEs.
    barrier: Kernel<'m>,
}

impl<'m> CommonKernels<'m> {
    /// Finds them in `module`, the one that plants `--stale-halo` only when `options` ask for it.
    pub fn load(
        module: &'m Module<'m>,
        options: &Options,
    ) -> Result<CommonKernels<'m>, nvshmem_host::Error> {
        Ok(CommonKernels {
            initialize: module.kernel("initialize")?,
            reference: module.kernel("jacobi_put_block")?,
            norm_sum: module.kernel("norm_sum")?,
            gather: module.kernel("gather")?,
            nothing: module.kernel("nothing")?,
            copy_trips: module.kernel("copy_trips")?,
            stale_halo: if options.stale_halo {
                Some(module.kernel("stale_halo")?)
            } else {
                None
            },
            barrier: module.kernel("barrier_all")?,
        })
    }
}

/// The boundary value of each local row of `patch` (global rows `y0 ..`, counting the fixed top
/// row as 0) in a grid of `ny` rows: `sin(2π y / (ny - 1))`, computed in `f64` as NVIDIA's
/// reference does.
pub fn boundary_values(patch: &Patch, ny: usize) -> Vec<f32> {
    (0..patch.rows as usize)
        .map(|row| {
            let y = patch.y0 as usize + row;
            if y < ny {
                (2.0 * std::f64::consts::PI * y as f64 / (ny - 1) as f64).sin() as f32
            } else {
                0.0
            }
        })
        .collect()
}

/// Sets both arrays of `grids` to the initial state.
pub fn initialize(
    nvshmem: &Nvshmem,
    kernels: &CommonKernels<'_>,
    grids: &HaloGrids<'_, f32>,
    ny: usize,
) -> Result<(), Box<dyn Error>> {
    let patch = *grids.patch();
    let boundary = nvshmem.stream().clone_htod(&boundary_values(&patch, ny))?;
    let (boundary_address, _record) = boundary.device_ptr(nvshmem.stream());
    // SAFETY: initialize(a, a_new, patch, boundary) writes `patch.len()` elements of both arrays
    // and reads `patch.rows` boundary values.
    unsafe {
        kernels.initialize.launch(
            LaunchConfig::linear(1024, 256),
            &[
                &grids.current(),
                &grids.next(),
                &patch,
                &(boundary_address as *const f32),
            ],
        )?;
    }
    nvshmem.synchronize()?;
    Ok(())
}

/// The launch of a stencil kernel covering `grid` blocks of `tiling.block_x` threads.
pub fn stencil_config(tiling: Tiling, (x, y): (u32, u32)) -> LaunchConfig {
    LaunchConfig {
        grid: (x, y, 1),
        block: (tiling.block_x, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// What a runner's iterations are: launching `schedule.iterations` iterations of its variant from
/// `grids.current()`, leaving the result there and the norms in `norms`.
pub trait Iterations {
    /// Zeroes whatever a run numbers by iteration (signal words), before a fresh run; the caller
    /// then makes every PE pass a barrier.
    fn reset(&mut self) -> Result<(), Box<dyn Error>>;

    /// Enqueues iteration `k` of `norms.schedule()` on `on`'s stream (returns without waiting
    /// for it): from `grids.current()` into `grids.next()`, which the caller then swaps.
    fn iteration(
        &self,
        on: OnStream<'_>,
        common: &CommonKernels<'_>,
        grids: &HaloGrids<'_, f32>,
        norms: &NormBuffers<'_>,
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
/// `grids` after each.
pub fn each_iteration<I: Iterations + ?Sized>(
    iterations: &I,
    on: OnStream<'_>,
    common: &CommonKernels<'_>,
    grids: &mut HaloGrids<'_, f32>,
    norms: &NormBuffers<'_>,
    ks: std::ops::Range<u32>,
) -> Result<(), Box<dyn Error>> {
    for k in ks {
        iterations.iteration(on, common, grids, norms, k)?;
        grids.swap();
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
/// With `--stale-halo`, after iteration [`STALE_ITERATION`] the PEs meet whatever the variant, so
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
        let (next, patch) = (grids.next(), *grids.patch());
        // SAFETY: stale_halo(a, patch) on the array this iteration wrote, laid out as `patch`
        // says; every PE's pushes into it completed before the meeting above, and the next ones
        // come after this PE's next iteration, later on this stream.
        unsafe { on.launch(kernel, LaunchConfig::linear(64, 256), &[&next, &patch])? };
    }
    Ok(())
}

/// Sums each row of every PE's totals into its norm, once the PEs' runs are over and they have met
/// (their puts of totals are complete), and returns the norms, one per row
/// ([`NormSchedule::row`]).
pub fn sum_norms(
    nvshmem: &Nvshmem,
    common: &CommonKernels<'_>,
    norms: &NormBuffers<'_>,
) -> Result<Vec<f64>, Box<dyn Error>> {
    let rows = norms.schedule().rows();
    // SAFETY: norm_sum(totals, norms, rows) on buffers of `rows` rows, after the caller's meeting.
    unsafe {
        nvshmem.on(nvshmem.stream())?.launch(
            &common.norm_sum,
            LaunchConfig::linear(rows.div_ceil(128), 128),
            &[&norms.totals(), &norms.norms_squared(), &rows],
        )?
    };
    Ok(norms.norms(nvshmem)?)
}

/// Launches `kernel` as one block of 32 threads (the meeting) on `on`'s stream.
///
/// # Safety
/// `args` match the kernel's parameters and the pointers are valid.
pub unsafe fn launch_one(
    on: OnStream<'_>,
    kernel: &Kernel<'_>,
    args: &[&dyn KernelArg],
) -> Result<(), Box<dyn Error>> {
    // SAFETY: the caller's contract.
    unsafe { on.launch(kernel, LaunchConfig::linear(1, 32), args)? };
    Ok(())
}

/// One PE's cells and final norm against a reference run's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// Owned cells not equal to the reference's (a count, kept as `f64` with the rest).
    pub differing: f64,
    /// The largest |difference| of a cell, relative to the largest reference value.
    pub largest: f64,
    /// The final norm's relative difference.
    pub norm: f64,
}

impl Comparison {
    /// `mine` and `final_norm` against `expected` and `reference_norm`.
    pub fn of(mine: &[f32], expected: &[f32], final_norm: f64, reference_norm: f64) -> Comparison {
        Comparison {
            differing: differing_cells(mine, expected) as f64,
            largest: relative_difference(mine, expected),
            norm: relative(final_norm, reference_norm),
        }
    }

    /// Whether a cell differs at all, or the norm by more than [`NORM_TOLERANCE`].
    pub fn failed(&self) -> bool {
        self.differing != 0.0 || self.norm > NORM_TOLERANCE
    }

    /// Several PEs' comparisons as one: the differing cells summed, the differences' maxima.
    fn total(comparisons: impl Iterator<Item = Comparison>) -> Option<Comparison> {
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

/// What one PE found, gathered by PE 0.
#[derive(Debug, Clone, Copy, PartialEq)]
struct PeReport {
    seconds: f64,
    /// Against the single-GPU run, with `--check`.
    gpu: Option<Comparison>,
    /// Against the CPU, with `--check` on a small problem.
    cpu: Option<Comparison>,
}

impl PeReport {
    const LEN: usize = 7;

    fn to_array(self) -> [f64; Self::LEN] {
        let values =
            |c: Option<Comparison>| c.map_or([-1.0; 3], |c| [c.differing, c.largest, c.norm]);
        let ([g0, g1, g2], [c0, c1, c2]) = (values(self.gpu), values(self.cpu));
        [self.seconds, g0, g1, g2, c0, c1, c2]
    }

    fn from_slice(values: &[f64]) -> PeReport {
        let comparison = |v: &[f64]| {
            (v[0] >= 0.0).then(|| Comparison {
                differing: v[0],
                largest: v[1],
                norm: v[2],
            })
        };
        PeReport {
            seconds: values[0],
            gpu: comparison(&values[1..4]),
            cpu: comparison(&values[4..7]),
        }
    }

    fn failed(&self) -> bool {
        self.gpu.iter().chain(&self.cpu).any(Comparison::failed)
    }
}

/// The whole run of one PE: copy rate (PE 0), a short warm-up, the timed run, the checks, the
/// report. `iterations` is the runner's variant.
pub fn solve(
    nvshmem: &Nvshmem,
    common: &CommonKernels<'_>,
    options: &Options,
    decomposition: &Decomposition2d,
    iterations: &mut dyn Iterations,
) -> Result<Verdict, Box<dyn Error>> {
    let (me, n_pes) = (nvshmem.my_pe() as usize, nvshmem.n_pes() as usize);
    let patch = decomposition.patch(me);
    let schedule = NormSchedule::new(options.iters, options.norm_every).expect("both ≥ 1");

    // The floors' yardsticks: the copy rates measured by PE 0 while the others wait, then the
    // launch and the meeting, every PE at once as in the run.
    let (copy, fit_copy) = if me == 0 {
        let bytes = options.nx * options.ny * 4;
        // The copy kernel saves a launch per copy where the grid fits in L2, the copy engine may
        // do better where it does not: the floor takes the faster.
        let fit = fit_copy_rate(nvshmem, common, bytes)?.max(copy_rate(nvshmem, bytes, 10, 3)?);
        (copy_rate(nvshmem, COPY_BYTES, 10, 3)?, fit)
    } else {
        (0.0, 0.0)
    };
    nvshmem.barrier_all();
    let floors = Floors {
        copy,
        fit_copy,
        launch: time_launches(nvshmem, &common.nothing)?,
        barrier: if n_pes > 1 {
            time_launches(nvshmem, &common.barrier)?
        } else {
            0.0
        },
    };
    nvshmem.barrier_all();

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
    report_buffer.copy_from_host(&report.to_array())?;
    nvshmem.barrier_all();
    let gathered = nvshmem.stream().alloc_zeros::<f64>(PeReport::LEN * n_pes)?;
    let (gathered_address, _record) = gathered.device_ptr(nvshmem.stream());
    // SAFETY: gather(source, count, dest): `source` holds LEN values on every PE, written before
    // the barrier above; `dest` holds LEN × n_pes.
    unsafe {
        common.gather.launch(
            LaunchConfig::linear(1, 128),
            &[
                &report_buffer.as_symmetric_ptr(),
                &(PeReport::LEN as u32),
                &(gathered_address as *mut f64),
            ],
        )?;
    }
    let reports: Vec<PeReport> = nvshmem
        .stream()
        .clone_dtoh(&gathered)?
        .chunks(PeReport::LEN)
        .map(PeReport::from_slice)
        .collect();
    nvshmem.barrier_all();
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

/// `--graph K`: the iterations as two CUDA graphs of `K` each, captured once on a stream of their
/// own and replayed in turn, the first for chunks 0, 2, 4… of the run, the second for 1, 3, 5….
///
/// Replays repeat their captured arguments, so each graph holds what its chunks have in common:
/// the grids' parity (`K` iterations from the first graph's start, `2K` back to it), the
/// packed-column parity, and the norms' places. The norms go to buffers of a two-chunk schedule
/// (`2K` iterations, every `--norm-every`), the first graph's into the first half, the second's
/// into the other, so consecutive norms use alternate slot sets across replays too. The replays
/// leave the last chunk's totals there; the final norm is the last of its norms.
struct Graphs<'nv> {
    stream: std::sync::Arc<cudarc::driver::CudaStream>,
    pair: [Graph<'nv>; 2],
    norms: NormBuffers<'nv>,
    k: u32,
}

impl<'nv> Graphs<'nv> {
    /// Captures both graphs on a new stream, uploads them and replays each once (a warm-up, like
    /// the plain loop's; the caller initialises the grids again).
    fn capture(
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
    fn replay(
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

/// Runs the whole problem on this PE's GPU alone (the plain stencil kernel, no neighbours) and
/// compares.
fn check_against_gpu(
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
        let norm = norms.target(k);
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
fn check_against_cpu(
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

/// The CPU reference: the whole `nx × ny` grid after `iters` iterations, and the last iteration's
/// residual norm. The update sums in the kernels' order and Rust contracts no multiplication and
/// addition into one, so the cells agree with the kernels' bit for bit.
pub fn cpu_jacobi(nx: usize, ny: usize, iters: u32) -> (Vec<f32>, f64) {
    let boundary = boundary_values(&Patch::whole(nx - 2, ny - 2), ny);
    let mut a = vec![0.0f32; nx * ny];
    for y in 0..ny {
        a[y * nx] = boundary[y];
        a[y * nx + nx - 1] = boundary[y];
    }
    for y in 1..ny - 1 {
        for x in 1..nx - 1 {
            a[y * nx + x] = problem::initial_interior(x as u32 - 1, y as u32 - 1);
        }
    }
    let mut a_new = a.clone();
    let mut norm = 0.0f64;
    for _ in 0..iters {
        norm = 0.0;
        for y in 1..ny - 1 {
            for x in 1..nx - 1 {
                let i = y * nx + x;
                // The kernels' `update`: 0.25 (east + west + south + north).
                let new = 0.25 * (a[i + 1] + a[i - 1] + a[i + nx] + a[i - nx]);
                a_new[i] = new;
                let change = f64::from(new - a[i]);
                norm += change * change;
            }
        }
        std::mem::swap(&mut a, &mut a_new);
    }
    (a, norm.sqrt())
}

/// How many cells of `got` are not equal to those of `expected` (a NaN never is), those missing
/// from either counted too.
pub fn differing_cells(got: &[f32], expected: &[f32]) -> usize {
    let unequal = got.iter().zip(expected).filter(|(g, e)| g != e).count();
    unequal + got.len().abs_diff(expected.len())
}

/// Largest |got - expected| over the largest |expected| (absolute where that is zero); infinity
/// on a NaN or a length mismatch.
pub fn relative_difference(got: &[f32], expected: &[f32]) -> f64 {
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
pub fn relative(got: f64, expected: f64) -> f64 {
    let difference = (got - expected).abs();
    if difference.is_nan() {
        f64::INFINITY
    } else if expected != 0.0 {
        difference / expected.abs()
    } else {
        difference
    }
}

fn print_results(
    options: &Options,
    decomposition: &Decomposition2d,
    stencil: &Kernel<'_>,
    floors: &Floors,
    final_norm: f64,
    reports: &[PeReport],
    failed: bool,
) -> Result<(), Box<dyn Error>> {
    let n_pes = reports.len();
    let (nx, ny) = (options.nx, options.ny);
    let seconds = reports.iter().map(|r| r.seconds).fold(0.0, f64::max);
    let per_iter = seconds / f64::from(options.iters);
    let bytes = 2 * nx * ny * 4;
    let halo_bytes: usize = (0..n_pes).map(|pe| decomposition.halo_cells(pe) * 4).sum();
    let rate = bytes as f64 / per_iter;
    let fraction = rate / floors.copy;
    let grid = decomposition.grid();
    let registers = stencil.registers();
    let (_, blocks_per_sm, _) =
        stencil.max_cooperative_blocks(LaunchConfig::linear(1, options.block_x))?;
    println!(
        "{}: variant {} on {n_pes} PE(s) as a {} x {} process grid, {nx} x {ny} cells, {} \
         iterations, norm every {}; patches of up to {} x {} cells; blocks of {} threads x {} \
         columns x {} rows; kernel `{}`: {registers} registers per thread, {blocks_per_sm} \
         resident blocks per multiprocessor",
        program_name(),
        options.variant,
        grid.px,
        grid.py,
        options.iters,
        options.norm_every,
        decomposition.columns().max_len(),
        decomposition.rows().max_len(),
        options.block_x,
        options.tiling().vector,
        options.rows_per_band,
        stencil.name()
    );
    println!(
        "{}: {:.3} ms ({:.1} µs) per iteration (slowest PE{}); {:.3} GB to move per iteration (+{halo_bytes} \
         halo bytes) = {:.1} GB/s; device-to-device copy {:.1} GB/s; {:.1} % of the memory floor",
        program_name(),
        per_iter * 1e3,
        per_iter * 1e6,
        options.graph.map_or(String::new(), |k| format!(
            ", replaying graphs of {k} iterations"
        )),
        bytes as f64 / 1e9,
        rate / 1e9,
        floors.copy / 1e9,
        100.0 * fraction
    );
    println!(
        "{}: norm after {} iterations: {final_norm:.6e}",
        program_name(),
        options.iters
    );
    let check = if !options.check {
        "skipped"
    } else if failed {
        "fail"
    } else {
        "pass"
    };
    if options.check {
        let gpu = Comparison::total(reports.iter().filter_map(|r| r.gpu));
        let cpu = Comparison::total(reports.iter().filter_map(|r| r.cpu));
        let shown = |c: Option<Comparison>, otherwise: &str| {
            c.map_or(otherwise.to_string(), |c| c.to_string())
        };
        println!(
            "{}: check against a single-GPU run: {}; against the CPU: {}; {check}",
            program_name(),
            shown(gpu, "skipped"),
            shown(cpu, "skipped (problem too large)"),
        );
        for (pe, r) in reports.iter().enumerate().filter(|(_, r)| r.failed()) {
            println!(
                "{}: PE {pe} differs: from the single-GPU run {}; from the CPU {}",
                program_name(),
                shown(r.gpu, "not checked"),
                shown(r.cpu, "not checked"),
            );
        }
    }
    let line = format!(
        "result: variant={} pes={n_pes} nx={nx} ny={ny} iters={} norm_every={} \
         seconds_per_iter={per_iter:.9} bytes_per_iter={bytes} gbps={:.1} copy_gbps={:.1} \
         floor_fraction={fraction:.3} check={check} norm={final_norm:.6e} registers={registers} \
         blocks_per_sm={blocks_per_sm} fit_copy_gbps={:.1} launch_us={:.3} barrier_us={:.3}",
        options.variant,
        options.iters,
        options.norm_every,
        rate / 1e9,
        floors.copy / 1e9,
        floors.fit_copy / 1e9,
        floors.launch * 1e6,
        floors.barrier * 1e6,
    );
    let line = match options.graph {
        Some(k) => format!("{line} graph={k}"),
        None => line,
    };
    println!("{line}");
    if let Some(path) = &options.append_result {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        writeln!(file, "{line}")?;
    }
    Ok(())
}

/// This program's file name, for messages.
fn program_name() -> String {
    std::env::args()
        .next()
        .and_then(|path| {
            std::path::Path::new(&path)
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "jacobi".to_string())
}

/// The shared part of both runners' tests.
/// What an iteration cannot beat, measured in the run beside it: the copy rate of a working set
/// the size of one grid (in L2 when it fits), and the time of one launch and of one meeting of
/// every PE. The benchmark report builds each cell's floor from them.
pub struct Floors {
    /// Bytes moved per second by device-to-device copies of a large buffer (PE 0): the memory
    /// floor of grids that do not fit in L2.
    pub copy: f64,
    /// Bytes moved per second copying `nx × ny × 4` bytes: the faster of back and forth in one
    /// launch and device-to-device copies (PE 0).
    pub fit_copy: f64,
    /// Seconds per launch of an empty kernel, launched back to back.
    pub launch: f64,
    /// Seconds per launch of the barrier kernel, every PE launching it (0 on one PE).
    pub barrier: f64,
}

/// Launches of a kernel that the floors time.
const FLOOR_LAUNCHES: u32 = 1000;

/// Seconds per launch of `kernel` (no parameters, one block of 32 threads), launched
/// [`FLOOR_LAUNCHES`] times back to back on the handle's stream, after one untimed launch.
fn time_launches(nvshmem: &Nvshmem, kernel: &Kernel<'_>) -> Result<f64, Box<dyn Error>> {
    let on = nvshmem.on(nvshmem.stream())?;
    // SAFETY: `nothing` and `barrier_all` take no parameters; every PE times the same kernels.
    unsafe { launch_one(on, kernel, &[])? };
    let timer = StreamTimer::new(nvshmem)?;
    timer.start()?;
    for _ in 0..FLOOR_LAUNCHES {
        // SAFETY: as above.
        unsafe { launch_one(on, kernel, &[])? };
    }
    timer.stop()?;
    Ok(timer.seconds()? / f64::from(FLOOR_LAUNCHES))
}

/// The copy rate of a working set of two arrays of `bytes` each, in bytes moved per second: the
/// best of four launches of `copy_trips` (the first also touches the arrays), each copying back and
/// forth enough times to take well over a launch.
fn fit_copy_rate(
    nvshmem: &Nvshmem,
    common: &CommonKernels<'_>,
    bytes: usize,
) -> Result<f64, Box<dyn Error>> {
    let stream = nvshmem.stream();
    let words = bytes.div_ceil(16).max(1);
    let a = stream.alloc_zeros::<u8>(words * 16)?;
    let b = stream.alloc_zeros::<u8>(words * 16)?;
    let ((a_address, _a), (b_address, _b)) = (a.device_ptr(stream), b.device_ptr(stream));
    let trips: u32 = (((1u64 << 30) / words as u64 / 16) as u32).clamp(4, 1000);
    let on = nvshmem.on(stream)?;
    let timer = StreamTimer::new(nvshmem)?;
    let mut best = f64::INFINITY;
    for _ in 0..4 {
        timer.start()?;
        // SAFETY: copy_trips(a, b, len, trips) on two buffers of `words` 16-byte words.
        unsafe {
            on.launch(
                &common.copy_trips,
                LaunchConfig::linear(1024, 256),
                &[
                    &(a_address as *mut [f32; 4]),
                    &(b_address as *mut [f32; 4]),
                    &words,
                    &trips,
                ],
            )?
        };
        timer.stop()?;
        best = best.min(timer.seconds()?);
    }
    Ok(2.0 * (words * 16) as f64 * f64::from(trips) / best)
}

/// The GPU's device-to-device copy rate, in bytes moved per second (each copied byte is read once
/// and written once, so a copy of `n` bytes moves `2n`): the best of `rounds` timings of
/// `copies` back-to-back copies of `bytes` bytes on the handle's stream, after one untimed copy.
///
/// This is the memory floor's yardstick: a bandwidth-bound kernel that reads `r` and writes `w`
/// bytes cannot take less than `(r + w) / rate`.
fn copy_rate(
    nvshmem: &Nvshmem,
    bytes: usize,
    copies: u32,
    rounds: u32,
) -> Result<f64, nvshmem_host::Error> {
    let stream = nvshmem.stream();
    let allocate = || {
        stream
            .alloc_zeros::<u8>(bytes.max(1))
            .doing("allocating device memory")
    };
    let (source, mut destination) = (allocate()?, allocate()?);
    let mut copy = || {
        stream
            .memcpy_dtod(&source, &mut destination)
            .doing("copying device memory")
    };
    copy()?;
    let timer = StreamTimer::new(nvshmem)?;
    let mut best = f64::INFINITY;
    for _ in 0..rounds.max(1) {
        timer.start()?;
        for _ in 0..copies.max(1) {
            copy()?;
        }
        timer.stop()?;
        best = best.min(timer.seconds()?);
    }
    Ok(2.0 * bytes as f64 * f64::from(copies.max(1)) / best)
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::flags::MAX_PES;
    use clap::CommandFactory;
    use nvshmem_halo::ProcessGrid;
    use nvshmem_launch::cli::JobArgs;
    use proptest::prelude::*;
    use proptest::sample::select;
    use proptest::test_runner::{Config, TestCaseError, TestRunner};
    use std::num::NonZeroUsize;
    use std::time::Duration;

    /// Splits a command line.
    pub fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    /// Checks `test` on 256 values of `strategy` (a short run, for CI); on a failure, panics with
    /// the smallest failing value proptest found.
    pub fn property<S: Strategy>(
        strategy: S,
        test: impl Fn(S::Value) -> Result<(), TestCaseError>,
    ) {
        let config = Config {
            cases: 256,
            failure_persistence: None,
            ..Config::default()
        };
        if let Err(failure) = TestRunner::new(config).run(&strategy, test) {
            panic!("{failure}");
        }
    }

    /// [`parse`] with the runner's parser `A`; a refusal as the text clap prints.
    pub fn parse_with<A: Parser + Into<Options>>(
        program: &Program,
        args: &[String],
    ) -> Result<Options, String> {
        parse::<A>(&program.rules, args).map_err(|error| {
            assert_eq!(error.exit_code(), 2, "{error}");
            error.to_string()
        })
    }

    /// The names `A`'s `--variant` takes, the default first.
    fn variants<A: CommandFactory>() -> Vec<String> {
        let command = A::command();
        let variant = command
            .get_arguments()
            .find(|arg| arg.get_id() == "variant")
            .expect("every runner takes --variant");
        let names: Vec<String> = variant
            .get_possible_values()
            .iter()
            .map(|value| value.get_name().to_string())
            .collect();
        let default = variant.get_default_values()[0].to_string_lossy();
        assert_eq!(names[0], default, "the default variant comes first");
        names
    }

    /// Whether `A` takes `--grid`.
    fn takes_grid<A: CommandFactory>() -> bool {
        A::command()
            .get_arguments()
            .any(|arg| arg.get_id() == "grid")
    }

    /// Every flag either runner takes.
    const FLAGS: [&str; 16] = [
        "-n",
        "--n-pes",
        "--pes-per-gpu",
        "--timeout",
        "--variant",
        "--nx",
        "--ny",
        "--iters",
        "--norm-every",
        "--check",
        "--stale-halo",
        "--block-x",
        "--rows-per-thread",
        "--append-result",
        "--grid",
        "--graph",
    ];

    /// The flags that take a count or a size, none of which may be zero or negative.
    const SIZE_FLAGS: [&str; 10] = [
        "-n",
        "--pes-per-gpu",
        "--timeout",
        "--nx",
        "--ny",
        "--iters",
        "--norm-every",
        "--block-x",
        "--rows-per-thread",
        "--graph",
    ];

    /// Whether a usage error, as clap prints it, names what it is about (one of `args`: a flag, by
    /// its long name too, or a value) and says what to pass instead: the values expected, the
    /// usage, or a flag to use.
    pub fn names_the_flag_and_the_fix(message: &str, args: &[String]) -> bool {
        let names = args.iter().any(|arg| {
            let spellings = match arg.as_str() {
                "-n" | "--n-pes" => vec!["-n", "--n-pes"],
                _ => vec![arg.as_str()],
            };
            spellings.iter().any(|flag| {
                message.contains(&format!("'{flag}"))
                    || message.starts_with(&format!("error: {flag} "))
            })
        });
        // Clap reads `-inf` as the short flags `-i`, `-n`, `-f` and names the first it lacks.
        let unexpected = message
            .strip_prefix("error: unexpected argument '")
            .and_then(|rest| rest.split_once('\''))
            .is_some_and(|(part, _)| args.iter().any(|arg| arg.contains(part)));
        let fix = [
            "expected ",
            " is not in ",
            "[possible values: ",
            "Usage: ",
            "; use ",
            "a value is required",
        ]
        .iter()
        .any(|fix| message.contains(fix));
        (names || unexpected) && fix && message.contains("try '--help'")
    }

    /// Values at the edges of what the flags take: zero, signs, overflow, infinities, NaN, junk.
    const EDGE_VALUES: [&str; 17] = [
        "0",
        "-1",
        "1",
        "3",
        "4294967296",
        "18446744073709551616",
        "1e400",
        "inf",
        "-inf",
        "NaN",
        "0.5",
        "",
        "x",
        "0x1",
        "99999x99999",
        "2x3",
        "--nx",
    ];

    /// A flag's value: numbers of every size and sign, variants, grids and junk.
    fn value(variants: Vec<String>) -> impl Strategy<Value = String> + use<> {
        prop_oneof![
            3 => (1u32..70_000).prop_map(|v| v.to_string()),
            1 => any::<i64>().prop_map(|v| v.to_string()),
            1 => any::<u64>().prop_map(|v| v.to_string()),
            1 => any::<f64>().prop_map(|v| v.to_string()),
            1 => select(EDGE_VALUES.to_vec()).prop_map(String::from),
            1 => select(variants),
            1 => "[0-9]{1,5}x[0-9]{1,5}",
            // Junk without control characters, which clap leaves out of its messages (escape
            // sequences whole) so that they cannot drive the terminal.
            1 => "[^\\p{Cc}]{0,8}",
        ]
    }

    /// A command line: mostly flags with values, so that parsing gets past the first few, and some
    /// stray words.
    fn command_line(variants: Vec<String>) -> impl Strategy<Value = Vec<String>> + use<> {
        let item = prop_oneof![
            6 => (select(FLAGS.to_vec()), value(variants.clone()))
                .prop_map(|(flag, value)| vec![flag.to_string(), value]),
            1 => select(FLAGS.to_vec()).prop_map(|flag| vec![flag.to_string()]),
            1 => value(variants).prop_map(|word| vec![word]),
        ];
        proptest::collection::vec(item, 0..8).prop_map(|items| items.concat())
    }

    /// Arbitrary command lines never panic, and every one refused is explained: the message names
    /// the flag (or the value, or the unknown argument) and says what to pass. Every flag is also
    /// tried with every edge value.
    pub fn any_command_line_parses_or_is_explained<A: Parser + Into<Options>>(program: &Program) {
        let explained = |args: &[String]| match parse_with::<A>(program, args) {
            Err(message) if !names_the_flag_and_the_fix(&message, args) => {
                Err(TestCaseError::fail(format!("{message:?} for {args:?}")))
            }
            _ => Ok(()),
        };
        for flag in FLAGS {
            for value in EDGE_VALUES {
                explained(&[flag.to_string(), value.to_string()]).unwrap();
            }
        }
        property(command_line(variants::<A>()), |args| explained(&args));
    }

    /// Valid options, for `A`, and the flags that ask for them, in any order.
    fn valid_options<A: CommandFactory>(
        program: &Program,
    ) -> impl Strategy<Value = (Options, Vec<String>)> + use<A> {
        let grid = if takes_grid::<A>() {
            proptest::option::of((1usize..=3, 1usize..=3)).boxed()
        } else {
            Just(None).boxed()
        };
        let jobs = (
            proptest::option::of(1usize..=8),
            proptest::option::of(1usize..=8),
            proptest::option::of(1u64..=100_000),
            grid,
            proptest::option::of("[a-zA-Z0-9./_-]{1,20}"),
        );
        let problem = (
            select(variants::<A>()),
            0usize..=4096,
            0usize..=4096,
            1u32..=100_000,
            1u32..=100,
            any::<(bool, bool)>(),
            1u32..=32,
            1u32..=64,
        );
        let single_launch = program.rules.single_launch;
        let no_graph = program.rules.no_graph;
        // A graph of `norm_every × m` iterations, replayed `c` times.
        let graph_request = proptest::option::of((1u32..=4, 1u32..=50));
        (jobs, problem, graph_request)
            .prop_flat_map(move |(jobs, problem, graph_request)| {
                let (n, pes_per_gpu, timeout, grid, append_result) = jobs;
                let (variant, nx, ny, iters, norm_every, (check, stale), warps, rows_per_band) =
                    problem;
                // With a grid, `-n` must be its size; every grid fits 11 x 11 cells and up.
                let n_pes = grid
                    .map_or(n, |(px, py)| n.map(|_| px * py))
                    .and_then(NonZeroUsize::new);
                let graph = graph_request
                    .filter(|_| no_graph.iter().all(|(name, _)| *name != variant))
                    .map(|(m, c)| (norm_every * m, c));
                let iters = graph.map_or(iters, |(k, c)| k * c);
                // Asked for only where it is accepted.
                let stale_halo = stale
                    && check
                    && iters >= 2
                    && !single_launch.contains(&variant.as_str())
                    && n_pes.is_none_or(|n| n.get() >= 2);
                let options = Options {
                    job: JobArgs {
                        n_pes,
                        pes_per_gpu: pes_per_gpu.and_then(NonZeroUsize::new),
                        timeout: timeout.map(Duration::from_secs),
                    },
                    variant,
                    graph: graph.map(|(k, _)| k),
                    nx: 11 + nx,
                    ny: 11 + ny,
                    iters,
                    norm_every,
                    check,
                    stale_halo,
                    block_x: 32 * warps,
                    rows_per_band,
                    grid: grid.map(|(px, py)| ProcessGrid { px, py }),
                    append_result,
                };
                let flags = flags_of(&options);
                (Just(options), Just(flags).prop_shuffle())
            })
            .prop_map(|(options, flags)| (options, flags.concat()))
    }

    /// The flags that ask for `options`, one group per flag.
    fn flags_of(options: &Options) -> Vec<Vec<String>> {
        let pair = |flag: &str, value: String| vec![flag.to_string(), value];
        let mut flags = vec![
            pair("--variant", options.variant.clone()),
            pair("--nx", options.nx.to_string()),
            pair("--ny", options.ny.to_string()),
            pair("--iters", options.iters.to_string()),
            pair("--norm-every", options.norm_every.to_string()),
            pair("--block-x", options.block_x.to_string()),
            pair("--rows-per-thread", options.rows_per_band.to_string()),
        ];
        let job = &options.job;
        flags.extend(job.n_pes.map(|n| pair("-n", n.to_string())));
        flags.extend(
            job.pes_per_gpu
                .map(|k| pair("--pes-per-gpu", k.to_string())),
        );
        flags.extend(
            job.timeout
                .map(|t| pair("--timeout", t.as_secs().to_string())),
        );
        flags.extend(
            options
                .grid
                .map(|g| pair("--grid", format!("{}x{}", g.px, g.py))),
        );
        flags.extend(options.graph.map(|k| pair("--graph", k.to_string())));
        flags.extend(
            options
                .append_result
                .clone()
                .map(|f| pair("--append-result", f)),
        );
        if options.check {
            flags.push(vec!["--check".to_string()]);
        }
        if options.stale_halo {
            flags.push(vec!["--stale-halo".to_string()]);
        }
        flags
    }

    /// Valid options written as flags, in any order, parse back to the same options.
    pub fn valid_flags_round_trip<A: Parser + Into<Options>>(program: &Program) {
        property(valid_options::<A>(program), |(options, flags)| {
            prop_assert_eq!(parse_with::<A>(program, &flags), Ok(options));
            Ok(())
        });
    }

    /// Zero and negative counts and sizes (and sides below 3), more PEs than interior cells, and
    /// unknown variants are refused, naming the flag and the fix.
    pub fn bad_sizes_pe_counts_and_variants_are_refused<A: Parser + Into<Options>>(
        program: &Program,
    ) {
        let refused = |args: &[String]| -> Result<String, TestCaseError> {
            let message = parse_with::<A>(program, args)
                .err()
                .ok_or_else(|| TestCaseError::fail(format!("{args:?} was accepted")))?;
            prop_assert!(names_the_flag_and_the_fix(&message, args), "{message:?}");
            Ok(message)
        };
        property(
            (select(SIZE_FLAGS.to_vec()), i64::MIN..=0),
            |(flag, value)| {
                refused(&[flag.to_string(), value.to_string()])?;
                Ok(())
            },
        );
        property((select(vec!["--nx", "--ny"]), 1usize..3), |(flag, side)| {
            refused(&[flag.to_string(), side.to_string()])?;
            Ok(())
        });
        // At most 31 x 31 interior cells, fewer than MAX_PES.
        let too_many_pes = (3usize..=33, 3usize..=33).prop_flat_map(|(nx, ny)| {
            let cells = (nx - 2) * (ny - 2);
            (Just(nx), Just(ny), cells + 1..=MAX_PES)
        });
        property(too_many_pes, |(nx, ny, n)| {
            let message = refused(&args(&format!("--nx {nx} --ny {ny} -n {n}")))?;
            prop_assert!(
                message.starts_with(&format!("error: -n {n}: ")),
                "{message:?}"
            );
            Ok(())
        });
        property(MAX_PES + 1..=usize::MAX, |n| {
            refused(&args(&format!("-n {n}")))?;
            Ok(())
        });
        let known = variants::<A>();
        let unknown = "[a-z-]{0,12}".prop_filter("a variant", move |v| !known.contains(v));
        property(unknown, |variant| {
            let message = refused(&["--variant".to_string(), variant])?;
            let list = format!("[possible values: {}]", variants::<A>().join(", "));
            prop_assert!(message.contains(&list), "{message:?}");
            Ok(())
        });
    }

    /// `--help` exits 0 and names every flag; `--version` exits 0.
    pub fn help_names_every_flag_and_version_exits_0<A: Parser + Into<Options>>(program: &Program) {
        nvshmem_launch::cli::assert_help_and_version::<A>();
        let text = parse::<A>(&program.rules, ["--help"])
            .unwrap_err()
            .to_string();
        for flag in FLAGS {
            let taken = flag != "--grid" || takes_grid::<A>();
            assert_eq!(text.contains(flag), taken, "{flag} in\n{text}");
        }
    }

    /// The `#[test]` functions every runner shares, written into the calling test module for
    /// `$args` (the runner's parser) and `$program` (a `&Program`).
    macro_rules! shared_flag_tests {
        ($args:ty, $program:expr) => {
            #[test]
            fn any_command_line_parses_or_is_explained() {
                $crate::solver::tests::any_command_line_parses_or_is_explained::<$args>($program);
            }

            #[test]
            fn valid_flags_round_trip() {
                $crate::solver::tests::valid_flags_round_trip::<$args>($program);
            }

            #[test]
            fn bad_sizes_pe_counts_and_variants_are_refused() {
                $crate::solver::tests::bad_sizes_pe_counts_and_variants_are_refused::<$args>(
                    $program,
                );
            }

            #[test]
            fn help_names_every_flag_and_version_exits_0() {
                $crate::solver::tests::help_names_every_flag_and_version_exits_0::<$args>($program);
            }

            #[test]
            fn shared_flags_parse_and_bad_ones_are_usage_errors() {
                $crate::solver::tests::shared_flags_parse_and_bad_ones_are_usage_errors::<$args>(
                    $program,
                );
            }
        };
    }
    pub(crate) use shared_flag_tests;

    /// Checks the flags every runner shares against `program`.
    pub fn shared_flags_parse_and_bad_ones_are_usage_errors<A: Parser + Into<Options>>(
        program: &Program,
    ) {
        let parse = |line: &str| parse_with::<A>(program, &args(line));
        let variants = variants::<A>();
        let variant = &variants[variants.len() - 1];
        let o = parse(&format!(
            "--variant {variant} --nx 64 --ny 40 --iters 7 --norm-every 3 --check"
        ))
        .unwrap();
        assert_eq!(&o.variant, variant);
        assert_eq!(
            (o.nx, o.ny, o.iters, o.norm_every, o.check),
            (64, 40, 7, 3, true)
        );
        let defaults = parse("").unwrap();
        assert_eq!(defaults.variant, variants[0]);
        assert_eq!(
            (
                defaults.nx,
                defaults.ny,
                defaults.iters,
                defaults.norm_every
            ),
            (16384, 16384, 1000, 1)
        );
        assert_eq!(defaults.tiling().block_x, 128);
        assert_eq!(defaults.tiling().rows_per_band, 8);
        for bad in [
            "--nx 0",
            "--ny -5",
            "--nx 2",
            "--iters 0",
            "--norm-every 0",
            "--variant nope",
            "--block-x 100",
            "-n 5 --ny 6 --nx 3",
            "--frobnicate",
            "--nx",
        ] {
            assert!(parse(bad).is_err(), "{bad} was accepted");
        }
        let error = parse("--variant nope").unwrap_err();
        assert!(error.contains(&variants.join(", ")), "{error}");
        let stale = |flags: &str| parse(&format!("--stale-halo {flags}"));
        let plantable = &variants[0];
        assert!(stale(&format!("--check --iters 2 -n 2 --variant {plantable}")).is_ok());
        for (flags, fix) in [
            ("--iters 5", "use it with --check"),
            ("--check --iters 1", "use --iters 2 or more"),
            ("--check -n 1", "use -n 2 or more"),
        ] {
            let error = stale(flags).unwrap_err();
            assert!(
                error.starts_with("error: --stale-halo ") && error.contains(fix),
                "{error}"
            );
        }
        for variant in program.rules.single_launch {
            let error = stale(&format!("--check --variant {variant}")).unwrap_err();
            assert!(error.contains("use another --variant"), "{error}");
        }
        let graph = |flags: &str| parse(&format!("--graph {flags}"));
        let o = graph("10 --iters 200 --norm-every 5").unwrap();
        assert_eq!((o.graph, o.iters), (Some(10), 200));
        for (flags, fix) in [
            ("7 --iters 20", "use --iters 21, or a K that divides 20"),
            (
                "6 --iters 24 --norm-every 4",
                "use --graph 8 and --iters a multiple of it",
            ),
        ] {
            let error = graph(flags).unwrap_err();
            assert!(error.starts_with("error: --graph "), "{error}");
            assert!(error.contains(fix), "{error}");
        }
        for (variant, why) in program.rules.no_graph {
            let error = graph(&format!("1 --variant {variant}")).unwrap_err();
            let use_instead = format!("{why}; use --variant {}", program.rules.graphable);
            assert!(error.contains(&use_instead), "{error}");
        }
    }

    #[test]
    fn the_cpu_reference_matches_a_hand_computed_step() {
        // 5 × 4: interior 3 × 2 starting at v(x, y); the left and right columns hold b1 and b2 in
        // rows 1 and 2, the top and bottom rows 0. One step: 0.25 (east + west + south + north).
        let (cells, norm) = cpu_jacobi(5, 4, 1);
        let b1 = (2.0 * std::f64::consts::PI / 3.0).sin() as f32;
        let b2 = (4.0 * std::f64::consts::PI / 3.0).sin() as f32;
        let v = problem::initial_interior;
        let expected = [
            0.25 * (v(1, 0) + b1 + v(0, 1) + 0.0),
            0.25 * (v(2, 0) + v(0, 0) + v(1, 1) + 0.0),
            0.25 * (b1 + v(1, 0) + v(2, 1) + 0.0),
            0.25 * (v(1, 1) + b2 + 0.0 + v(0, 0)),
            0.25 * (v(2, 1) + v(0, 1) + 0.0 + v(1, 0)),
            0.25 * (b2 + v(1, 1) + 0.0 + v(2, 0)),
        ];
        let got = [&cells[6..9], &cells[11..14]].concat();
        assert_eq!(got, expected);
        let before = [v(0, 0), v(1, 0), v(2, 0), v(0, 1), v(1, 1), v(2, 1)];
        let squares: f64 = (0..6)
            .map(|i| f64::from(expected[i] - before[i]).powi(2))
            .sum();
        assert!((norm - squares.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn cells_must_be_equal_and_the_norm_close() {
        assert_eq!(differing_cells(&[1.0, 2.0], &[1.0, 2.0]), 0);
        assert_eq!(
            differing_cells(&[1.0, 2.0 + f32::EPSILON * 2.0], &[1.0, 2.0]),
            1
        );
        assert_eq!(differing_cells(&[f32::NAN, 1.0], &[f32::NAN, 1.0]), 1);
        assert_eq!(differing_cells(&[1.0], &[1.0, 2.0, 3.0]), 2);
        // One cell off by one unit in the last place: far inside the old 1e-6 tolerance, a failure.
        let off = Comparison::of(&[1.0, 1.0 + f32::EPSILON], &[1.0, 1.0], 2.0, 2.0);
        assert_eq!((off.differing, off.norm), (1.0, 0.0));
        assert!(off.largest < 1e-6 && off.failed());
        let close = Comparison::of(&[1.0], &[1.0], 1.0 + 0.5 * NORM_TOLERANCE, 1.0);
        assert!(!close.failed());
        let far = Comparison::of(&[1.0], &[1.0], 1.0 + 2.0 * NORM_TOLERANCE, 1.0);
        assert!(far.failed());
    }

    #[test]
    fn reports_travel_as_values_and_name_what_differs() {
        let off = Comparison::of(&[1.0, 3.0], &[1.0, 2.0], 2.0, 2.0);
        for report in [
            PeReport {
                seconds: 1.5,
                gpu: None,
                cpu: None,
            },
            PeReport {
                seconds: 1.5,
                gpu: Some(off),
                cpu: None,
            },
            PeReport {
                seconds: 1.5,
                gpu: Some(off),
                cpu: Some(off),
            },
        ] {
            assert_eq!(PeReport::from_slice(&report.to_array()), report);
            assert_eq!(report.failed(), report.gpu.is_some());
        }
        assert_eq!(
            off.to_string(),
            "1 cells differ (largest relative |diff| 5.000e-1), norm 0.000e0 off (limit 1e-4)"
        );
        let total = Comparison::total([off, off].into_iter()).unwrap();
        assert_eq!((total.differing, total.largest), (2.0, 0.5));
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

    #[test]
    fn the_heap_fits_the_arrays() {
        /// The shared flags alone.
        #[derive(Parser)]
        struct Shared {
            #[command(flatten)]
            options: Options,
        }
        impl From<Shared> for Options {
            fn from(shared: Shared) -> Options {
                shared.options
            }
        }
        let program = Program {
            rules: Rules {
                single_launch: &[],
                no_graph: &[],
                graphable: "",
                decompose: |_, _| unreachable!(),
            },
            run: |_, _, _| unreachable!(),
        };
        let o = parse_with::<Shared>(&program, &args("--nx 16384 --ny 16384 --check")).unwrap();
        let whole = Patch::whole(16382, 16382);
        let bytes = symmetric_heap_bytes(&o, &whole, 1);
        assert!(bytes >= 4 * whole.len() * 4, "{bytes}");
        // A long run takes no more symmetric memory than a short one: 10^9 iterations, the norm
        // after each, on 4 PEs, against 10^3.
        let heap = |iters: u32| {
            let line = format!("--nx 4096 --ny 4096 --iters {iters} --norm-every 1");
            let o = parse_with::<Shared>(&program, &args(&line)).unwrap();
            symmetric_heap_bytes(&o, &Patch::whole(4094, 1024), 4)
        };
        assert!(
            heap(1_000_000_000) <= heap(1000),
            "{} > {}",
            heap(1_000_000_000),
            heap(1000)
        );
    }
}
