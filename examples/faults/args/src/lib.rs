//! The faults example's command line. A crate of its own, so that the fuzz targets (`fuzz/`) parse
//! it without building the example's kernels.

use clap::{Parser, ValueEnum};

/// One PE (the victim) dies while the others wait for it in a device-side barrier; the launcher must
/// end the job within 5 s, naming the victim. Run it under the launcher: nvshmemrun -n 2 faults
/// --fault exit.
#[derive(Parser, Debug, PartialEq)]
#[command(name = "faults", version)]
pub struct Args {
    /// How the victim dies
    #[arg(long, value_enum)]
    pub fault: Fault,
    /// The PE that dies
    #[arg(long, value_name = "PE", default_value_t = 1, allow_hyphen_values = true,
          value_parser = clap::value_parser!(i32).range(0..))]
    pub victim: i32,
}

/// How the victim dies.
#[derive(Clone, Copy, Debug, PartialEq, ValueEnum)]
pub enum Fault {
    /// Exits with status 3
    Exit,
    /// Sends itself SIGKILL
    Kill,
    /// Writes through a null pointer (SIGSEGV)
    Segv,
    /// Panics
    Panic,
    /// Puts to PE n_pes, which does not exist: the device check traps, the victim exits with 4
    BadPe,
    /// A safe kernel takes a range past the end of its slice: the bounds check traps, the victim
    /// exits with 4
    SlicePastEnd,
    /// Every PE runs a kernel whose barrier only the victim reaches: the victim's barrier times
    /// out (NVSHMEMRS_DEVICE_TIMEOUT_S) and traps, the victim exits with 4
    BarrierInBranch,
    /// The victim waits for a flag nobody sets: its wait times out and traps, it exits with 4
    UnsetFlag,
    /// Nobody dies: every PE passes the barrier (the control case)
    None,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;
    use nvshmem_launch::cli::{assert_help_and_version, assert_usage_errors};

    fn parse(line: &str) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("faults").chain(line.split_whitespace()))
    }

    #[test]
    fn faults_and_victims_round_trip_and_bad_ones_name_the_flag() {
        for fault in Fault::value_variants() {
            let name = fault.to_possible_value().unwrap();
            let line = format!("--fault {} --victim 3", name.get_name());
            let expected = Args {
                fault: *fault,
                victim: 3,
            };
            assert_eq!(parse(&line).unwrap(), expected, "{line}");
        }
        assert_eq!(parse("--fault none").unwrap().victim, 1);
        assert_usage_errors::<Args>(&[
            ("", "--fault <FAULT>"),
            (
                "--fault nope",
                "[possible values: exit, kill, segv, panic, bad-pe, slice-past-end, barrier-in-branch, unset-flag, none]",
            ),
            ("--fault exit --victim -1", "'-1' for '--victim <PE>'"),
            ("--fault exit --victim x", "'x' for '--victim <PE>'"),
            ("--fault exit extra", "'extra'"),
        ]);
    }

    #[test]
    fn help_and_version_exit_0_and_help_names_every_flag() {
        assert_help_and_version::<Args>();
    }
}
