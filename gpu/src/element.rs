//! The element types of NVSHMEM's typed calls, and the C functions of each type.
//!
//! Every typed family of NVSHMEM covers its own set of C types (atomics only some integers, bitwise
//! reductions no floats, …). Each family therefore has one sealed trait and one macro that
//! implements it, invoked right below the macro with the family's table of `Rust type => C type
//! name` pairs; the macro's body spells each C function the trait holds, `nvshmem_<c>_put` written
//! `[<nvshmem_ $c _put>]`:
//!
//! | macro (with its table) | trait | what it gives |
//! |---|---|---|
//! | `implement_element!` | [`Element`] | RMA, strided RMA, put-with-signal, broadcast, fcollect, alltoall |
//! | `implement_wait!` | [`WaitElement`] | `wait_until*`, `test*` |
//! | `implement_atomic!` | [`AtomicElement`] | atomic fetch, set, swap |
//! | `implement_atomic_compare_swap!` | [`AtomicCompareSwap`] | compare-swap |
//! | `implement_atomic_integer!` | [`AtomicInteger`] | fetch-add, add, fetch-inc, inc |
//! | `implement_atomic_bitwise!` | [`AtomicBitwise`] | fetch-and/or/xor, and/or/xor |
//! | `implement_reduce_op!` in [`collective`](crate::collective), over `nvshmem_abi`'s reduction tables | [`ReduceOp`](crate::collective::ReduceOp) | reductions |
//!
//! So a typed call finds its C function in one step: `rma::p` calls `T::RMA.p`, and the macro that
//! defines `RMA` says `p: [<nvshmem_ $c _p>]`. A line in a table gives a type the whole family; a
//! line in a macro's list gives every type of the table that function. The same lists give the
//! names of the wrapped C functions (`c_functions!`), which the coverage test compares with
//! NVSHMEM's bitcode. Each C function's Rust signature is `ffi`'s, so a table line whose Rust type
//! is not the C type's does not compile.

/// Defines, inside a family's `impl`, the associated const `$fns`, a table `$Ops<T>` of NVSHMEM
/// functions for the type `T`, and `$names`, the names of the same functions (for the coverage test).
/// Each entry is `field: c_function`, or `field: thread | warp | block` for a function in its three
/// scopes (a [`Scoped`]); the callers spell the names with `paste`.
macro_rules! c_functions {
    (const $fns:ident: $Ops:ident<$T:ty>, $names:ident = { $($field:ident: $($c:ident)|+),* $(,)? }) => {
        const $fns: $Ops<$T> = $Ops { $($field: c_functions!(@fn $($c)|+)),* };
        const $names: &'static [&'static str] = &[$($(stringify!($c)),+),*];
    };
    (@fn $c:ident) => {
        crate::ffi::$c
    };
    (@fn $thread:ident | $warp:ident | $block:ident) => {
        crate::element::Scoped {
            thread: crate::ffi::$thread,
            warp: crate::ffi::$warp,
            block: crate::ffi::$block,
        }
    };
}
pub(crate) use c_functions;

/// One function in its three scopes: thread (`nvshmem_*`), warp (`nvshmemx_*_warp`) and block
/// (`nvshmemx_*_block`).
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Scoped<F> {
    pub thread: F,
    pub warp: F,
    pub block: F,
}

/// Names of wrapped C functions, one list per type and table (flattened by
/// [`crate::wrapped_c_functions`]).
pub(crate) type Names = &'static [&'static [&'static str]];

mod sealed {
    pub trait Sealed {}
}

/// A type NVSHMEM's typed calls move: `f32`, `f64`, `i8`…`i64`, `u8`…`u64`, `isize`, `usize`.
///
/// Sealed: each implementation is tied to the NVSHMEM functions of the same C type, so only the types
/// of the table in this module implement it. The narrower families ([`WaitElement`],
/// [`AtomicElement`], …) build on it.
///
/// ```
/// use nvshmem_gpu::Element;
/// assert_eq!(<f32 as Element>::NVSHMEM_NAME, "float");
/// assert_eq!(<u64 as Element>::NVSHMEM_NAME, "uint64");
/// ```
#[diagnostic::on_unimplemented(
    message = "NVSHMEM has no typed functions for `{Self}`",
    note = "the element types are f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, isize, usize; \
            move other plain data with the byte (`*mem`) functions"
)]
pub trait Element: nvshmem_abi::ElementType + sealed::Sealed {
    /// NVSHMEM's name of the type, as in `nvshmem_<name>_put`.
    const NVSHMEM_NAME: &'static str;
    /// The NVSHMEM functions for this type; use the functions of [`crate::rma`] instead.
    #[doc(hidden)]
    const RMA: RmaOps<Self>;
    /// The collective functions for this type; use [`crate::collective`] instead.
    #[doc(hidden)]
    const COLLECTIVE: CollectiveOps<Self>;
    /// The C names of [`Element::RMA`]'s functions.
    #[doc(hidden)]
    const RMA_NAMES: &'static [&'static str];
    /// The C names of [`Element::COLLECTIVE`]'s functions.
    #[doc(hidden)]
    const COLLECTIVE_NAMES: &'static [&'static str];
}

/// NVSHMEM's transfer function shape: `(dest, source, nelems, pe)`.
pub(crate) type TransferFn<T> = unsafe extern "C" fn(*mut T, *const T, usize, i32);
/// Strided transfers: `(dest, source, dst, sst, nelems, pe)`.
pub(crate) type StridedFn<T> = unsafe extern "C" fn(*mut T, *const T, isize, isize, usize, i32);
/// Put with signal: `(dest, source, nelems, sig_addr, signal, sig_op, pe)`.
pub(crate) type PutSignalFn<T> =
    unsafe extern "C" fn(*mut T, *const T, usize, *mut u64, u64, i32, i32);
/// Team collectives without a root: `(team, dest, source, nelems) -> status`.
pub(crate) type TeamCollectiveFn<T> = unsafe extern "C" fn(i32, *mut T, *const T, usize) -> i32;
/// Broadcast: `(team, dest, source, nelems, root) -> status`.
pub(crate) type BroadcastFn<T> = unsafe extern "C" fn(i32, *mut T, *const T, usize, i32) -> i32;

/// All typed RMA functions for one element type; filled in from the table in this module.
#[doc(hidden)]
pub struct RmaOps<T> {
    pub p: unsafe extern "C" fn(*mut T, T, i32),
    pub g: unsafe extern "C" fn(*const T, i32) -> T,
    pub put: Scoped<TransferFn<T>>,
    pub put_nbi: Scoped<TransferFn<T>>,
    pub get: Scoped<TransferFn<T>>,
    pub get_nbi: Scoped<TransferFn<T>>,
    pub iput: Scoped<StridedFn<T>>,
    pub iget: Scoped<StridedFn<T>>,
    pub put_signal: Scoped<PutSignalFn<T>>,
    pub put_signal_nbi: Scoped<PutSignalFn<T>>,
}

/// The typed team collectives without an operator, for one element type.
#[doc(hidden)]
pub struct CollectiveOps<T> {
    pub broadcast: Scoped<BroadcastFn<T>>,
    pub fcollect: Scoped<TeamCollectiveFn<T>>,
    pub alltoall: Scoped<TeamCollectiveFn<T>>,
}

/// Implements [`Element`] for the table below it.
macro_rules! implement_element {
    ($($rust:ty => $c:ident),* $(,)?) => { paste::paste! {
        $(
            impl sealed::Sealed for $rust {}
            impl Element for $rust {
                const NVSHMEM_NAME: &'static str = stringify!($c);
                c_functions!(const RMA: RmaOps<Self>, RMA_NAMES = {
                    p: [<nvshmem_ $c _p>],
                    g: [<nvshmem_ $c _g>],
                    put: [<nvshmem_ $c _put>] | [<nvshmemx_ $c _put_warp>] | [<nvshmemx_ $c _put_block>],
                    put_nbi: [<nvshmem_ $c _put_nbi>] | [<nvshmemx_ $c _put_nbi_warp>] | [<nvshmemx_ $c _put_nbi_block>],
                    get: [<nvshmem_ $c _get>] | [<nvshmemx_ $c _get_warp>] | [<nvshmemx_ $c _get_block>],
                    get_nbi: [<nvshmem_ $c _get_nbi>] | [<nvshmemx_ $c _get_nbi_warp>] | [<nvshmemx_ $c _get_nbi_block>],
                    iput: [<nvshmem_ $c _iput>] | [<nvshmemx_ $c _iput_warp>] | [<nvshmemx_ $c _iput_block>],
                    iget: [<nvshmem_ $c _iget>] | [<nvshmemx_ $c _iget_warp>] | [<nvshmemx_ $c _iget_block>],
                    put_signal: [<nvshmem_ $c _put_signal>] | [<nvshmemx_ $c _put_signal_warp>] | [<nvshmemx_ $c _put_signal_block>],
                    put_signal_nbi: [<nvshmem_ $c _put_signal_nbi>] | [<nvshmemx_ $c _put_signal_nbi_warp>] | [<nvshmemx_ $c _put_signal_nbi_block>],
                });
                c_functions!(const COLLECTIVE: CollectiveOps<Self>, COLLECTIVE_NAMES = {
                    broadcast: [<nvshmem_ $c _broadcast>] | [<nvshmemx_ $c _broadcast_warp>] | [<nvshmemx_ $c _broadcast_block>],
                    fcollect: [<nvshmem_ $c _fcollect>] | [<nvshmemx_ $c _fcollect_warp>] | [<nvshmemx_ $c _fcollect_block>],
                    alltoall: [<nvshmem_ $c _alltoall>] | [<nvshmemx_ $c _alltoall_warp>] | [<nvshmemx_ $c _alltoall_block>],
                });
            }
        )*
        pub(crate) const ELEMENT_WRAPPED: Names =
            &[$(<$rust as Element>::RMA_NAMES, <$rust as Element>::COLLECTIVE_NAMES),*];
    } };
}
nvshmem_abi::for_each_element!(implement_element);

/// A type NVSHMEM can wait on and test (`wait_until`, `test` and their `_all`/`_any`/`_some`/
/// `_vector` forms): `i16`, `i32`, `i64`, `u16`, `u32`, `u64`, `isize`, `usize`.
///
/// ```
/// # unsafe fn f(flag: nvshmem_gpu::SymmetricPtr<u64>) {
/// unsafe { nvshmem_gpu::p2p::wait_until(flag, nvshmem_gpu::Cmp::Eq, 1u64) };
/// # }
/// ```
///
/// ```compile_fail,E0277
/// # unsafe fn f(flag: nvshmem_gpu::SymmetricPtr<f32>) {
/// // NVSHMEM has no float wait: rejected at compile time.
/// unsafe { nvshmem_gpu::p2p::wait_until(flag, nvshmem_gpu::Cmp::Eq, 1.0f32) };
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "NVSHMEM cannot wait on or test `{Self}`",
    note = "wait_until and test take i16, i32, i64, u16, u32, u64, isize or usize"
)]
pub trait WaitElement: Element {
    /// The wait and test functions for this type; use [`crate::p2p`] instead.
    #[doc(hidden)]
    const WAIT: WaitOps<Self>;
    /// The C names of the functions of `WAIT`.
    #[doc(hidden)]
    const WAIT_NAMES: &'static [&'static str];
    /// The value widened to `i64` (bits kept), for diagnostics.
    #[doc(hidden)]
    fn widen(self) -> i64;
}

/// The wait and test functions for one type.
#[doc(hidden)]
pub struct WaitOps<T> {
    pub wait_until: unsafe extern "C" fn(*mut T, i32, T),
    pub wait_until_all: unsafe extern "C" fn(*mut T, usize, *const i32, i32, T),
    pub wait_until_any: unsafe extern "C" fn(*mut T, usize, *const i32, i32, T) -> usize,
    pub wait_until_some:
        unsafe extern "C" fn(*mut T, usize, *mut usize, *const i32, i32, T) -> usize,
    pub wait_until_all_vector: unsafe extern "C" fn(*mut T, usize, *const i32, i32, *mut T),
    pub wait_until_any_vector:
        unsafe extern "C" fn(*mut T, usize, *const i32, i32, *mut T) -> usize,
    pub wait_until_some_vector:
        unsafe extern "C" fn(*mut T, usize, *mut usize, *const i32, i32, *mut T) -> usize,
    pub test: unsafe extern "C" fn(*mut T, i32, T) -> i32,
    pub test_all: unsafe extern "C" fn(*mut T, usize, *const i32, i32, T) -> i32,
    pub test_any: unsafe extern "C" fn(*mut T, usize, *const i32, i32, T) -> usize,
    pub test_some: unsafe extern "C" fn(*mut T, usize, *mut usize, *const i32, i32, T) -> usize,
    pub test_all_vector: unsafe extern "C" fn(*mut T, usize, *const i32, i32, *mut T) -> i32,
    pub test_any_vector: unsafe extern "C" fn(*mut T, usize, *const i32, i32, *mut T) -> usize,
    pub test_some_vector:
        unsafe extern "C" fn(*mut T, usize, *mut usize, *const i32, i32, *mut T) -> usize,
}

/// Implements [`WaitElement`] for the table below it.
macro_rules! implement_wait {
    ($($rust:ty => $c:ident),* $(,)?) => { paste::paste! {
        $(
            impl WaitElement for $rust {
                c_functions!(const WAIT: WaitOps<Self>, WAIT_NAMES = {
                    wait_until: [<nvshmem_ $c _wait_until>],
                    wait_until_all: [<nvshmem_ $c _wait_until_all>],
                    wait_until_any: [<nvshmem_ $c _wait_until_any>],
                    wait_until_some: [<nvshmem_ $c _wait_until_some>],
                    wait_until_all_vector: [<nvshmem_ $c _wait_until_all_vector>],
                    wait_until_any_vector: [<nvshmem_ $c _wait_until_any_vector>],
                    wait_until_some_vector: [<nvshmem_ $c _wait_until_some_vector>],
                    test: [<nvshmem_ $c _test>],
                    test_all: [<nvshmem_ $c _test_all>],
                    test_any: [<nvshmem_ $c _test_any>],
                    test_some: [<nvshmem_ $c _test_some>],
                    test_all_vector: [<nvshmem_ $c _test_all_vector>],
                    test_any_vector: [<nvshmem_ $c _test_any_vector>],
                    test_some_vector: [<nvshmem_ $c _test_some_vector>],
                });
                #[inline]
                fn widen(self) -> i64 {
                    self as i64
                }
            }
        )*
        pub(crate) const WAIT_WRAPPED: Names = &[$(<$rust as WaitElement>::WAIT_NAMES),*];
    } };
}
implement_wait! {
    i16 => short,
    i32 => int32,
    i64 => int64,
    u16 => ushort,
    u32 => uint32,
    u64 => uint64,
    isize => ptrdiff,
    usize => size,
}

/// A type of NVSHMEM's atomic fetch, set and swap: `f32`, `f64`, `i32`, `i64`, `u32`, `u64`,
/// `isize`, `usize`.
#[diagnostic::on_unimplemented(
    message = "NVSHMEM has no atomics for `{Self}`",
    note = "atomic fetch/set/swap take f32, f64, i32, i64, u32, u64, isize or usize"
)]
pub trait AtomicElement: Element {
    /// The functions; use [`crate::atomic`] instead.
    #[doc(hidden)]
    const ATOMIC: AtomicOps<Self>;
    /// The C names of the functions of `ATOMIC`.
    #[doc(hidden)]
    const ATOMIC_NAMES: &'static [&'static str];
}

/// Atomic fetch, set and swap for one type.
#[doc(hidden)]
pub struct AtomicOps<T> {
    pub fetch: unsafe extern "C" fn(*const T, i32) -> T,
    pub set: unsafe extern "C" fn(*mut T, T, i32),
    pub swap: unsafe extern "C" fn(*mut T, T, i32) -> T,
}

/// Implements [`AtomicElement`] for the table below it.
macro_rules! implement_atomic {
    ($($rust:ty => $c:ident),* $(,)?) => { paste::paste! {
        $(
            impl AtomicElement for $rust {
                c_functions!(const ATOMIC: AtomicOps<Self>, ATOMIC_NAMES = {
                    fetch: [<nvshmem_ $c _atomic_fetch>],
                    set: [<nvshmem_ $c _atomic_set>],
                    swap: [<nvshmem_ $c _atomic_swap>],
                });
            }
        )*
        pub(crate) const ATOMIC_WRAPPED: Names = &[$(<$rust as AtomicElement>::ATOMIC_NAMES),*];
    } };
}
implement_atomic! {
    f32 => float,
    f64 => double,
    i32 => int32,
    i64 => int64,
    u32 => uint32,
    u64 => uint64,
    isize => ptrdiff,
    usize => size,
}

/// An integer type of NVSHMEM's atomic compare-swap: `i32`, `i64`, `u32`, `u64`, `isize`, `usize`.
#[diagnostic::on_unimplemented(
    message = "NVSHMEM has no atomic compare-swap for `{Self}`",
    note = "compare_swap takes i32, i64, u32, u64, isize or usize"
)]
pub trait AtomicCompareSwap: AtomicElement {
    /// The function; use [`crate::atomic::compare_swap`] instead.
    #[doc(hidden)]
    const COMPARE_SWAP: AtomicCompareSwapOps<Self>;
    /// The C names of the functions of `COMPARE_SWAP`.
    #[doc(hidden)]
    const COMPARE_SWAP_NAMES: &'static [&'static str];
}

/// Compare-swap for one type.
#[doc(hidden)]
pub struct AtomicCompareSwapOps<T> {
    pub compare_swap: unsafe extern "C" fn(*mut T, T, T, i32) -> T,
}

/// Implements [`AtomicCompareSwap`] for the table below it.
macro_rules! implement_atomic_compare_swap {
    ($($rust:ty => $c:ident),* $(,)?) => { paste::paste! {
        $(
            impl AtomicCompareSwap for $rust {
                c_functions!(const COMPARE_SWAP: AtomicCompareSwapOps<Self>, COMPARE_SWAP_NAMES = {
                    compare_swap: [<nvshmem_ $c _atomic_compare_swap>],
                });
            }
        )*
        pub(crate) const ATOMIC_COMPARE_SWAP_WRAPPED: Names = &[$(<$rust as AtomicCompareSwap>::COMPARE_SWAP_NAMES),*];
    } };
}
implement_atomic_compare_swap! {
    i32 => int32,
    i64 => int64,
    u32 => uint32,
    u64 => uint64,
    isize => ptrdiff,
    usize => size,
}

/// An integer type of NVSHMEM's arithmetic atomics (fetch-add, add, fetch-inc, inc): `i32`, `i64`,
/// `u32`, `u64`, `usize`.
///
/// ```
/// # unsafe fn f(counter: nvshmem_gpu::SymmetricPtr<i64>) {
/// let old = unsafe { nvshmem_gpu::atomic::fetch_add(counter, 1i64, 0) };
/// # }
/// ```
///
/// ```compile_fail,E0277
/// # unsafe fn f(counter: nvshmem_gpu::SymmetricPtr<f32>) {
/// // NVSHMEM has no float fetch-inc: rejected at compile time.
/// unsafe { nvshmem_gpu::atomic::fetch_inc(counter, 0) };
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "NVSHMEM has no arithmetic atomics for `{Self}`",
    note = "fetch_add, add, fetch_inc and inc take i32, i64, u32, u64 or usize"
)]
pub trait AtomicInteger: AtomicCompareSwap {
    /// The functions; use [`crate::atomic`] instead.
    #[doc(hidden)]
    const ARITHMETIC: AtomicIntegerOps<Self>;
    /// The C names of the functions of `ARITHMETIC`.
    #[doc(hidden)]
    const ARITHMETIC_NAMES: &'static [&'static str];
}

/// Fetch-add, add, fetch-inc and inc for one type.
#[doc(hidden)]
pub struct AtomicIntegerOps<T> {
    pub fetch_add: unsafe extern "C" fn(*mut T, T, i32) -> T,
    pub add: unsafe extern "C" fn(*mut T, T, i32),
    pub fetch_inc: unsafe extern "C" fn(*mut T, i32) -> T,
    pub inc: unsafe extern "C" fn(*mut T, i32),
}

/// Implements [`AtomicInteger`] for the table below it.
macro_rules! implement_atomic_integer {
    ($($rust:ty => $c:ident),* $(,)?) => { paste::paste! {
        $(
            impl AtomicInteger for $rust {
                c_functions!(const ARITHMETIC: AtomicIntegerOps<Self>, ARITHMETIC_NAMES = {
                    fetch_add: [<nvshmem_ $c _atomic_fetch_add>],
                    add: [<nvshmem_ $c _atomic_add>],
                    fetch_inc: [<nvshmem_ $c _atomic_fetch_inc>],
                    inc: [<nvshmem_ $c _atomic_inc>],
                });
            }
        )*
        pub(crate) const ATOMIC_INTEGER_WRAPPED: Names = &[$(<$rust as AtomicInteger>::ARITHMETIC_NAMES),*];
    } };
}
implement_atomic_integer! {
    i32 => int32,
    i64 => long,
    u32 => uint32,
    u64 => uint64,
    usize => size,
}

/// A type of NVSHMEM's atomic add and fetch-add: the [`AtomicInteger`] types, and `f32` and `f64`
/// with NVSHMEM 3.7 and later (the crate's `nvshmem-3-7` feature, which nvshmem-builder turns on
/// for such an install).
///
/// ```
/// # unsafe fn f(total: nvshmem_gpu::SymmetricPtr<u64>) {
/// unsafe { nvshmem_gpu::atomic::add(total, 2u64, 0) };
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "NVSHMEM has no atomic add for `{Self}` here",
    note = "add and fetch_add take i32, i64, u32, u64 and usize, and f32 and f64 when the kernels \
            are built against NVSHMEM 3.7 or later"
)]
pub trait AtomicAdd: AtomicElement {
    /// The functions; use [`crate::atomic`] instead.
    #[doc(hidden)]
    const ADD: AtomicAddOps<Self>;
}

/// Fetch-add and add for one type.
#[doc(hidden)]
pub struct AtomicAddOps<T> {
    pub fetch_add: unsafe extern "C" fn(*mut T, T, i32) -> T,
    pub add: unsafe extern "C" fn(*mut T, T, i32),
}

impl<T: AtomicInteger> AtomicAdd for T {
    const ADD: AtomicAddOps<Self> = AtomicAddOps {
        fetch_add: T::ARITHMETIC.fetch_add,
        add: T::ARITHMETIC.add,
    };
}

#[cfg(feature = "nvshmem-3-7")]
impl AtomicAdd for f32 {
    const ADD: AtomicAddOps<Self> = AtomicAddOps {
        fetch_add: crate::ffi::nvshmemx_float_atomic_fetch_add,
        add: crate::ffi::nvshmemx_float_atomic_add,
    };
}

#[cfg(feature = "nvshmem-3-7")]
impl AtomicAdd for f64 {
    const ADD: AtomicAddOps<Self> = AtomicAddOps {
        fetch_add: crate::ffi::nvshmemx_double_atomic_fetch_add,
        add: crate::ffi::nvshmemx_double_atomic_add,
    };
}

/// An integer type of NVSHMEM's bitwise atomics: `i32`, `i64`, `u32`, `u64`.
#[diagnostic::on_unimplemented(
    message = "NVSHMEM has no bitwise atomics for `{Self}`",
    note = "fetch_and/or/xor and and/or/xor take i32, i64, u32 or u64"
)]
pub trait AtomicBitwise: AtomicInteger {
    /// The functions; use [`crate::atomic`] instead.
    #[doc(hidden)]
    const BITWISE: AtomicBitwiseOps<Self>;
    /// The C names of the functions of `BITWISE`.
    #[doc(hidden)]
    const BITWISE_NAMES: &'static [&'static str];
}

/// Fetch-and/or/xor and and/or/xor for one type.
#[doc(hidden)]
pub struct AtomicBitwiseOps<T> {
    pub fetch_and: unsafe extern "C" fn(*mut T, T, i32) -> T,
    pub fetch_or: unsafe extern "C" fn(*mut T, T, i32) -> T,
    pub fetch_xor: unsafe extern "C" fn(*mut T, T, i32) -> T,
    pub and: unsafe extern "C" fn(*mut T, T, i32),
    pub or: unsafe extern "C" fn(*mut T, T, i32),
    pub xor: unsafe extern "C" fn(*mut T, T, i32),
}

/// Implements [`AtomicBitwise`] for the table below it.
macro_rules! implement_atomic_bitwise {
    ($($rust:ty => $c:ident),* $(,)?) => { paste::paste! {
        $(
            impl AtomicBitwise for $rust {
                c_functions!(const BITWISE: AtomicBitwiseOps<Self>, BITWISE_NAMES = {
                    fetch_and: [<nvshmem_ $c _atomic_fetch_and>],
                    fetch_or: [<nvshmem_ $c _atomic_fetch_or>],
                    fetch_xor: [<nvshmem_ $c _atomic_fetch_xor>],
                    and: [<nvshmem_ $c _atomic_and>],
                    or: [<nvshmem_ $c _atomic_or>],
                    xor: [<nvshmem_ $c _atomic_xor>],
                });
            }
        )*
        pub(crate) const ATOMIC_BITWISE_WRAPPED: Names = &[$(<$rust as AtomicBitwise>::BITWISE_NAMES),*];
    } };
}
implement_atomic_bitwise! {
    i32 => int32,
    i64 => int64,
    u32 => uint32,
    u64 => uint64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_name_the_scoped_c_functions() {
        let names: Vec<&str> = ELEMENT_WRAPPED
            .iter()
            .flat_map(|t| t.iter().copied())
            .collect();
        for expected in [
            "nvshmem_float_p",
            "nvshmemx_double_put_nbi_warp",
            "nvshmemx_uint8_iget_block",
            "nvshmem_size_put_signal_nbi",
            "nvshmemx_int64_alltoall_block",
        ] {
            assert!(names.contains(&expected), "{expected} missing");
        }
        assert_eq!(<f32 as Element>::NVSHMEM_NAME, "float");
    }
}
