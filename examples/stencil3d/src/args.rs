//! The stencil3d command line.

use clap::{Parser, ValueEnum};
use nvshmem_launch::cli::JobArgs;

/// A 3-D Jacobi (7-point and 27-point, f32 and f64) on a 3-D process grid: faces, edges and
/// corners packed on the device and put with signals; prints ms per iteration.
///
/// Started directly, it relaunches itself on -n PEs through the launcher; started by nvshmemrun,
/// mpirun or srun, it is one PE. With --check, every owned cell must equal, bitwise, a single-GPU
/// run of the whole grid and the CPU; exits non-zero otherwise.
#[derive(Parser, Debug, PartialEq)]
#[command(name = "stencil3d", version)]
pub(crate) struct Args {
    #[command(flatten)]
    pub(crate) job: JobArgs,
    /// Cells along x
    #[arg(allow_hyphen_values = true, long, default_value_t = 128,
          value_parser = clap::value_parser!(u32).range(1..=2048))]
    pub(crate) nx: u32,
    /// Cells along y
    #[arg(allow_hyphen_values = true, long, default_value_t = 128,
          value_parser = clap::value_parser!(u32).range(1..=2048))]
    pub(crate) ny: u32,
    /// Cells along z
    #[arg(allow_hyphen_values = true, long, default_value_t = 128,
          value_parser = clap::value_parser!(u32).range(1..=2048))]
    pub(crate) nz: u32,
    /// Iterations
    #[arg(allow_hyphen_values = true, long, default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub(crate) iters: u32,
    /// Which stencils to run
    #[arg(long, value_enum, default_value_t = Points::All)]
    pub(crate) points: Points,
    /// Which cell types to run
    #[arg(long, value_enum, default_value_t = Precision::All)]
    pub(crate) precision: Precision,
    /// The process grid, PXxPYxPZ [default: the one exchanging the fewest face cells]
    #[arg(long, value_name = "PXxPYxPZ", value_parser = parse_grid)]
    pub(crate) grid: Option<[usize; 3]>,
    /// Compare every owned cell bitwise with a single-GPU run of the whole grid and with the CPU
    /// (for small grids: every PE computes the whole grid twice)
    #[arg(long)]
    pub(crate) check: bool,
    /// Plant a defect that --check must catch: stale-face leaves one face halo of every PE that
    /// has a neighbour unexchanged
    #[arg(long, value_enum)]
    pub(crate) plant: Option<Plant>,
}

/// Stencil shapes.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq)]
pub(crate) enum Points {
    /// 7 points: faces only
    #[value(name = "7")]
    Seven,
    /// 27 points: faces, edges and corners
    #[value(name = "27")]
    TwentySeven,
    /// Both
    All,
}

/// Cell types.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq)]
pub(crate) enum Precision {
    /// f32
    F32,
    /// f64
    F64,
    /// Both
    All,
}

/// Planted defects.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq)]
pub(crate) enum Plant {
    /// Skip unpacking the first face halo that has a neighbour
    StaleFace,
}

/// `PXxPYxPZ`, each at least 1.
fn parse_grid(text: &str) -> Result<[usize; 3], String> {
    let parts: Vec<&str> = text.split('x').collect();
    let dims: Vec<usize> = parts
        .iter()
        .filter_map(|p| p.parse().ok())
        .filter(|&n| n > 0)
        .collect();
    match dims[..] {
        [px, py, pz] if parts.len() == 3 => Ok([px, py, pz]),
        _ => Err(format!(
            "expected PXxPYxPZ with three counts of at least 1 (e.g. 2x2x1), got `{text}`"
        )),
    }
}
