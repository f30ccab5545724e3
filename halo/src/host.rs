//! The host side (feature `host`): symmetric grids with halos, signal words, norm bookkeeping, the
//! on-stream barrier, and timing.
//!
//! ```no_run
//! use nvshmem_halo::{Boundary, Decomposition1d, host};
//! let nvshmem = nvshmem_host::Nvshmem::init()?;
//! let rows = Decomposition1d::new(4094, 4094, nvshmem.n_pes() as usize, Boundary::Open)?;
//! let patch = rows.patch(nvshmem.my_pe() as usize);
//! let mut grids = host::HaloGrids::<f32>::new(&nvshmem, patch)?;
//! // … launch a stencil kernel with grids.current(), grids.next(), patch …
//! host::barrier_all_on_stream(&nvshmem)?;
//! grids.swap();
//! let mine: Vec<f32> = grids.owned_cells()?; // ny × nx, row by row
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::{NORM_SLOTS_LEN, NormSchedule, Patch, SignalWords, Tiling};
use bytemuck::Pod;
use cudarc::driver::sys::{CUdeviceptr, CUevent, CUevent_flags};
use nvshmem_host::{Error, KernelArg, Nvshmem, SymmetricBuffer, SymmetricPtr};
use std::marker::PhantomData;

// SAFETY: `#[repr(C)]` plain integers, declared once in this crate for host and kernels alike.
unsafe impl KernelArg for Patch {}
// SAFETY: `#[repr(C)]` plain integers, shared with the kernels.
unsafe impl KernelArg for Tiling {}
// SAFETY: `#[repr(C)]` plain integers, shared with the kernels.
unsafe impl KernelArg for NormSchedule {}
// SAFETY: `#[repr(C)]` pair of device addresses, shared with the kernels.
unsafe impl KernelArg for SignalWords {}

fn cuda(action: &str) -> impl FnOnce(cudarc::driver::DriverError) -> Error + '_ {
    move |error| Error::Cuda {
        action: action.to_string(),
        error,
    }
}

/// Completes this PE's outstanding NVSHMEM operations and waits for every PE, in stream order
/// (`nvshmemx_barrier_all_on_stream` on the handle's stream, through
/// [`Nvshmem::barrier_all_on_stream`]): kernels launched after it start once every PE's kernels
/// launched before it have finished. Every PE must call it. Returns at once.
///
/// Works with several PEs per GPU without MPS (NVSHMEM then implements it as quiet, sync, quiet).
pub fn barrier_all_on_stream(nvshmem: &Nvshmem) -> Result<(), Error> {
    nvshmem.barrier_all_on_stream();
    Ok(())
}

/// The two symmetric arrays of a stencil with halos, `current` (read) and `next` (written), each
/// [`Patch::len`] elements laid out as the patch says, allocated 4096-byte aligned on every PE.
#[derive(Debug)]
pub struct HaloGrids<'nv, T: Pod> {
    current: SymmetricBuffer<'nv, T>,
    next: SymmetricBuffer<'nv, T>,
    patch: Patch,
}

impl<'nv, T: Pod> HaloGrids<'nv, T> {
    /// Allocates both arrays (collective: every PE passes its own patch of the same decomposition,
    /// whose arrays have the same length everywhere). Their contents are undefined.
    pub fn new(nvshmem: &'nv Nvshmem, patch: Patch) -> Result<HaloGrids<'nv, T>, Error> {
        Ok(HaloGrids {
            current: nvshmem.alloc_aligned(patch.len(), 4096)?,
            next: nvshmem.alloc_aligned(patch.len(), 4096)?,
            patch,
        })
    }

    /// The patch.
    pub fn patch(&self) -> &Patch {
        &self.patch
    }

    /// The array an iteration reads.
    pub fn current(&self) -> SymmetricPtr<T> {
        self.current.as_symmetric_ptr()
    }

    /// The array an iteration writes.
    pub fn next(&self) -> SymmetricPtr<T> {
        self.next.as_symmetric_ptr()
    }

    /// Exchanges the two: what was written becomes what is read.
    pub fn swap(&mut self) {
        std::mem::swap(&mut self.current, &mut self.next);
    }

    /// The whole local array `current`, halos included (`rows × pitch`).
    pub fn current_array(&self) -> Result<Vec<T>, Error> {
        self.current.to_vec()
    }

    /// The owned cells of `current`, `ny` rows of `nx` cells (waits for the stream).
    pub fn owned_cells(&self) -> Result<Vec<T>, Error> {
        Ok(owned_cells(&self.patch, &self.current_array()?))
    }
}

/// The owned cells of a local array laid out as `patch` says: `ny` rows of `nx` cells.
///
/// ```
/// let patch = nvshmem_halo::Patch::whole(2, 2); // 4 rows of 32
/// let array: Vec<u32> = (0..patch.len() as u32).collect();
/// assert_eq!(nvshmem_halo::host::owned_cells(&patch, &array), [33, 34, 65, 66]);
/// ```
pub fn owned_cells<T: Copy>(patch: &Patch, array: &[T]) -> Vec<T> {
    let (nx, ny) = (patch.nx as usize, patch.ny as usize);
    (1..=ny)
        .flat_map(|row| {
            let start = patch.index(row as u32, 1);
            array[start..start + nx].iter().copied()
        })
        .collect()
}

/// The signal words (symmetric) and arrival counters (local) of [`SignalWords`], zeroed.
#[derive(Debug)]
pub struct HaloSignals<'nv> {
    words: SymmetricBuffer<'nv, u64>,
    arrivals: DeviceBuffer<u32>,
}

impl<'nv> HaloSignals<'nv> {
    /// Allocates and zeroes them (collective).
    pub fn new(nvshmem: &'nv Nvshmem) -> Result<HaloSignals<'nv>, Error> {
        Ok(HaloSignals {
            words: nvshmem.alloc_zeroed(4)?,
            arrivals: DeviceBuffer::zeroed(4)?,
        })
    }

    /// The kernel parameter.
    pub fn words(&self) -> SignalWords {
        SignalWords {
            words: self.words.as_symmetric_ptr(),
            arrivals: self.arrivals.as_ptr(),
        }
    }

    /// Zeroes words and counters again, for a new run that numbers its iterations from 0. Waits
    /// for the stream first; the caller then makes every PE pass a barrier before the run starts, so
    /// that no neighbour's new signals are wiped.
    pub fn reset(&mut self) -> Result<(), Error> {
        self.words.copy_from_host(&[0; 4])?;
        self.arrivals.zero()
    }
}

/// The buffers of the residual norm: two sets of [`crate::NORM_SLOTS`] partial sums (local; one set
/// is added to while the other is summed), one per-PE total per scheduled norm (symmetric, so that
/// every PE can sum the others'), and the global norms squared (local).
#[derive(Debug)]
pub struct NormBuffers<'nv> {
    slots: DeviceBuffer<f64>,
    totals: SymmetricBuffer<'nv, f64>,
    norms: DeviceBuffer<f64>,
    schedule: NormSchedule,
}

impl<'nv> NormBuffers<'nv> {
    /// Allocates them, zeroed, for `schedule` (collective).
    pub fn new(nvshmem: &'nv Nvshmem, schedule: NormSchedule) -> Result<NormBuffers<'nv>, Error> {
        let count = schedule.count() as usize;
        Ok(NormBuffers {
            slots: DeviceBuffer::zeroed(2 * NORM_SLOTS_LEN)?,
            totals: nvshmem.alloc_zeroed(count)?,
            norms: DeviceBuffer::zeroed(count)?,
            schedule,
        })
    }

    /// The schedule.
    pub fn schedule(&self) -> NormSchedule {
        self.schedule
    }

    /// The slot set that norm number `j` is added to: `NORM_SLOTS_LEN` `f64`.
    pub fn slots(&self, j: u32) -> *mut f64 {
        // SAFETY: the buffer holds two sets.
        unsafe { self.slots.as_ptr().add((j as usize % 2) * NORM_SLOTS_LEN) }
    }

    /// Both slot sets (for kernels that pick the set themselves).
    pub fn all_slots(&self) -> *mut f64 {
        self.slots.as_ptr()
    }

    /// This PE's totals, one per norm (symmetric).
    pub fn totals(&self) -> SymmetricPtr<f64> {
        self.totals.as_symmetric_ptr()
    }

    /// The global sums of squares, one per norm (local).
    pub fn norms_squared(&self) -> *mut f64 {
        self.norms.as_ptr()
    }

    /// The norms (square roots of the global sums), in schedule order; waits for the stream.
    pub fn norms(&self, nvshmem: &Nvshmem) -> Result<Vec<f64>, Error> {
        nvshmem.synchronize()?;
        Ok(self.norms.to_vec()?.into_iter().map(f64::sqrt).collect())
    }

    /// This PE's own sums of squares, one per norm; waits for the stream.
    pub fn local_totals(&self) -> Result<Vec<f64>, Error> {
        self.totals.to_vec()
    }

    /// Zeroes everything again, for a new run.
    pub fn reset(&mut self) -> Result<(), Error> {
        self.slots.zero()?;
        self.norms.zero()?;
        let zeros = vec![0.0; self.totals.len()];
        self.totals.copy_from_host(&zeros)
    }
}

/// Plain (not symmetric) device memory for `len` values of `T`, freed on drop.
#[derive(Debug)]
pub struct DeviceBuffer<T> {
    address: CUdeviceptr,
    len: usize,
    _values: PhantomData<T>,
}

impl<T: Pod> DeviceBuffer<T> {
    /// Allocates `len` zeroed values (`cuMemAlloc`, `cuMemsetD8`) in the current context.
    pub fn zeroed(len: usize) -> Result<DeviceBuffer<T>, Error> {
        let bytes = (len * std::mem::size_of::<T>()).max(1);
        // SAFETY: a plain allocation in the current context (NVSHMEM's, made current by init).
        let address = unsafe { cudarc::driver::result::malloc_sync(bytes) }
            .map_err(cuda("allocating device memory"))?;
        let buffer = DeviceBuffer {
            address,
            len,
            _values: PhantomData,
        };
        buffer.zero()?;
        Ok(buffer)
    }

    /// The device address.
    pub fn as_ptr(&self) -> *mut T {
        self.address as *mut T
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no values.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Sets every byte to zero, waiting until done.
    pub fn zero(&self) -> Result<(), Error> {
        let bytes = self.len * std::mem::size_of::<T>();
        // SAFETY: the allocation holds `bytes` bytes.
        unsafe { cudarc::driver::result::memset_d8_sync(self.address, 0, bytes) }
            .map_err(cuda("zeroing device memory"))
    }

    /// The contents (waits for all work in the context first).
    pub fn to_vec(&self) -> Result<Vec<T>, Error> {
        cudarc::driver::result::ctx::synchronize().map_err(cuda("waiting for the GPU"))?;
        let mut values = vec![T::zeroed(); self.len];
        // SAFETY: the allocation holds `len` values.
        unsafe { cudarc::driver::result::memcpy_dtoh_sync(&mut values, self.address) }
            .map_err(cuda("copying device memory to the host"))?;
        Ok(values)
    }

    /// Copies `values` (exactly `len`) in, waiting until done.
    pub fn copy_from_host(&mut self, values: &[T]) -> Result<(), Error> {
        if values.len() != self.len {
            return Err(Error::LengthMismatch {
                buffer: self.len,
                slice: values.len(),
            });
        }
        // SAFETY: the allocation holds `len` values.
        unsafe { cudarc::driver::result::memcpy_htod_sync(self.address, values) }
            .map_err(cuda("copying host data to device memory"))
    }
}

impl<T> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: allocated by `malloc_sync` and not used after this; a failure here leaves the
        // memory to the context's teardown.
        let _ = unsafe { cudarc::driver::result::free_sync(self.address) };
    }
}

/// A pair of CUDA events on the handle's stream: [`start`](Self::start) and
/// [`stop`](Self::stop) record them, [`seconds`](Self::seconds) waits for the second and returns
/// the GPU time between them.
#[derive(Debug)]
pub struct StreamTimer {
    start: CUevent,
    stop: CUevent,
}

impl StreamTimer {
    /// Creates both events.
    pub fn new() -> Result<StreamTimer, Error> {
        let create = || {
            cudarc::driver::result::event::create(CUevent_flags::CU_EVENT_DEFAULT)
                .map_err(cuda("creating a CUDA event"))
        };
        Ok(StreamTimer {
            start: create()?,
            stop: create()?,
        })
    }

    /// Records the start on `nvshmem`'s stream.
    pub fn start(&self, nvshmem: &Nvshmem) -> Result<(), Error> {
        // SAFETY: a live event and the handle's stream, both in the current context.
        unsafe { cudarc::driver::result::event::record(self.start, nvshmem.stream().cu_stream()) }
            .map_err(cuda("recording a CUDA event"))
    }

    /// Records the stop on `nvshmem`'s stream.
    pub fn stop(&self, nvshmem: &Nvshmem) -> Result<(), Error> {
        // SAFETY: as for `start`.
        unsafe { cudarc::driver::result::event::record(self.stop, nvshmem.stream().cu_stream()) }
            .map_err(cuda("recording a CUDA event"))
    }

    /// Waits for the stop event and returns the seconds between start and stop.
    pub fn seconds(&self) -> Result<f64, Error> {
        // SAFETY: both events were created here and recorded.
        unsafe {
            cudarc::driver::result::event::synchronize(self.stop)
                .map_err(cuda("waiting for a CUDA event"))?;
            let ms = cudarc::driver::result::event::elapsed(self.start, self.stop)
                .map_err(cuda("reading the time between two CUDA events"))?;
            Ok(f64::from(ms) / 1e3)
        }
    }
}

impl Drop for StreamTimer {
    fn drop(&mut self) {
        // SAFETY: created here, not used after this.
        unsafe {
            let _ = cudarc::driver::result::event::destroy(self.start);
            let _ = cudarc::driver::result::event::destroy(self.stop);
        }
    }
}

/// The GPU's device-to-device copy rate, in bytes moved per second (each copied byte is read once
/// and written once, so a copy of `n` bytes moves `2n`): the best of `rounds` timings of
/// `copies` back-to-back `cuMemcpyDtoDAsync` of `bytes` bytes on the handle's stream, after one
/// untimed copy.
///
/// This is the memory floor's yardstick: a bandwidth-bound kernel that reads `r` and writes `w`
/// bytes cannot take less than `(r + w) / rate`.
pub fn copy_rate(nvshmem: &Nvshmem, bytes: usize, copies: u32, rounds: u32) -> Result<f64, Error> {
    let source = DeviceBuffer::<u8>::zeroed(bytes)?;
    let destination = DeviceBuffer::<u8>::zeroed(bytes)?;
    let stream = nvshmem.stream().cu_stream();
    let copy = || {
        // SAFETY: both allocations hold `bytes` bytes and live until the stream is synchronised
        // (`seconds` waits for the stop event, after the last copy).
        unsafe {
            cudarc::driver::result::memcpy_dtod_async(
                destination.address,
                source.address,
                bytes,
                stream,
            )
        }
        .map_err(cuda("copying device memory"))
    };
    copy()?;
    let timer = StreamTimer::new()?;
    let mut best = f64::INFINITY;
    for _ in 0..rounds.max(1) {
        timer.start(nvshmem)?;
        for _ in 0..copies.max(1) {
            copy()?;
        }
        timer.stop(nvshmem)?;
        best = best.min(timer.seconds()?);
    }
    Ok(2.0 * bytes as f64 * f64::from(copies.max(1)) / best)
}

/// The number of blocks of `threads` threads that may be resident at once for `kernel`, divided
/// among `pes_per_gpu` PEs sharing the GPU: the grid of a persistent kernel that must stay resident
/// next to its neighbours' on the same GPU (with MPS, all of them run at once).
pub fn resident_blocks(
    kernel: &nvshmem_host::Kernel<'_>,
    threads: u32,
    pes_per_gpu: u32,
) -> Result<u32, Error> {
    let config = nvshmem_host::LaunchConfig::linear(1, threads);
    let (limit, _, _) = kernel.max_cooperative_blocks(config)?;
    Ok((limit / pes_per_gpu.max(1)).max(1))
}
