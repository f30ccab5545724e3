//! A 3-D Jacobi on a 3-D process grid: 7-point and 27-point stencils, `f32` and `f64`. The grid of
//! `nx × ny × nz` cells (open boundaries with fixed values) is split by `nvshmem-halo`'s
//! [`Decomposition3d`]; every iteration each PE exchanges its faces (and, for 27 points, its edges
//! and corners) with its neighbours, packed on the device and put with signals, then sweeps its box
//! (`examples/stencil3d/kernels`).
//!
//! ```text
//! cargo run --release -p stencil3d -- [-n PES] [--pes-per-gpu K] [--nx N] [--ny N] [--nz N]
//!     [--iters K] [--points 7|27|all] [--precision f32|f64|all] [--grid PXxPYxPZ] [--check]
//!     [--plant stale-face]
//! ```
//!
//! Output, per stencil and cell type: with `--check`, one line per PE, `OK` or `differs` with the
//! count and the first differing cell, against the whole grid run on one GPU and on the CPU
//! (bitwise); then PE 0's `result:` line (`points= precision= pes= grid= n= iters= ms_per_iter=
//! bytes_per_iter= gbps= copy_gbps= floor_fraction= check=`): the bytes an iteration must move
//! (every cell read once and written once), the rate that makes, the device-to-device copy rate
//! PE 0 measured in the same run, and their ratio, the fraction of the memory floor reached. Under
//! MPS PE 0 copies with its share of the GPU, so only a run of one PE measures the whole GPU's
//! rate (`bench/run-stencil3d.sh` takes that one for every row). Exits non-zero on any difference
//! or error.

mod args;

use args::{Args, Plant, Points, Precision};
use bytemuck::Pod;
use clap::Parser;
use nvshmem_gpu::Element;
use nvshmem_halo::{
    Boundary, Decomposition3d, DecompositionError, Direction3d, Patch3d, ProcessGrid3d,
    packing::HaloPacking3d,
};
use nvshmem_host::environment::DEFAULT_SYMMETRIC_SIZE;
use nvshmem_host::timing;
use nvshmem_host::{
    Bootstrap, LaunchShape, Module, Nvshmem, SafeKernel, SliceParam, SymmetricBuffer,
};
use std::fmt::Debug;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use stencil3d_kernels::{
    Real, SweepBox, boundary, initial, owned_cell, owned_cells, shifted, update7, update27,
};

const KERNELS: nvshmem_host::ModuleImage = nvshmem_host::module_image!("STENCIL3D_KERNELS");
const OPEN: [Boundary; 3] = [Boundary::Open; 3];

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let options = Args::parse();
    nvshmem_launch::run_pe_or_relaunch(
        "stencil3d",
        &options.job,
        Bootstrap::detect_pe(),
        |bootstrap| run_pe(bootstrap, &options),
    )
}

/// The decomposition `args` ask for on `n_pes` PEs.
fn decompose(args: &Args, n_pes: usize) -> Result<Decomposition3d, DecompositionError> {
    let cells = [args.nx, args.ny, args.nz].map(|n| n as usize);
    match args.grid {
        Some(dims) => Decomposition3d::new(cells, ProcessGrid3d::new(dims, n_pes)?, OPEN),
        None => Decomposition3d::for_pes(cells, n_pes, OPEN),
    }
}

/// The symmetric heap this run asks for (see [`Nvshmem::init_with_heap`]): NVSHMEM's default
/// (1 GiB) holds neither 512³ `f64` arrays nor, with `--check`, the whole grid beside a PE's box.
fn run_heap_bytes(args: &Args, bootstrap: &Bootstrap) -> usize {
    let n_pes = match bootstrap {
        Bootstrap::Launcher(identity) => identity.n_pes,
        _ => 1,
    };
    // Under another process manager the PE count is not known yet: one PE's sizes are the most.
    // A decomposition that fails is reported by `run_pe`, with the real PE count.
    let Ok(decomposition) = decompose(args, n_pes.max(1)) else {
        return DEFAULT_SYMMETRIC_SIZE as usize;
    };
    let f64_bytes = size_of::<f64>();
    let mut bytes =
        (2 * decomposition.patch(0).len() + HaloPacking3d::new(&decomposition).len()) * f64_bytes;
    if args.check {
        bytes += 2 * Patch3d::whole(decomposition.cells()).len() * f64_bytes;
    }
    bytes + (256 << 20)
}

/// The sweeps' parameters: source, destination, and the box (`nx`, `ny`, `nz`, `lx`, `ly`).
type SweepParams<T> = (SliceParam<T>, SliceParam<T>, u32, u32, u32, u32, u32);

/// A cell type with its kernels' launch descriptors.
trait Cell: Real + Element + Pod + Debug {
    const NAME: &'static str;
    type Exchange: SafeKernel<
        Params = (
            SliceParam<Self>,
            SliceParam<Self>,
            SliceParam<u64>,
            SliceParam<u32>,
            u32,
            u32,
        ),
    >;
    type Stencil7: SafeKernel<Params = SweepParams<Self>>;
    type Stencil27: SafeKernel<Params = SweepParams<Self>>;
    /// The bits, for the exact comparison.
    fn bits(self) -> u64;
}

impl Cell for f32 {
    const NAME: &'static str = "f32";
    type Exchange = stencil3d_kernels::ExchangeF32;
    type Stencil7 = stencil3d_kernels::Stencil7F32;
    type Stencil27 = stencil3d_kernels::Stencil27F32;
    fn bits(self) -> u64 {
        self.to_bits().into()
    }
}

impl Cell for f64 {
    const NAME: &'static str = "f64";
    type Exchange = stencil3d_kernels::ExchangeF64;
    type Stencil7 = stencil3d_kernels::Stencil7F64;
    type Stencil27 = stencil3d_kernels::Stencil27F64;
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

fn run_pe(bootstrap: Bootstrap, args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let heap_bytes = run_heap_bytes(args, &bootstrap);
    let nvshmem = Nvshmem::init_with_heap(bootstrap, heap_bytes)?;
    let (me, n_pes) = (nvshmem.my_pe() as usize, nvshmem.n_pes() as usize);
    let decomposition = decompose(args, n_pes)?;
    let module = nvshmem.load_module(KERNELS)?;
    let copy_rate = timing::memory_floor(&nvshmem)?;
    let mut failures = 0;
    let points: &[u32] = match args.points {
        Points::Seven => &[7],
        Points::TwentySeven => &[27],
        Points::All => &[7, 27],
    };
    for &points in points {
        if matches!(args.precision, Precision::F32 | Precision::All) {
            failures += usize::from(!run_case::<f32>(
                &nvshmem,
                &module,
                &decomposition,
                points,
                args,
                copy_rate,
            )?);
        }
        if matches!(args.precision, Precision::F64 | Precision::All) {
            failures += usize::from(!run_case::<f64>(
                &nvshmem,
                &module,
                &decomposition,
                points,
                args,
                copy_rate,
            )?);
        }
    }
    drop(module);
    nvshmem.finalize()?;
    if failures > 0 {
        return Err(
            format!("{failures} run(s) differ from the reference (PE {me} of {n_pes})").into(),
        );
    }
    Ok(())
}

/// Runs one stencil in one cell type on the decomposition (and, with `--check`, the whole grid on
/// this GPU and on the CPU); returns whether every checked cell matched.
fn run_case<T: Cell>(
    nvshmem: &Nvshmem,
    module: &Module<'_>,
    decomposition: &Decomposition3d,
    points: u32,
    args: &Args,
    copy_rate: f64,
) -> Result<bool, Box<dyn std::error::Error>> {
    let (me, n_pes) = (nvshmem.my_pe() as usize, nvshmem.n_pes() as usize);
    let patch = decomposition.patch(me);
    let packing = HaloPacking3d::new(decomposition);
    let stale = match args.plant {
        Some(Plant::StaleFace) => (0..Direction3d::FACES)
            .find(|&d| patch.neighbour(Direction3d::from_index(d)).is_some())
            .map_or(u32::MAX, |d| d as u32),
        None => u32::MAX,
    };
    let started = Instant::now();
    let mut run = Run::<T>::new(nvshmem, decomposition.cells(), &patch, packing.len())?;
    // Every PE's signals are zero before any PE's first put.
    nvshmem.barrier_all();
    let waiting = waiting_blocks(decomposition, points, nvshmem_launch::pe_env::pes_per_gpu());
    let elapsed = run.iterate(nvshmem, module, points, args.iters, stale, waiting)?;
    let ms_per_iter = elapsed.as_secs_f64() * 1e3 / f64::from(args.iters);
    // Fetched only to be checked: at 512^3 the array is over a gigabyte.
    let got = if args.check {
        run.result()?
    } else {
        Vec::new()
    };
    drop(run);
    log::debug!("set-up and run took {:?}", started.elapsed());

    let mut passed = true;
    let check = if args.check {
        let whole = Patch3d::whole(decomposition.cells());
        let mut single = Run::<T>::new(nvshmem, decomposition.cells(), &whole, 1)?;
        single.iterate(nvshmem, module, points, args.iters, u32::MAX, 0)?;
        let one_gpu = single.result()?;
        drop(single);
        let cpu = cpu_reference::<T>(&whole, decomposition.cells(), points, args.iters);
        let against_gpu = differences(&patch, &got, &whole, &one_gpu);
        let against_cpu = differences(&patch, &got, &whole, &cpu);
        let name = format!("stencil3d {points}-point {}", T::NAME);
        let boxed = format!(
            "box {}x{}x{} at {:?}",
            patch.n[0], patch.n[1], patch.n[2], patch.origin
        );
        if against_gpu.count == 0 && against_cpu.count == 0 {
            println!(
                "{name}: PE {me}/{n_pes} ({boxed}): OK: {} cells equal to one GPU and the CPU, bitwise",
                owned_cells(&patch)
            );
        } else {
            passed = false;
            println!(
                "{name}: PE {me}/{n_pes} ({boxed}): PE {me} differs: {} cells from one GPU, {} from the CPU (first {:?})",
                against_gpu.count,
                against_cpu.count,
                against_gpu.first.or(against_cpu.first)
            );
        }
        if passed { "ok" } else { "fail" }
    } else {
        "off"
    };
    nvshmem.barrier_all();
    if me == 0 {
        let grid = decomposition.grid();
        let bytes = 2 * decomposition.cells().iter().product::<usize>() * size_of::<T>();
        let rate = bytes as f64 / (ms_per_iter / 1e3);
        println!(
            "result: points={points} precision={} pes={n_pes} grid={}x{}x{} n={}x{}x{} iters={} ms_per_iter={ms_per_iter:.4} bytes_per_iter={bytes} gbps={:.1} copy_gbps={:.1} floor_fraction={:.3} check={check}",
            T::NAME,
            grid.px,
            grid.py,
            grid.pz,
            args.nx,
            args.ny,
            args.nz,
            args.iters,
            rate / 1e9,
            copy_rate / 1e9,
            rate / copy_rate
        );
    }
    Ok(passed)
}

/// One run's symmetric buffers: the two arrays, the packing buffer, the signal words and the
/// patch's words.
struct Run<'nv, T: Cell> {
    current: SymmetricBuffer<'nv, T>,
    next: SymmetricBuffer<'nv, T>,
    packed: SymmetricBuffer<'nv, T>,
    signals: SymmetricBuffer<'nv, u64>,
    words: SymmetricBuffer<'nv, u32>,
    patch: Patch3d,
}

impl<'nv, T: Cell> Run<'nv, T> {
    /// Allocates the buffers (on every PE the same sizes: `patch.len()` and `packed_len` are the
    /// decomposition's) and fills both arrays with the starting values and the boundary.
    fn new(
        nvshmem: &'nv Nvshmem,
        grid: [usize; 3],
        patch: &Patch3d,
        packed_len: usize,
    ) -> Result<Run<'nv, T>, nvshmem_host::Error> {
        let start = starting_array::<T>(patch, grid);
        let mut current = nvshmem.alloc::<T>(patch.len())?;
        let mut next = nvshmem.alloc::<T>(patch.len())?;
        current.copy_from_host(&start)?;
        next.copy_from_host(&start)?;
        let packed = nvshmem.alloc_zeroed::<T>(packed_len)?;
        let signals = nvshmem.alloc_zeroed::<u64>(Direction3d::COUNT)?;
        let mut words = nvshmem.alloc::<u32>(Patch3d::WORDS)?;
        words.copy_from_host(&patch.to_words())?;
        Ok(Run {
            current,
            next,
            packed,
            signals,
            words,
            patch: *patch,
        })
    }

    /// `iters` iterations of exchange (when the patch has neighbours), then sweep into the other
    /// array; the result ends in `current`. The launches queue on the handle's stream one after
    /// another without a host step between them; the call returns once all have finished.
    /// `waiting_on_gpu`: how many exchange blocks of the PEs on this GPU may wait at once (see
    /// [`waiting_blocks`]). Returns the time of the iterations alone (not of finding the kernels).
    fn iterate(
        &mut self,
        nvshmem: &Nvshmem,
        module: &Module<'_>,
        points: u32,
        iters: u32,
        stale: u32,
        waiting_on_gpu: usize,
    ) -> Result<Duration, nvshmem_host::Error> {
        let exchange = module.typed_kernel::<T::Exchange>()?;
        let stencil7 = module.typed_kernel::<T::Stencil7>()?;
        let stencil27 = module.typed_kernel::<T::Stencil27>()?;
        let directions = if points == 7 {
            Direction3d::FACES
        } else {
            Direction3d::COUNT
        };
        let exchanges = neighbours(&self.patch, directions) > 0;
        // The sweep waits on nothing, so it is launched plainly: taken only as multiprocessors
        // come free. A cooperative sweep as large as the GPU could wait for room held by other
        // PEs' exchange blocks (several PEs on one GPU), which wait for this PE.
        let sweep_config = |kernel: &nvshmem_host::Kernel<'_>| {
            let resident = kernel
                .max_cooperative_blocks(LaunchShape::linear(1, SWEEP_TILE.0 * SWEEP_TILE.1))?
                .0;
            Ok::<_, nvshmem_host::Error>(sweep_shape(&self.patch, resident))
        };
        // One block per direction, all resident at once; those with a neighbour wait for it. Under
        // MPS a PE may use only its share of the multiprocessors, and the shares of one GPU's PEs
        // may be the same multiprocessors: the block is the largest with which this launch and
        // every waiting block of this GPU's PEs fit in one share. Otherwise a PE's exchange could
        // wait, for good, for room held by others that wait for it.
        let needed = directions.max(waiting_on_gpu);
        let mut exchange_threads = None;
        for threads in [512, 256, 128] {
            let limit = exchange
                .kernel()
                .max_cooperative_blocks(LaunchShape::linear(1, threads))?
                .0;
            if limit as usize >= needed {
                exchange_threads = Some(threads);
                break;
            }
        }
        let exchange_threads = exchange_threads.unwrap_or_else(|| {
            log::warn!(
                "the exchange's {needed} waiting blocks of this GPU's PEs do not all fit in one \
                 PE's share of it, even of 128 threads: the run may wait for good (give each PE a \
                 larger share, or put fewer PEs on a GPU)"
            );
            128
        });
        log::debug!("exchange blocks of {exchange_threads} threads ({needed} must fit at once)");
        let SweepBox {
            n: [nx, ny, nz],
            local: [lx, ly],
        } = SweepBox::of(&self.patch);
        let config7 = sweep_config(stencil7.kernel())?;
        let config27 = sweep_config(stencil27.kernel())?;
        let started = Instant::now();
        for iteration in 0..iters {
            if exchanges {
                let args = (
                    &self.current,
                    &self.packed,
                    &self.signals,
                    &self.words,
                    iteration,
                    stale,
                );
                exchange.launch_cooperative(
                    LaunchShape::linear(directions as u32, exchange_threads),
                    args,
                )?;
            }
            let args = (&self.current, &self.next, nx, ny, nz, lx, ly);
            if points == 7 {
                stencil7.launch(config7, args)?;
            } else {
                stencil27.launch(config27, args)?;
            }
            std::mem::swap(&mut self.current, &mut self.next);
        }
        nvshmem.synchronize()?;
        Ok(started.elapsed())
    }

    /// This PE's array after the run.
    fn result(&self) -> Result<Vec<T>, nvshmem_host::Error> {
        self.current.to_vec()
    }
}

/// Threads per block of the sweep along x and y: a tile of columns, x fastest (module docs of the
/// kernels), 32 wide so that a warp reads whole rows.
const SWEEP_TILE: (u32, u32) = (32, 8);

/// The sweep's launch over `patch`: one thread per owned column, in tiles of [`SWEEP_TILE`], and
/// the planes split into as many shares along z as give about twice the `resident` blocks the GPU
/// holds at once (a thread then marches through its share; shares that are too short re-read
/// the planes at their ends).
fn sweep_shape(patch: &Patch3d, resident: u32) -> LaunchShape {
    let [nx, ny, nz] = patch.n;
    let columns = nx.div_ceil(SWEEP_TILE.0) * ny.div_ceil(SWEEP_TILE.1);
    let shares = (2 * resident.max(1)).div_ceil(columns).clamp(1, nz.max(1));
    LaunchShape {
        grid: (nx.div_ceil(SWEEP_TILE.0), ny.div_ceil(SWEEP_TILE.1), shares),
        block: (SWEEP_TILE.0, SWEEP_TILE.1, 1),
        shared_mem_bytes: 0,
    }
}

/// The directions among the first `directions` in which `patch` has a neighbour: its exchange
/// blocks that wait.
fn neighbours(patch: &Patch3d, directions: usize) -> usize {
    (0..directions)
        .filter(|&d| patch.neighbour(Direction3d::from_index(d)).is_some())
        .count()
}

/// How many exchange blocks of the PEs sharing a GPU may wait at once: `pes_per_gpu` PEs, each with
/// as many as the PE with the most neighbours.
fn waiting_blocks(decomposition: &Decomposition3d, points: u32, pes_per_gpu: usize) -> usize {
    let directions = if points == 7 {
        Direction3d::FACES
    } else {
        Direction3d::COUNT
    };
    let busiest = (0..decomposition.n_pes())
        .map(|pe| neighbours(&decomposition.patch(pe), directions))
        .max()
        .unwrap_or(0);
    pes_per_gpu * busiest
}

/// A PE's local array before the first iteration: owned cells at their starting values, halo
/// cells beyond the grid at the fixed boundary values, and halo cells that neighbours fill zero (so
/// that a halo never exchanged shows).
fn starting_array<T: Cell>(patch: &Patch3d, grid: [usize; 3]) -> Vec<T> {
    let zero = T::ratio_1024(0);
    let mut array = vec![zero; patch.len()];
    for z in 0..=patch.n[2] + 1 {
        for y in 0..=patch.n[1] + 1 {
            for x in 0..=patch.n[0] + 1 {
                let local = [x, y, z];
                let global: [i64; 3] =
                    std::array::from_fn(|a| i64::from(patch.origin[a]) + i64::from(local[a]) - 1);
                let inside = (0..3).all(|a| (0..grid[a] as i64).contains(&global[a]));
                let owned = (0..3).all(|a| (1..=patch.n[a]).contains(&local[a]));
                array[patch.index(local)] = if owned {
                    initial(global.map(|g| g as u32))
                } else if inside {
                    zero
                } else {
                    boundary(global)
                };
            }
        }
    }
    array
}

/// The whole grid after `iters` iterations on the CPU, in `whole`'s layout, with the kernels'
/// own update functions.
fn cpu_reference<T: Cell>(whole: &Patch3d, grid: [usize; 3], points: u32, iters: u32) -> Vec<T> {
    let mut current = starting_array::<T>(whole, grid);
    let mut next = current.clone();
    for _ in 0..iters {
        for i in 0..owned_cells(whole) {
            let cell = owned_cell(whole, i);
            let at = |dx, dy, dz| current[whole.index(shifted(cell, dx, dy, dz))];
            next[whole.index(cell)] = if points == 7 {
                update7(at)
            } else {
                update27(at)
            };
        }
        std::mem::swap(&mut current, &mut next);
    }
    current
}

/// How many of this PE's owned cells differ, bitwise, from the same global cells of a whole-grid
/// array, and the first as `(global cell, got, expected)`.
struct Differences<T> {
    count: usize,
    first: Option<([u32; 3], T, T)>,
}

fn differences<T: Cell>(
    patch: &Patch3d,
    got: &[T],
    whole: &Patch3d,
    expected: &[T],
) -> Differences<T> {
    let mut found = Differences {
        count: 0,
        first: None,
    };
    for i in 0..owned_cells(patch) {
        let cell = owned_cell(patch, i);
        let global = std::array::from_fn(|a| patch.origin[a] + cell[a]);
        let (g, e) = (got[patch.index(cell)], expected[whole.index(global)]);
        if g.bits() != e.bits() {
            found.count += 1;
            found.first.get_or_insert((global.map(|c| c - 1), g, e));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvshmem_launch::cli::{assert_help_and_version, assert_usage_errors};

    fn parse(line: &str) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("stencil3d").chain(line.split_whitespace()))
    }

    #[test]
    fn waiting_blocks_count_every_pe_of_a_gpu_at_its_busiest() {
        let on =
            |cells: [usize; 3], pes: usize| Decomposition3d::for_pes(cells, pes, OPEN).unwrap();
        // 2x2x2: every PE has 3 faces, 3 edges and a corner.
        let cube = on([128; 3], 8);
        assert_eq!(waiting_blocks(&cube, 7, 8), 24);
        assert_eq!(waiting_blocks(&cube, 27, 8), 56);
        assert_eq!(waiting_blocks(&cube, 27, 1), 7);
        // A row of three: the middle PE waits on both sides, the ends on one.
        let row = Decomposition3d::new([96, 8, 8], ProcessGrid3d::new([3, 1, 1], 3).unwrap(), OPEN)
            .unwrap();
        assert_eq!(waiting_blocks(&row, 7, 3), 6);
        assert_eq!(waiting_blocks(&on([16; 3], 1), 27, 1), 0);
    }

    #[test]
    fn the_sweep_covers_every_column_and_splits_the_planes_for_the_gpu() {
        // 512 x 384 columns in 16 x 48 tiles; 1,000 resident blocks ask for 2,000: 3 shares.
        let flat = sweep_shape(&Patch3d::whole([512, 384, 16]), 1000);
        assert_eq!(flat.grid, (16, 48, 3));
        assert_eq!(flat.block, (32, 8, 1));
        // Few columns: a share per plane at most.
        let small = sweep_shape(&Patch3d::whole([37, 29, 23]), 1000);
        assert_eq!(small.grid, (2, 4, 23));
        // More columns than the GPU holds: one share, every thread through every plane.
        assert_eq!(
            sweep_shape(&Patch3d::whole([4096, 4096, 8]), 1000).grid.2,
            1
        );
    }

    #[test]
    fn flags_parse_and_bad_values_name_the_flag() {
        let args = parse("--nx 9 --ny 7 --nz 5 --iters 3 --points 27 --precision f64 --grid 1x2x2 --check --plant stale-face").unwrap();
        assert_eq!((args.nx, args.ny, args.nz, args.iters), (9, 7, 5, 3));
        assert_eq!(
            (args.points, args.precision),
            (Points::TwentySeven, Precision::F64)
        );
        assert_eq!(
            (args.grid, args.check, args.plant),
            (Some([1, 2, 2]), true, Some(Plant::StaleFace))
        );
        let defaults = parse("").unwrap();
        assert_eq!(
            (defaults.nx, defaults.points, defaults.grid),
            (128, Points::All, None)
        );
        assert_usage_errors::<Args>(&[
            ("--nx 0", "'0' for '--nx <NX>'"),
            ("--grid 2x2", "'2x2' for '--grid <PXxPYxPZ>'"),
            ("--grid 2x0x1", "'2x0x1' for '--grid <PXxPYxPZ>'"),
            ("--points 9", "'9' for '--points <POINTS>'"),
            ("--plant nothing", "'nothing' for '--plant <PLANT>'"),
        ]);
    }

    #[test]
    fn help_and_version_exit_0_and_help_names_every_flag() {
        assert_help_and_version::<Args>();
    }

    /// The decomposed iteration on the CPU: exchange halos between boxes as the kernels do
    /// (through the packing layout), then sweep each box. Must match the whole-grid reference
    /// bitwise, and not with a stale face.
    fn decomposed_on_cpu<T: Cell>(
        d: &Decomposition3d,
        points: u32,
        iters: u32,
        stale: bool,
    ) -> Vec<Vec<T>> {
        let patches: Vec<Patch3d> = (0..d.n_pes()).map(|pe| d.patch(pe)).collect();
        let mut arrays: Vec<Vec<T>> = patches
            .iter()
            .map(|p| starting_array(p, d.cells()))
            .collect();
        let directions = if points == 7 {
            Direction3d::FACES
        } else {
            Direction3d::COUNT
        };
        for _ in 0..iters {
            let snapshot = arrays.clone();
            for (pe, patch) in patches.iter().enumerate() {
                let skip = stale
                    .then(|| {
                        (0..Direction3d::FACES)
                            .find(|&i| patch.neighbour(Direction3d::from_index(i)).is_some())
                    })
                    .flatten();
                for index in 0..directions {
                    let direction = Direction3d::from_index(index);
                    let Some(from) = patch.neighbour(direction) else {
                        continue;
                    };
                    if Some(index) == skip {
                        continue;
                    }
                    let theirs = &patches[from as usize];
                    let send = theirs.send_region(direction.opposite());
                    let halo = patch.halo_region(direction);
                    for i in 0..halo.count() {
                        arrays[pe][patch.index(halo.cell(i))] =
                            snapshot[from as usize][theirs.index(send.cell(i))];
                    }
                }
            }
            for (pe, patch) in patches.iter().enumerate() {
                let source = arrays[pe].clone();
                for i in 0..owned_cells(patch) {
                    let cell = owned_cell(patch, i);
                    let at = |dx, dy, dz| source[patch.index(shifted(cell, dx, dy, dz))];
                    arrays[pe][patch.index(cell)] = if points == 7 {
                        update7(at)
                    } else {
                        update27(at)
                    };
                }
            }
        }
        arrays
    }

    #[test]
    fn the_decomposed_iteration_matches_the_whole_grid_and_a_stale_face_does_not() {
        let cells = [9, 7, 5];
        let whole = Patch3d::whole(cells);
        for points in [7, 27] {
            let reference = cpu_reference::<f64>(&whole, cells, points, 3);
            for n_pes in [1, 2, 3, 4, 6, 8] {
                let d = Decomposition3d::for_pes(cells, n_pes, OPEN).unwrap();
                let arrays = decomposed_on_cpu::<f64>(&d, points, 3, false);
                for (pe, array) in arrays.iter().enumerate() {
                    let diff = differences(&d.patch(pe), array, &whole, &reference);
                    assert_eq!(
                        diff.count, 0,
                        "{points} points, {n_pes} PEs, PE {pe}: {:?}",
                        diff.first
                    );
                }
                if n_pes > 1 {
                    let stale = decomposed_on_cpu::<f64>(&d, points, 3, true);
                    let wrong: usize = (0..n_pes)
                        .map(|pe| differences(&d.patch(pe), &stale[pe], &whole, &reference).count)
                        .sum();
                    assert!(
                        wrong > 0,
                        "{points} points, {n_pes} PEs: a stale face must show"
                    );
                }
            }
        }
    }
}
