//! Collectives over teams: reductions, reduce-scatter, broadcast, fcollect (all-gather) and
//! alltoall (NVSHMEM: "Collective communication routines").
//!
//! Every PE of the team calls the same collective with the same arguments (except its own data),
//! from a cooperatively launched kernel; buffers are symmetric. The top-level functions are the
//! thread scope (one thread per PE), [`warp`] and [`block`] the cooperative forms (every thread of
//! one warp or block per PE). With several PEs per GPU, collectives need NVSHMEM's full
//! multi-process-per-GPU mode (MPS with `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` ≤ 100 / PEs per GPU).
//!
//! At thread scope, over a team whose PEs all map each other's memory (one inside
//! `NVSHMEM_TEAM_SHARED`), reductions and reduce-scatters of 256 bytes or more over all members
//! (128 per PE over 2 PEs, 64 over 4) load the members' operands themselves, and alltoalls and
//! fcollects of blocks of 256 bytes or more store into the members' `dest` themselves, 16 bytes at
//! a time with four in flight, instead of calling NVSHMEM's device library, whose copy loop moves a
//! piece per memory round trip. Such a reduction combines the operands in team order on every PE,
//! so every PE gets the same bits; one whose `dest` overlaps its `source` runs NVSHMEM's.
//! Everything else is NVSHMEM's own code.
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
//! ```no_run
//! use nvshmem_gpu::{collective::{self, op}, Team};
//! # unsafe fn example(dest: nvshmem_gpu::SymmetricPtr<f64>, source: nvshmem_gpu::SymmetricPtr<f64>, n: usize) {
//! // SAFETY: every thread of one block per PE calls it; both buffers hold `n` elements everywhere.
//! unsafe { collective::block::reduce(Team::WORLD, op::Sum, dest, source, n) };
//! # }
//! ```

use crate::element::Element;
use crate::element::{Names, Scoped, TeamCollectiveFn, c_functions};
use crate::ffi;
use crate::team::Team;
use nvshmem_abi::SymmetricPtr;
use nvshmem_abi::{
    for_each_arith_reduce_element, for_each_arith_reduce_op, for_each_bitwise_reduce_element,
    for_each_bitwise_reduce_op,
};

pub use nvshmem_abi::op;

mod sealed {
    pub trait Sealed {}
}

macro_rules! seal_ops {
    ($($c:ident => $Op:ident),* $(,)?) => { $(impl sealed::Sealed for op::$Op {})* };
}
for_each_arith_reduce_op!(seal_ops);
for_each_bitwise_reduce_op!(seal_ops);

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
    const NAMES: &'static [&'static str];
    /// Combines two elements as NVSHMEM does (`perform_gpu_rdxn`); see [`combine`].
    #[doc(hidden)]
    fn combine(a: T, b: T) -> T;
}

/// The reduction operators on two elements, as NVSHMEM's device code computes them: integers wrap
/// (C's arithmetic on `int` and narrower types, truncated), `min` keeps the first operand only if it
/// compares below the second and `max` only if above (so of a NaN and a number, the second one).
mod combine {
    use core::ops::{BitAnd, BitOr, BitXor};

    /// Sum and product: wrapping for integers, IEEE for floats.
    pub(super) trait Arithmetic: Copy {
        fn sum(self, other: Self) -> Self;
        fn prod(self, other: Self) -> Self;
    }

    macro_rules! integers {
        ($($t:ty),*) => { $(impl Arithmetic for $t {
            fn sum(self, other: Self) -> Self { self.wrapping_add(other) }
            fn prod(self, other: Self) -> Self { self.wrapping_mul(other) }
        })* };
    }
    integers!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

    macro_rules! floats {
        ($($t:ty),*) => { $(impl Arithmetic for $t {
            fn sum(self, other: Self) -> Self { self + other }
            fn prod(self, other: Self) -> Self { self * other }
        })* };
    }
    floats!(f32, f64);

    #[inline(always)]
    pub(super) fn sum<T: Arithmetic>(a: T, b: T) -> T {
        a.sum(b)
    }
    #[inline(always)]
    pub(super) fn prod<T: Arithmetic>(a: T, b: T) -> T {
        a.prod(b)
    }
    #[inline(always)]
    pub(super) fn min<T: PartialOrd>(a: T, b: T) -> T {
        if a < b { a } else { b }
    }
    #[inline(always)]
    pub(super) fn max<T: PartialOrd>(a: T, b: T) -> T {
        if a > b { a } else { b }
    }
    #[inline(always)]
    pub(super) fn and<T: BitAnd<Output = T>>(a: T, b: T) -> T {
        a & b
    }
    #[inline(always)]
    pub(super) fn or<T: BitOr<Output = T>>(a: T, b: T) -> T {
        a | b
    }
    #[inline(always)]
    pub(super) fn xor<T: BitXor<Output = T>>(a: T, b: T) -> T {
        a ^ b
    }
}

/// One operator's reduce and reduce-scatter functions for one type.
#[doc(hidden)]
pub struct ReduceFns<T> {
    pub reduce: Scoped<TeamCollectiveFn<T>>,
    pub reducescatter: Scoped<TeamCollectiveFn<T>>,
}

/// Implements [`ReduceOp`] for one type and each operator of a group (the tables of `nvshmem_abi`).
macro_rules! implement_reduce_op {
    ($rust:ty, $c:ident; $($op:ident => $Op:ident),* $(,)?) => { paste::paste! { $(
        impl ReduceOp<$rust> for op::$Op {
            c_functions!(const FNS: ReduceFns<$rust>, NAMES = {
                reduce: [<nvshmem_ $c _ $op _reduce>]
                    | [<nvshmemx_ $c _ $op _reduce_warp>]
                    | [<nvshmemx_ $c _ $op _reduce_block>],
                reducescatter: [<nvshmem_ $c _ $op _reducescatter>]
                    | [<nvshmemx_ $c _ $op _reducescatter_warp>]
                    | [<nvshmemx_ $c _ $op _reducescatter_block>],
            });
            #[inline(always)]
            fn combine(a: $rust, b: $rust) -> $rust {
                combine::$op(a, b)
            }
        }
    )* } };
}

macro_rules! implement_reduce_type {
    ($ops:ident; $($rust:ty => $c:ident),* $(,)?) => { $( $ops!(implement_reduce_op $rust, $c;); )* };
}
for_each_arith_reduce_element!(implement_reduce_type for_each_arith_reduce_op;);
for_each_bitwise_reduce_element!(implement_reduce_type for_each_bitwise_reduce_op;);

macro_rules! reduce_names_of_type {
    ($rust:ty; $($op:ident => $Op:ident),* $(,)?) => { &[$(<op::$Op as ReduceOp<$rust>>::NAMES),*] };
}
macro_rules! reduce_names {
    ($ops:ident; $($rust:ty => $c:ident),* $(,)?) => { &[$($ops!(reduce_names_of_type $rust;)),*] };
}
/// Names of the wrapped reductions, by type and operator.
pub(crate) const REDUCE_WRAPPED: &[&[Names]] = &[
    for_each_arith_reduce_element!(reduce_names for_each_arith_reduce_op;),
    for_each_bitwise_reduce_element!(reduce_names for_each_bitwise_reduce_op;),
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

/// Runs `$call` (a [`crate::peer`] call that returns whether it did the collective) when
/// `$peer` is `true` (the thread scope), and returns from the caller if it did.
macro_rules! peer_path {
    ($peer:literal, $call:expr) => {
        // SAFETY: the caller's contract, which is the peer path's.
        if $peer && unsafe { $call } {
            return;
        }
    };
}

/// With the `checks` feature, meets the other PEs of `$team` with a deadline before the collective
/// `$name` of scope `$Scope` (`deadline.rs`); nothing without it.
macro_rules! meet {
    ($name:literal, $Scope:ident, $team:expr) => {
        // SAFETY: the caller's contract: the whole scope on every PE of `team` makes this
        // collective call, and this PE is in `team`.
        unsafe {
            crate::deadline::meet(
                crate::checks::wrapper_name!($name),
                crate::call_scope::Scope::$Scope,
                $team,
            )
        }
    };
}

/// Generates the collectives of one scope; `$peer` says whether they take the load/store path of
/// [`crate::peer`] (the thread scope).
macro_rules! scoped_collectives {
    ($scope:ident, $Scope:ident, $peer:literal, $who:literal, $x:literal, $suffix:literal) => {
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
        pub unsafe fn reduce<T: crate::RelaxedAccess, O: ReduceOp<T>>(
            team: Team,
            op: O,
            dest: SymmetricPtr<T>,
            source: SymmetricPtr<T>,
            count: usize,
        ) {
            let _ = op;
            meet!("reduce", $Scope, team);
            peer_path!($peer, crate::peer::pull_reduce(
                team, crate::peer::Pull::Reduce, dest.as_ptr(), source.as_ptr(), count, O::combine));
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
        pub unsafe fn reducescatter<T: crate::RelaxedAccess, O: ReduceOp<T>>(
            team: Team,
            op: O,
            dest: SymmetricPtr<T>,
            source: SymmetricPtr<T>,
            count: usize,
        ) {
            let _ = op;
            meet!("reducescatter", $Scope, team);
            peer_path!($peer, crate::peer::pull_reduce(
                team, crate::peer::Pull::ReduceScatter, dest.as_ptr(), source.as_ptr(), count, O::combine));
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
            meet!("broadcast", $Scope, team);
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
            meet!("fcollect", $Scope, team);
            peer_path!($peer, crate::peer::push_blocks(
                team, crate::peer::Push::Fcollect, dest.as_ptr().cast(), source.as_ptr().cast(), count * size_of::<T>()));
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
            meet!("alltoall", $Scope, team);
            peer_path!($peer, crate::peer::push_blocks(
                team, crate::peer::Push::Alltoall, dest.as_ptr().cast(), source.as_ptr().cast(), count * size_of::<T>()));
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
            meet!("broadcastmem", $Scope, team);
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
            meet!("fcollectmem", $Scope, team);
            peer_path!($peer, crate::peer::push_blocks(
                team, crate::peer::Push::Fcollect, dest.as_ptr().cast(), source.as_ptr().cast(), bytes));
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
            meet!("alltoallmem", $Scope, team);
            peer_path!($peer, crate::peer::push_blocks(
                team, crate::peer::Push::Alltoall, dest.as_ptr().cast(), source.as_ptr().cast(), bytes));
            // SAFETY: the caller upholds the contract restated above; the status is always 0.
            let _ = unsafe { ffi::[<nvshmem $x _alltoallmem $suffix>](team.raw(), dest.as_ptr().cast(), source.as_ptr().cast_const().cast(), bytes) };
        }
        }
    };
}

scoped_collectives!(thread, Thread, true, "called by exactly one thread", "", "");

/// Warp-cooperative collectives (`nvshmemx_*_warp`).
pub mod warp {
    use super::ReduceOp;
    use crate::element::Element;
    use crate::ffi;
    use crate::team::Team;
    use nvshmem_abi::SymmetricPtr;
    scoped_collectives!(
        warp,
        Warp,
        false,
        "called by every thread of exactly one warp",
        "x",
        "_warp"
    );
}

/// Block-cooperative collectives (`nvshmemx_*_block`).
pub mod block {
    use super::{MaxLoc, ReduceOp};
    use crate::element::Element;
    use crate::ffi;
    use crate::team::Team;
    use nvshmem_abi::SymmetricPtr;
    scoped_collectives!(
        block,
        Block,
        false,
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
        meet!("maxloc_reduce", Block, team);
        // SAFETY: the caller upholds the contract above; NVSHMEM reduces exactly one element.
        let _ = unsafe {
            ffi::nvshmemx_double2_maxloc_reduce_block(
                team.raw(),
                dest.as_ptr().cast(),
                source.as_ptr().cast(),
                1,
            )
        };
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn maxloc_has_cudas_double2_layout() {
        use core::mem::{align_of, size_of};
        assert_eq!(size_of::<super::MaxLoc>(), 16);
        assert_eq!(align_of::<super::MaxLoc>(), 16);
        // The C declaration takes `double2`; the wrapper passes `MaxLoc`s for them.
        assert_eq!(size_of::<super::MaxLoc>(), size_of::<crate::ffi::double2>());
        assert_eq!(
            align_of::<super::MaxLoc>(),
            align_of::<crate::ffi::double2>()
        );
    }

    #[test]
    fn operators_compute_what_nvshmem_computes() {
        use super::{ReduceOp, op};
        assert_eq!(<op::Sum as ReduceOp<u8>>::combine(200, 100), 44);
        assert_eq!(<op::Prod as ReduceOp<i8>>::combine(16, 16), 0);
        assert_eq!(<op::Sum as ReduceOp<i64>>::combine(i64::MAX, 1), i64::MIN);
        assert_eq!(<op::Min as ReduceOp<i32>>::combine(-3, 2), -3);
        assert_eq!(<op::Max as ReduceOp<u32>>::combine(3, 7), 7);
        // NVSHMEM's `a < b ? a : b`: a NaN on either side gives the second operand.
        assert_eq!(<op::Min as ReduceOp<f64>>::combine(f64::NAN, 1.0), 1.0);
        assert!(<op::Min as ReduceOp<f64>>::combine(1.0, f64::NAN).is_nan());
        assert!(<op::Max as ReduceOp<f32>>::combine(1.0, f32::NAN).is_nan());
        assert_eq!(<op::And as ReduceOp<u8>>::combine(0b1100, 0b1010), 0b1000);
        assert_eq!(<op::Or as ReduceOp<u8>>::combine(0b1100, 0b1010), 0b1110);
        assert_eq!(<op::Xor as ReduceOp<u8>>::combine(0b1100, 0b1010), 0b0110);
    }
}
