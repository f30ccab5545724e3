//! The interop example's command line (its own file, so that `fuzz/` can include it without
//! the kernels).

use clap::Parser;
use nvshmem_launch::cli::JobArgs;
use std::path::PathBuf;

/// nvshmem-host beside cudarc: a cudarc launch on symmetric memory, a registered cudarc
/// allocation, peer pointers.
#[derive(Parser)]
#[command(name = "interop", version)]
pub(crate) struct Options {
    #[command(flatten)]
    pub(crate) job: JobArgs,
    /// Elements moved.
    #[arg(long, default_value_t = 1 << 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) count: u32,
    /// Meet through a unique id in FILE: rank 0 writes it, the others read it.
    #[arg(long, value_name = "FILE", requires_all = ["rank", "n_pes"])]
    pub(crate) rendezvous: Option<PathBuf>,
    /// This PE's rank, with --rendezvous.
    #[arg(long, requires = "rendezvous")]
    pub(crate) rank: Option<u32>,
}
