//! The 2-D Jacobi of `examples/jacobi` on a 2-D process grid: the interior is split into
//! rectangles ([`nvshmem_halo::Decomposition2d`], grid chosen by
//! [`nvshmem_halo::ProcessGrid::choose`] or given with `--grid PXxPY`), so a PE exchanges halos with
//! up to four neighbours, and its left and right edges are columns, strided in its array.
//!
//! ```text
//! cargo run --release -p jacobi --bin jacobi2d-grid -- [-n PES] [--pes-per-gpu K] [--timeout S]
//!     [--variant grid-pack|grid-p] [--grid PXxPY] [--nx N] [--ny N] [--iters K] [--norm-every M] [--check]
//!     [--stale-halo] [--block-x T] [--rows-per-thread R] [--append-result FILE]
//! ```
//!
//! | variant | rows | columns |
//! |---|---|---|
//! | `grid-pack` | `put_nbi_block` per block | packed into a contiguous column, one `put_nbi_block` per side, unpacked after the barrier |
//! | `grid-p` | `nvshmem_float_p` per edge cell | `nvshmem_float_p` per edge cell |
//!
//! Both meet in a barrier kernel (`barrier_all`) every iteration. Flags, checks (`--check` against
//! a single-GPU and, on small problems, a CPU run: every cell equal) and output (the `result:` line)
//! are those of `jacobi`, whose `solver.rs` this runner includes. `--stale-halo` spoils the
//! last PE's left halo (its upper one on a single column of PEs) after the first iteration, as in
//! `examples/jacobi`: a column halo one iteration late, which the check must find.

#[path = "../grid_args.rs"]
mod args;
#[path = "../flags.rs"]
mod flags;
// Shared with `examples/jacobi`, which uses all of it; this runner does not (no signals).
#[allow(dead_code)]
#[path = "../solver.rs"]
mod solver;

use args::{Args, Variant};
use clap::ValueEnum;
use nvshmem_halo::host::{HaloGrids, NormBuffers};
use nvshmem_halo::packing::ColumnPacking;
use nvshmem_halo::{Decomposition2d, Tiling};
use nvshmem_host::{Kernel, KernelArg, LaunchConfig, Nvshmem, OnStream, SymmetricBuffer};
use solver::{CommonKernels, Iterations, Meeting, Options, Program, Verdict};
use std::error::Error;
use std::process::ExitCode;

const PTX: &str = include_str!(env!("JACOBI2D_GRID_KERNELS_PTX"));

const PROGRAM: Program = Program {
    rules: args::RULES,
    run,
};

fn main() -> ExitCode {
    solver::main::<Args>(&PROGRAM)
}

fn run(
    nvshmem: &Nvshmem,
    options: &Options,
    decomposition: &Decomposition2d,
) -> Result<Verdict, Box<dyn Error>> {
    let module = nvshmem.load_module(PTX)?;
    let common = CommonKernels::load(&module, options)?;
    let patch = decomposition.patch(nvshmem.my_pe() as usize);
    let pack = Variant::from_str(&options.variant, false)? == Variant::GridPack;
    let mut iterations = GridIterations {
        pack,
        stencil: module.kernel(if pack { "grid_pack" } else { "grid_p" })?,
        push_columns: module.kernel("push_columns")?,
        unpack_columns: module.kernel("unpack_columns")?,
        tiling: options.tiling(),
        packed: nvshmem.alloc_zeroed(ColumnPacking::new(&patch).len())?,
    };
    solver::solve(nvshmem, &common, options, decomposition, &mut iterations)
}

/// One variant's iterations.
struct GridIterations<'m, 'nv> {
    pack: bool,
    stencil: Kernel<'m>,
    push_columns: Kernel<'m>,
    unpack_columns: Kernel<'m>,
    tiling: Tiling,
    packed: SymmetricBuffer<'nv, f32>,
}

impl Iterations for GridIterations<'_, '_> {
    fn reset(&mut self) -> Result<(), Box<dyn Error>> {
        Ok(())
    }

    fn iteration(
        &self,
        on: OnStream<'_>,
        common: &CommonKernels<'_>,
        grids: &HaloGrids<'_, f32>,
        norms: &NormBuffers<'_>,
        k: u32,
    ) -> Result<(), Box<dyn Error>> {
        let patch = *grids.patch();
        let tiling = self.tiling;
        let config = solver::stencil_config(tiling, tiling.grid(&patch));
        let packed = self.packed.as_symmetric_ptr();
        let norm = norms.target(k);
        let (current, next) = (grids.current(), grids.next());
        let parity = k % 2;
        // SAFETY: grid_p(a, a_new, patch, tiling, norm) and grid_pack(…, packed) on
        // symmetric arrays laid out as `patch` says, with the tiling's grid; push_columns(patch,
        // packed, parity) as 2 blocks after it.
        unsafe {
            if self.pack {
                let args: [&dyn KernelArg; 6] = [&current, &next, &patch, &tiling, &norm, &packed];
                on.launch(&self.stencil, config, &args)?;
                on.launch(
                    &self.push_columns,
                    LaunchConfig::linear(2, tiling.block_x),
                    &[&patch, &packed, &parity],
                )?;
            } else {
                let args: [&dyn KernelArg; 5] = [&current, &next, &patch, &tiling, &norm];
                on.launch(&self.stencil, config, &args)?;
            }
        }
        let unpack = || -> Result<(), Box<dyn Error>> {
            if self.pack && (patch.left >= 0 || patch.right >= 0) {
                let blocks = (patch.ny + 1).div_ceil(128);
                // SAFETY: unpack_columns(a_new, patch, packed, parity), after the barrier that
                // follows every PE's push_columns of this iteration.
                unsafe {
                    on.launch(
                        &self.unpack_columns,
                        LaunchConfig::linear(blocks, 128),
                        &[&next, &patch, &packed, &parity],
                    )?
                };
            }
            Ok(())
        };
        solver::end_iteration(on, common, grids, k, Meeting::Barrier, unpack)
    }

    fn stencil(&self) -> &Kernel<'_> {
        &self.stencil
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use args::decompose;
    use nvshmem_halo::ProcessGrid;
    use solver::tests::{args, parse_with};

    fn parse(line: &str) -> Result<Options, String> {
        parse_with::<Args>(&PROGRAM, &args(line))
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

    solver::tests::shared_flag_tests!(Args, &PROGRAM);

    #[test]
    fn the_grid_flag_takes_two_positive_counts_and_nothing_else() {
        use proptest::prelude::*;
        let grid =
            |text: &str| parse_with::<Args>(&PROGRAM, &["--grid".to_string(), text.to_string()]);
        solver::tests::property((1usize..=32, 1usize..=32), |(px, py)| {
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
        solver::tests::property(bad, |text| {
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
        solver::tests::property(mismatched, |(px, py, n)| {
            let args = args(&format!("--grid {px}x{py} -n {n} --nx 100 --ny 100"));
            let message = parse_with::<Args>(&PROGRAM, &args).unwrap_err();
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
