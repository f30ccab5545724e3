//! `jacobi`'s command line: its parser, variants and decomposition.

use crate::flags::{Options, Rules};
use clap::{Parser, ValueEnum};
use nvshmem_halo::{Boundary, Decomposition1d, Decomposition2d, DecompositionError};

/// NVIDIA's multi-GPU 2-D Jacobi on NVSHMEM: rows split over PEs, halo rows exchanged each
/// iteration.
///
/// Started directly, it relaunches itself on -n PEs through the launcher; started by nvshmemrun,
/// mpirun or srun, it is one PE. The last line, from PE 0, is the machine-readable `result:` line.
/// RUST_LOG=nvshmem_host=debug shows what NVSHMEM found and chose.
#[derive(Parser, Debug)]
#[command(name = "jacobi", version)]
pub struct Args {
    /// How halos travel and PEs meet
    #[arg(long, value_enum, allow_hyphen_values = true, default_value_t = Variant::PutBlock)]
    variant: Variant,
    #[command(flatten)]
    options: Options,
}

impl From<Args> for Options {
    fn from(args: Args) -> Options {
        args.options.with_variant(args.variant)
    }
}

/// What `jacobi`'s flags may be.
pub const RULES: Rules = Rules {
    single_launch: &["persistent"],
    no_graph: &[
        ("signal", NUMBERED_SIGNALS),
        ("overlap", NUMBERED_SIGNALS),
        (
            "persistent",
            "it runs every iteration in one cooperative launch, which loops on the GPU already",
        ),
    ],
    graphable: "put-block or p",
    decompose,
};

/// Why `--graph` refuses the signalled variants.
const NUMBERED_SIGNALS: &str = "its kernels wait for signals numbered by iteration, and a replayed \
    graph would repeat the numbers of the iterations it captured";

/// The interior rows split over `n_pes` PEs.
fn decompose(options: &Options, n_pes: usize) -> Result<Decomposition2d, String> {
    let rows = options.ny - 2;
    Decomposition1d::new(options.nx - 2, rows, n_pes, Boundary::Open)
        .map(|rows| rows.as_2d())
        .map_err(|error| {
            let fix = match error {
                DecompositionError::TooLarge { .. } => "use more PEs or a smaller --nx or --ny",
                _ => "use at most as many PEs as rows, or a larger --ny",
            };
            format!(
                "{error} (a {} x {} grid has {rows} interior rows to split over {n_pes} PEs); {fix}",
                options.nx, options.ny
            )
        })
}

/// The variants, as `--variant` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Variant {
    /// `nvshmemx_float_put_nbi_block` halos, a barrier each iteration
    PutBlock,
    /// `nvshmem_float_p` per edge cell, a barrier each iteration
    P,
    /// `put_nbi_block` halos, neighbour signals
    Signal,
    /// As `signal`, edge rows first, the interior while halos fly
    Overlap,
    /// As `overlap`, every iteration in one cooperative launch
    Persistent,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{args, names_the_flag_and_the_fix, parse_with, property};

    crate::tests::shared_flag_tests!(Args, &RULES);

    #[test]
    fn too_few_rows_and_the_grid_flag_are_refused() {
        let error = parse_with::<Args>(&RULES, &args("-n 5 --ny 6")).unwrap_err();
        assert!(error.contains("5 PEs cannot split 4 cells"), "{error}");
        let error = parse_with::<Args>(&RULES, &args("--grid 2x2")).unwrap_err();
        assert!(error.contains("unexpected argument '--grid'"), "{error}");
    }

    #[test]
    fn more_pes_than_rows_are_refused() {
        use proptest::prelude::*;
        let too_many = (3usize..=1000, 3usize..=100)
            .prop_flat_map(|(nx, ny)| (Just(nx), Just(ny), ny - 1..=crate::flags::MAX_PES));
        property(too_many, |(nx, ny, n)| {
            let args = args(&format!("-n {n} --nx {nx} --ny {ny}"));
            let message = parse_with::<Args>(&RULES, &args).unwrap_err();
            prop_assert!(names_the_flag_and_the_fix(&message, &args), "{message}");
            prop_assert!(message.contains("as many PEs as rows"), "{message}");
            Ok(())
        });
    }

    #[test]
    fn rows_are_split_over_the_pes() {
        let options = parse_with::<Args>(&RULES, &args("--nx 66 --ny 12")).unwrap();
        let split = decompose(&options, 3).unwrap();
        assert_eq!((split.grid().px, split.grid().py), (1, 3));
        let patch = split.patch(1);
        assert_eq!((patch.nx, patch.ny, patch.y0, patch.pitch), (64, 3, 4, 96));
    }
}
