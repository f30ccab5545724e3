//! The floors' yardsticks, measured beside the run: copy rates, and the time of a launch and of a
//! meeting of every PE.

use crate::kernels::{CommonKernels, launch_one};
use cudarc::driver::DevicePtr;
use jacobi_args::Options;
use nvshmem_host::timing::{self, StreamTimer};
use nvshmem_host::{Kernel, LaunchShape, Nvshmem};
use std::error::Error;

/// What an iteration cannot beat, measured in the run beside it: the copy rate of a working set
/// the size of one grid (in L2 when it fits), and the time of one launch and of one meeting of
/// every PE. The benchmark report builds each cell's floor from them.
pub(crate) struct Floors {
    /// Bytes moved per second by device-to-device copies of a large buffer (PE 0): the memory
    /// floor of grids that do not fit in L2.
    pub(crate) copy: f64,
    /// Bytes moved per second copying `nx × ny × 4` bytes: the faster of back and forth in one
    /// launch and device-to-device copies (PE 0).
    pub(crate) fit_copy: f64,
    /// Seconds per launch of an empty kernel, launched back to back.
    pub(crate) launch: f64,
    /// Seconds per launch of the barrier kernel, every PE launching it (0 on one PE).
    pub(crate) barrier: f64,
}

impl Floors {
    /// Measures them: the copy rates by PE 0 while the others wait, then the launch and the
    /// meeting, every PE at once as in the run.
    pub(crate) fn measure(
        nvshmem: &Nvshmem,
        common: &CommonKernels<'_>,
        options: &Options,
    ) -> Result<Floors, Box<dyn Error>> {
        let (copy, fit_copy) = if nvshmem.my_pe() == 0 {
            let bytes = options.nx * options.ny * 4;
            // The copy kernel saves a launch per copy where the grid fits in L2, the copy engine
            // may do better where it does not: the floor takes the faster.
            let fit = fit_copy_rate(nvshmem, common, bytes)?
                .max(timing::copy_rate(nvshmem, bytes, 10, 3)?);
            (
                timing::copy_rate(nvshmem, timing::FLOOR_COPY_BYTES, 10, 3)?,
                fit,
            )
        } else {
            (0.0, 0.0)
        };
        nvshmem.barrier_all();
        let floors = Floors {
            copy,
            fit_copy,
            launch: time_launches(nvshmem, &common.nothing)?,
            barrier: if nvshmem.n_pes() > 1 {
                time_launches(nvshmem, &common.barrier)?
            } else {
                0.0
            },
        };
        nvshmem.barrier_all();
        Ok(floors)
    }
}

/// Launches of a kernel that the floors time.
const FLOOR_LAUNCHES: u32 = 1000;

/// Seconds per launch of `kernel` (no parameters, one block of 32 threads), launched
/// [`FLOOR_LAUNCHES`] times back to back on the handle's stream, after one untimed launch.
fn time_launches(nvshmem: &Nvshmem, kernel: &Kernel<'_>) -> Result<f64, Box<dyn Error>> {
    let on = nvshmem.on(nvshmem.stream())?;
    // SAFETY: `nothing` and `barrier_all` take no parameters; every PE times the same kernels.
    unsafe { launch_one(on, kernel, &[])? };
    let timer = StreamTimer::new(nvshmem)?;
    timer.start()?;
    for _ in 0..FLOOR_LAUNCHES {
        // SAFETY: as above.
        unsafe { launch_one(on, kernel, &[])? };
    }
    timer.stop()?;
    Ok(timer.seconds()? / f64::from(FLOOR_LAUNCHES))
}

/// The copy rate of a working set of two arrays of `bytes` each, in bytes moved per second: the
/// best of four launches of `copy_trips` (the first also touches the arrays), each copying back and
/// forth enough times to take well over a launch.
fn fit_copy_rate(
    nvshmem: &Nvshmem,
    common: &CommonKernels<'_>,
    bytes: usize,
) -> Result<f64, Box<dyn Error>> {
    let stream = nvshmem.stream();
    let words = bytes.div_ceil(16).max(1);
    let a = stream.alloc_zeros::<u8>(words * 16)?;
    let b = stream.alloc_zeros::<u8>(words * 16)?;
    let ((a_address, _a), (b_address, _b)) = (a.device_ptr(stream), b.device_ptr(stream));
    let trips: u32 = (((1u64 << 30) / words as u64 / 16) as u32).clamp(4, 1000);
    let on = nvshmem.on(stream)?;
    let timer = StreamTimer::new(nvshmem)?;
    let mut best = f64::INFINITY;
    for _ in 0..4 {
        timer.start()?;
        // SAFETY: copy_trips(a, b, len, trips) on two buffers of `words` 16-byte words.
        unsafe {
            on.launch(
                &common.copy_trips,
                LaunchShape::linear(1024, 256),
                &[
                    &(a_address as *mut [f32; 4]),
                    &(b_address as *mut [f32; 4]),
                    &words,
                    &trips,
                ],
            )?
        };
        timer.stop()?;
        best = best.min(timer.seconds()?);
    }
    Ok(2.0 * (words * 16) as f64 * f64::from(trips) / best)
}
