//! The ring: every PE puts a block of `f32` into the next PE's symmetric buffer, all PEs meet in a
//! barrier, and every PE gets the block back from the next PE and checks every element. Runs both
//! kernels of `examples/ring/kernels` (block-cooperative put/get, and element-wise p/g).
//!
//! ```text
//! cargo run --release -p ring -- [-n PES] [--pes-per-gpu K] [--timeout S] [--count N]
//! ```
//!
//! Started directly, it relaunches itself on `PES` processes through `nvshmem-launch` (default: one
//! per visible GPU). Started by `nvshmemrun`, `mpirun` or `srun`, it is one PE. Exits non-zero on any
//! mismatch or error.

use nvshmem_host::{Bootstrap, LaunchConfig, Nvshmem};
use std::num::NonZeroUsize;
use std::process::ExitCode;
use std::time::Duration;

const PTX: &str = include_str!(env!("RING_KERNELS_PTX"));
const KERNELS: [&str; 2] = ["ring_block", "ring_elementwise"];
const USAGE: &str = "usage: ring [-n PES] [--pes-per-gpu K] [--timeout SECONDS] [--count ELEMENTS]";

struct Options {
    n_pes: Option<NonZeroUsize>,
    pes_per_gpu: Option<NonZeroUsize>,
    timeout: Option<Duration>,
    count: usize,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        n_pes: None,
        pes_per_gpu: None,
        timeout: None,
        count: 1 << 20,
    };
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        let positive = |text: &String| -> Result<NonZeroUsize, String> {
            text.parse()
                .map_err(|_| format!("{flag} takes a whole number ≥ 1, not `{text}`"))
        };
        match flag.as_str() {
            "-n" => options.n_pes = Some(positive(value()?)?),
            "--pes-per-gpu" => options.pes_per_gpu = Some(positive(value()?)?),
            "--count" => options.count = positive(value()?)?.get(),
            "--timeout" => {
                let text = value()?;
                let seconds: f64 = text.parse().ok().filter(|s: &f64| *s > 0.0).ok_or(format!(
                    "--timeout takes a number of seconds > 0, not `{text}`"
                ))?;
                options.timeout = Some(Duration::from_secs_f64(seconds));
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if options.count >= 1 << 24 {
        return Err(format!(
            "--count {} is too large: values must stay exact in f32 (< 16777216)",
            options.count
        ));
    }
    Ok(options)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse(&args) {
        Ok(options) => options,
        Err(problem) => {
            eprintln!("ring: {problem}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match Bootstrap::detect() {
        Ok(Bootstrap::SinglePe) => relaunch(&args, &options),
        Ok(bootstrap) => match run_pe(bootstrap, options.count) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("ring: {error}");
                ExitCode::FAILURE
            }
        },
        Err(error) => {
            eprintln!("ring: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Starts this program once per PE through the launcher and returns the job's exit status.
fn relaunch(args: &[String], options: &Options) -> ExitCode {
    let (n, k, timeout) = (options.n_pes, options.pes_per_gpu, options.timeout);
    let status = nvshmem_launch::relaunch_current_program(args, n, k, timeout);
    ExitCode::from(status.clamp(0, 255) as u8)
}

/// The value PE `pe` stores at index `i`.
fn value(pe: i32, i: usize) -> f32 {
    (pe as usize * 1_000_000 % (1 << 24) + i) as f32
}

fn run_pe(bootstrap: Bootstrap, count: usize) -> Result<(), Box<dyn std::error::Error>> {
    // ANCHOR: ring_host_alloc
    let nvshmem = Nvshmem::init_with(bootstrap)?;
    let (me, n_pes) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(PTX)?;
    let mut source = nvshmem.alloc::<f32>(count)?;
    let mut received = nvshmem.alloc::<f32>(count)?;
    let mut returned = nvshmem.alloc::<f32>(count)?;
    // ANCHOR_END: ring_host_alloc
    let expected_source: Vec<f32> = (0..count).map(|i| value(me, i)).collect();
    source.copy_from_host(&expected_source)?;
    let previous = (me + n_pes - 1) % n_pes;
    let expected_received: Vec<f32> = (0..count).map(|i| value(previous, i)).collect();
    let mut failures = 0;
    for name in KERNELS {
        let kernel = module.kernel(name)?;
        let zeros = vec![0f32; count];
        received.copy_from_host(&zeros)?;
        returned.copy_from_host(&zeros)?;
        // ANCHOR: ring_host_launch
        nvshmem.barrier_all();
        // SAFETY: the kernels take (source, received, returned, count) and touch `count` elements of
        // each symmetric buffer; every PE launches the same kernel with one block.
        unsafe {
            kernel.launch_cooperative(
                LaunchConfig::linear(1, 256),
                &[
                    &source.as_symmetric_ptr(),
                    &received.as_symmetric_ptr(),
                    &returned.as_symmetric_ptr(),
                    &count,
                ],
            )?;
        }
        nvshmem.synchronize()?;
        // ANCHOR_END: ring_host_launch
        let got_received = received.to_vec()?;
        let got_returned = returned.to_vec()?;
        let bad_received = mismatches(&got_received, &expected_received);
        let bad_returned = mismatches(&got_returned, &expected_source);
        if bad_received.is_empty() && bad_returned.is_empty() {
            println!(
                "{name}: PE {me}/{n_pes}: OK ({count} f32 from PE {previous} received, own block returned)"
            );
        } else {
            failures += 1;
            println!(
                "{name}: PE {me}/{n_pes}: FAIL: {} wrong in received (first {:?}), {} wrong in returned (first {:?})",
                bad_received.len(),
                bad_received.first(),
                bad_returned.len(),
                bad_returned.first()
            );
        }
        nvshmem.barrier_all();
    }
    drop(returned);
    drop(received);
    drop(source);
    drop(module);
    nvshmem.finalize()?;
    if failures > 0 {
        return Err(format!("{failures} kernel(s) moved wrong data").into());
    }
    Ok(())
}

/// `(index, got, expected)` of every differing element.
fn mismatches(got: &[f32], expected: &[f32]) -> Vec<(usize, f32, f32)> {
    got.iter()
        .zip(expected)
        .enumerate()
        .filter(|(_, (g, e))| g != e)
        .map(|(i, (g, e))| (i, *g, *e))
        .collect()
}
