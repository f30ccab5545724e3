//! `jacobi2d-grid`'s command line: its parser, variants and decomposition (its own file, so that
//! `fuzz/` can include it without the kernels).

use crate::flags::{MAX_PES, Options, Rules};
use clap::{Parser, ValueEnum};
use nvshmem_halo::{Boundary, Decomposition2d, DecompositionError, ProcessGrid};

/// The 2-D Jacobi of `jacobi` on a 2-D process grid: the interior split into rectangles, halos
/// exchanged with up to four neighbours.
///
/// Started directly, it relaunches itself on -n PEs through the launcher; started by nvshmemrun,
/// mpirun or srun, it is one PE. The last line, from PE 0, is the machine-readable `result:` line.
/// RUST_LOG=nvshmem_host=debug shows what NVSHMEM found and chose.
#[derive(Parser, Debug)]
#[command(name = "jacobi2d-grid", version)]
pub(crate) struct Args {
    /// How halos travel
    #[arg(long, value_enum, allow_hyphen_values = true, default_value_t = Variant::GridPack)]
    variant: Variant,
    /// PEs along x and y, PX times PY of them [default: chosen for -n]
    #[arg(allow_hyphen_values = true, long, value_name = "PXxPY", value_parser = process_grid)]
    grid: Option<ProcessGrid>,
    #[command(flatten)]
    options: Options,
}

impl From<Args> for Options {
    fn from(args: Args) -> Options {
        Options {
            grid: args.grid,
            ..args.options.with_variant(args.variant)
        }
    }
}

/// `--grid PXxPY`: PEs along x and y.
fn process_grid(text: &str) -> Result<ProcessGrid, String> {
    text.split_once('x')
        .and_then(|(px, py)| Some((px.parse().ok()?, py.parse().ok()?)))
        .filter(|&(px, py): &(usize, usize)| {
            px > 0 && py > 0 && px.checked_mul(py).is_some_and(|n| n <= MAX_PES)
        })
        .map(|(px, py)| ProcessGrid { px, py })
        .ok_or_else(|| {
            format!(
                "expected PXxPY, PEs along x and y, at most {} in all (e.g. 2x3)",
                MAX_PES
            )
        })
}

/// The variants, as `--variant` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Variant {
    /// Rows by `put_nbi_block`; columns packed, one `put_nbi_block` per side, unpacked after the
    /// barrier
    GridPack,
    /// `nvshmem_float_p` per edge cell
    GridP,
}

/// What `jacobi2d-grid`'s flags may be.
pub(crate) const RULES: Rules = Rules {
    single_launch: &[],
    no_graph: &[],
    graphable: "grid-pack or grid-p",
    decompose,
};

/// The interior split over `n_pes` PEs on `--grid` or the chosen process grid.
pub(crate) fn decompose(options: &Options, n_pes: usize) -> Result<Decomposition2d, String> {
    let (nx, ny, open) = (options.nx - 2, options.ny - 2, Boundary::Open);
    let decomposition = match options.grid {
        Some(grid) if grid.n_pes() != n_pes => Err(DecompositionError::GridMismatch {
            px: grid.px,
            py: grid.py,
            n_pes,
        }),
        Some(grid) => Decomposition2d::new(nx, ny, grid, open, open),
        None => Decomposition2d::for_pes(nx, ny, n_pes, open, open),
    };
    decomposition.map_err(|error| {
        let fix = match error {
            DecompositionError::GridMismatch { .. } => {
                format!("use a --grid of {n_pes} PEs, or none to have one chosen")
            }
            DecompositionError::TooLarge { .. } => {
                "use more PEs or a smaller --nx or --ny".to_string()
            }
            _ => "use fewer PEs, a larger --nx or --ny, or another --grid".to_string(),
        };
        format!(
            "{error} (the {} x {} grid has {nx} x {ny} interior cells); {fix}",
            options.nx, options.ny
        )
    })
}
