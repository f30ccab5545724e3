//! What the two Jacobi runners share (`jacobi`, rows split over PEs, and `jacobi2d-grid`, a 2-D
//! process grid): reading their command lines (whose parsers are the `jacobi-args` crate),
//! relaunching through the launcher, the problem's initial state, the norm bookkeeping of an
//! iteration, the timed run, the checks against a single-GPU and a CPU run, and the report with its
//! machine-readable `result:` line. Each runner adds its variants' iterations ([`Iterations`]) and
//! calls [`main`].
//!
//! The problem (NVIDIA's multi-GPU Jacobi, from a non-zero interior): `nx × ny` cells of `f32`; the
//! left and right columns hold `sin(2π y / (ny - 1))` for global row `y` and stay fixed, as do the
//! top and bottom rows (at zero); the `(nx - 2) × (ny - 2)` interior starts at the values of
//! [`jacobi_stencil::problem`] (never zero, all different along a row or a column, so that every
//! halo carries data a wrong exchange would change) and is split over the PEs.
//!
//! A cell's value does not depend on how the interior is split: every PE computes each cell's
//! update with the same operations in the same order as a single GPU and the CPU reference do. So
//! `--check` wants every cell equal to theirs, exactly; only the norm, whose sums are grouped
//! differently, has a tolerance.

mod checks;
mod cpu;
mod floors;
mod graphs;
mod heap;
mod initial;
mod iteration;
mod kernels;
mod program;
mod report;
mod solve;

pub use iteration::{Iterations, Meeting, each_iteration, end_iteration};
pub use jacobi_args::{Options, Rules};
pub use kernels::{CommonKernels, stencil_config};
pub use program::{Program, RunPe, Verdict, main};
pub use solve::solve;
