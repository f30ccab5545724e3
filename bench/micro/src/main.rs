//! Micro-benchmarks of NVSHMEM calls made from Rust kernels (`bench/micro/kernels`), modelled on
//! what NVSHMEM's perftests measure. `bench/reference/micro.cu` is the same program in CUDA C++
//! (same kernels, flags, order, timing and output), and `bench/run-bench.sh` runs the two side by
//! side.
//!
//! ```text
//! nvshmemrun -n 2 --pes-per-gpu 2 dist/micro [--bench put_bw,get_bw,...] [--sizes 4K,1M] ...
//! cargo run --release -p micro -- -n 2 --pes-per-gpu 2     (relaunches itself)
//! ```
//!
//! PE 0 measures; the other PEs take part in barriers (and in the two-sided cases). While PE 0
//! measures, the others wait on the host, not in a barrier, whose kernel would spin on the GPU
//! beside the measured one (see [`Runner::end_case`]). One line per measurement, from PE 0:
//!
//! ```text
//! result: bench=put_bw impl=rust scope=block bytes=1048576 grid=8 pes=2 value=123.4567 unit=GB/s
//! ```
//!
//! and after each bandwidth case one `check:` line from the PE whose buffer received the data
//! (see [`check`]; outside the case's timing):
//!
//! ```text
//! check: bench=put_bw impl=rust scope=block bytes=1048576 grid=8 pes=2 status=pass mismatches=0
//! ```
//!
//! # Timing
//! - One-sided cases (`put_bw`, `get_bw`, `p_lat`, `put_lat`): `--warmup` untimed launches, then
//!   `--reps` timed ones, each between two CUDA events on the stream, right behind a 50 µs spinning
//!   kernel so that the start event is not recorded on an idle GPU while the host is still
//!   launching. The median launch time counts. Bandwidth = bytes × iterations ÷ time (GB/s =
//!   10⁹ B/s; a launch repeats the transfer to move about 256 MiB, 2 to 1000 times; the launches of
//!   a case move it at places spread over the buffers, see [`bw_offset`]); latency =
//!   time ÷ iterations (µs; a put-latency launch does `--lat-iters` puts, but no more than 1 MiB of
//!   them, and at least 10).
//! - Two-sided cases (`barrier_lat`, `pingpong_p`, `pingpong_signal`): every PE launches
//!   cooperatively; inside the kernel, 20 untimed barriers or round trips first line the PEs up,
//!   then the GPU's nanosecond clock times `--lat-iters` of them (launch skew between PEs would
//!   otherwise be counted). Median over `--reps` launches, each waited for before the next is
//!   queued: under MPS, a launch queued behind a running one slows the signal ping-pong's round
//!   trips in some processes at 3 PEs and more, in both programs, for all launches but the last.
//!   Barrier latency is time ÷ barriers;
//!   ping-pong latency is half a round trip (time ÷ round trips ÷ 2).
//! - Collectives (`reduce_lat`, `alltoall_lat`) are timed like the barrier, at each scope and each
//!   size of `--lat-sizes`: a sum reduction of `bytes ÷ 8` `u64`, or an `alltoall` in which every
//!   PE sends `bytes` to each PE (`bytes ÷ 8` `u64`; `bytes × PEs` in all, as NVSHMEM's perftests
//!   count it). With several PEs on one GPU NVSHMEM runs collectives only in its full
//!   multi-PE-per-GPU mode (MPS, and `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` ≤ 100 ÷ PEs per GPU);
//!   otherwise they are skipped, saying so.

mod check;

use check::{POISON, mismatches, pattern};
use clap::{Parser, ValueEnum};
use micro_args::{Bench, Grid, Options, Scope};
use nvshmem_host::timing::StreamTimer;
use nvshmem_host::{Bootstrap, KernelArg, LaunchShape, Module, Nvshmem, SymmetricBuffer};
use std::process::ExitCode;
use std::time::{Duration, Instant};

const KERNELS: nvshmem_host::ModuleImage = nvshmem_host::module_image!("MICRO_KERNELS");

/// How long the spinning kernel before each timed launch runs.
const DELAY_NS: u64 = 50_000;
/// Bandwidth launches repeat the transfer until about this many bytes have moved…
const BW_BYTES_PER_LAUNCH: usize = 256 << 20;
/// …but at least and at most this many times.
const BW_ITERS: (usize, usize) = (2, 1000);
/// Untimed barriers (or round trips) at the start of each two-sided launch.
const TWO_SIDED_WARMUP: u32 = 20;
/// How long the PEs that wait for PE 0 to end a case wait before they give up…
const CASE_LIMIT: Duration = Duration::from_secs(120);
/// …and how often they look (each look is a copy from the GPU: seldom, not to disturb the
/// measured kernel).
const CASE_POLL: Duration = Duration::from_millis(1);

/// A put-latency launch does `--lat-iters` puts, but fewer when they would move more than this
/// (a single thread copies slowly), and at least 10.
const PUT_LAT_BYTES_PER_LAUNCH: usize = 1 << 20;

/// Puts per put-latency launch of `bytes` bytes.
fn put_lat_iters(bytes: usize, lat_iters: u32) -> u32 {
    let by_size = PUT_LAT_BYTES_PER_LAUNCH.div_ceil(bytes).max(10);
    lat_iters.min(u32::try_from(by_size).unwrap_or(u32::MAX))
}

/// Transfers per bandwidth launch of `bytes` bytes.
fn bw_iters(bytes: usize) -> u32 {
    BW_BYTES_PER_LAUNCH
        .div_ceil(bytes)
        .clamp(BW_ITERS.0, BW_ITERS.1) as u32
}

/// Bandwidth launches start at multiples of this many bytes into the buffers (see [`bw_offset`]).
const BW_SLOT_ALIGN: usize = 256;

/// Where bandwidth launch `launch` of `launches` moves its `bytes`: the offset, in elements, into
/// buffers of `capacity` bytes. The launches spread evenly over the buffers' slots of `bytes`
/// (rounded up to [`BW_SLOT_ALIGN`]), so that a case is timed over many physical pages and not one
/// pair: how the driver placed the pages alone moves a case that lives in L2 by up to ±8 % between
/// processes. Source and destination move together.
fn bw_offset(launch: usize, launches: usize, bytes: usize, capacity: usize) -> usize {
    let stride = bytes.next_multiple_of(BW_SLOT_ALIGN);
    let slots = (capacity / stride).max(1);
    launch * slots / launches.max(1) * stride / 8
}

/// Ping-pong round trip `i` bounces its counter on place `i % PINGPONG_PLACES` of the flags buffer,
/// so that every launch is timed over that many places of memory, not one: where the driver put a
/// single place moved the same binary's round trip by up to 6 % between processes over NVLink.
const PINGPONG_PLACES: u32 = 16;

/// `u64` between two ping-pong places: 2 MiB and 128 B, so that each place lies on another large
/// page and in another line of L2.
const PINGPONG_PLACE_WORDS: usize = (2 << 20 | 128) / 8;

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let options = Options::parse();
    match Bootstrap::detect() {
        Ok(Bootstrap::SinglePe) => relaunch(&args, &options),
        Ok(bootstrap) => match run_pe(bootstrap, &options) {
            Ok(0) => ExitCode::SUCCESS,
            Ok(failed) => {
                eprintln!("micro: {failed} case(s) failed");
                ExitCode::FAILURE
            }
            Err(error) => {
                eprintln!("micro: {error}");
                ExitCode::FAILURE
            }
        },
        Err(error) => {
            eprintln!("micro: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Starts this program on 2 PEs (default: both on one GPU) through the launcher.
fn relaunch(args: &[std::ffi::OsString], options: &Options) -> ExitCode {
    let two = std::num::NonZeroUsize::MIN.saturating_add(1);
    let launch = match nvshmem_launch::Launch::current_program() {
        Ok(launch) => launch.args(args).n_pes(two).pes_per_gpu(two),
        Err(error) => {
            eprintln!("micro: cannot find this program's path to relaunch it: {error}");
            return ExitCode::FAILURE;
        }
    };
    let status = options.job.apply(launch).run_and_report();
    ExitCode::from(status.clamp(0, 255) as u8)
}

type Failure = Box<dyn std::error::Error>;

/// One PE's run: every selected benchmark in the fixed order; returns the number of failed cases.
fn run_pe(bootstrap: Bootstrap, options: &Options) -> Result<usize, Failure> {
    let nvshmem = Nvshmem::init_with(bootstrap)?;
    let module = nvshmem.load_module(KERNELS)?;
    let failed = {
        let mut runner = Runner::new(&nvshmem, &module, options)?;
        for &bench in Bench::value_variants() {
            if options.benches.contains(&bench) {
                runner.run(bench)?;
            }
        }
        runner.failed
    };
    drop(module);
    nvshmem.finalize()?;
    Ok(failed)
}

struct Runner<'a> {
    nvshmem: &'a Nvshmem,
    module: &'a Module<'a>,
    options: &'a Options,
    me: i32,
    n_pes: i32,
    peer: i32,
    sms: u32,
    source: SymmetricBuffer<'a, u64>,
    /// `--gap` bytes held between `source` and `dest` for as long as they live (none for 0).
    _gap: Option<SymmetricBuffer<'a, u8>>,
    dest: SymmetricBuffer<'a, u64>,
    elapsed: SymmetricBuffer<'a, u64>,
    flags: SymmetricBuffer<'a, u64>,
    /// The number of the last case PE 0 ended, written by the `release` kernel.
    ended: SymmetricBuffer<'a, u64>,
    /// Cases run so far.
    cases: u64,
    failed: usize,
}

impl<'a> Runner<'a> {
    /// Allocates (collectively, the same on every PE and in `micro.cu`): source and destination of
    /// the largest size (an alltoall's `--lat-sizes` count once per PE) with `--gap` bytes between
    /// them, one `u64` per two-sided launch for its time, the ping-pong words (two at each of
    /// [`PINGPONG_PLACES`] places, [`PINGPONG_PLACE_WORDS`] apart), the word that ends a case.
    fn new(
        nvshmem: &'a Nvshmem,
        module: &'a Module<'a>,
        options: &'a Options,
    ) -> Result<Runner<'a>, Failure> {
        let (me, n_pes) = (nvshmem.my_pe(), nvshmem.n_pes());
        let alltoall_bytes = options
            .lat_sizes
            .iter()
            .map(|&bytes| bytes * n_pes as usize);
        let largest = options
            .sizes
            .iter()
            .copied()
            .chain(alltoall_bytes)
            .max()
            .unwrap_or(8);
        let count = largest / 8;
        let mut source = nvshmem.alloc::<u64>(count)?;
        let gap = match options.gap {
            0 => None,
            bytes => Some(nvshmem.alloc::<u8>(bytes)?),
        };
        let dest = nvshmem.alloc::<u64>(count)?;
        let launches = options.launches();
        let elapsed = nvshmem.alloc_zeroed::<u64>(launches)?;
        let flags = nvshmem.alloc_zeroed::<u64>(PINGPONG_PLACES as usize * PINGPONG_PLACE_WORDS)?;
        let ended = nvshmem.alloc_zeroed::<u64>(1)?;
        let values: Vec<u64> = (0..count).map(|i| pattern(0, me, i)).collect();
        source.copy_from_host(&values)?;
        let probe = module.kernel("delay")?;
        let (_, _, sms) = probe.max_cooperative_blocks(LaunchShape::linear(1, 1))?;
        nvshmem.barrier_all();
        Ok(Runner {
            nvshmem,
            module,
            options,
            me,
            n_pes,
            peer: (me + 1) % n_pes,
            sms,
            source,
            _gap: gap,
            dest,
            elapsed,
            flags,
            ended,
            cases: 0,
            failed: 0,
        })
    }

    fn run(&mut self, bench: Bench) -> Result<(), Failure> {
        let options = self.options;
        match bench {
            Bench::PutBw | Bench::GetBw => self.bandwidth(bench),
            Bench::PLat => {
                let iters = self.options.lat_iters;
                let dest = self.dest.as_symmetric_ptr();
                self.one_sided_case(bench, Scope::Thread, 8, 1, |runner| {
                    let kernel = runner.module.kernel("p_latency")?;
                    let config = LaunchShape::linear(1, 1);
                    let times = runner.time_launches(|_| {
                        // SAFETY: p_latency(dest: *mut u64, iters: u32, peer: i32); dest holds a u64
                        // on every PE.
                        unsafe { kernel.launch(config, &[&dest, &iters, &runner.peer]) }
                    })?;
                    Ok(median_time(times) * 1e6 / f64::from(iters))
                })
            }
            Bench::PutLat => {
                let (dest, source) = (self.dest.as_symmetric_ptr(), self.source.as_symmetric_ptr());
                for &scope in &options.scopes {
                    for &bytes in &options.lat_sizes {
                        let (count, iters) = (bytes / 8, put_lat_iters(bytes, options.lat_iters));
                        self.one_sided_case(bench, scope, bytes, 1, |runner| {
                            let kernel = runner
                                .module
                                .kernel(&format!("put_latency_{}", scope.name()))?;
                            let threads = runner.scope_threads(scope);
                            let config = LaunchShape::linear(1, threads);
                            let times = runner.time_launches(|_| {
                                // SAFETY: put_latency_*(dest, source, count, iters, peer); both
                                // buffers hold `count` elements (the largest size) on every PE.
                                unsafe {
                                    kernel.launch(
                                        config,
                                        &[&dest, &source, &count, &iters, &runner.peer],
                                    )
                                }
                            })?;
                            Ok(median_time(times) * 1e6 / f64::from(iters))
                        })?;
                    }
                }
                Ok(())
            }
            Bench::BarrierLat => {
                let iters = options.lat_iters;
                for &scope in &options.scopes {
                    let kernel = self
                        .module
                        .kernel(&format!("barrier_latency_{}", scope.name()))?;
                    let config = LaunchShape::linear(1, self.scope_threads(scope));
                    self.two_sided_case(bench, scope, 0, f64::from(iters), |runner, launch| {
                        let slot = runner.slot(launch);
                        // SAFETY: barrier_latency_*(warmup: u32, iters: u32, elapsed_ns: *mut u64),
                        // launched alike on every PE.
                        unsafe {
                            kernel.launch_cooperative(config, &[&TWO_SIDED_WARMUP, &iters, &slot])
                        }
                    })?;
                }
                Ok(())
            }
            Bench::ReduceLat | Bench::AlltoallLat => self.collectives(bench),
            Bench::PingpongP | Bench::PingpongSignal => {
                let iters = options.lat_iters;
                let per_launch = u64::from(TWO_SIDED_WARMUP + iters);
                let kernel = self.module.kernel(bench.name())?;
                let config = LaunchShape::linear(1, 1);
                let (dest, source) = (self.dest.as_symmetric_ptr(), self.source.as_symmetric_ptr());
                let flags = self.flags.as_symmetric_ptr();
                let count = 1usize;
                let round_trips = f64::from(iters) * 2.0;
                // The p ping-pong uses the first word of each place, the signal ping-pong the
                // second. SAFETY: a place holds PINGPONG_PLACE_WORDS ≥ 2 words.
                let sigs = unsafe { flags.add(1) };
                self.two_sided_case(bench, Scope::Thread, 8, round_trips, |runner, launch| {
                    let slot = runner.slot(launch);
                    let base = launch as u64 * per_launch;
                    // pingpong_p(flags, …) and pingpong_signal(data, source, count, sigs, …) end
                    // in the same six parameters: places, place_words, warmup, iters, base,
                    // elapsed_ns.
                    let words: Vec<&dyn KernelArg> = if bench == Bench::PingpongP {
                        vec![&flags]
                    } else {
                        vec![&dest, &source, &count, &sigs]
                    };
                    let walk: [&dyn KernelArg; 6] = [
                        &PINGPONG_PLACES,
                        &PINGPONG_PLACE_WORDS,
                        &TWO_SIDED_WARMUP,
                        &iters,
                        &base,
                        &slot,
                    ];
                    let args: Vec<&dyn KernelArg> = words.into_iter().chain(walk).collect();
                    // SAFETY: the kernels' parameters, launched alike on every PE, with the flags
                    // buffer's PINGPONG_PLACES places; `base` grows past every value used before.
                    unsafe { kernel.launch_cooperative(config, &args) }
                })
            }
        }
    }

    /// Collective latency at each scope and size of `--lat-sizes` (see the module's notes).
    fn collectives(&mut self, bench: Bench) -> Result<(), Failure> {
        let options = self.options;
        let iters = options.lat_iters;
        let (dest, source) = (self.dest.as_symmetric_ptr(), self.source.as_symmetric_ptr());
        let collective = if bench == Bench::ReduceLat {
            "reduce"
        } else {
            "alltoall"
        };
        for &scope in &options.scopes {
            let kernel = self
                .module
                .kernel(&format!("{collective}_latency_{}", scope.name()))?;
            let config = LaunchShape::linear(1, self.scope_threads(scope));
            for &bytes in &options.lat_sizes {
                let count = bytes / 8;
                self.two_sided_case(bench, scope, bytes, f64::from(iters), |runner, launch| {
                    let slot = runner.slot(launch);
                    // SAFETY: *_latency_*(dest, source, count, warmup, iters, elapsed_ns), launched
                    // alike on every PE; a reduction touches `count` elements, an alltoall
                    // `count × PEs`, inside both buffers (they hold `--lat-sizes` × PEs);
                    // two_sided_case launches only where NVSHMEM runs collectives.
                    unsafe {
                        kernel.launch_cooperative(
                            config,
                            &[&dest, &source, &count, &TWO_SIDED_WARMUP, &iters, &slot],
                        )
                    }
                })?;
            }
        }
        Ok(())
    }

    /// Why two-sided case `bench` of `bytes` bytes cannot run here, if it cannot: the same answer
    /// on every PE, so that all of them skip it alike.
    fn obstacle(&self, bench: Bench, bytes: usize) -> Option<String> {
        let collectives = self.nvshmem.init_status().supports_teams_and_collectives();
        match bench {
            Bench::PingpongP | Bench::PingpongSignal if self.n_pes < 2 => {
                Some("needs 2 PEs".into())
            }
            Bench::ReduceLat | Bench::AlltoallLat if !collectives => Some(
                "NVSHMEM runs in its limited multi-PE-per-GPU mode: collectives with several PEs \
                 on one GPU need MPS and CUDA_MPS_ACTIVE_THREAD_PERCENTAGE at most 100 / PEs per GPU"
                    .into(),
            ),
            Bench::ReduceLat | Bench::AlltoallLat if bytes < 8 => {
                Some(format!("less than one u64 ({bytes} bytes)"))
            }
            _ => None,
        }
    }

    /// Threads of the one block a latency case launches.
    fn scope_threads(&self, scope: Scope) -> u32 {
        match scope {
            Scope::Thread => 1,
            Scope::Warp => 32,
            Scope::Block => self.options.threads,
        }
    }

    fn resolve(&self, grid: Grid) -> u32 {
        match grid {
            Grid::Blocks(blocks) => blocks,
            Grid::Sms => self.sms,
        }
    }

    /// One bandwidth sweep (scopes × sizes × grids); the receiving PE checks every case's data.
    fn bandwidth(&mut self, bench: Bench) -> Result<(), Failure> {
        let options = self.options;
        let capacity = self.dest.len() * 8;
        let launches = options.launches();
        let poison = vec![POISON; self.dest.len()];
        let (dest, source) = (self.dest.as_symmetric_ptr(), self.source.as_symmetric_ptr());
        let op = if bench == Bench::PutBw { "put" } else { "get" };
        // The data go to the peer's buffer (put) or to PE 0's own (get).
        let (sender, receiver) = if bench == Bench::PutBw {
            (0, self.peer_of_0())
        } else {
            (self.peer_of_0(), 0)
        };
        for &scope in &options.scopes {
            for &bytes in &options.sizes {
                for &grid in &options.grids {
                    let blocks = self.resolve(grid);
                    let (count, iters) = (bytes / 8, bw_iters(bytes));
                    // Before the case's barrier: its pattern in every source, poison in every
                    // destination. The number is the one end_case gives the case.
                    let case = self.cases + 1;
                    let values: Vec<u64> = (0..self.source.len())
                        .map(|i| pattern(case, self.me, i))
                        .collect();
                    self.source.copy_from_host(&values)?;
                    self.dest.copy_from_host(&poison)?;
                    let safe = if options.safe { "_safe" } else { "" };
                    self.one_sided_case(bench, scope, bytes, blocks, |runner| {
                        let name = format!("{op}_bw_{}{safe}", scope.name());
                        let kernel = runner.module.kernel(&name)?;
                        let config = LaunchShape::linear(blocks, runner.options.threads);
                        let times = runner.time_launches(|launch| {
                            let offset = bw_offset(launch, launches, bytes, capacity);
                            // SAFETY: bw_offset keeps `count` elements from `offset` inside both
                            // buffers (of `capacity` bytes), which every PE allocated alike and
                            // keeps until the case's end; the launch is *_bw_*(dest, source,
                            // count, iters, peer), or *_bw_*_safe(dest, source, iters, peer) with
                            // the same `count` elements as slices.
                            unsafe {
                                let (dest, source) = (dest.add(offset), source.add(offset));
                                if options.safe {
                                    // Each slice parameter is two words, address and length.
                                    kernel.launch(
                                        config,
                                        &[&dest, &count, &source, &count, &iters, &runner.peer],
                                    )
                                } else {
                                    kernel.launch(
                                        config,
                                        &[&dest, &source, &count, &iters, &runner.peer],
                                    )
                                }
                            }
                        })?;
                        Ok(bytes as f64 * f64::from(iters) / median_time(times) / 1e9)
                    })?;
                    // After the case's closing barrier (the data are there); the next case's
                    // barrier waits for this check.
                    if self.me == receiver {
                        let written: Vec<usize> = (0..launches)
                            .map(|launch| bw_offset(launch, launches, bytes, capacity))
                            .collect();
                        let wrong = mismatches(&self.dest.to_vec()?, case, sender, &written, count);
                        let status = if wrong == 0 { "pass" } else { "fail" };
                        println!(
                            "check: bench={} impl={} scope={} bytes={bytes} grid={blocks} pes={} status={status} mismatches={wrong}",
                            bench.name(),
                            options.impl_name(bench),
                            scope.name(),
                            self.n_pes
                        );
                        if wrong > 0 {
                            self.failed += 1;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn peer_of_0(&self) -> i32 {
        1 % self.n_pes
    }

    /// Runs one case on PE 0 after a barrier, prints its line (or why it failed), and ends it
    /// ([`Runner::end_case`]).
    fn one_sided_case(
        &mut self,
        bench: Bench,
        scope: Scope,
        bytes: usize,
        grid: u32,
        measure: impl FnOnce(&Runner<'a>) -> Result<f64, Failure>,
    ) -> Result<(), Failure> {
        self.nvshmem.barrier_all();
        if self.me == 0 {
            let unit = if bench.name().ends_with("_bw") {
                "GB/s"
            } else {
                "us"
            };
            match measure(self) {
                Ok(value) => println!(
                    "result: bench={} impl={} scope={} bytes={bytes} grid={grid} pes={} value={value:.4} unit={unit}",
                    bench.name(),
                    self.options.impl_name(bench),
                    scope.name(),
                    self.n_pes
                ),
                Err(error) => {
                    println!(
                        "skip: bench={} impl={} scope={} bytes={bytes} grid={grid} reason={error}",
                        bench.name(),
                        self.options.impl_name(bench),
                        scope.name()
                    );
                    self.failed += 1;
                }
            }
        }
        self.end_case()
    }

    /// `--warmup` untimed launches, then `--reps` timed ones, each by `launch(number)` (numbers
    /// counting from 0 over both); the seconds of each timed launch.
    fn time_launches(
        &self,
        launch: impl Fn(usize) -> Result<(), nvshmem_host::Error>,
    ) -> Result<Vec<f64>, Failure> {
        let warmup = self.options.warmup as usize;
        for number in 0..warmup {
            launch(number)?;
        }
        self.nvshmem.synchronize()?;
        let delay = self.module.kernel("delay")?;
        let mut timers = Vec::new();
        for number in warmup..self.options.launches() {
            let timer = StreamTimer::new(self.nvshmem)?;
            // SAFETY: delay(ns: u64) touches no memory.
            unsafe { delay.launch(LaunchShape::linear(1, 1), &[&DELAY_NS])? };
            timer.start()?;
            launch(number)?;
            timer.stop()?;
            timers.push(timer);
        }
        self.nvshmem.synchronize()?;
        timers.iter().map(|timer| Ok(timer.seconds()?)).collect()
    }

    /// Ends a case: PE 0 writes the case's number into every other PE's `ended` word (the `release`
    /// kernel, once its own work is done), the others wait on the host until their word holds it,
    /// then all meet in a barrier.
    ///
    /// The others could wait in `nvshmem_barrier_all` instead, but its kernel would spin on the GPU
    /// while PE 0 measures; with several PEs on one GPU (MPS) it shares the multiprocessors with
    /// the measured kernel and takes issue slots from it, which a one-block put's bandwidth shows
    /// plainly. No kernel runs during a case but the ones it measures.
    fn end_case(&mut self) -> Result<(), Failure> {
        self.cases += 1;
        let number = self.cases;
        if self.me == 0 {
            if self.n_pes > 1 {
                let release = self.module.kernel("release")?;
                let word = self.ended.as_symmetric_ptr();
                // SAFETY: release(word: SymmetricPtr<u64>, value: u64); `ended` is one symmetric
                // u64 that only this kernel writes.
                unsafe { release.launch(LaunchShape::linear(1, 1), &[&word, &number])? };
                self.nvshmem.synchronize()?;
            }
        } else {
            let start = Instant::now();
            while self.ended.to_vec()?[0] < number {
                if start.elapsed() > CASE_LIMIT {
                    return Err(format!(
                        "PE 0 did not end case {number} within {} s; its output says why \
                         (a failed launch, or a kernel that hangs)",
                        CASE_LIMIT.as_secs()
                    )
                    .into());
                }
                std::thread::sleep(CASE_POLL);
            }
        }
        self.nvshmem.barrier_all();
        Ok(())
    }

    /// The device address where two-sided launch number `launch` stores its nanoseconds.
    fn slot(&self, launch: usize) -> *mut u64 {
        // SAFETY: callers pass launch < options.launches(), the buffer's length.
        unsafe { self.elapsed.as_symmetric_ptr().add(launch) }.as_ptr()
    }

    /// A case that every PE runs: `--warmup` + `--reps` launches by `launch(runner, number)`, each
    /// timing itself on the GPU's clock; PE 0 reports the median of the timed ones ÷ `per_op`.
    fn two_sided_case(
        &mut self,
        bench: Bench,
        scope: Scope,
        bytes: usize,
        per_op: f64,
        launch: impl Fn(&Runner<'a>, usize) -> Result<(), nvshmem_host::Error>,
    ) -> Result<(), Failure> {
        let launches = self.options.launches();
        let name = bench.name();
        let scope_name = scope.name();
        self.nvshmem.barrier_all();
        let outcome: Result<Vec<f64>, Failure> = if let Some(obstacle) = self.obstacle(bench, bytes)
        {
            Err(obstacle.into())
        } else {
            // Each launch is waited for before the next is queued (see the module's notes).
            (0..launches)
                .try_for_each(|number| {
                    launch(self, number)?;
                    self.nvshmem.synchronize()
                })
                .map_err(Failure::from)
                .and_then(|()| Ok(self.elapsed.to_vec()?))
                .map(|nanos| {
                    nanos[self.options.warmup as usize..launches]
                        .iter()
                        .map(|&ns| ns as f64 * 1e-9)
                        .collect()
                })
        };
        if self.me == 0 {
            match outcome {
                Ok(mut times) => println!(
                    "result: bench={name} impl=rust scope={scope_name} bytes={bytes} grid=1 pes={} value={:.4} unit=us",
                    self.n_pes,
                    median(&mut times) * 1e6 / per_op
                ),
                Err(error) => {
                    println!(
                        "skip: bench={name} impl=rust scope={scope_name} bytes={bytes} grid=1 reason={error}"
                    );
                    self.failed += 1;
                }
            }
        }
        self.end_case()
    }
}

/// The median of launch times, in seconds.
fn median_time(mut times: Vec<f64>) -> f64 {
    median(&mut times)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidth_launches_stay_inside_the_buffers_and_spread_over_them() {
        let capacity = 16 << 20;
        for bytes in [4096, 1000, 1 << 20, 3 << 20, 16 << 20] {
            let offsets: Vec<usize> = (0..17).map(|k| bw_offset(k, 17, bytes, capacity)).collect();
            assert_eq!(offsets[0], 0);
            for &offset in &offsets {
                assert!(
                    offset * 8 + bytes <= capacity,
                    "{bytes} B at element {offset}"
                );
                assert_eq!(offset * 8 % BW_SLOT_ALIGN, 0);
            }
            assert!(offsets.windows(2).all(|pair| pair[0] <= pair[1]));
        }
        // 1 MiB in 16 MiB: 16 slots, the 17 launches use every one; 4 KiB: the last launch starts
        // in the last 2 MiB.
        let slots: std::collections::BTreeSet<usize> = (0..17)
            .map(|k| bw_offset(k, 17, 1 << 20, capacity))
            .collect();
        assert_eq!(slots.len(), 16);
        assert!(bw_offset(16, 17, 4096, capacity) * 8 >= 14 << 20);
        // The largest size has one place.
        assert_eq!(bw_offset(16, 17, 16 << 20, capacity), 0);
    }
}
