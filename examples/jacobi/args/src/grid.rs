//! `jacobi2d-grid`'s command line: its parser, variants and decomposition.

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
pub struct Args {
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
pub enum Variant {
    /// Rows by `put_nbi_block`; columns packed, one `put_nbi_block` per side, unpacked after the
    /// barrier
    GridPack,
    /// `nvshmem_float_p` per edge cell
    GridP,
}

/// What `jacobi2d-grid`'s flags may be.
pub const RULES: Rules = Rules {
    single_launch: &[],
    no_graph: &[],
    graphable: "grid-pack or grid-p",
    decompose,
};

/// The interior split over `n_pes` PEs on `--grid` or the chosen process grid.
fn decompose(options: &Options, n_pes: usize) -> Result<Decomposition2d, String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{args, parse_with};

    fn parse(line: &str) -> Result<Options, String> {
        parse_with::<Args>(&RULES, &args(line))
    }

    #[test]
    fn flags_parse_and_bad_ones_are_usage_errors() {
        let options = parse("--grid 2x3").unwrap();
        assert_eq!(options.grid.map(|g| (g.px, g.py)), Some((2, 3)));
        for bad in ["--grid 2", "--grid 0x2", "--grid axb", "-n 5 --grid 2x2"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let error = parse("-n 3 --grid 2x2").unwrap_err();
        assert!(
            error.contains("2 x 2 process grid does not hold 3 PEs"),
            "{error}"
        );
    }

    crate::tests::shared_flag_tests!(Args, &RULES);

    #[test]
    fn the_grid_flag_takes_two_positive_counts_and_nothing_else() {
        use proptest::prelude::*;
        let grid =
            |text: &str| parse_with::<Args>(&RULES, &["--grid".to_string(), text.to_string()]);
        crate::tests::property((1usize..=32, 1usize..=32), |(px, py)| {
            let options = grid(&format!("{px}x{py}")).map_err(TestCaseError::fail)?;
            prop_assert_eq!(options.grid, Some(ProcessGrid { px, py }));
            Ok(())
        });
        // Zero, too many PEs in all, a missing side or trailing junk.
        let bad = prop_oneof![
            (0usize..=40).prop_map(|py| format!("0x{py}")),
            (0usize..=40).prop_map(|py| format!("{py}x0")),
            (33usize..=2000, 33usize..=2000).prop_map(|(px, py)| format!("{px}x{py}")),
            "[0-9]{1,3}x?",
            "[0-9]{1,3}x[0-9]{1,3}[a-wyz .-][0-9a-z]{0,2}",
            "x[0-9]{1,3}",
        ];
        crate::tests::property(bad, |text| {
            let message = grid(&text)
                .err()
                .ok_or_else(|| TestCaseError::fail(format!("--grid {text} was accepted")))?;
            prop_assert!(
                message.contains(&format!(
                    "invalid value '{text}' for '--grid <PXxPY>': expected PXxPY"
                )),
                "{message}"
            );
            Ok(())
        });
        // With -n, the grid must hold exactly that many PEs.
        let mismatched = (1usize..=8, 1usize..=8, 1usize..=64)
            .prop_filter("a match", |(px, py, n)| px * py != *n);
        crate::tests::property(mismatched, |(px, py, n)| {
            let args = args(&format!("--grid {px}x{py} -n {n} --nx 100 --ny 100"));
            let message = parse_with::<Args>(&RULES, &args).unwrap_err();
            prop_assert!(
                message.starts_with(&format!("error: -n {n}: ")),
                "{message}"
            );
            prop_assert!(
                message.contains(&format!("use a --grid of {n} PEs")),
                "{message}"
            );
            Ok(())
        });
    }

    #[test]
    fn four_pes_make_a_two_by_two_grid() {
        let options = parse("--nx 1026 --ny 1026").unwrap();
        let grid = decompose(&options, 4).unwrap();
        assert_eq!((grid.grid().px, grid.grid().py), (2, 2));
        let patch = grid.patch(3);
        assert_eq!(
            (patch.nx, patch.ny, patch.x0, patch.y0),
            (512, 512, 512, 512)
        );
        assert_eq!(
            (patch.left, patch.up, patch.right, patch.down),
            (2, 1, -1, -1)
        );
        let options = parse("--nx 1026 --ny 1026 --grid 4x1").unwrap();
        assert_eq!(decompose(&options, 4).unwrap().grid().px, 4);
    }
}
