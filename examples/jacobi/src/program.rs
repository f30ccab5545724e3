//! The whole program of a runner: parsing its command line, relaunching through the launcher when
//! started directly, or running this PE.

use crate::heap::run_heap_bytes;
use clap::Parser;
use jacobi_args::{Options, Rules, STALE_HALO_NEEDS_PES, parse, usage_error};
use nvshmem_halo::Decomposition2d;
use nvshmem_host::{Bootstrap, Nvshmem};
use std::error::Error;
use std::ffi::OsString;
use std::process::ExitCode;

/// How a PE's run ended.
pub enum Verdict {
    /// Everything passed.
    Pass,
    /// A check failed (PE 0 said where).
    Fail,
    /// The flags do not fit the job (only known once the PE count is).
    Usage(String),
}

/// A runner's part of one PE's run: loads its kernels and calls [`solve`](crate::solve).
pub type RunPe = fn(&Nvshmem, &Options, &Decomposition2d) -> Result<Verdict, Box<dyn Error>>;

/// What a runner passes to [`main`], beside its command line (a `clap::Parser` that flattens
/// [`Options`]).
pub struct Program {
    /// What its flags may be.
    pub rules: Rules,
    /// Runs one PE: the runner's part of [`solve`](crate::solve).
    pub run: RunPe,
}

/// The whole program, with `A` its command line: parses, relaunches through the launcher when
/// started directly, or runs this PE.
pub fn main<A: Parser + Into<Options>>(program: &Program) -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let options = parse::<A>(&program.rules, &args).unwrap_or_else(|error| error.exit());
    let name = A::command().get_name().to_string();
    nvshmem_launch::run_pe_or_relaunch(&name, &options.job, Bootstrap::detect_pe(), |bootstrap| {
        run_pe(program, bootstrap, &options).map(|verdict| match verdict {
            Verdict::Pass => ExitCode::SUCCESS,
            Verdict::Usage(problem) => usage_error::<A>(problem).exit(),
            Verdict::Fail => ExitCode::FAILURE,
        })
    })
}

fn run_pe(
    program: &Program,
    bootstrap: Bootstrap,
    options: &Options,
) -> Result<Verdict, Box<dyn Error>> {
    let heap_bytes = run_heap_bytes(&program.rules, options, &bootstrap);
    let nvshmem = Nvshmem::init_with_heap(bootstrap, heap_bytes)?;
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
