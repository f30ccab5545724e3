//! Command lines: `nvshmemrun`'s ([`main`]), and the job flags ([`JobArgs`]: `-n`,
//! `--pes-per-gpu`, `--timeout`, `--mps`) that it shares with the programs that relaunch themselves through
//! the launcher.
//!
//! ```text
//! nvshmemrun [-n N] [--pes-per-gpu K] [--timeout S] [--mps] [--no-prefix] [--] PROGRAM [ARGS...]
//! ```
//!
//! Launcher flags come before the program; everything from the program on is the program's own,
//! passed on untouched, `--` included (a `--` before the program ends the launcher's flags).

use std::ffi::OsString;
use std::num::NonZeroUsize;
use std::time::Duration;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};

use crate::Launch;
use crate::pe_env::{MAX_PES, MAX_PES_PER_GPU};

/// The flags that size and limit a job: `nvshmemrun`'s, and those of every program that relaunches
/// itself through the launcher (flatten it into the program's `clap::Parser`).
///
/// Values may start with a hyphen (`-n -2`), so that a bad one is refused naming its flag instead
/// of being read as a flag of its own.
#[derive(clap::Args, Debug, Clone, Default, PartialEq)]
pub struct JobArgs {
    /// Number of PEs [default: the visible GPUs times --pes-per-gpu]
    #[arg(allow_hyphen_values = true, short = 'n', long = "n-pes", value_name = "N", value_parser = pe_count)]
    pub n_pes: Option<NonZeroUsize>,
    /// PEs that share each GPU [default: 1]
    #[arg(allow_hyphen_values = true, long, value_name = "K", value_parser = pes_per_gpu)]
    pub pes_per_gpu: Option<NonZeroUsize>,
    /// End the whole job after S seconds (exit status 124)
    #[arg(allow_hyphen_values = true, long, value_name = "S", value_parser = seconds)]
    pub timeout: Option<Duration>,
    /// Run the job under an MPS daemon of its own (unless MPS already runs), stopped when the job
    /// ends: several PEs per GPU then get collectives and no time slicing
    #[arg(long)]
    pub mps: bool,
}

impl JobArgs {
    /// `launch` with the flags that were given set on it; the others keep `launch`'s settings.
    pub fn apply(&self, mut launch: Launch) -> Launch {
        if let Some(n) = self.n_pes {
            launch = launch.n_pes(n);
        }
        if let Some(k) = self.pes_per_gpu {
            launch = launch.pes_per_gpu(k);
        }
        if let Some(limit) = self.timeout {
            launch = launch.timeout(limit);
        }
        if self.mps {
            launch = launch.mps(true);
        }
        launch
    }
}

/// For a program's tests: panics unless `P`'s `--help` and `--version` exit with status 0 and the
/// help names every argument (flags by their long name, positionals by their value name).
pub fn assert_help_and_version<P: CommandFactory>() {
    let mut command = P::command();
    command.build();
    let help = command
        .clone()
        .try_get_matches_from([command.get_name(), "--help"])
        .unwrap_err();
    assert_eq!((help.kind(), help.exit_code()), (ErrorKind::DisplayHelp, 0));
    let text = help.to_string();
    for arg in command.get_arguments() {
        let name = match (arg.get_long(), arg.get_value_names()) {
            (Some(long), _) => format!("--{long}"),
            (None, Some(names)) => names[0].to_string(),
            (None, None) => panic!("{} has neither a long name nor a value name", arg.get_id()),
        };
        assert!(text.contains(&name), "{name} is missing from\n{text}");
    }
    let version = command
        .clone()
        .try_get_matches_from([command.get_name(), "--version"])
        .unwrap_err();
    let shown = (version.kind(), version.exit_code());
    assert_eq!(shown, (ErrorKind::DisplayVersion, 0));
    command.debug_assert();
}

/// For a program's tests: panics unless each command line of `refused` (words split at spaces) is
/// a usage error of `P`'s (exit status 2) whose message contains its `needle`.
pub fn assert_usage_errors<P: CommandFactory>(refused: &[(&str, &str)]) {
    let command = P::command();
    for (line, needle) in refused {
        let words = std::iter::once(command.get_name()).chain(line.split_whitespace());
        let error = command.clone().try_get_matches_from(words).unwrap_err();
        assert_eq!(error.exit_code(), 2, "{line}: {error}");
        assert!(error.to_string().contains(needle), "{line}: {error}");
    }
}

/// A PE count: a whole number from 1 to [`MAX_PES`].
fn pe_count(text: &str) -> Result<NonZeroUsize, String> {
    count_up_to(text, MAX_PES, "the most PEs a job may have")
}

/// A count of PEs per GPU: a whole number from 1 to [`MAX_PES_PER_GPU`].
fn pes_per_gpu(text: &str) -> Result<NonZeroUsize, String> {
    count_up_to(text, MAX_PES_PER_GPU, "the most PEs one GPU may hold")
}

/// A whole number from 1 to `max` (which is `what`).
fn count_up_to(text: &str, max: usize, what: &str) -> Result<NonZeroUsize, String> {
    let wrong = || format!("expected a whole number from 1 to {max} ({what}), e.g. 2");
    let count: NonZeroUsize = text.trim().parse().map_err(|_| wrong())?;
    if count.get() > max {
        return Err(wrong());
    }
    Ok(count)
}

/// A positive, finite number of seconds.
fn seconds(text: &str) -> Result<Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| "expected a positive number of seconds, e.g. 60".to_string())
}

/// What follows the options in `nvshmemrun --help`.
const AFTER_HELP: &str = "\
Every PE gets NVSHMEMRS_PE, NVSHMEMRS_N_PES, NVSHMEMRS_LOCAL_PE, NVSHMEMRS_LOCAL_N_PES,
NVSHMEMRS_PES_PER_GPU and NVSHMEMRS_RENDEZVOUS (a private folder for this job) in its environment,
runs in its own process group, and uses GPU NVSHMEMRS_LOCAL_PE / K. GPUs are counted from
CUDA_VISIBLE_DEVICES, else /proc/driver/nvidia/gpus, else `nvidia-smi -L`.

With several PEs per GPU and no MPS running, the launcher warns before the job starts: every wait
on another PE then costs a GPU time slice, and NVSHMEM refuses team creation, team barriers and
collectives. --mps starts `nvidia-cuda-mps-control -d` with pipe and log folders inside the job's
private folder, gives every PE CUDA_MPS_PIPE_DIRECTORY, CUDA_MPS_LOG_DIRECTORY and
CUDA_MPS_ACTIVE_THREAD_PERCENTAGE (100 / PEs per GPU), and sends it `quit` when the job ends,
however it ends. An MPS already running is used and left alone.

When a PE fails, the others get SIGTERM, then SIGKILL 2 s later, and the launcher reports the PE
and its last lines. Ctrl-C (SIGINT), SIGTERM and SIGHUP are passed on to the PEs the same way. A PE
that prints NVSHMEM's fatal `aborting due to error in ...` and has not exited 2 s later fails too.

Exit status: 0 when every PE exits with 0; else the first failing PE's status (128 + signal if a
signal killed it); 255 when NVSHMEM aborted in a PE that did not exit; 124 on timeout; 128 + signal
when interrupted (130 for Ctrl-C); 2 for a usage error; 127 when the program is not found.

RUST_LOG=debug shows what the launcher found and chose.";

/// nvshmemrun: start N processes (PEs) of a program on this machine and supervise them
#[derive(Parser, Debug)]
#[command(name = "nvshmemrun", version, after_help = AFTER_HELP)]
struct Args {
    #[command(flatten)]
    job: JobArgs,
    /// Do not put `[pe K] ` before each output line
    #[arg(long)]
    no_prefix: bool,
    /// The program every PE runs, then its own arguments, passed on untouched
    // Only `trailing_var_arg`: with `allow_hyphen_values` too, a misspelt launcher flag before the
    // program would be taken for the program instead of being refused.
    #[arg(
        required = true,
        trailing_var_arg = true,
        value_name = "PROGRAM [ARGS]"
    )]
    command: Vec<OsString>,
}

/// Runs `nvshmemrun` with `args` (the command line without the program name) and returns the exit
/// status: the job's ([`crate::exit_code`]), 0 for `--help` and `--version`, 2 for a usage error.
///
/// ```no_run
/// std::process::exit(nvshmem_launch::cli::main(std::env::args_os().skip(1)));
/// ```
pub fn main(args: impl IntoIterator<Item = OsString>) -> i32 {
    match parse(args) {
        Ok(launch) => launch.run_and_report(),
        Err(error) => {
            // A closed stdout or stderr must not turn into a panic, so write errors are ignored.
            let _ = error.print();
            error.exit_code()
        }
    }
}

/// Reads the command line; `--help` and `--version` come back as errors of their kinds, which
/// print to stdout and exit 0.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Launch, clap::Error> {
    let args = Args::try_parse_from(std::iter::once(OsString::from("nvshmemrun")).chain(args))?;
    let mut command = args.command.into_iter();
    let program = command.next().expect("clap requires the program");
    let launch = Launch::new(program)
        .args(command)
        .prefix_output(!args.no_prefix);
    Ok(args.job.apply(launch))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(args: &[&str]) -> Result<Launch, clap::Error> {
        parse(args.iter().map(OsString::from))
    }

    fn nz(n: usize) -> NonZeroUsize {
        NonZeroUsize::new(n).unwrap()
    }

    #[test]
    fn flags_then_program_and_its_own_flags() {
        let expected = Launch::new("prog")
            .args(["-n", "7", "--timeout", "--"])
            .n_pes(nz(3))
            .pes_per_gpu(nz(2))
            .timeout(Duration::from_millis(1500));
        assert_eq!(
            parse_str(&[
                "-n",
                "3",
                "--pes-per-gpu",
                "2",
                "--timeout",
                "1.5",
                "--mps",
                "prog"
            ])
            .unwrap(),
            Launch::new("prog")
                .n_pes(nz(3))
                .pes_per_gpu(nz(2))
                .timeout(Duration::from_millis(1500))
                .mps(true)
        );
        for line in [
            "-n 3 --pes-per-gpu 2 --timeout 1.5 prog -n 7 --timeout --",
            "-n3 --pes-per-gpu=2 --timeout=1.5 -- prog -n 7 --timeout --",
            "-n=3 --pes-per-gpu 2 --timeout 1.5 prog -n 7 --timeout --",
            "--n-pes 3 --pes-per-gpu 2 --timeout 1.5 -- prog -n 7 --timeout --",
        ] {
            let words: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(parse_str(&words).unwrap(), expected, "{line}");
        }
        assert_eq!(
            parse_str(&["--no-prefix", "--", "--weird-name"]).unwrap(),
            Launch::new("--weird-name").prefix_output(false)
        );
        assert_eq!(
            parse_str(&["prog", "--help"]).unwrap(),
            Launch::new("prog").arg("--help")
        );
    }

    #[test]
    fn usage_errors_name_the_problem_and_the_fix() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["-n", "0", "prog"],
                "'0' for '--n-pes <N>': expected a whole number from 1 to 4096 (the most PEs a job \
                 may have), e.g. 2",
            ),
            (&["-n", "4097", "prog"], "from 1 to 4096"),
            (
                &["--pes-per-gpu", "4611686018427387904", "prog"],
                "expected a whole number from 1 to 64 (the most PEs one GPU may hold)",
            ),
            (
                &["--pes-per-gpu", "99999999999999999999999", "prog"],
                "from 1 to 64",
            ),
            (&["-n", "abc", "prog"], "'abc' for '--n-pes <N>'"),
            (&["-n", "-2", "prog"], "'-2' for '--n-pes <N>'"),
            (&["--pes-per-gpu", "0", "prog"], "for '--pes-per-gpu <K>'"),
            (&["--timeout", "0", "prog"], "positive number of seconds"),
            (&["--timeout", "soon", "prog"], "e.g. 60"),
            (&["-n"], "a value is required for '--n-pes <N>'"),
            (&["-n", "2"], "<PROGRAM [ARGS]>"),
            (&["--"], "<PROGRAM [ARGS]>"),
            (&[], "<PROGRAM [ARGS]>"),
            (&["--frobnicate", "prog"], "'--frobnicate'"),
        ];
        for (line, needle) in cases {
            let error = parse_str(line).unwrap_err();
            assert_eq!(error.exit_code(), 2, "{line:?}");
            let message = error.to_string();
            assert!(message.contains(needle), "{line:?}: {message}");
            assert!(message.contains("try '--help'"), "{line:?}: {message}");
        }
    }

    #[test]
    fn help_and_version_exit_0_and_help_names_every_flag() {
        let help = parse_str(&["--help", "prog"]).unwrap_err();
        assert_eq!(help.exit_code(), 0);
        assert!(help.to_string().contains("Usage: nvshmemrun"), "{help}");
        assert_help_and_version::<Args>();
    }
}

/// Property tests over arbitrary command lines: parsing never panics, every accepted command line
/// names a program and valid counts, and every refusal explains itself.
#[cfg(test)]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn word() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("-n".to_string()),
            Just("--n-pes".to_string()),
            Just("--pes-per-gpu".to_string()),
            Just("--timeout".to_string()),
            Just("--no-prefix".to_string()),
            Just("--mps".to_string()),
            Just("--".to_string()),
            Just("-".to_string()),
            "-n[0-9=a-z-]{0,4}",
            "--[a-z-]{0,12}(=[0-9a-z.-]{0,6})?",
            "-?[0-9]{0,3}(\\.[0-9]{0,2})?",
            ".{0,8}",
        ]
    }

    proptest! {
        #[test]
        fn any_command_line_is_accepted_or_explained(words in proptest::collection::vec(word(), 0..8)) {
            match parse(words.iter().map(OsString::from)) {
                Ok(launch) => {
                    let debug = format!("{launch:?}");
                    prop_assert!(!debug.is_empty());
                }
                Err(error) if error.exit_code() == 0 => {}
                Err(error) => {
                    let message = error.to_string();
                    prop_assert_eq!(error.exit_code(), 2);
                    prop_assert!(message.starts_with("error: "), "{}", message);
                    prop_assert!(message.contains("try '--help'"), "no fix: {}", message);
                }
            }
        }

        #[test]
        fn counts_round_trip(n in 1usize..=MAX_PES, k in 1usize..=MAX_PES_PER_GPU, seconds in 1u32..100_000) {
            let args = ["-n".to_string(), n.to_string(), "--pes-per-gpu".into(), k.to_string(),
                "--timeout".into(), seconds.to_string(), "prog".into()];
            let launch = parse(args.iter().map(OsString::from))
                .map_err(|e| TestCaseError::fail(format!("a valid command line was refused: {e}")))?;
            let expected = Launch::new("prog")
                .n_pes(NonZeroUsize::new(n).unwrap())
                .pes_per_gpu(NonZeroUsize::new(k).unwrap())
                .timeout(Duration::from_secs(seconds.into()));
            prop_assert_eq!(launch, expected);
        }
    }
}
