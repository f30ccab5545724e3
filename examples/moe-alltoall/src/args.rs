//! The all-to-all's command line.

use clap::{Parser, ValueEnum};
use nvshmem_launch::cli::JobArgs;

/// Expert-parallel all-to-all: every PE's tokens go to the PEs of their top-k experts (dispatch)
/// and come back weighted (combine), with puts and signals and no host step between the two.
///
/// Prints, for each token count and routing, the time per dispatch + combine and the rate of the
/// rows moved; --check first compares every token's result exactly with a CPU reference. Started
/// directly, it relaunches itself on -n PEs through the launcher; started by nvshmemrun, mpirun or
/// srun, it is one PE. The receive buffers take n_pes x tokens x top-k rows per PE: raise
/// NVSHMEM_SYMMETRIC_SIZE (e.g. 3G) for the larger sizes.
#[derive(Parser, Debug, PartialEq)]
#[command(name = "moe-alltoall", version)]
pub(crate) struct Args {
    #[command(flatten)]
    pub(crate) job: JobArgs,
    /// Tokens per PE, one run each (comma-separated)
    #[arg(allow_hyphen_values = true, long, value_name = "T,...", value_delimiter = ',',
          default_value = "128,256,512,1024,2048,4096",
          value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub(crate) tokens: Vec<u32>,
    /// Hidden size: f32 elements per token
    #[arg(allow_hyphen_values = true, long, value_name = "H", default_value_t = 4096,
          value_parser = clap::value_parser!(u32).range(1..=16384))]
    pub(crate) hidden: u32,
    /// Experts per token
    #[arg(allow_hyphen_values = true, long, value_name = "K", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(1..=8))]
    pub(crate) top_k: u32,
    /// Experts on each PE (at most 128 experts in all, so that every result stays exact in f32)
    #[arg(allow_hyphen_values = true, long, value_name = "E", default_value_t = 4,
          value_parser = clap::value_parser!(u32).range(1..=128))]
    pub(crate) experts_per_pe: u32,
    /// Routings to run, one run each (comma-separated)
    #[arg(
        long,
        value_name = "R,...",
        value_delimiter = ',',
        default_value = "random"
    )]
    pub(crate) routing: Vec<Routing>,
    /// Seed of the routing, the weights and the token values
    #[arg(
        allow_hyphen_values = true,
        long,
        value_name = "S",
        default_value_t = 48
    )]
    pub(crate) seed: u64,
    /// Compare every token of one round's result exactly with the CPU reference first
    #[arg(long)]
    pub(crate) check: bool,
    /// Plant a defect that --check must catch
    #[arg(long, value_name = "DEFECT")]
    pub(crate) plant: Option<Plant>,
    /// Timed rounds per run (0: none, for a check alone)
    #[arg(allow_hyphen_values = true, long, value_name = "N", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub(crate) iters: u32,
    /// Untimed rounds before the timed ones
    #[arg(allow_hyphen_values = true, long, value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub(crate) warmup: u32,
    /// Blocks per launch [default: one per multiprocessor, as many as a cooperative launch fits]
    #[arg(allow_hyphen_values = true, long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub(crate) blocks: Option<u32>,
    /// Threads per block (256 leaves room for several blocks per multiprocessor, so that PEs
    /// sharing a GPU under MPS can all be resident)
    #[arg(allow_hyphen_values = true, long, value_name = "N", default_value_t = 256,
          value_parser = clap::value_parser!(u32).range(32..=1024))]
    pub(crate) threads: u32,
}

/// How tokens pick their experts.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Routing {
    /// Distinct experts drawn uniformly
    Random,
    /// Three choices in four drawn from PE 0's experts, the rest uniformly
    Skewed,
    /// As random, but no token picks an expert of the last PE, which receives nothing
    EmptyPe,
}

/// A defect for --check to catch.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plant {
    /// PE 0 skips the dispatch of one (token, expert) pair
    LostToken,
}
