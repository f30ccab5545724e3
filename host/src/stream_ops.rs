//! NVSHMEM operations enqueued on a CUDA stream (NVSHMEM's `nvshmemx_*_on_stream` functions), the
//! methods of [`StreamOperations`]: on the handle's own stream when called on [`Nvshmem`], on any
//! stream of NVSHMEM's context through [`Nvshmem::on`]. They run in stream order with the kernels
//! launched there, and are complete once the stream is synchronised (for the handle's stream,
//! [`Nvshmem::synchronize`]) or a later kernel on the stream starts.
//!
//! Every method checks what can be checked before enqueueing: buffer lengths, PE numbers and roots
//! against the team's size. What cannot be checked is NVSHMEM's collective rule: every PE of the
//! team enqueues the same collectives in the same order (a PE that does not deadlocks the others).
//! With several PEs per GPU, the on-stream team barriers, syncs and collectives need MPS
//! ([`Nvshmem::collectives_available`]); without it they refuse with
//! [`TeamError::NeedsMps`] instead of reaching NVSHMEM, which would abort. A team operation on a
//! stream other than the handle's is ordered after the handle's stream and before its later work:
//! a PE's collectives on one team must not overlap, and its safe kernels run on the handle's
//! stream.
//!
//! ```no_run
//! use nvshmem_host::{op, Nvshmem, StreamOperations, Team};
//! let nvshmem = Nvshmem::init()?;
//! let mut partial = nvshmem.alloc::<f64>(1024)?;
//! partial.copy_from_host(&vec![1.0; 1024])?;
//! let total = nvshmem.alloc_zeroed::<f64>(1024)?;
//! nvshmem.reduce_on_stream(Team::WORLD, op::Sum, &total, &partial, 1024)?;
//! assert_eq!(total.to_vec()?[0], nvshmem.n_pes() as f64);
//! # Ok::<(), nvshmem_host::Error>(())
//! ```

use crate::lengths;
use crate::result::stream::Delivery::{self, Blocking, NonBlocking};
use crate::result::stream::Transfer;
use crate::{Error, LocalMemory, Nvshmem, SymmetricBuffer, TeamError, result};
use bytemuck::Pod;
use cudarc::driver::CudaStream;
use nvshmem_abi::{Cmp, SignalOp, Team};
use nvshmem_sys::{NvshmemHost, cudaStream_t};
use std::ffi::c_void;

pub use crate::result::stream::StreamReduce;

mod sealed {
    /// What [`super::StreamOperations`] runs on: NVSHMEM and a stream of its context.
    pub trait Target {
        fn target(&self) -> super::OnStream<'_>;
    }
}

/// An error unless `pe` is in `0..n_pes`.
fn check_pe(pe: i32, n_pes: i32) -> Result<(), Error> {
    if (0..n_pes).contains(&pe) {
        Ok(())
    } else {
        Err(TeamError::InvalidPe { pe, n_pes }.into())
    }
}

/// NVSHMEM and one CUDA stream of its context: [`StreamOperations`] and kernel launches
/// ([`OnStream::launch`]) enqueued there instead of on the handle's own stream. Made by
/// [`Nvshmem::on`]; it borrows both.
#[derive(Debug, Clone, Copy)]
pub struct OnStream<'a> {
    pub(crate) nvshmem: &'a Nvshmem,
    pub(crate) stream: &'a CudaStream,
}

impl<'a> OnStream<'a> {
    /// The handle whose operations these are.
    pub fn nvshmem(&self) -> &'a Nvshmem {
        self.nvshmem
    }
}

impl Nvshmem {
    /// NVSHMEM's operations and launches on `stream`, which must belong to NVSHMEM's context
    /// ([`Nvshmem::context`]); the handle's own stream ([`Nvshmem::stream`]) stays the default of
    /// the methods on [`Nvshmem`] itself.
    ///
    /// ```no_run
    /// use nvshmem_host::{Nvshmem, StreamOperations};
    /// let nvshmem = Nvshmem::init()?;
    /// let stream = nvshmem.context().new_stream().expect("a stream");
    /// nvshmem.on(&stream)?.barrier_all_on_stream();
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn on<'a>(&'a self, stream: &'a CudaStream) -> Result<OnStream<'a>, Error> {
        if **stream.context() != **self.context() {
            return Err(Error::ForeignContext {
                what: "the stream",
                gpu: stream.context().ordinal(),
                nvshmem_gpu: self.context().ordinal(),
            });
        }
        Ok(OnStream {
            nvshmem: self,
            stream,
        })
    }
}

/// The symmetric address of `buffer`, for an operation that reaches other PEs' copies of it: only
/// a buffer that the allocation check found of the same size on every PE, since the operation's
/// lengths are checked against this PE's copy alone.
fn reached<T: Pod>(buffer: &SymmetricBuffer<'_, T>) -> Result<*mut T, Error> {
    buffer.require_checked()?;
    Ok(buffer.as_symmetric_ptr().as_ptr())
}

fn cast_mut<T: Pod>(buffer: &SymmetricBuffer<'_, T>) -> Result<*mut c_void, Error> {
    Ok(reached(buffer)?.cast())
}

fn cast<T: Pod>(buffer: &SymmetricBuffer<'_, T>) -> Result<*const c_void, Error> {
    Ok(reached(buffer)?.cast_const().cast())
}

/// Word `index` of `signal` on this PE, checked to be in the buffer.
fn local_signal_word(signal: &SymmetricBuffer<'_, u64>, index: usize) -> Result<*mut u64, Error> {
    lengths::index_in("signal", signal.len(), index)?;
    // SAFETY: `index < len` (checked above), so the word is inside the allocation.
    Ok(unsafe { signal.as_symmetric_ptr().add(index) }.as_ptr())
}

/// Word `index` of `signal`, for an operation on another PE's copy (see [`reached`]).
fn signal_word(signal: &SymmetricBuffer<'_, u64>, index: usize) -> Result<*mut u64, Error> {
    reached(signal)?;
    local_signal_word(signal, index)
}

/// NVSHMEM's operations on a CUDA stream (`nvshmemx_*_on_stream`), for the handle's own stream
/// ([`Nvshmem`] implements it) and for any stream of NVSHMEM's context ([`Nvshmem::on`]). Bring it
/// into scope with `use nvshmem_host::StreamOperations;`.
pub trait StreamOperations: sealed::Target {
    /// Enqueues a barrier over all PEs: completes this PE's outstanding operations, then waits for
    /// every PE (`nvshmemx_barrier_all_on_stream`). Every PE calls it.
    fn barrier_all_on_stream(&self) {
        let on = self.target();
        on.collective(|stream| {
            // SAFETY: NVSHMEM is initialised; the stream belongs to its context.
            unsafe { result::stream::barrier_all(on.lib(), stream) }
        })
    }

    /// Enqueues a wait for every PE, without completing operations (`nvshmemx_sync_all_on_stream`).
    /// Every PE calls it.
    fn sync_all_on_stream(&self) {
        let on = self.target();
        on.collective(|stream| {
            // SAFETY: as for `barrier_all_on_stream`.
            unsafe { result::stream::sync_all(on.lib(), stream) }
        })
    }

    /// Enqueues a barrier over `team` (`nvshmemx_barrier_on_stream`). Every PE of the team calls
    /// it.
    fn team_barrier_on_stream(&self, team: Team) -> Result<(), Error> {
        let on = self.target();
        let live = on.nvshmem.live_teams();
        let team = live.raw(team)?;
        on.nvshmem.require_collectives("team_barrier_on_stream")?;
        on.collective(|stream| {
            // SAFETY: as for `barrier_all_on_stream`; `team` exists and this PE is in it (a predefined
            // team or a handle's, whose destruction waits for this stream).
            unsafe { result::stream::barrier(on.lib(), team, stream) }
        })
    }

    /// Enqueues a sync over `team` (`nvshmemx_team_sync_on_stream`). Every PE of the team calls it.
    fn team_sync_on_stream(&self, team: Team) -> Result<(), Error> {
        let on = self.target();
        let live = on.nvshmem.live_teams();
        let team = live.raw(team)?;
        on.nvshmem.require_collectives("team_sync_on_stream")?;
        on.collective(|stream| {
            // SAFETY: as for `team_barrier_on_stream`.
            unsafe { result::stream::team_sync(on.lib(), team, stream) }
        })
    }

    /// Enqueues the completion of this PE's outstanding operations (`nvshmemx_quiet_on_stream`).
    fn quiet_on_stream(&self) {
        let on = self.target();
        // SAFETY: as for `barrier_all_on_stream`.
        unsafe { result::stream::quiet(on.lib(), on.cu_stream()) }
    }

    /// Enqueues a wait until the sources of this stream's earlier non-blocking puts may be
    /// reused (`nvshmemx_flush_on_stream`, NVSHMEM 3.7 and later; [`Error::MissingSymbol`] with an
    /// older library). Unlike [`StreamOperations::quiet_on_stream`] it does not make the puts
    /// visible at their targets: quiet before a remote PE reads them.
    fn flush_on_stream(&self) -> Result<(), Error> {
        let on = self.target();
        // SAFETY: as for `barrier_all_on_stream`.
        unsafe { result::stream::flush(on.lib(), on.cu_stream()) }
    }

    /// Enqueues a copy of the first `count` elements of `source` (this PE's symmetric buffer or
    /// registered allocation) into `dest` on PE `pe` (`nvshmemx_putmem_on_stream`).
    fn put_on_stream<T: Pod>(
        &self,
        dest: &SymmetricBuffer<'_, T>,
        source: &impl LocalMemory<T>,
        count: usize,
        pe: i32,
    ) -> Result<(), Error> {
        self.target().put(dest, source, count, pe, Blocking)
    }

    /// [`StreamOperations::put_on_stream`] that does not wait for delivery; complete after
    /// [`StreamOperations::quiet_on_stream`] or a barrier (`nvshmemx_putmem_nbi_on_stream`).
    fn put_nbi_on_stream<T: Pod>(
        &self,
        dest: &SymmetricBuffer<'_, T>,
        source: &impl LocalMemory<T>,
        count: usize,
        pe: i32,
    ) -> Result<(), Error> {
        self.target().put(dest, source, count, pe, NonBlocking)
    }

    /// Enqueues a copy of the first `count` elements of `source` on PE `pe` into `dest` (this PE's
    /// symmetric buffer or registered allocation) (`nvshmemx_getmem_on_stream`).
    fn get_on_stream<T: Pod>(
        &self,
        dest: &impl LocalMemory<T>,
        source: &SymmetricBuffer<'_, T>,
        count: usize,
        pe: i32,
    ) -> Result<(), Error> {
        self.target().get(dest, source, count, pe, Blocking)
    }

    /// [`StreamOperations::get_on_stream`] completed only by [`StreamOperations::quiet_on_stream`]
    /// or a barrier (`nvshmemx_getmem_nbi_on_stream`).
    fn get_nbi_on_stream<T: Pod>(
        &self,
        dest: &impl LocalMemory<T>,
        source: &SymmetricBuffer<'_, T>,
        count: usize,
        pe: i32,
    ) -> Result<(), Error> {
        self.target().get(dest, source, count, pe, NonBlocking)
    }

    /// Enqueues a put of `count` elements to PE `pe` followed by `op` with `value` on word
    /// `signal_index` of `signal` there (`nvshmemx_putmem_signal_on_stream`).
    #[allow(clippy::too_many_arguments)]
    fn put_signal_on_stream<T: Pod>(
        &self,
        dest: &SymmetricBuffer<'_, T>,
        source: &impl LocalMemory<T>,
        count: usize,
        signal: &SymmetricBuffer<'_, u64>,
        signal_index: usize,
        value: u64,
        op: SignalOp,
        pe: i32,
    ) -> Result<(), Error> {
        let signal = (signal, signal_index, value, op);
        self.target()
            .put_with_signal(dest, source, count, signal, pe, Blocking)
    }

    /// [`StreamOperations::put_signal_on_stream`] that does not wait for delivery
    /// (`nvshmemx_putmem_signal_nbi_on_stream`).
    #[allow(clippy::too_many_arguments)]
    fn put_signal_nbi_on_stream<T: Pod>(
        &self,
        dest: &SymmetricBuffer<'_, T>,
        source: &impl LocalMemory<T>,
        count: usize,
        signal: &SymmetricBuffer<'_, u64>,
        signal_index: usize,
        value: u64,
        op: SignalOp,
        pe: i32,
    ) -> Result<(), Error> {
        let signal = (signal, signal_index, value, op);
        self.target()
            .put_with_signal(dest, source, count, signal, pe, NonBlocking)
    }

    /// Enqueues `op` with `value` on word `index` of `signal` on PE `pe`
    /// (`nvshmemx_signal_op_on_stream`).
    fn signal_op_on_stream(
        &self,
        signal: &SymmetricBuffer<'_, u64>,
        index: usize,
        value: u64,
        op: SignalOp,
        pe: i32,
    ) -> Result<(), Error> {
        check_pe(pe, self.target().nvshmem.n_pes())?;
        let word = signal_word(signal, index)?;
        let on = self.target();
        // SAFETY: the word is symmetric and in range, `pe` is valid (checked).
        unsafe { result::stream::signal_op(on.lib(), word, value, op as i32, pe, on.cu_stream()) };
        Ok(())
    }

    /// Makes the stream wait until word `index` of the local `signal` compares to `value` as `cmp`
    /// says (`nvshmemx_signal_wait_until_on_stream`).
    fn signal_wait_until_on_stream(
        &self,
        signal: &SymmetricBuffer<'_, u64>,
        index: usize,
        cmp: Cmp,
        value: u64,
    ) -> Result<(), Error> {
        let word = local_signal_word(signal, index)?;
        let on = self.target();
        // SAFETY: the word is symmetric and in range (checked).
        unsafe {
            result::stream::signal_wait_until(on.lib(), word, cmp as i32, value, on.cu_stream())
        };
        Ok(())
    }

    /// Enqueues a reduction over `team`: `count` elements of `source` of every PE combined with `op`
    /// into `dest` on every PE (`nvshmemx_<T>_<op>_reduce_on_stream`). Every PE of the team calls
    /// it.
    fn reduce_on_stream<T: Pod, O: StreamReduce<T>>(
        &self,
        team: Team,
        op: O,
        dest: &SymmetricBuffer<'_, T>,
        source: &SymmetricBuffer<'_, T>,
        count: usize,
    ) -> Result<(), Error> {
        let _ = op;
        lengths::reduce(dest.len(), source.len(), count)?;
        let on = self.target();
        let live = on.nvshmem.live_teams();
        let team = live.raw(team)?;
        let (to, from) = (reached(dest)?, reached(source)?);
        on.nvshmem.require_collectives("reduce_on_stream")?;
        on.collective(|stream| {
            // SAFETY: `team` exists with this PE in it; both buffers are symmetric and long enough.
            unsafe { O::reduce(on.lib(), team, to, from, count, stream) }
        })
    }

    /// Enqueues a reduce-scatter over `team`: `count × n` elements of `source` of every PE (`n` the
    /// team's size) combined with `op`, block `i` of `count` elements left in `dest` on the team's
    /// PE `i` (`nvshmemx_<T>_<op>_reducescatter_on_stream`). Every PE of the team calls it.
    fn reducescatter_on_stream<T: Pod, O: StreamReduce<T>>(
        &self,
        team: Team,
        op: O,
        dest: &SymmetricBuffer<'_, T>,
        source: &SymmetricBuffer<'_, T>,
        count: usize,
    ) -> Result<(), Error> {
        let _ = op;
        let on = self.target();
        let live = on.nvshmem.live_teams();
        let n = live.n_pes(on.nvshmem, team)?.max(0) as usize;
        let team = live.raw(team)?;
        lengths::reducescatter(dest.len(), source.len(), count, n)?;
        let (to, from) = (reached(dest)?, reached(source)?);
        on.nvshmem.require_collectives("reducescatter_on_stream")?;
        on.collective(|stream| {
            // SAFETY: as for `reduce_on_stream`, with the lengths of a reduce-scatter.
            unsafe { O::reducescatter(on.lib(), team, to, from, count, stream) }
        })
    }

    /// Enqueues a broadcast over `team`: `count` elements of `source` on the team's PE `root` into
    /// `dest` on every PE of the team (`nvshmemx_broadcastmem_on_stream`). Every PE of the team
    /// calls it.
    fn broadcast_on_stream<T: Pod>(
        &self,
        team: Team,
        dest: &SymmetricBuffer<'_, T>,
        source: &SymmetricBuffer<'_, T>,
        count: usize,
        root: i32,
    ) -> Result<(), Error> {
        let on = self.target();
        let live = on.nvshmem.live_teams();
        check_pe(root, live.n_pes(on.nvshmem, team)?)?;
        let team = live.raw(team)?;
        let length = lengths::broadcast::<T>(dest.len(), source.len(), count)?;
        let (to, from) = (cast_mut(dest)?, cast(source)?);
        on.nvshmem.require_collectives("broadcast_on_stream")?;
        on.collective(|stream| {
            // SAFETY: `team` exists with this PE in it, `root` is in it, the buffers are long enough.
            unsafe { result::stream::broadcastmem(on.lib(), team, to, from, length, root, stream) }
        })
    }

    /// Enqueues an all-gather over `team`: the `count` elements of `source` of every PE, in team
    /// order, into `dest` (`count × n` elements) on every PE (`nvshmemx_fcollectmem_on_stream`).
    /// Every PE of the team calls it.
    fn fcollect_on_stream<T: Pod>(
        &self,
        team: Team,
        dest: &SymmetricBuffer<'_, T>,
        source: &SymmetricBuffer<'_, T>,
        count: usize,
    ) -> Result<(), Error> {
        let on = self.target();
        let live = on.nvshmem.live_teams();
        let n = live.n_pes(on.nvshmem, team)?.max(0) as usize;
        let team = live.raw(team)?;
        let length = lengths::fcollect::<T>(dest.len(), source.len(), count, n)?;
        let (to, from) = (cast_mut(dest)?, cast(source)?);
        on.nvshmem.require_collectives("fcollect_on_stream")?;
        on.collective(|stream| {
            // SAFETY: `team` exists with this PE in it, the buffers are long enough.
            unsafe { result::stream::fcollectmem(on.lib(), team, to, from, length, stream) }
        })
    }

    /// Enqueues an alltoall over `team`: block `j` (`count` elements) of `source` goes to the
    /// team's PE `j`, which stores it as block `i` of `dest`, `i` being this PE's number in the team
    /// (`nvshmemx_alltoallmem_on_stream`). Every PE of the team calls it.
    fn alltoall_on_stream<T: Pod>(
        &self,
        team: Team,
        dest: &SymmetricBuffer<'_, T>,
        source: &SymmetricBuffer<'_, T>,
        count: usize,
    ) -> Result<(), Error> {
        let on = self.target();
        let live = on.nvshmem.live_teams();
        let n = live.n_pes(on.nvshmem, team)?.max(0) as usize;
        let team = live.raw(team)?;
        let length = lengths::alltoall::<T>(dest.len(), source.len(), count, n)?;
        let (to, from) = (cast_mut(dest)?, cast(source)?);
        on.nvshmem.require_collectives("alltoall_on_stream")?;
        on.collective(|stream| {
            // SAFETY: `team` exists with this PE in it, the buffers are long enough.
            unsafe { result::stream::alltoallmem(on.lib(), team, to, from, length, stream) }
        })
    }
}

/// The handle's own stream, which needs no check of its context.
pub(crate) fn on_own_stream(nvshmem: &Nvshmem) -> OnStream<'_> {
    OnStream {
        nvshmem,
        stream: nvshmem.stream(),
    }
}

impl sealed::Target for Nvshmem {
    fn target(&self) -> OnStream<'_> {
        on_own_stream(self)
    }
}

impl StreamOperations for Nvshmem {}

impl sealed::Target for OnStream<'_> {
    fn target(&self) -> OnStream<'_> {
        *self
    }
}

impl StreamOperations for OnStream<'_> {}

impl OnStream<'_> {
    pub(crate) fn lib(&self) -> &'static NvshmemHost {
        self.nvshmem.lib()
    }

    fn cu_stream(&self) -> cudaStream_t {
        self.stream.cu_stream().cast()
    }

    /// Enqueues one of NVSHMEM's on-stream team operations (barrier, sync, collective) with
    /// `enqueue`, given the stream, in order with this PE's other team work. NVSHMEM's collectives on
    /// one team must not overlap on a PE; this PE's safe kernels (whose `Leader`s make them), its
    /// host collectives and its on-stream ones all meet on the handle's stream. On another stream,
    /// the operation waits for the handle's stream, which then waits for it; an error of those
    /// waits is kept in the context, as cudarc keeps its own.
    fn collective<R>(&self, enqueue: impl FnOnce(cudaStream_t) -> R) -> R {
        let own = self.nvshmem.stream();
        if self.stream == &**own {
            return enqueue(self.cu_stream());
        }
        let context = self.stream.context();
        context.record_err(self.stream.join(own));
        let enqueued = enqueue(self.cu_stream());
        context.record_err(own.join(self.stream));
        enqueued
    }

    /// Checks and enqueues one of NVSHMEM's on-stream `putmem` calls.
    fn put<T: Pod>(
        &self,
        dest: &SymmetricBuffer<'_, T>,
        source: &impl LocalMemory<T>,
        count: usize,
        pe: i32,
        delivery: Delivery,
    ) -> Result<(), Error> {
        let length = self.check_transfer::<T>(dest.len(), source.len(), count, pe)?;
        let (to, from) = (cast_mut(dest)?, source.local_ptr());
        let (lib, stream, put) = (self.lib(), self.cu_stream(), Transfer::Put(delivery));
        // SAFETY: `dest` is symmetric, both hold `count` elements (checked), `source` is local
        // memory NVSHMEM can read (a symmetric buffer or a registered allocation), `pe` is valid.
        unsafe { result::stream::putmem_or_getmem(lib, put, to, from.cast(), length, pe, stream) };
        source.order_release_after(self.stream)
    }

    /// Checks and enqueues one of NVSHMEM's on-stream `getmem` calls.
    fn get<T: Pod>(
        &self,
        dest: &impl LocalMemory<T>,
        source: &SymmetricBuffer<'_, T>,
        count: usize,
        pe: i32,
        delivery: Delivery,
    ) -> Result<(), Error> {
        let length = self.check_transfer::<T>(dest.len(), source.len(), count, pe)?;
        let (to, from) = (dest.local_ptr(), cast(source)?);
        let (lib, stream, get) = (self.lib(), self.cu_stream(), Transfer::Get(delivery));
        // SAFETY: `source` is symmetric, both hold `count` elements (checked), `dest` is local
        // memory NVSHMEM can write (a symmetric buffer or a registered allocation), `pe` is valid.
        unsafe { result::stream::putmem_or_getmem(lib, get, to.cast(), from, length, pe, stream) };
        dest.order_release_after(self.stream)
    }

    /// Checks and enqueues one of NVSHMEM's on-stream `putmem_signal` calls; `signal` is the
    /// signal buffer, the word's index in it, the value and the operation.
    fn put_with_signal<T: Pod>(
        &self,
        dest: &SymmetricBuffer<'_, T>,
        source: &impl LocalMemory<T>,
        count: usize,
        (signal, index, value, op): (&SymmetricBuffer<'_, u64>, usize, u64, SignalOp),
        pe: i32,
        delivery: Delivery,
    ) -> Result<(), Error> {
        let length = self.check_transfer::<T>(dest.len(), source.len(), count, pe)?;
        let word = signal_word(signal, index)?;
        let (to, from) = (cast_mut(dest)?, source.local_ptr());
        let (lib, stream, signal) = (self.lib(), self.cu_stream(), (word, value, op as i32));
        // SAFETY: as for `put`; the signal word is symmetric and in range (checked).
        unsafe {
            result::stream::putmem_signal(
                lib,
                delivery,
                to,
                from.cast(),
                length,
                signal,
                pe,
                stream,
            )
        };
        source.order_release_after(self.stream)
    }

    /// Checks the PE, and that both buffers hold `count` elements of `T`; the bytes to move.
    fn check_transfer<T>(
        &self,
        dest: usize,
        source: usize,
        count: usize,
        pe: i32,
    ) -> Result<usize, Error> {
        check_pe(pe, self.nvshmem.n_pes())?;
        lengths::transfer::<T>(dest, source, count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_name_the_pe() {
        let error = check_pe(4, 4).unwrap_err().to_string();
        assert!(
            error.contains("PE 4 does not exist in a team of 4"),
            "{error}"
        );
        assert!(check_pe(0, 1).is_ok() && check_pe(-1, 4).is_err());
    }
}
