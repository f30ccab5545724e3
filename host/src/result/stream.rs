//! NVSHMEM's host calls that enqueue work on a CUDA stream (`nvshmemx_*_on_stream`), each with its
//! status turned into [`Error`]; [`crate::StreamOperations`] checks the arguments and calls these.
//!
//! Every function here shares one contract, besides its own: NVSHMEM is initialised, `stream` is a
//! live stream of NVSHMEM's CUDA context, and `team` (where taken) is an existing team with this PE
//! in it.

use super::{require, status};
use crate::Error;
use nvshmem_abi::{for_each_arith_reduce_op, for_each_bitwise_reduce_op, op};
use nvshmem_sys::{NvshmemHost, cudaStream_t};
use std::ffi::c_void;

/// What NVSHMEM's collectives on a stream need when they fail.
const COLLECTIVE_HINT: &str =
    "every PE of the team must call it; with several PEs per GPU it needs MPS";

/// `nvshmemx_barrier_all_on_stream`.
///
/// # Safety
/// The module's contract; every PE calls it.
pub unsafe fn barrier_all(lib: &NvshmemHost, stream: cudaStream_t) {
    // SAFETY: the caller's contract above.
    unsafe { lib.nvshmemx_barrier_all_on_stream(stream) }
}

/// `nvshmemx_sync_all_on_stream`.
///
/// # Safety
/// The module's contract; every PE calls it.
pub unsafe fn sync_all(lib: &NvshmemHost, stream: cudaStream_t) {
    // SAFETY: the caller's contract above.
    unsafe { lib.nvshmemx_sync_all_on_stream(stream) }
}

/// `nvshmemx_barrier_on_stream`.
///
/// # Safety
/// The module's contract; every PE of `team` calls it.
pub unsafe fn barrier(lib: &NvshmemHost, team: i32, stream: cudaStream_t) -> Result<(), Error> {
    // SAFETY: the caller's contract above.
    let code = unsafe { lib.nvshmemx_barrier_on_stream(team, stream) };
    status("nvshmemx_barrier_on_stream", code, COLLECTIVE_HINT)
}

/// `nvshmemx_team_sync_on_stream`.
///
/// # Safety
/// The module's contract; every PE of `team` calls it.
pub unsafe fn team_sync(lib: &NvshmemHost, team: i32, stream: cudaStream_t) -> Result<(), Error> {
    // SAFETY: the caller's contract above.
    let code = unsafe { lib.nvshmemx_team_sync_on_stream(team, stream) };
    status("nvshmemx_team_sync_on_stream", code, COLLECTIVE_HINT)
}

/// `nvshmemx_quiet_on_stream`.
///
/// # Safety
/// The module's contract.
pub unsafe fn quiet(lib: &NvshmemHost, stream: cudaStream_t) {
    // SAFETY: the caller's contract above.
    unsafe { lib.nvshmemx_quiet_on_stream(stream) }
}

/// `nvshmemx_flush_on_stream` (NVSHMEM 3.7 and later; an error naming the release with an older
/// library).
///
/// # Safety
/// The module's contract.
pub unsafe fn flush(lib: &NvshmemHost, stream: cudaStream_t) -> Result<(), Error> {
    require(
        lib,
        "nvshmemx_flush_on_stream",
        &lib.nvshmemx_flush_on_stream,
    )?;
    // SAFETY: the caller's contract above; the library has the function (checked).
    unsafe { lib.nvshmemx_flush_on_stream(stream) };
    Ok(())
}

/// Whether a transfer waits for delivery: NVSHMEM's plain call, or its `_nbi` one, complete only
/// after a quiet or a barrier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// `nvshmemx_*_on_stream`.
    Blocking,
    /// `nvshmemx_*_nbi_on_stream`.
    NonBlocking,
}

/// Which way a transfer goes, and whether it waits for delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transfer {
    /// `nvshmemx_putmem_on_stream` (or its `_nbi` form): from local memory to a symmetric buffer
    /// of another PE.
    Put(Delivery),
    /// `nvshmemx_getmem_on_stream` (or its `_nbi` form): from a symmetric buffer of another PE to
    /// local memory.
    Get(Delivery),
}

/// `nvshmemx_putmem_on_stream`, `nvshmemx_getmem_on_stream` or their `_nbi` forms, as `transfer`
/// says: `bytes` from `source` to `dest`, one of them on PE `pe`.
///
/// # Safety
/// The module's contract; both hold at least `bytes`; `pe` is in `0..n_pes`; the remote side
/// (`dest` of a put, `source` of a get) is symmetric, the local side memory NVSHMEM can read or
/// write (symmetric or registered).
pub unsafe fn putmem_or_getmem(
    lib: &NvshmemHost,
    transfer: Transfer,
    dest: *mut c_void,
    source: *const c_void,
    bytes: usize,
    pe: i32,
    stream: cudaStream_t,
) {
    use Delivery::{Blocking, NonBlocking};
    // SAFETY: the caller's contract above.
    unsafe {
        match transfer {
            Transfer::Put(Blocking) => {
                lib.nvshmemx_putmem_on_stream(dest, source, bytes, pe, stream)
            }
            Transfer::Put(NonBlocking) => {
                lib.nvshmemx_putmem_nbi_on_stream(dest, source, bytes, pe, stream)
            }
            Transfer::Get(Blocking) => {
                lib.nvshmemx_getmem_on_stream(dest, source, bytes, pe, stream)
            }
            Transfer::Get(NonBlocking) => {
                lib.nvshmemx_getmem_nbi_on_stream(dest, source, bytes, pe, stream)
            }
        }
    }
}

/// `nvshmemx_putmem_signal_on_stream` or its `_nbi` form: a put ([`putmem_or_getmem`]), then `op` (a `SignalOp`'s
/// number) with `value` on the symmetric word `signal` of PE `pe`.
///
/// # Safety
/// As for a put of [`putmem_or_getmem`]; `signal` is a word of a symmetric buffer.
#[allow(clippy::too_many_arguments)]
pub unsafe fn putmem_signal(
    lib: &NvshmemHost,
    delivery: Delivery,
    dest: *mut c_void,
    source: *const c_void,
    bytes: usize,
    (signal, value, op): (*mut u64, u64, i32),
    pe: i32,
    stream: cudaStream_t,
) {
    // SAFETY: the caller's contract above.
    unsafe {
        match delivery {
            Delivery::Blocking => lib.nvshmemx_putmem_signal_on_stream(
                dest, source, bytes, signal, value, op, pe, stream,
            ),
            Delivery::NonBlocking => lib.nvshmemx_putmem_signal_nbi_on_stream(
                dest, source, bytes, signal, value, op, pe, stream,
            ),
        }
    }
}

/// `nvshmemx_signal_op_on_stream`: `op` (a `SignalOp`'s number) with `value` on the symmetric word
/// `signal` of PE `pe`.
///
/// # Safety
/// The module's contract; `signal` is a word of a symmetric buffer; `pe` is in `0..n_pes`.
pub unsafe fn signal_op(
    lib: &NvshmemHost,
    signal: *mut u64,
    value: u64,
    op: i32,
    pe: i32,
    stream: cudaStream_t,
) {
    // SAFETY: the caller's contract above.
    unsafe { lib.nvshmemx_signal_op_on_stream(signal, value, op, pe, stream) }
}

/// `nvshmemx_signal_wait_until_on_stream`: the stream waits until the local word `signal` compares
/// to `value` as `cmp` (a `Cmp`'s number) says.
///
/// # Safety
/// The module's contract; `signal` is a word of a symmetric buffer.
pub unsafe fn signal_wait_until(
    lib: &NvshmemHost,
    signal: *mut u64,
    cmp: i32,
    value: u64,
    stream: cudaStream_t,
) {
    // SAFETY: the caller's contract above.
    unsafe { lib.nvshmemx_signal_wait_until_on_stream(signal, cmp, value, stream) }
}

/// `nvshmemx_broadcastmem_on_stream`: `bytes` of `source` on the team's PE `root` into `dest` on
/// every PE of `team`.
///
/// # Safety
/// The module's contract; `dest` and `source` are symmetric and at least `bytes` long; `root` is
/// in the team; every PE of the team calls it with the same root.
pub unsafe fn broadcastmem(
    lib: &NvshmemHost,
    team: i32,
    dest: *mut c_void,
    source: *const c_void,
    bytes: usize,
    root: i32,
    stream: cudaStream_t,
) -> Result<(), Error> {
    // SAFETY: the caller's contract above.
    let code =
        unsafe { lib.nvshmemx_broadcastmem_on_stream(team, dest, source, bytes, root, stream) };
    status(
        "nvshmemx_broadcastmem_on_stream",
        code,
        "every PE of the team must call it with the same root; with several PEs per GPU it needs MPS",
    )
}

/// `nvshmemx_fcollectmem_on_stream`: the `bytes` of `source` of every PE of `team`, in team order,
/// into `dest`.
///
/// # Safety
/// The module's contract; `dest` is symmetric and holds `bytes` per PE of the team, `source` is
/// symmetric and holds `bytes`; every PE of the team calls it.
pub unsafe fn fcollectmem(
    lib: &NvshmemHost,
    team: i32,
    dest: *mut c_void,
    source: *const c_void,
    bytes: usize,
    stream: cudaStream_t,
) -> Result<(), Error> {
    // SAFETY: the caller's contract above.
    let code = unsafe { lib.nvshmemx_fcollectmem_on_stream(team, dest, source, bytes, stream) };
    status("nvshmemx_fcollectmem_on_stream", code, COLLECTIVE_HINT)
}

/// `nvshmemx_alltoallmem_on_stream`: block `j` (`bytes`) of `source` to the team's PE `j`, stored
/// there as block `i` of `dest`, `i` this PE's number in the team.
///
/// # Safety
/// The module's contract; `dest` and `source` are symmetric and hold `bytes` per PE of the team;
/// every PE of the team calls it.
pub unsafe fn alltoallmem(
    lib: &NvshmemHost,
    team: i32,
    dest: *mut c_void,
    source: *const c_void,
    bytes: usize,
    stream: cudaStream_t,
) -> Result<(), Error> {
    // SAFETY: the caller's contract above.
    let code = unsafe { lib.nvshmemx_alltoallmem_on_stream(team, dest, source, bytes, stream) };
    status("nvshmemx_alltoallmem_on_stream", code, COLLECTIVE_HINT)
}

mod sealed {
    pub trait Sealed<T> {}
}

/// A reduction operator of [`op`] that NVSHMEM's host library implements on a stream for element
/// type `T` (the same pairs as on the device: `Sum`, `Prod`, `Min`, `Max` for `f32`, `f64`,
/// `i8`…`i64`, `u8`…`u64`, `usize`; `And`, `Or`, `Xor` for the integers).
#[diagnostic::on_unimplemented(
    message = "NVSHMEM has no on-stream `{Self}` reduction for `{T}`",
    note = "Sum, Prod, Min and Max take f32, f64, i8..i64, u8..u64 and usize; And, Or and Xor take \
            the integer types only"
)]
pub trait StreamReduce<T>: sealed::Sealed<T> + Copy {
    /// `nvshmemx_<T>_<op>_reduce_on_stream`: `count` elements of `source` of every PE of `team`
    /// combined into `dest` on every PE.
    ///
    /// # Safety
    /// The module's contract; `dest` and `source` are symmetric and hold `count` elements; every
    /// PE of the team calls it.
    #[doc(hidden)]
    unsafe fn reduce(
        lib: &NvshmemHost,
        team: i32,
        dest: *mut T,
        source: *const T,
        count: usize,
        stream: cudaStream_t,
    ) -> Result<(), Error>;

    /// `nvshmemx_<T>_<op>_reducescatter_on_stream`: `count × n` elements of `source` of every PE
    /// of `team` combined, block `i` of `count` elements left in `dest` on the team's PE `i`.
    ///
    /// # Safety
    /// The module's contract; `dest` is symmetric and holds `count` elements, `source` is
    /// symmetric and holds `count` per PE of the team; every PE of the team calls it.
    #[doc(hidden)]
    unsafe fn reducescatter(
        lib: &NvshmemHost,
        team: i32,
        dest: *mut T,
        source: *const T,
        count: usize,
        stream: cudaStream_t,
    ) -> Result<(), Error>;
}

macro_rules! implement_stream_reduce_op {
    ($rust:ty, $c:ident; $($op:ident => $Op:ident),* $(,)?) => { paste::paste! { $(
        impl sealed::Sealed<$rust> for op::$Op {}
        impl StreamReduce<$rust> for op::$Op {
            unsafe fn reduce(
                lib: &NvshmemHost,
                team: i32,
                dest: *mut $rust,
                source: *const $rust,
                count: usize,
                stream: cudaStream_t,
            ) -> Result<(), Error> {
                // SAFETY: the caller's contract (NVSHMEM's).
                let code = unsafe {
                    lib.[<nvshmemx_ $c _ $op _reduce_on_stream>](team, dest, source, count, stream)
                };
                let call = concat!(
                    "nvshmemx_", stringify!($c), "_", stringify!($op), "_reduce_on_stream"
                );
                status(call, code, COLLECTIVE_HINT)
            }

            unsafe fn reducescatter(
                lib: &NvshmemHost,
                team: i32,
                dest: *mut $rust,
                source: *const $rust,
                count: usize,
                stream: cudaStream_t,
            ) -> Result<(), Error> {
                // SAFETY: the caller's contract (NVSHMEM's).
                let code = unsafe {
                    lib.[<nvshmemx_ $c _ $op _reducescatter_on_stream>](team, dest, source, count, stream)
                };
                let call = concat!(
                    "nvshmemx_", stringify!($c), "_", stringify!($op), "_reducescatter_on_stream"
                );
                status(call, code, COLLECTIVE_HINT)
            }
        }
    )* } };
}

macro_rules! implement_stream_reduce_type {
    ($ops:ident; $($rust:ty => $c:ident),* $(,)?) => {
        $( $ops!(implement_stream_reduce_op $rust, $c;); )*
    };
}
nvshmem_abi::for_each_arith_reduce_element!(implement_stream_reduce_type for_each_arith_reduce_op;);
nvshmem_abi::for_each_bitwise_reduce_element!(implement_stream_reduce_type for_each_bitwise_reduce_op;);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_exist_for_the_device_pairs_only() {
        fn reduces<T, O: StreamReduce<T>>(_: O) {}
        reduces::<f64, _>(op::Sum);
        reduces::<u8, _>(op::Xor);
        reduces::<usize, _>(op::Max);
    }
}
