//! GPU time on the handle's stream: [`StreamTimer`] times the work enqueued between two points,
//! by the GPU's clock rather than the host's, so that launch and queueing delays are not counted;
//! [`copy_rate`] measures the memory floor that a workload's time is compared with.

use crate::{DriverErrorContext as _, Error, Nvshmem};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};
use std::sync::Arc;

/// A pair of CUDA events on the handle's stream: [`start`](Self::start) and
/// [`stop`](Self::stop) record them, [`seconds`](Self::seconds) waits for both and returns the GPU
/// time between them.
///
/// The events are cudarc's: an error raised while destroying them is kept in the context and
/// reported by its next check (such as [`Nvshmem::synchronize`]).
#[derive(Debug)]
pub struct StreamTimer {
    start: CudaEvent,
    stop: CudaEvent,
    stream: Arc<CudaStream>,
}

impl StreamTimer {
    /// Creates both events, for `nvshmem`'s stream.
    pub fn new(nvshmem: &Nvshmem) -> Result<StreamTimer, Error> {
        StreamTimer::on(nvshmem, nvshmem.stream())
    }

    /// Creates both events, for `stream`, a stream of `nvshmem`'s context (one that replays a
    /// [`crate::Graph`], say).
    pub fn on(nvshmem: &Nvshmem, stream: &Arc<CudaStream>) -> Result<StreamTimer, Error> {
        nvshmem.on(stream)?;
        // cudarc's default (`None`) makes events that cannot time.
        let create = || {
            nvshmem
                .context()
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .doing("creating a CUDA event")
        };
        Ok(StreamTimer {
            start: create()?,
            stop: create()?,
            stream: stream.clone(),
        })
    }

    /// Records the start: work enqueued on the stream after this call is timed.
    pub fn start(&self) -> Result<(), Error> {
        self.start
            .record(&self.stream)
            .doing("recording a CUDA event")
    }

    /// Records the stop: work enqueued on the stream after this call is not timed.
    pub fn stop(&self) -> Result<(), Error> {
        self.stop
            .record(&self.stream)
            .doing("recording a CUDA event")
    }

    /// Waits for both events and returns the seconds between start and stop.
    pub fn seconds(&self) -> Result<f64, Error> {
        let ms = self
            .start
            .elapsed_ms(&self.stop)
            .doing("reading the time between two CUDA events")?;
        Ok(f64::from(ms) / 1e3)
    }
}

/// Bytes per copy of [`memory_floor`]: far more than a GPU's L2 cache holds, so the copies run at
/// the memory's rate.
pub const FLOOR_COPY_BYTES: usize = 512 << 20;

/// A run's memory floor: the [`copy_rate`] of ten back-to-back copies of [`FLOOR_COPY_BYTES`], the
/// best of three timings, measured by PE 0 while the others wait; `0.0` on the other PEs. Every PE
/// calls it (it ends in a barrier of all PEs). Under MPS PE 0 copies with its share of the GPU.
pub fn memory_floor(nvshmem: &Nvshmem) -> Result<f64, Error> {
    let rate = if nvshmem.my_pe() == 0 {
        copy_rate(nvshmem, FLOOR_COPY_BYTES, 10, 3)?
    } else {
        0.0
    };
    nvshmem.barrier_all();
    Ok(rate)
}

/// The GPU's device-to-device copy rate, in bytes moved per second (each copied byte is read once
/// and written once, so a copy of `n` bytes moves `2n`): the best of `rounds` timings of
/// `copies` back-to-back copies of `bytes` bytes on the handle's stream, after one untimed copy.
///
/// This is the memory floor's yardstick of a workload: a bandwidth-bound kernel that reads `r` and writes `w`
/// bytes cannot take less than `(r + w) / rate`.
pub fn copy_rate(nvshmem: &Nvshmem, bytes: usize, copies: u32, rounds: u32) -> Result<f64, Error> {
    let stream = nvshmem.stream();
    let allocate = || {
        stream
            .alloc_zeros::<u8>(bytes.max(1))
            .doing("allocating device memory")
    };
    let (source, mut destination) = (allocate()?, allocate()?);
    let mut copy = || {
        stream
            .memcpy_dtod(&source, &mut destination)
            .doing("copying device memory")
    };
    copy()?;
    let timer = StreamTimer::new(nvshmem)?;
    let mut best = f64::INFINITY;
    for _ in 0..rounds.max(1) {
        timer.start()?;
        for _ in 0..copies.max(1) {
            copy()?;
        }
        timer.stop()?;
        best = best.min(timer.seconds()?);
    }
    Ok(2.0 * bytes as f64 * f64::from(copies.max(1)) / best)
}
