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
//! are those of `jacobi`: both runners are the `jacobi` library (`src/lib.rs`) plus their
//! variants' kernels, this one's command line being [`jacobi_args::grid`]. `--stale-halo`
//! spoils the last PE's left halo (its upper one on a single column of PEs) after the first
//! iteration, as in `examples/jacobi`: a column halo one iteration late, which the check must find.

use clap::ValueEnum;
use jacobi::{CommonKernels, Iterations, Meeting, Options, Program, Verdict};
use jacobi_args::grid::{Args, RULES, Variant};
use nvshmem_halo::host::HaloGrids;
use nvshmem_halo::packing::ColumnPacking;
use nvshmem_halo::{Decomposition2d, NormTarget, Tiling};
use nvshmem_host::{Kernel, KernelArg, LaunchShape, Nvshmem, OnStream, SymmetricBuffer};
use std::error::Error;
use std::process::ExitCode;

const KERNELS: nvshmem_host::ModuleImage = nvshmem_host::module_image!("JACOBI2D_GRID_KERNELS");

const PROGRAM: Program = Program { rules: RULES, run };

fn main() -> ExitCode {
    jacobi::main::<Args>(&PROGRAM)
}

fn run(
    nvshmem: &Nvshmem,
    options: &Options,
    decomposition: &Decomposition2d,
) -> Result<Verdict, Box<dyn Error>> {
    let module = nvshmem.load_module(KERNELS)?;
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
    jacobi::solve(nvshmem, &common, options, decomposition, &mut iterations)
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
        norm: NormTarget,
        k: u32,
    ) -> Result<(), Box<dyn Error>> {
        let patch = *grids.patch();
        let tiling = self.tiling;
        let config = jacobi::stencil_config(tiling, tiling.grid(&patch));
        let packed = self.packed.as_symmetric_ptr();
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
                    LaunchShape::linear(2, tiling.block_x),
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
                        LaunchShape::linear(blocks, 128),
                        &[&next, &patch, &packed, &parity],
                    )?
                };
            }
            Ok(())
        };
        jacobi::end_iteration(on, common, grids, k, Meeting::Barrier, unpack)
    }

    fn stencil(&self) -> &Kernel<'_> {
        &self.stencil
    }
}
