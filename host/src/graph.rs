//! CUDA graphs of NVSHMEM work: [`Nvshmem::capture`] records the kernel launches and on-stream
//! NVSHMEM operations ([`crate::StreamOperations`]) enqueued on a stream into a [`Graph`],
//! instantiated once; [`Graph::replay`] runs all of it again with one call, sparing the host the
//! launch of each piece.
//!
//! Kernel launches capture like any other work, NVSHMEM device calls inside them included. NVSHMEM's
//! own `nvshmemx_*_on_stream` calls are another matter: with NVSHMEM 3.4.5,
//! `nvshmemx_barrier_all_on_stream` between two or more PEs refuses the capture and ends the process
//! (status 255, "operation not permitted when stream is capturing"); on one PE it captures. So that
//! PEs can meet inside a graph, launch a kernel that calls `nvshmem_gpu::sync::barrier_all` from
//! one thread (the Jacobi runners' `--graph` does). What no capture can hold is work that waits on
//! the host: synchronising, copying to or from host memory, allocating. Such a call inside the
//! capture fails (or spoils the capture, which then fails to end); the error says so.
//!
//! Capture needs a stream of its own: CUDA cannot capture the legacy default stream, which is the
//! handle's own ([`Nvshmem::stream`]). Make one with `nvshmem.context().new_stream()`.
//!
//! ```no_run
//! use nvshmem_host::{LaunchShape, Nvshmem, StreamOperations};
//! # const PTX: &str = "";
//! let nvshmem = Nvshmem::init()?;
//! let module = nvshmem.load_module(PTX)?;
//! let step = module.kernel("step")?;
//! let meet = module.kernel("barrier_all")?;
//! let data = nvshmem.alloc_zeroed::<f32>(1024)?;
//! let stream = nvshmem.context().new_stream().expect("a stream");
//! let graph = nvshmem.capture(&stream, |on| {
//!     // SAFETY: `step(data, n)` touches `n` elements of `data`.
//!     unsafe { on.launch(&step, LaunchShape::linear(4, 256), &[&data.as_symmetric_ptr(), &1024usize])? };
//!     // SAFETY: a kernel that calls `sync::barrier_all` from one thread; every PE launches it.
//!     unsafe { on.launch(&meet, LaunchShape::linear(1, 1), &[])? };
//!     Ok::<(), nvshmem_host::Error>(())
//! })?;
//! for _ in 0..100 {
//!     // SAFETY: `data` is alive; every PE replays the same graph as often.
//!     unsafe { graph.replay()? };
//! }
//! stream.synchronize().expect("the replays finished");
//! # Ok::<(), nvshmem_host::Error>(())
//! ```

use crate::{DriverErrorContext as _, Error, GraphError, Nvshmem, OnStream};
use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaGraph, CudaStream};
use std::marker::PhantomData;
use std::sync::Arc;

/// Work captured from a stream and instantiated once: [`Graph::replay`] enqueues all of it again
/// on that stream. Made by [`Nvshmem::capture`]; it borrows the handle, because its NVSHMEM
/// operations run only while NVSHMEM does.
///
/// The graph holds addresses, not borrows, of the memory its work uses (as cudarc's graphs do):
/// that memory must stay allocated while the graph is replayed (see [`Graph::replay`]). Dropping
/// the graph destroys it; an error while doing so is kept in the CUDA context and reported by its
/// next check (such as a stream's `synchronize`).
pub struct Graph<'nv> {
    graph: CudaGraph,
    nvshmem: PhantomData<&'nv Nvshmem>,
}

impl std::fmt::Debug for Graph<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph").finish_non_exhaustive()
    }
}

impl Nvshmem {
    /// Captures what `body` enqueues on `stream` (through the [`OnStream`] it is given, or any
    /// other call that enqueues there) into a [`Graph`], without running it, and instantiates it.
    ///
    /// The stream stops capturing whatever happens in `body`: on an error (returned after the
    /// capture ended, the graph discarded) and on a panic. Every PE captures the same collective
    /// operations, as it would enqueue them.
    ///
    /// # Errors
    /// [`GraphError::CaptureOnLegacyStream`] for the legacy default stream (the handle's own);
    /// [`Error::ForeignContext`] for a stream of another context; `body`'s own error; an
    /// [`Error::Cuda`] naming the capture when CUDA refuses to begin, end or instantiate it (its
    /// message says which call inside spoiled it).
    pub fn capture<'nv, E: From<Error>>(
        &'nv self,
        stream: &Arc<CudaStream>,
        body: impl FnOnce(OnStream<'_>) -> Result<(), E>,
    ) -> Result<Graph<'nv>, E> {
        let on = self.on(stream)?;
        if stream.cu_stream().is_null() {
            return Err(Error::from(GraphError::CaptureOnLegacyStream).into());
        }
        // Relaxed: NVSHMEM's on-stream collectives make CUDA calls of their own while enqueuing
        // (queries of its internal state) that the stricter modes refuse during a capture; a call
        // that really synchronises with the capturing stream still fails, naming itself.
        stream
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
            .doing("beginning to capture a CUDA graph")?;
        let capturing = Capturing {
            nvshmem: self,
            stream: Some(stream),
        };
        let outcome = body(on);
        let ended = capturing.end();
        outcome?;
        let graph = ended
            .doing("ending the capture of a CUDA graph and instantiating it")?
            .ok_or(Error::from(GraphError::EmptyCapture))?;
        Ok(Graph {
            graph,
            nvshmem: PhantomData,
        })
    }
}

/// A stream while it captures; ends the capture when dropped before [`Capturing::end`] (a panic
/// in the body), so that the stream is never left capturing.
struct Capturing<'a> {
    nvshmem: &'a Nvshmem,
    stream: Option<&'a Arc<CudaStream>>,
}

impl Capturing<'_> {
    fn end(mut self) -> Result<Option<CudaGraph>, cudarc::driver::DriverError> {
        let stream = self.stream.take().expect("ended once");
        stream.end_capture(CUgraphInstantiate_flags(0))
    }
}

impl Drop for Capturing<'_> {
    fn drop(&mut self) {
        if let Some(stream) = self.stream.take()
            && let Err(error) = stream.end_capture(CUgraphInstantiate_flags(0))
        {
            self.nvshmem.defer_error(Error::Cuda {
                action: "ending a capture abandoned by a panic".into(),
                error,
            });
        }
    }
}

impl Graph<'_> {
    /// Enqueues the whole graph on the stream it was captured from; returns without waiting.
    /// Replays on one stream run one after the other, in stream order with other work there.
    ///
    /// # Safety
    /// Everything the captured work touches is still allocated, as each captured launch's and
    /// operation's own contract requires until it finishes, now for this replay too; and every PE
    /// replays its graphs of collective operations in the same order.
    pub unsafe fn replay(&self) -> Result<(), Error> {
        self.graph.launch().doing("replaying a CUDA graph")
    }

    /// Uploads the graph to the GPU ahead of its first [`Graph::replay`], which then starts as
    /// quickly as the later ones.
    pub fn upload(&self) -> Result<(), Error> {
        self.graph.upload().doing("uploading a CUDA graph")
    }
}
