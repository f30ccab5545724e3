//! The `nvshmemrun` command line.
//!
//! ```text
//! nvshmemrun [-n N] [--pes-per-gpu K] [--timeout S] [--no-prefix] [--] PROGRAM [ARGS...]
//! ```
//!
//! Launcher flags come before the program; everything from the program on is the program's own
//! (a `--` may end the launcher's flags explicitly).

use std::ffi::OsString;
use std::fmt;
use std::io::{self, Write};
use std::num::NonZeroUsize;
use std::time::Duration;

use crate::Launch;

/// The text `--help` prints.
const HELP: &str = "\
nvshmemrun: start N processes (PEs) of a program on this machine and supervise them

usage: nvshmemrun [-n N] [--pes-per-gpu K] [--timeout S] [--no-prefix] [--] PROGRAM [ARGS...]

  -n, --n-pes N       number of PEs (default: the visible GPUs times K)
      --pes-per-gpu K PEs that share each GPU (default 1)
      --timeout S     end the whole job after S seconds (exit status 124)
      --no-prefix     do not put `[pe K] ` before each output line
  -h, --help          print this help
  -V, --version       print the version

Every PE gets NVSHMEMRS_PE, NVSHMEMRS_N_PES, NVSHMEMRS_LOCAL_PE, NVSHMEMRS_LOCAL_N_PES,
NVSHMEMRS_PES_PER_GPU and NVSHMEMRS_RENDEZVOUS (a private folder for this job) in its environment,
runs in its own process group, and uses GPU NVSHMEMRS_LOCAL_PE / K. GPUs are counted from
CUDA_VISIBLE_DEVICES, else /proc/driver/nvidia/gpus, else `nvidia-smi -L`.

When a PE fails, the others get SIGTERM, then SIGKILL 2 s later, and the launcher reports the PE
and its last lines. Ctrl-C (SIGINT), SIGTERM and SIGHUP are passed on to the PEs the same way.

exit status: 0 when every PE exits with 0; else the first failing PE's status (128 + signal if a
signal killed it); 124 on timeout; 128 + signal when interrupted (130 for Ctrl-C); 2 for a usage
error; 127 when the program is not found.
";

/// What the command line asks for.
#[derive(Debug, PartialEq)]
enum Request {
    Run(Launch),
    Help,
    Version,
}

/// The command line is unusable.
#[derive(Debug, PartialEq)]
enum UsageError {
    /// A flag that needs a value came last.
    MissingValue { flag: String },
    /// A flag's value is not what it must be.
    BadValue {
        flag: String,
        value: String,
        expected: &'static str,
    },
    /// A flag the launcher does not know.
    UnknownFlag { flag: String },
    /// No program after the flags.
    MissingProgram,
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UsageError::MissingValue { flag } => {
                write!(f, "{flag} needs a value, e.g. `{}`", example(flag))
            }
            UsageError::BadValue {
                flag,
                value,
                expected,
            } => write!(f, "`{flag} {value}`: {expected}, e.g. `{}`", example(flag)),
            UsageError::UnknownFlag { flag } => write!(
                f,
                "unknown flag `{flag}`; the launcher's flags are -n, --pes-per-gpu, --timeout and \
                 --no-prefix. To pass `{flag}` to the program, put it after the program's name (or \
                 after `--`)"
            ),
            UsageError::MissingProgram => write!(
                f,
                "no program given; put the program to run (and its arguments) after the flags, \
                 e.g. `nvshmemrun -n 2 ./my_program`"
            ),
        }
    }
}

/// An example of `flag` with a good value.
fn example(flag: &str) -> &'static str {
    match flag {
        "--pes-per-gpu" => "--pes-per-gpu 2",
        "--timeout" => "--timeout 60",
        _ => "-n 2",
    }
}

/// Runs `nvshmemrun` with `args` (the command line without the program name) and returns the exit
/// status: the job's ([`crate::exit_code`]), 0 for `--help` and `--version`, 2 for a usage error.
///
/// ```no_run
/// std::process::exit(nvshmem_launch::cli::main(std::env::args_os().skip(1)));
/// ```
pub fn main(args: impl IntoIterator<Item = OsString>) -> i32 {
    // A closed stdout or stderr must not turn into a panic, so write errors are ignored.
    match parse(args) {
        Ok(Request::Run(launch)) => launch.run_and_report(),
        Ok(Request::Help) => {
            let _ = io::stdout().write_all(HELP.as_bytes());
            0
        }
        Ok(Request::Version) => {
            let _ = writeln!(io::stdout(), "nvshmemrun {}", env!("CARGO_PKG_VERSION"));
            0
        }
        Err(error) => {
            let _ = writeln!(
                io::stderr(),
                "nvshmemrun: error: {error}\n(run `nvshmemrun --help` for usage)"
            );
            2
        }
    }
}

/// Reads the command line.
fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Request, UsageError> {
    let mut args = args.into_iter();
    let mut n_pes = None;
    let mut pes_per_gpu = None;
    let mut timeout = None;
    let mut prefix = true;
    let program = loop {
        let Some(arg) = args.next() else {
            return Err(UsageError::MissingProgram);
        };
        let Some(text) = arg.to_str().filter(|t| t.starts_with('-') && *t != "-") else {
            break arg;
        };
        // `--flag=value`, `-nVALUE` and `-n=VALUE` carry their value; other flags take the next
        // argument.
        let (flag, inline) = match text.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_string())),
            _ if text.starts_with("-n") && text.len() > 2 && !text.starts_with("--") => {
                ("-n", Some(text[2..].trim_start_matches('=').to_string()))
            }
            _ => (text, None),
        };
        let flag = flag.to_string();
        let mut value = || match inline.clone() {
            Some(value) => Ok(value),
            None => args
                .next()
                .map(|v| v.to_string_lossy().into_owned())
                .ok_or_else(|| UsageError::MissingValue { flag: flag.clone() }),
        };
        match flag.as_str() {
            "--" => match args.next() {
                Some(program) => break program,
                None => return Err(UsageError::MissingProgram),
            },
            "-h" | "--help" => return Ok(Request::Help),
            "-V" | "--version" => return Ok(Request::Version),
            "--no-prefix" => prefix = false,
            "-n" | "--n-pes" => {
                n_pes = Some(count(
                    &flag,
                    value()?,
                    "the PE count must be a whole number of at least 1",
                )?);
            }
            "--pes-per-gpu" => {
                pes_per_gpu = Some(count(
                    &flag,
                    value()?,
                    "the PEs per GPU must be a whole number of at least 1",
                )?);
            }
            "--timeout" => timeout = Some(seconds(&flag, value()?)?),
            _ => return Err(UsageError::UnknownFlag { flag }),
        }
    };
    let mut launch = Launch::new(program).args(args).prefix_output(prefix);
    if let Some(n) = n_pes {
        launch = launch.n_pes(n);
    }
    if let Some(k) = pes_per_gpu {
        launch = launch.pes_per_gpu(k);
    }
    if let Some(limit) = timeout {
        launch = launch.timeout(limit);
    }
    Ok(Request::Run(launch))
}

/// A whole number of at least 1; `expected` says so in the error.
fn count(flag: &str, value: String, expected: &'static str) -> Result<NonZeroUsize, UsageError> {
    value.trim().parse().map_err(|_| UsageError::BadValue {
        flag: flag.to_string(),
        value,
        expected,
    })
}

/// A positive, finite number of seconds.
fn seconds(flag: &str, value: String) -> Result<Duration, UsageError> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| UsageError::BadValue {
            flag: flag.to_string(),
            value,
            expected: "the timeout must be a positive number of seconds",
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(args: &[&str]) -> Result<Request, UsageError> {
        parse(args.iter().map(OsString::from))
    }

    fn nz(n: usize) -> NonZeroUsize {
        NonZeroUsize::new(n).unwrap()
    }

    #[test]
    fn flags_then_program_and_its_own_flags() {
        let expected = Launch::new("prog")
            .args(["-n", "7", "--timeout"])
            .n_pes(nz(3))
            .pes_per_gpu(nz(2))
            .timeout(Duration::from_millis(1500));
        for line in [
            "-n 3 --pes-per-gpu 2 --timeout 1.5 prog -n 7 --timeout",
            "-n3 --pes-per-gpu=2 --timeout=1.5 -- prog -n 7 --timeout",
            "-n=3 --pes-per-gpu 2 --timeout 1.5 prog -n 7 --timeout",
            "--n-pes 3 --pes-per-gpu 2 --timeout 1.5 -- prog -n 7 --timeout",
        ] {
            let words: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(
                parse_str(&words),
                Ok(Request::Run(expected.clone())),
                "{line}"
            );
        }
        assert_eq!(
            parse_str(&["--no-prefix", "--", "--weird-name"]),
            Ok(Request::Run(
                Launch::new("--weird-name").prefix_output(false)
            ))
        );
        assert_eq!(parse_str(&["--help", "prog"]), Ok(Request::Help));
    }

    #[test]
    fn usage_errors_name_the_problem_and_the_fix() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["-n", "0", "prog"],
                "`-n 0`: the PE count must be a whole number of at least 1",
            ),
            (&["-n", "abc", "prog"], "`-n abc`"),
            (&["-n", "-2", "prog"], "`-n -2`"),
            (&["--pes-per-gpu", "0", "prog"], "the PEs per GPU must be"),
            (&["--timeout", "0", "prog"], "positive number of seconds"),
            (&["--timeout", "soon", "prog"], "e.g. `--timeout 60`"),
            (&["-n"], "-n needs a value"),
            (&["-n", "2"], "no program given"),
            (&["--"], "no program given"),
            (&[], "no program given"),
            (&["--frobnicate", "prog"], "unknown flag `--frobnicate`"),
        ];
        for (line, needle) in cases {
            let error = parse_str(line).unwrap_err().to_string();
            assert!(error.contains(needle), "{line:?}: {error}");
        }
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
                Ok(Request::Run(launch)) => {
                    let debug = format!("{launch:?}");
                    prop_assert!(!debug.is_empty());
                }
                Ok(Request::Help | Request::Version) => {}
                Err(error) => {
                    let message = error.to_string();
                    prop_assert!(message.len() > 10, "terse error: {message:?}");
                }
            }
        }

        #[test]
        fn counts_round_trip(n in 1usize..100_000, k in 1usize..64, seconds in 1u32..100_000) {
            let args = ["-n".to_string(), n.to_string(), "--pes-per-gpu".into(), k.to_string(),
                "--timeout".into(), seconds.to_string(), "prog".into()];
            let Ok(Request::Run(launch)) = parse(args.iter().map(OsString::from)) else {
                return Err(TestCaseError::fail("a valid command line was refused"));
            };
            let expected = Launch::new("prog")
                .n_pes(NonZeroUsize::new(n).unwrap())
                .pes_per_gpu(NonZeroUsize::new(k).unwrap())
                .timeout(Duration::from_secs(seconds.into()));
            prop_assert_eq!(launch, expected);
        }
    }
}
