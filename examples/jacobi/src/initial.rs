//! The problem's initial state: the fixed columns' values, computed here, and the interior's,
//! shared with the kernels ([`jacobi_stencil::problem`]).

use crate::kernels::CommonKernels;
use cudarc::driver::DevicePtr;
use nvshmem_halo::Patch;
use nvshmem_halo::host::HaloGrids;
use nvshmem_host::{LaunchShape, Nvshmem};
use std::error::Error;

/// The boundary value of each local row of `patch` (global rows `y0 ..`, counting the fixed top
/// row as 0) in a grid of `ny` rows: `sin(2π y / (ny - 1))`, computed in `f64` as NVIDIA's
/// reference does.
pub(crate) fn boundary_values(patch: &Patch, ny: usize) -> Vec<f32> {
    (0..patch.rows as usize)
        .map(|row| {
            let y = patch.y0 as usize + row;
            if y < ny {
                (2.0 * std::f64::consts::PI * y as f64 / (ny - 1) as f64).sin() as f32
            } else {
                0.0
            }
        })
        .collect()
}

/// Sets both arrays of `grids` to the initial state.
pub(crate) fn initialize(
    nvshmem: &Nvshmem,
    kernels: &CommonKernels<'_>,
    grids: &HaloGrids<'_, f32>,
    ny: usize,
) -> Result<(), Box<dyn Error>> {
    let patch = *grids.patch();
    let boundary = nvshmem.stream().clone_htod(&boundary_values(&patch, ny))?;
    let (boundary_address, _record) = boundary.device_ptr(nvshmem.stream());
    // SAFETY: initialize(a, a_new, patch, boundary) writes `patch.len()` elements of both arrays
    // and reads `patch.rows` boundary values.
    unsafe {
        kernels.initialize.launch(
            LaunchShape::linear(1024, 256),
            &[
                &grids.current(),
                &grids.next(),
                &patch,
                &(boundary_address as *const f32),
            ],
        )?;
    }
    nvshmem.synchronize()?;
    Ok(())
}
