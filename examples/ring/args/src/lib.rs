//! The ring's command line. A crate of its own, so that the fuzz targets (`fuzz/`) parse it
//! without building the ring's kernels.

use clap::Parser;
use nvshmem_launch::cli::JobArgs;

/// The ring: every PE puts a block of `f32` into the next PE and gets it back, for both kernels.
///
/// Started directly, it relaunches itself on -n PEs through the launcher; started by nvshmemrun,
/// mpirun or srun, it is one PE. Exits non-zero on any mismatch or error. RUST_LOG=nvshmem_host=debug
/// shows what NVSHMEM found and chose.
#[derive(Parser, Debug, PartialEq)]
#[command(name = "ring", version)]
pub struct Args {
    /// The launcher's flags: `-n`, `--pes-per-gpu`, `--timeout`, `--mps`.
    #[command(flatten)]
    pub job: JobArgs,
    /// Elements of f32 each PE moves; below 2^24, so that every value stays exact in f32
    #[arg(allow_hyphen_values = true, long, value_name = "ELEMENTS", default_value_t = 1 << 20,
          value_parser = clap::value_parser!(u32).range(1..1 << 24))]
    pub count: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvshmem_launch::cli::{assert_help_and_version, assert_usage_errors};
    use std::num::NonZeroUsize;
    use std::time::Duration;

    fn parse(line: &str) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("ring").chain(line.split_whitespace()))
    }

    #[test]
    fn flags_round_trip_and_bad_values_name_the_flag() {
        let args = parse("-n 3 --pes-per-gpu 2 --timeout 1.5 --count 7").unwrap();
        let job = JobArgs {
            n_pes: NonZeroUsize::new(3),
            pes_per_gpu: NonZeroUsize::new(2),
            timeout: Some(Duration::from_millis(1500)),
            mps: false,
        };
        assert_eq!(args, Args { job, count: 7 });
        assert_eq!(parse("").unwrap().count, 1 << 20);
        assert_usage_errors::<Args>(&[
            ("--count 0", "'0' for '--count <ELEMENTS>'"),
            ("--count 16777216", "'16777216' for '--count <ELEMENTS>'"),
            ("--count -1", "'-1' for '--count <ELEMENTS>'"),
            ("-n 0", "'0' for '--n-pes <N>'"),
            ("--frobnicate", "'--frobnicate'"),
        ]);
    }

    #[test]
    fn help_and_version_exit_0_and_help_names_every_flag() {
        assert_help_and_version::<Args>();
    }
}
