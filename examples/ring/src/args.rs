//! The ring's command line (its own file, so that `fuzz/` can include it without the kernels).

use clap::Parser;
use nvshmem_launch::cli::JobArgs;

/// The ring: every PE puts a block of `f32` into the next PE and gets it back, for both kernels.
///
/// Started directly, it relaunches itself on -n PEs through the launcher; started by nvshmemrun,
/// mpirun or srun, it is one PE. Exits non-zero on any mismatch or error. RUST_LOG=nvshmem_host=debug
/// shows what NVSHMEM found and chose.
#[derive(Parser, Debug, PartialEq)]
#[command(name = "ring", version)]
pub(crate) struct Args {
    #[command(flatten)]
    pub(crate) job: JobArgs,
    /// Elements of f32 each PE moves; below 2^24, so that every value stays exact in f32
    #[arg(allow_hyphen_values = true, long, value_name = "ELEMENTS", default_value_t = 1 << 20,
          value_parser = clap::value_parser!(u32).range(1..1 << 24))]
    pub(crate) count: u32,
}
