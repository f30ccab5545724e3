//! Programs that relaunch themselves: started directly by their user, they run again once per PE
//! under the launcher; started as a PE (by `nvshmemrun`, `mpirun`, `srun`, …), they do their part.

use std::ffi::OsString;
use std::fmt::Display;
use std::io::{self, Write};
use std::process::{ExitCode, Termination};

use crate::Launch;
use crate::cli::JobArgs;

/// A whole program's `main` for a program that relaunches itself: `started_as_pe` is how this
/// process was started (`Ok(None)`: directly, by its user), `run_pe` one PE's part.
///
/// Started directly, the program runs again through [`relaunch_current_program`] with its own
/// command line, sized by `job`, and the job's exit status is returned. Started as a PE, `run_pe`
/// runs: its `Ok` value is the exit status (`()` for success, or an [`ExitCode`] of its own); an
/// error, or an error detecting the start, is printed as `PROGRAM: ERROR` and fails. `program` is
/// the name that prefixes those errors.
///
/// The detection is the caller's so that this crate need not know the PEs' side:
/// `nvshmem_host::Bootstrap::detect_pe()` is the one the examples use.
///
/// ```no_run
/// use clap::Parser;
/// use std::process::ExitCode;
///
/// /// A program that runs on every visible GPU.
/// #[derive(Parser)]
/// struct Args {
///     #[command(flatten)]
///     job: nvshmem_launch::cli::JobArgs,
/// }
///
/// # fn detect_pe() -> Result<Option<u32>, String> { Ok(None) }
/// fn main() -> ExitCode {
///     let args = Args::parse();
///     nvshmem_launch::run_pe_or_relaunch("hello", &args.job, detect_pe(), |pe| {
///         println!("PE {pe} says hello");
///         Ok::<(), String>(())
///     })
/// }
/// ```
pub fn run_pe_or_relaunch<P, T, E, F>(
    program: &str,
    job: &JobArgs,
    started_as_pe: Result<Option<P>, E>,
    run_pe: impl FnOnce(P) -> Result<T, F>,
) -> ExitCode
where
    T: Termination,
    E: Display,
    F: Display,
{
    let failed = |error: &dyn Display| {
        let _ = writeln!(io::stderr(), "{program}: {error}");
        ExitCode::FAILURE
    };
    match started_as_pe {
        Ok(None) => {
            let args: Vec<OsString> = std::env::args_os().skip(1).collect();
            let status = relaunch_current_program(&args, job);
            ExitCode::from(status.clamp(0, 255) as u8)
        }
        Ok(Some(pe)) => match run_pe(pe) {
            Ok(ending) => ending.report(),
            Err(error) => failed(&error),
        },
        Err(error) => failed(&error),
    }
}

/// For programs that relaunch themselves when started directly rather than as a PE: runs the
/// current program once per PE with `args` (its own command line, which each PE reads again), sized
/// by `job` (flags not given take the launcher's defaults), reports like
/// [`Launch::run_and_report`], and returns the job's exit status. [`run_pe_or_relaunch`] is the
/// whole `main` around it.
///
/// ```no_run
/// use clap::Parser;
///
/// /// A program that runs on every visible GPU.
/// #[derive(Parser)]
/// struct Args {
///     #[command(flatten)]
///     job: nvshmem_launch::cli::JobArgs,
/// }
///
/// let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
/// let parsed = Args::parse();
/// std::process::exit(nvshmem_launch::relaunch_current_program(&args, &parsed.job));
/// ```
pub fn relaunch_current_program(args: &[OsString], job: &JobArgs) -> i32 {
    match Launch::current_program() {
        Ok(launch) => job.apply(launch.args(args)).run_and_report(),
        Err(error) => {
            let _ = writeln!(
                io::stderr(),
                "nvshmemrun: error: cannot find this program's path to relaunch it: {error}"
            );
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// The job flags alone.
    #[derive(Parser)]
    struct Args {
        #[command(flatten)]
        job: JobArgs,
    }

    fn job() -> JobArgs {
        Args::parse_from(["program"]).job
    }

    #[test]
    fn a_pe_runs_its_part_and_ends_with_its_status() {
        let mut ran = None;
        let code = run_pe_or_relaunch("p", &job(), Ok::<_, String>(Some(7)), |pe| {
            ran = Some(pe);
            Ok::<_, String>(ExitCode::from(3))
        });
        assert_eq!((ran, code), (Some(7), ExitCode::from(3)));
        let code = run_pe_or_relaunch("p", &job(), Ok::<_, String>(Some(7)), |_| {
            Ok::<_, String>(())
        });
        assert_eq!(code, ExitCode::SUCCESS);
    }

    #[test]
    fn a_failed_detection_or_pe_fails_without_relaunching() {
        let never_runs = |_: u8| -> Result<(), String> {
            panic!("a PE whose start was not understood must not run")
        };
        let code = run_pe_or_relaunch("p", &job(), Err("no PE"), never_runs);
        assert_eq!(code, ExitCode::FAILURE);
        let code = run_pe_or_relaunch("p", &job(), Ok::<_, String>(Some(0)), |_| {
            Err::<(), _>("wrong values")
        });
        assert_eq!(code, ExitCode::FAILURE);
    }
}
