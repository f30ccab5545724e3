//! The host side (feature `host`): symmetric grids with halos, signal words, norm bookkeeping, and
//! the persistent kernel's grid size.
//!
//! Plain (not symmetric) device memory is cudarc's [`CudaSlice`], allocated on the handle's stream;
//! cudarc keeps an error raised while freeing it and reports it from the next call that checks the
//! context, such as [`Nvshmem::synchronize`].
//!
//! ```no_run
//! use nvshmem_halo::{Boundary, Decomposition1d, host};
//! use nvshmem_host::StreamOperations;
//! let nvshmem = nvshmem_host::Nvshmem::init()?;
//! let rows = Decomposition1d::new(4094, 4094, nvshmem.n_pes() as usize, Boundary::Open)?;
//! let patch = rows.patch(nvshmem.my_pe() as usize);
//! let mut grids = host::HaloGrids::<f32>::new(&nvshmem, patch)?;
//! // … launch a stencil kernel with grids.current(), grids.next(), patch …
//! nvshmem.barrier_all_on_stream();
//! grids.swap();
//! let mine: Vec<f32> = grids.owned_cells()?; // ny × nx, row by row
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::{MeetingCounter, NORM_SLOTS_LEN, NormSchedule, NormTarget, Patch, SignalWords, Tiling};
use bytemuck::Pod;
use cudarc::driver::{CudaSlice, DevicePtr};
use nvshmem_gpu::Element;
use nvshmem_host::{
    DriverErrorContext as _, Error, IntoParam, KernelArg, LaunchValue, Nvshmem, SymmetricBuffer,
    SymmetricPtr,
};

// SAFETY: `#[repr(C)]` plain integers, declared once in this crate for host and kernels alike.
unsafe impl KernelArg for Patch {}
// SAFETY: `#[repr(C)]` plain integers, shared with the kernels.
unsafe impl KernelArg for Tiling {}
// SAFETY: `#[repr(C)]` plain integers, shared with the kernels.
unsafe impl KernelArg for NormSchedule {}
// SAFETY: `#[repr(C)]` pair of device addresses, shared with the kernels.
unsafe impl KernelArg for SignalWords {}
// SAFETY: `#[repr(C)]` three device addresses, shared with the kernels.
unsafe impl KernelArg for NormTarget {}
// SAFETY: `#[repr(transparent)]` over a device address, shared with the kernels.
unsafe impl KernelArg for MeetingCounter {}

/// `len` zeroed values of `T` on `nvshmem`'s stream.
fn zeroed<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
    nvshmem: &Nvshmem,
    len: usize,
) -> Result<CudaSlice<T>, Error> {
    nvshmem
        .stream()
        .alloc_zeros(len)
        .doing("allocating device memory")
}

/// Sets every value of `slice` to zero, in stream order: before any kernel launched after it.
fn zero<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
    slice: &mut CudaSlice<T>,
) -> Result<(), Error> {
    let stream = slice.stream().clone();
    stream.memset_zeros(slice).doing("zeroing device memory")
}

/// The device address of `slice`, for a kernel parameter.
///
/// cudarc's `device_ptr` returns a guard that, once a context has several streams, records the use
/// so that other streams wait for it. These buffers are allocated on the handle's stream and used
/// only by kernels launched on it, which the stream orders, so the guard has nothing to record.
fn device_address<T>(slice: &CudaSlice<T>) -> *mut T {
    let (address, _record) = slice.device_ptr(slice.stream());
    address as *mut T
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

    /// The array an iteration reads, as a safe kernel's slice parameter takes it (two words for an
    /// unsafe launch, opaque): [`Patch::len`]
    /// elements. An error if the array was allocated without the allocation check
    /// (`set_allocation_check(false)` before it), which is what makes its length the same on every PE.
    pub fn current_slice(&self) -> Result<LaunchValue<'_>, Error>
    where
        T: Element,
    {
        (&self.current).into_param()
    }

    /// The array an iteration writes, as [`current_slice`](Self::current_slice) gives the other.
    pub fn next_slice(&self) -> Result<LaunchValue<'_>, Error>
    where
        T: Element,
    {
        (&self.next).into_param()
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
    arrivals: CudaSlice<u32>,
}

impl<'nv> HaloSignals<'nv> {
    /// Allocates and zeroes them (collective).
    pub fn new(nvshmem: &'nv Nvshmem) -> Result<HaloSignals<'nv>, Error> {
        Ok(HaloSignals {
            words: nvshmem.alloc_zeroed(4)?,
            arrivals: zeroed(nvshmem, 4)?,
        })
    }

    /// The kernel parameter.
    pub fn words(&self) -> SignalWords {
        SignalWords {
            words: self.words.as_symmetric_ptr(),
            arrivals: device_address(&self.arrivals),
        }
    }

    /// Zeroes words and counters again, for a new run that numbers its iterations from 0. The words
    /// are written once the stream's work is done, the counters in stream order (before any kernel
    /// launched later); the caller then makes every PE pass a barrier before the run starts, so
    /// that no neighbour's new signals are wiped.
    pub fn reset(&mut self) -> Result<(), Error> {
        self.words.copy_from_host(&[0; 4])?;
        zero(&mut self.arrivals)
    }
}

/// The counter of [`MeetingCounter`]: the blocks of one launch that have reached the meeting at
/// its end, zero between launches (the last block to arrive sets it back).
#[derive(Debug)]
pub struct MeetingPlace {
    counter: CudaSlice<u32>,
}

impl MeetingPlace {
    /// Allocates it, zeroed, on `nvshmem`'s stream.
    pub fn new(nvshmem: &Nvshmem) -> Result<MeetingPlace, Error> {
        Ok(MeetingPlace {
            counter: zeroed(nvshmem, 1)?,
        })
    }

    /// The kernel parameter.
    pub fn counter(&self) -> MeetingCounter {
        // SAFETY: a `u32` of device memory that `self` owns.
        unsafe { MeetingCounter::from_raw(device_address(&self.counter)) }
    }
}

/// The buffers of the residual norm, as [`NormTarget`] describes them: two sets of
/// [`crate::NORM_SLOTS`] partial sums (local; norm `j` uses set `j % 2`), a ring of
/// [`crate::NORM_ROWS`] rows of every PE's totals (symmetric: `rows × n_pes`; norm `j` goes to row
/// [`NormSchedule::row`]`(j)`, the launch after norm `j`'s putting each PE's total into every PE's
/// row), and the global norms squared of each row (local), which the program sums from the rows
/// once the run is over. Their size does not depend on the run's length.
///
/// A run launches iteration `k` of launches `first..end` with [`target`](Self::target)`(k,
/// first)`, then a launch that only sums with [`closing`](Self::closing)`(end - 1)`.
#[derive(Debug)]
pub struct NormBuffers<'nv> {
    slots: CudaSlice<f64>,
    totals: SymmetricBuffer<'nv, f64>,
    norms: CudaSlice<f64>,
    schedule: NormSchedule,
    n_pes: u32,
    my_pe: u32,
}

impl<'nv> NormBuffers<'nv> {
    /// The `f64` totals of `schedule`'s symmetric buffer on `n_pes` PEs: the heap they take.
    pub const fn symmetric_len(schedule: NormSchedule, n_pes: usize) -> usize {
        schedule.rows() as usize * n_pes
    }

    /// Allocates them, zeroed, for `schedule` (collective).
    pub fn new(nvshmem: &'nv Nvshmem, schedule: NormSchedule) -> Result<NormBuffers<'nv>, Error> {
        let n_pes = nvshmem.n_pes() as u32;
        Ok(NormBuffers {
            slots: zeroed(nvshmem, 2 * NORM_SLOTS_LEN)?,
            totals: nvshmem.alloc_zeroed(Self::symmetric_len(schedule, n_pes as usize))?,
            norms: zeroed(nvshmem, schedule.rows() as usize)?,
            schedule,
            n_pes,
            my_pe: nvshmem.my_pe() as u32,
        })
    }

    /// The schedule.
    pub fn schedule(&self) -> NormSchedule {
        self.schedule
    }

    /// The start of the buffers, for kernels that pick each norm's target themselves
    /// ([`NormTarget::at`] with the number of PEs).
    pub fn base(&self) -> NormTarget {
        NormTarget {
            slots: device_address(&self.slots),
            pending: std::ptr::null_mut(),
            totals: self.totals.as_symmetric_ptr(),
        }
    }

    /// The target of iteration `k` of the schedule, launched after iterations `first..k` on the
    /// same stream ([`NormSchedule::launch`]): it adds to the iteration's norm, if it computes
    /// one, and sums the norm of iteration `k - 1`, if that one computed one and is not before
    /// `first`.
    pub fn target(&self, k: u32, first: u32) -> NormTarget {
        let (adds, sums) = self.schedule.launch(k, first);
        self.at(adds, sums)
    }

    /// The target of a launch that only sums, after iteration `last` (the last of a sequence of
    /// launches), so that its norm, if it computed one, reaches the totals.
    pub fn closing(&self, last: u32) -> NormTarget {
        self.at(None, self.schedule.norm_of(last))
    }

    /// The target that adds to norm `adds` and sums norm `sums`.
    fn at(&self, adds: Option<u32>, sums: Option<u32>) -> NormTarget {
        // SAFETY: two slot sets and `NORM_ROWS` rows of `n_pes` totals, and `NormSchedule::row`
        // is below `NORM_ROWS`.
        unsafe { self.base().at(adds, sums, self.n_pes) }
    }

    /// Every PE's totals, [`NormSchedule::rows`] rows of `n_pes` (symmetric).
    pub fn totals(&self) -> SymmetricPtr<f64> {
        self.totals.as_symmetric_ptr()
    }

    /// The global sums of squares, one per row (local).
    pub fn norms_squared(&self) -> *mut f64 {
        device_address(&self.norms)
    }

    /// The norms (square roots of the global sums), one per row: row `r` holds the latest norm
    /// `j` with [`NormSchedule::row`]`(j) == r`; waits for the stream.
    pub fn norms(&self, nvshmem: &Nvshmem) -> Result<Vec<f64>, Error> {
        nvshmem.synchronize()?;
        let squares = nvshmem
            .stream()
            .clone_dtoh(&self.norms)
            .doing("copying the norms to the host")?;
        Ok(squares.into_iter().map(f64::sqrt).collect())
    }

    /// This PE's own sums of squares, one per row (its column of the rows); waits for the stream.
    pub fn own_totals(&self) -> Result<Vec<f64>, Error> {
        let rows = self.totals.to_vec()?;
        Ok(rows
            .chunks(self.n_pes as usize)
            .map(|row| row[self.my_pe as usize])
            .collect())
    }

    /// Zeroes everything again, for a new run.
    pub fn reset(&mut self) -> Result<(), Error> {
        zero(&mut self.slots)?;
        zero(&mut self.norms)?;
        let zeros = vec![0.0; self.totals.len()];
        self.totals.copy_from_host(&zeros)
    }
}

/// The number of blocks of `threads` threads that may be resident at once for `kernel`, divided
/// among `pes_per_gpu` PEs sharing the GPU: the grid of a persistent kernel that must stay resident
/// next to its neighbours' on the same GPU (with MPS, all of them run at once).
pub fn resident_blocks(
    kernel: &nvshmem_host::Kernel<'_>,
    threads: u32,
    pes_per_gpu: u32,
) -> Result<u32, Error> {
    let config = nvshmem_host::LaunchShape::linear(1, threads);
    let (limit, _, _) = kernel.max_cooperative_blocks(config)?;
    Ok((limit / pes_per_gpu.max(1)).max(1))
}
