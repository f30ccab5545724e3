//! Collectives over teams: reductions, reduce-scatter, broadcast, fcollect (all-gather) and
//! alltoall (NVSHMEM: "Collective communication routines").
//!
//! Every PE of the team calls the same collective with the same arguments (except its own data),
//! from a cooperatively launched kernel; buffers are symmetric. The top-level functions are the
//! thread scope (one thread per PE), [`warp`] and [`block`] the cooperative forms (every thread of
//! one warp or block per PE). With several PEs per GPU, collectives need NVSHMEM's full
//! multi-process-per-GPU mode (MPS with `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` ≤ 100 / PEs per GPU).
//!
//! Reductions take the operator as a value of a marker type of [`op`]. Which operator exists for
//! which type is NVSHMEM's: `Sum`, `Prod`, `Min`, `Max` for `f32`, `f64`, `i8`…`i64`, `u8`…`u64`,
//! `usize`; `And`, `Or`, `Xor` for the integers only. Anything else is a compile error:
//!
//! ```
//! use nvshmem_gpu::{collective::{self, op}, SymmetricPtr, Team};
//! # unsafe fn f(dest: SymmetricPtr<u32>, source: SymmetricPtr<u32>) {
//! unsafe { collective::reduce(Team::WORLD, op::Xor, dest, source, 1) };
//! # }
//! ```
//!
//! ```compile_fail,E0277
//! use nvshmem_gpu::{collective::{self, op}, SymmetricPtr, Team};
//! # unsafe fn f(dest: SymmetricPtr<f32>, source: SymmetricPtr<f32>) {
//! unsafe { collective::reduce(Team::WORLD, op::Xor, dest, source, 1) };
//! # }
//! ```
//!
//! ```ignore
//! use nvshmem_gpu::{collective::{self, op}, Team};
//! # unsafe fn example(dest: nvshmem_gpu::SymmetricPtr<f64>, source: nvshmem_gpu::SymmetricPtr<f64>, n: usize) {
//! // SAFETY: every thread of one block per PE calls it; both buffers hold `n` elements everywhere.
//! unsafe { collective::block::reduce(Team::WORLD, op::Sum, dest, source, n) };
//! # }
//! ```

use crate::element::{Names, Scoped, TeamCollectiveFn, c_table};
use crate::{
    __for_each_arith_reduce_element, __for_each_arith_reduce_op, __for_each_bitwise_reduce_element,
    __for_each_bitwise_reduce_op,
};
use crate::{Element, SymmetricPtr, Team, ffi};

mod sealed {
    pub trait Sealed {}
}

macro_rules! define_ops {
    ($($c:ident => $Op:ident),* $(,)?) => { $(
        #[doc = concat!("The `", stringify!($c), "` reduction operator (`nvshmem_<T>_", stringify!($c), "_reduce`).")]
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $Op;
        impl super::sealed::Sealed for $Op {}
    )* };
}

/// The reduction operators, as values: `collective::reduce(team, op::Sum, …)`.
pub mod op {
    use crate::{__for_each_arith_reduce_op, __for_each_bitwise_reduce_op};
    __for_each_arith_reduce_op!(define_ops);
    __for_each_bitwise_reduce_op!(define_ops);
}

/// A reduction operator that NVSHMEM implements for element type `T`: implemented for the pairs of
/// the reduction tables only, so a pair NVSHMEM lacks (`Xor` on `f32`) does not compile.
#[diagnostic::on_unimplemented(
    message = "NVSHMEM has no `{Self}` reduction for `{T}`",
    note = "Sum, Prod, Min and Max take f32, f64, i8..i64, u8..u64 and usize; And, Or and Xor take \
            the integer types only"
)]
pub trait ReduceOp<T>: sealed::Sealed + Copy {
    /// The functions; use [`reduce`] and [`reducescatter`] instead.
    #[doc(hidden)]
    const FNS: ReduceFns<T>;
    /// The names of the wrapped C functions.
    #[doc(hidden)]
    const NAMES: &'static [&'static [&'static str]];
}

/// One operator's reduce and reduce-scatter functions for one type.
#[doc(hidden)]
pub struct ReduceFns<T> {
    pub reduce: Scoped<TeamCollectiveFn<T>>,
    pub reducescatter: Scoped<TeamCollectiveFn<T>>,
}

/// The functions of one (operator, type) pair, each written once.
macro_rules! reduce_functions {
    ($op:ident; $($how:tt)*) => {
        paste::paste! {
            c_table!($($how)*
                reduce: scoped([<$op _reduce>]),
                reducescatter: scoped([<$op _reducescatter>]),
            )
        }
    };
}

macro_rules! implement_reduce_op {
    ($rust:ty, $c:ident; $($op:ident => $Op:ident),* $(,)?) => { $(
        impl ReduceOp<$rust> for op::$Op {
            const FNS: ReduceFns<$rust> = reduce_functions!($op; @build ReduceFns, $c;);
            const NAMES: &'static [&'static [&'static str]] = reduce_functions!($op; @names $c;);
        }
    )* };
}

macro_rules! implement_reduce_type {
    ($ops:ident; $($rust:ty => $c:ident),* $(,)?) => { $( $ops!(implement_reduce_op $rust, $c;); )* };
}
__for_each_arith_reduce_element!(implement_reduce_type __for_each_arith_reduce_op;);
__for_each_bitwise_reduce_element!(implement_reduce_type __for_each_bitwise_reduce_op;);

macro_rules! reduce_names_of_type {
    ($rust:ty; $($op:ident => $Op:ident),* $(,)?) => { &[$(<op::$Op as ReduceOp<$rust>>::NAMES),*] };
}
macro_rules! reduce_names {
    ($ops:ident; $($rust:ty => $c:ident),* $(,)?) => { &[$($ops!(reduce_names_of_type $rust;)),*] };
}
/// Names of the wrapped reductions, by type and operator.
pub(crate) const REDUCE_WRAPPED: &[&[Names]] = &[
    __for_each_arith_reduce_element!(reduce_names __for_each_arith_reduce_op;),
    __for_each_bitwise_reduce_element!(reduce_names __for_each_bitwise_reduce_op;),
];

/// A value and where it came from, the element of NVSHMEM's max-location reduction (CUDA's
/// `double2`: 16 bytes, 16-byte aligned).
#[repr(C, align(16))]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MaxLoc {
    /// The value compared.
    pub value: f64,
    /// Where it came from (an index of the caller's choosing), carried along.
    pub location: f64,
}

macro_rules! scoped_collectives {
    ($scope:ident, $who:literal, $x:literal, $suffix:literal) => {
        paste::paste! {
        /// Combines `source` of every PE of `team` element-wise with `op` into `dest` on every PE
        #[doc = concat!("(`nvshmem", $x, "_<T>_<op>_reduce", $suffix, "`).")]
        ///
        /// # Safety
        /// `dest` and `source` hold `count` elements on every PE of `team` (they may be the same
        /// buffer), this PE is in `team`, and
        #[doc = concat!($who, " on every PE of `team`, in the same order relative to other collective")]
        /// calls on it, from a cooperatively launched kernel.
        #[inline]
        pub unsafe fn reduce<T, O: ReduceOp<T>>(
            team: Team,
            op: O,
            dest: SymmetricPtr<T>,
            source: SymmetricPtr<T>,
            count: usize,
        ) {
            let _ = op;
            // SAFETY: the caller upholds the contract restated above; the status is always 0.
            let _ = unsafe { (O::FNS.reduce.$scope)(team.raw(), dest.as_ptr(), source.as_ptr(), count) };
        }

        /// Combines `source` (`count × n` elements, `n` the team's size) of every PE of `team`
        /// element-wise with `op`, and leaves block `i` of the result (`count` elements) in `dest` on
        #[doc = concat!("the team's PE `i` (`nvshmem", $x, "_<T>_<op>_reducescatter", $suffix, "`).")]
        ///
        /// # Safety
        /// As for [`reduce`], with `source` holding `count × n` elements and `dest` `count`.
        #[inline]
        pub unsafe fn reducescatter<T, O: ReduceOp<T>>(
            team: Team,
            op: O,
            dest: SymmetricPtr<T>,
            source: SymmetricPtr<T>,
            count: usize,
        ) {
            let _ = op;
            // SAFETY: the caller upholds the contract restated above; the status is always 0.
            let _ = unsafe { (O::FNS.reducescatter.$scope)(team.raw(), dest.as_ptr(), source.as_ptr(), count) };
        }

        /// Copies `count` elements of `source` on the team's PE `root` into `dest` on every PE of
        #[doc = concat!("`team` (`nvshmem", $x, "_<T>_broadcast", $suffix, "`).")]
        ///
        /// # Safety
        /// `dest` and `source` hold `count` elements on every PE of `team`, `root` is in
        /// `0..team::n_pes(team)`, this PE is in `team`, and
        #[doc = concat!($who, " on every PE of `team`, in the same order relative to other collective")]
        /// calls on it, from a cooperatively launched kernel.
        #[inline]
        pub unsafe fn broadcast<T: Element>(
            team: Team,
            dest: SymmetricPtr<T>,
            source: SymmetricPtr<T>,
            count: usize,
            root: i32,
        ) {
            crate::checks::check_team_pe!("broadcast", team, root);
            // SAFETY: the caller upholds the contract restated above; the status is always 0.
            let _ = unsafe { (T::COLLECTIVE.broadcast.$scope)(team.raw(), dest.as_ptr(), source.as_ptr(), count, root) };
        }

        /// Concatenates the `count` elements of `source` of every PE of `team`, in team order, into
        #[doc = concat!("`dest` on every PE (`nvshmem", $x, "_<T>_fcollect", $suffix, "`, an all-gather).")]
        ///
        /// # Safety
        /// `source` holds `count` and `dest` `count × n` elements on every PE of `team` (`n` its
        /// size), this PE is in `team`, and
        #[doc = concat!($who, " on every PE of `team`, in the same order relative to other collective")]
        /// calls on it, from a cooperatively launched kernel.
        #[inline]
        pub unsafe fn fcollect<T: Element>(
            team: Team,
            dest: SymmetricPtr<T>,
            source: SymmetricPtr<T>,
            count: usize,
        ) {
            // SAFETY: the caller upholds the contract restated above; the status is always 0.
            let _ = unsafe { (T::COLLECTIVE.fcollect.$scope)(team.raw(), dest.as_ptr(), source.as_ptr(), count) };
        }

        /// Sends block `j` (`count` elements) of `source` to the team's PE `j`, which stores it as
        #[doc = concat!("block `i` of its `dest`, `i` being this PE's number in the team (`nvshmem", $x, "_<T>_alltoall", $suffix, "`).")]
        ///
        /// # Safety
        /// `dest` and `source` hold `count × n` elements on every PE of `team` (`n` its size), this
        /// PE is in `team`, and
        #[doc = concat!($who, " on every PE of `team`, in the same order relative to other collective")]
        /// calls on it, from a cooperatively launched kernel.
        #[inline]
        pub unsafe fn alltoall<T: Element>(
            team: Team,
            dest: SymmetricPtr<T>,
            source: SymmetricPtr<T>,
            count: usize,
        ) {
            // SAFETY: the caller upholds the contract restated above; the status is always 0.
            let _ = unsafe { (T::COLLECTIVE.alltoall.$scope)(team.raw(), dest.as_ptr(), source.as_ptr(), count) };
        }

        /// [`broadcast`] counted in bytes, for data of any type
        #[doc = concat!("(`nvshmem", $x, "_broadcastmem", $suffix, "`).")]
        ///
        /// # Safety
        /// As for [`broadcast`], with `bytes` bytes.
        #[inline]
        pub unsafe fn broadcastmem<T>(team: Team, dest: SymmetricPtr<T>, source: SymmetricPtr<T>, bytes: usize, root: i32) {
            crate::checks::check_team_pe!("broadcastmem", team, root);
            // SAFETY: the caller upholds the contract restated above; the status is always 0.
            let _ = unsafe { ffi::[<nvshmem $x _broadcastmem $suffix>](team.raw(), dest.as_ptr().cast(), source.as_ptr().cast_const().cast(), bytes, root) };
        }

        /// [`fcollect`] counted in bytes (`bytes` per PE), for data of any type
        #[doc = concat!("(`nvshmem", $x, "_fcollectmem", $suffix, "`).")]
        ///
        /// # Safety
        /// As for [`fcollect`], with `bytes` bytes per PE.
        #[inline]
        pub unsafe fn fcollectmem<T>(team: Team, dest: SymmetricPtr<T>, source: SymmetricPtr<T>, bytes: usize) {
            // SAFETY: the caller upholds the contract restated above; the status is always 0.
            let _ = unsafe { ffi::[<nvshmem $x _fcollectmem $suffix>](team.raw(), dest.as_ptr().cast(), source.as_ptr().cast_const().cast(), bytes) };
        }

        /// [`alltoall`] counted in bytes (`bytes` per block), for data of any type
        #[doc = concat!("(`nvshmem", $x, "_alltoallmem", $suffix, "`).")]
        ///
        /// # Safety
        /// As for [`alltoall`], with blocks of `bytes` bytes.
        #[inline]
        pub unsafe fn alltoallmem<T>(team: Team, dest: SymmetricPtr<T>, source: SymmetricPtr<T>, bytes: usize) {
            // SAFETY: the caller upholds the contract restated above; the status is always 0.
            let _ = unsafe { ffi::[<nvshmem $x _alltoallmem $suffix>](team.raw(), dest.as_ptr().cast(), source.as_ptr().cast_const().cast(), bytes) };
        }
        }
    };
}

scoped_collectives!(thread, "called by exactly one thread", "", "");

/// Warp-cooperative collectives (`nvshmemx_*_warp`).
pub mod warp {
    use super::ReduceOp;
    use crate::{Element, SymmetricPtr, Team, ffi};
    scoped_collectives!(
        warp,
        "called by every thread of exactly one warp",
        "x",
        "_warp"
    );
}

/// Block-cooperative collectives (`nvshmemx_*_block`).
pub mod block {
    use super::{MaxLoc, ReduceOp};
    use crate::{Element, SymmetricPtr, Team, ffi};
    scoped_collectives!(
        block,
        "called by every thread of exactly one block",
        "x",
        "_block"
    );

    /// The largest `value` of `source` over the PEs of `team`, with its `location`, into `dest` on
    /// every PE (`nvshmemx_double2_maxloc_reduce_block`; of equal values, NVSHMEM keeps one).
    ///
    /// # Safety
    /// `dest` and `source` are symmetric `MaxLoc`s on every PE of `team`, this PE is in `team`, and
    /// every thread of exactly one block on every PE of `team` calls it, in the same order relative
    /// to other collective calls on it, from a cooperatively launched kernel.
    #[inline]
    pub unsafe fn maxloc_reduce(
        team: Team,
        dest: SymmetricPtr<MaxLoc>,
        source: SymmetricPtr<MaxLoc>,
    ) {
        // SAFETY: the caller upholds the contract above; NVSHMEM reduces exactly one element.
        let _ = unsafe {
            ffi::nvshmemx_double2_maxloc_reduce_block(team.raw(), dest.as_ptr(), source.as_ptr(), 1)
        };
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn maxloc_has_cudas_double2_layout() {
        assert_eq!(core::mem::size_of::<super::MaxLoc>(), 16);
        assert_eq!(core::mem::align_of::<super::MaxLoc>(), 16);
    }
}
