//! The interop example's command line. A crate of its own, so that the fuzz targets (`fuzz/`) parse
//! it without building the example's kernels.

use clap::Parser;
use nvshmem_launch::cli::JobArgs;
use std::path::PathBuf;

/// nvshmem-host beside cudarc: a cudarc launch on symmetric memory, a registered cudarc
/// allocation, peer pointers.
#[derive(Parser)]
#[command(name = "interop", version)]
pub struct Options {
    /// The launcher's flags: `-n`, `--pes-per-gpu`, `--timeout`, `--mps`.
    #[command(flatten)]
    pub job: JobArgs,
    /// Elements moved.
    #[arg(long, default_value_t = 1 << 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub count: u32,
    /// Meet through a unique id in FILE: rank 0 writes it, the others read it.
    #[arg(long, value_name = "FILE", requires_all = ["rank", "n_pes"])]
    pub rendezvous: Option<PathBuf>,
    /// This PE's rank, with --rendezvous.
    #[arg(long, requires = "rendezvous")]
    pub rank: Option<u32>,
}
