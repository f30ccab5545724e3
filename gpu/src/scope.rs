//! The safe transfers and barriers, by the group of threads that makes each call: [`Thread`] (the
//! calling thread alone), [`Warp`] (its 32 threads together) and [`Block`] (every thread of the
//! block together). Each scope is a zero-sized value whose methods select the raw tier's function
//! of that scope (`rma::put`, `rma::warp::put`, `rma::block::put`, …), so the PTX is the raw tier's.
//!
//! ```ignore
//! use nvshmem_gpu::{Block, Pe, SymmetricSlice};
//! # fn ring(source: SymmetricSlice<f32>, received: SymmetricSlice<f32>) {
//! let next = Pe::me().next();
//! Block.put(received, source, next); // every thread of the block calls it
//! if let Some(mut leader) = Block::leader() {
//!     leader.barrier_all(); // block 0 of every PE
//! }
//! # }
//! ```
//!
//! # Why these calls are safe
//! Both slices are bounds-checked (equal lengths, each inside its symmetric allocation, which has
//! the same size on every PE), and the PE is a [`Pe`], so no call reads or writes outside the
//! slices' allocations on any PE. What a scope cannot enforce is that the whole group calls with
//! the same arguments: when some threads of a warp or block do not, the group's synchronisation
//! inside the call waits for them (a hang) or part of the data is not moved (a wrong value), and
//! each thread still touches only elements of the slices it was given. Hangs and wrong values are
//! bugs, not undefined behaviour.
//!
//! A transfer keeps no state between PEs, so any number of groups may make them at once. Barriers,
//! syncs and collectives do: NVSHMEM counts them per team on each PE, so they are made through a
//! [`Leader`](crate::Leader), which one group per launch holds (`leader.rs`).

use crate::element::Element;
use crate::pe::Pe;
use crate::signal::SignalOp;
use crate::slice::SymmetricSlice;
use crate::slice::lengths_differ;
use crate::sync;

/// The calling thread alone makes the call.
#[derive(Debug, Clone, Copy, Default)]
pub struct Thread;

/// Every thread of the calling warp makes the call, with the same arguments.
#[derive(Debug, Clone, Copy, Default)]
pub struct Warp;

/// Every thread of the calling block makes the call, with the same arguments.
#[derive(Debug, Clone, Copy, Default)]
pub struct Block;

/// A non-blocking transfer not yet completed: [`Pending::quiet`] (or [`crate::sync::quiet`])
/// completes it, after which its source may be reused and its destination read.
#[must_use = "a non-blocking transfer is complete only after `quiet`"]
#[derive(Debug)]
pub struct Pending(());

impl Pending {
    /// Completes this and every other outstanding transfer of the calling thread
    /// (`nvshmem_quiet`).
    #[inline]
    pub fn quiet(self) {
        sync::quiet();
    }
}

/// Checks that a transfer's two slices have the same length, for `call`.
#[inline(always)]
#[track_caller]
fn same_length<T>(
    call: &'static core::ffi::CStr,
    dest: SymmetricSlice<T>,
    source: SymmetricSlice<T>,
) {
    if dest.len() != source.len() {
        lengths_differ(call, dest.len(), source.len());
    }
}

/// The safe transfers of one scope, over the raw tier's modules `$rma` and `$signal` of that
/// scope.
macro_rules! scope_calls {
    ($scope:ident, $name:literal, $rma:path, $signal:path) => {
        impl $scope {
            /// Copies local `source` into `dest` on PE `pe` (equal lengths; `put`); returns when
            /// `source` may be reused.
            #[inline]
            #[track_caller]
            pub fn put<T: Element>(
                self,
                dest: SymmetricSlice<T>,
                source: SymmetricSlice<T>,
                pe: Pe,
            ) {
                same_length(concat_cstr!($name, "::put"), dest, source);
                use $rma as raw;
                // SAFETY: both slices lie in symmetric allocations of their size on every PE and
                // have the same length; `pe` is a PE of the job (module docs: why this is safe).
                unsafe {
                    raw::put(
                        dest.as_symmetric_ptr(),
                        source.as_symmetric_ptr().as_ptr(),
                        dest.len(),
                        pe.index(),
                    )
                }
            }

            /// Starts copying local `source` into `dest` on PE `pe` (equal lengths; `put_nbi`);
            /// the copy is complete after [`Pending::quiet`].
            // Always inlined: as a mere `#[inline]` the MIR inliner keeps this wrapper a call
            // (unlike the smaller raw-tier function it wraps), and a kernel's loop of them then
            // compiles to other machine code than the same loop on the raw tier.
            #[inline(always)]
            #[track_caller]
            pub fn put_nbi<T: Element>(
                self,
                dest: SymmetricSlice<T>,
                source: SymmetricSlice<T>,
                pe: Pe,
            ) -> Pending {
                same_length(concat_cstr!($name, "::put_nbi"), dest, source);
                use $rma as raw;
                // SAFETY: as for `put`; a source rewritten before the quiet sends a wrong value,
                // and its memory stays allocated for the launch.
                unsafe {
                    raw::put_nbi(
                        dest.as_symmetric_ptr(),
                        source.as_symmetric_ptr().as_ptr(),
                        dest.len(),
                        pe.index(),
                    )
                };
                Pending(())
            }

            /// Copies `source` on PE `pe` into local `dest` (equal lengths; `get`).
            #[inline]
            #[track_caller]
            pub fn get<T: Element>(
                self,
                dest: SymmetricSlice<T>,
                source: SymmetricSlice<T>,
                pe: Pe,
            ) {
                same_length(concat_cstr!($name, "::get"), dest, source);
                use $rma as raw;
                // SAFETY: as for `put`.
                unsafe {
                    raw::get(
                        dest.as_symmetric_ptr().as_ptr(),
                        source.as_symmetric_ptr(),
                        dest.len(),
                        pe.index(),
                    )
                }
            }

            /// Starts copying `source` on PE `pe` into local `dest` (equal lengths; `get_nbi`);
            /// the data is there after [`Pending::quiet`].
            // Always inlined, as `put_nbi`.
            #[inline(always)]
            #[track_caller]
            pub fn get_nbi<T: Element>(
                self,
                dest: SymmetricSlice<T>,
                source: SymmetricSlice<T>,
                pe: Pe,
            ) -> Pending {
                same_length(concat_cstr!($name, "::get_nbi"), dest, source);
                use $rma as raw;
                // SAFETY: as for `put`.
                unsafe {
                    raw::get_nbi(
                        dest.as_symmetric_ptr().as_ptr(),
                        source.as_symmetric_ptr(),
                        dest.len(),
                        pe.index(),
                    )
                };
                Pending(())
            }

            /// Copies local `source` into `dest` on PE `pe`, then applies `op` with `value` to
            /// `signal` there (equal lengths; `put_signal`): a receiver waiting on the signal sees
            /// the data.
            #[inline]
            #[track_caller]
            pub fn put_signal<T: Element>(
                self,
                dest: SymmetricSlice<T>,
                source: SymmetricSlice<T>,
                signal: crate::Signal,
                value: u64,
                op: SignalOp,
                pe: Pe,
            ) {
                same_length(concat_cstr!($name, "::put_signal"), dest, source);
                use $signal as raw;
                // SAFETY: as for `put`, and `signal` is a symmetric `u64` (a checked index).
                unsafe {
                    raw::put_signal(
                        dest.as_symmetric_ptr(),
                        source.as_symmetric_ptr().as_ptr(),
                        dest.len(),
                        signal.as_symmetric_ptr(),
                        value,
                        op,
                        pe.index(),
                    )
                }
            }
        }
    };
}

/// `"$prefix$suffix\0"` as a `&'static CStr`, at compile time.
macro_rules! concat_cstr {
    ($prefix:literal, $suffix:literal) => {
        const { crate::checks::c_name(concat!($prefix, $suffix, "\0")) }
    };
}
pub(crate) use concat_cstr;

scope_calls!(Thread, "Thread", crate::rma, crate::signal);
scope_calls!(Warp, "Warp", crate::rma::warp, crate::signal::warp);
scope_calls!(Block, "Block", crate::rma::block, crate::signal::block);
