//! The element types of NVSHMEM's typed calls, and the tables that map them to C names.
//!
//! Every typed family of NVSHMEM covers its own set of C types (atomics only some integers, bitwise
//! reductions no floats, …). Each family therefore has one table of `Rust type => C type name`
//! pairs below, and one sealed trait that the table implements:
//!
//! | table | trait | what it gives |
//! |---|---|---|
//! | `for_each_element!` | [`Element`] | RMA, strided RMA, put-with-signal, broadcast, fcollect, alltoall |
//! | `for_each_wait_element!` | [`WaitElement`] | `wait_until*`, `test*` |
//! | `for_each_atomic_element!` | [`AtomicElement`] | atomic fetch, set, swap |
//! | `for_each_atomic_compare_swap!` | [`AtomicCompareSwap`] | compare-swap |
//! | `for_each_atomic_integer!` | [`AtomicInteger`] | fetch-add, add, fetch-inc, inc |
//! | `for_each_atomic_bitwise!` | [`AtomicBitwise`] | fetch-and/or/xor, and/or/xor |
//! | `nvshmem_abi::for_each_arith_reduce_element!` | [`ReduceOp`](crate::collective::ReduceOp) for `Sum`, `Prod`, `Min`, `Max` | reductions |
//! | `nvshmem_abi::for_each_bitwise_reduce_element!` | [`ReduceOp`](crate::collective::ReduceOp) for `And`, `Or`, `Xor` | reductions |
//!
//! A line in a table gives a type the whole family; a line in a family's function list (the
//! `*_functions!` macros) gives every type of the table that function. The same lists produce the
//! names of the wrapped C functions, which the coverage test compares with NVSHMEM's bitcode.

/// Invokes `$callback!` with the tokens after it, then every `(Rust type, NVSHMEM type name)` pair
/// of the RMA and collective families.
macro_rules! for_each_element {
    ($callback:ident $($args:tt)*) => {
        $callback! {
            $($args)*
            f32 => float,
            f64 => double,
            i8 => int8,
            i16 => int16,
            i32 => int32,
            i64 => int64,
            u8 => uint8,
            u16 => uint16,
            u32 => uint32,
            u64 => uint64,
            isize => ptrdiff,
            usize => size,
        }
    };
}

/// The types of `wait_until` and `test` (NVSHMEM: `NVSHMEMI_REPT_FOR_WAIT_TYPES`; there is no 8-bit
/// or `int16` form, so 16-bit types use `short`/`ushort`, and no float forms).
macro_rules! for_each_wait_element {
    ($callback:ident $($args:tt)*) => {
        $callback! {
            $($args)*
            i16 => short,
            i32 => int32,
            i64 => int64,
            u16 => ushort,
            u32 => uint32,
            u64 => uint64,
            isize => ptrdiff,
            usize => size,
        }
    };
}

/// The types of atomic fetch, set and swap (NVSHMEM's standard, bitwise and extended AMO types).
macro_rules! for_each_atomic_element {
    ($callback:ident $($args:tt)*) => {
        $callback! {
            $($args)*
            f32 => float,
            f64 => double,
            i32 => int32,
            i64 => int64,
            u32 => uint32,
            u64 => uint64,
            isize => ptrdiff,
            usize => size,
        }
    };
}

/// The types of compare-swap.
macro_rules! for_each_atomic_compare_swap {
    ($callback:ident $($args:tt)*) => {
        $callback! {
            $($args)*
            i32 => int32,
            i64 => int64,
            u32 => uint32,
            u64 => uint64,
            isize => ptrdiff,
            usize => size,
        }
    };
}

/// The types of fetch-add, add, fetch-inc and inc. NVSHMEM 3.4.5's device library has no `int64`
/// add or inc, so `i64` uses `long` (64-bit on every target this crate builds for); `ulong` is not
/// used for `u64` because its device fetch-add narrows to 32 bits.
macro_rules! for_each_atomic_integer {
    ($callback:ident $($args:tt)*) => {
        $callback! {
            $($args)*
            i32 => int32,
            i64 => long,
            u32 => uint32,
            u64 => uint64,
            usize => size,
        }
    };
}

/// The types of the bitwise atomics (NVSHMEM: `NVSHMEMI_REPT_OPGROUP_FOR_BITWISE_AMO`).
macro_rules! for_each_atomic_bitwise {
    ($callback:ident $($args:tt)*) => {
        $callback! {
            $($args)*
            i32 => int32,
            i64 => int64,
            u32 => uint32,
            u64 => uint64,
        }
    };
}

/// Builds a table of NVSHMEM functions for one C type name, or the names of those functions, from a
/// list of entries (each family writes its list once, in its `*_functions!` macro):
///
/// - `field: one(prefix, suffix)` is `ffi::<prefix><c><suffix>`;
/// - `field: scoped(op)` is a [`Scoped`] of `nvshmem_<c>_<op>`, `nvshmemx_<c>_<op>_warp`,
///   `nvshmemx_<c>_<op>_block`.
macro_rules! c_table {
    (@build $table:ident, $c:ident; $($field:ident : $kind:ident $args:tt),* $(,)?) => {
        $table { $($field: c_table!(@fn $kind $c $args)),* }
    };
    (@fn one $c:ident ($pre:ident, $post:ident)) => {
        paste::paste!(crate::ffi::[<$pre $c $post>])
    };
    (@fn scoped $c:ident ($op:ident)) => {
        paste::paste!(crate::element::Scoped {
            thread: crate::ffi::[<nvshmem_ $c _ $op>],
            warp: crate::ffi::[<nvshmemx_ $c _ $op _warp>],
            block: crate::ffi::[<nvshmemx_ $c _ $op _block>],
        })
    };
    (@names $c:ident; $($field:ident : $kind:ident $args:tt),* $(,)?) => {
        &[$(c_table!(@name $kind $c $args)),*]
    };
    (@name one $c:ident ($pre:ident, $post:ident)) => {
        paste::paste!(&[stringify!([<$pre $c $post>])])
    };
    (@name scoped $c:ident ($op:ident)) => {
        paste::paste!(&[
            stringify!([<nvshmem_ $c _ $op>]),
            stringify!([<nvshmemx_ $c _ $op _warp>]),
            stringify!([<nvshmemx_ $c _ $op _block>]),
        ])
    };
}
pub(crate) use c_table;

/// One function in its three scopes: thread (`nvshmem_*`), warp (`nvshmemx_*_warp`) and block
/// (`nvshmemx_*_block`).
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Scoped<F> {
    pub thread: F,
    pub warp: F,
    pub block: F,
}

/// Names of wrapped C functions, grouped by type and by function (flattened by [`crate::wrapped`]).
pub(crate) type Names = &'static [&'static [&'static [&'static str]]];

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
pub trait Element: Copy + sealed::Sealed + 'static {
    /// NVSHMEM's name of the type, as in `nvshmem_<name>_put`.
    const NVSHMEM_NAME: &'static str;
    /// The NVSHMEM functions for this type; use the functions of [`crate::rma`] instead.
    #[doc(hidden)]
    const RMA: RmaOps<Self>;
    /// The collective functions for this type; use [`crate::collective`] instead.
    #[doc(hidden)]
    const COLLECTIVE: CollectiveOps<Self>;
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

/// The functions of [`Element`], each written once.
macro_rules! element_functions {
    ($($how:tt)*) => {
        c_table!($($how)*
            p: one(nvshmem_, _p),
            g: one(nvshmem_, _g),
            put: scoped(put),
            put_nbi: scoped(put_nbi),
            get: scoped(get),
            get_nbi: scoped(get_nbi),
            iput: scoped(iput),
            iget: scoped(iget),
            put_signal: scoped(put_signal),
            put_signal_nbi: scoped(put_signal_nbi),
        )
    };
}

/// The collective functions of [`Element`], each written once.
macro_rules! collective_functions {
    ($($how:tt)*) => {
        c_table!($($how)*
            broadcast: scoped(broadcast),
            fcollect: scoped(fcollect),
            alltoall: scoped(alltoall),
        )
    };
}

macro_rules! implement_element {
    ($($rust:ty => $c:ident),* $(,)?) => {
        $(
            impl sealed::Sealed for $rust {}
            impl Element for $rust {
                const NVSHMEM_NAME: &'static str = stringify!($c);
                const RMA: RmaOps<Self> = element_functions!(@build RmaOps, $c;);
                const COLLECTIVE: CollectiveOps<Self> =
                    collective_functions!(@build CollectiveOps, $c;);
            }
        )*
        pub(crate) const ELEMENT_WRAPPED: Names = &[
            $(element_functions!(@names $c;), collective_functions!(@names $c;)),*
        ];
    };
}
for_each_element!(implement_element);

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

macro_rules! wait_functions {
    ($($how:tt)*) => {
        c_table!($($how)*
            wait_until: one(nvshmem_, _wait_until),
            wait_until_all: one(nvshmem_, _wait_until_all),
            wait_until_any: one(nvshmem_, _wait_until_any),
            wait_until_some: one(nvshmem_, _wait_until_some),
            wait_until_all_vector: one(nvshmem_, _wait_until_all_vector),
            wait_until_any_vector: one(nvshmem_, _wait_until_any_vector),
            wait_until_some_vector: one(nvshmem_, _wait_until_some_vector),
            test: one(nvshmem_, _test),
            test_all: one(nvshmem_, _test_all),
            test_any: one(nvshmem_, _test_any),
            test_some: one(nvshmem_, _test_some),
            test_all_vector: one(nvshmem_, _test_all_vector),
            test_any_vector: one(nvshmem_, _test_any_vector),
            test_some_vector: one(nvshmem_, _test_some_vector),
        )
    };
}

macro_rules! implement_wait {
    ($($rust:ty => $c:ident),* $(,)?) => {
        $(
            impl WaitElement for $rust {
                const WAIT: WaitOps<Self> = wait_functions!(@build WaitOps, $c;);
                #[inline]
                fn widen(self) -> i64 {
                    self as i64
                }
            }
        )*
        pub(crate) const WAIT_WRAPPED: Names = &[$(wait_functions!(@names $c;)),*];
    };
}
for_each_wait_element!(implement_wait);

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
}

/// Atomic fetch, set and swap for one type.
#[doc(hidden)]
pub struct AtomicOps<T> {
    pub fetch: unsafe extern "C" fn(*const T, i32) -> T,
    pub set: unsafe extern "C" fn(*mut T, T, i32),
    pub swap: unsafe extern "C" fn(*mut T, T, i32) -> T,
}

macro_rules! atomic_functions {
    ($($how:tt)*) => {
        c_table!($($how)*
            fetch: one(nvshmem_, _atomic_fetch),
            set: one(nvshmem_, _atomic_set),
            swap: one(nvshmem_, _atomic_swap),
        )
    };
}

macro_rules! implement_atomic {
    ($($rust:ty => $c:ident),* $(,)?) => {
        $(
            impl AtomicElement for $rust {
                const ATOMIC: AtomicOps<Self> = atomic_functions!(@build AtomicOps, $c;);
            }
        )*
        pub(crate) const ATOMIC_WRAPPED: Names = &[$(atomic_functions!(@names $c;)),*];
    };
}
for_each_atomic_element!(implement_atomic);

/// An integer type of NVSHMEM's atomic compare-swap: `i32`, `i64`, `u32`, `u64`, `isize`, `usize`.
#[diagnostic::on_unimplemented(
    message = "NVSHMEM has no atomic compare-swap for `{Self}`",
    note = "compare_swap takes i32, i64, u32, u64, isize or usize"
)]
pub trait AtomicCompareSwap: AtomicElement {
    /// The function; use [`crate::atomic::compare_swap`] instead.
    #[doc(hidden)]
    const COMPARE_SWAP: AtomicCompareSwapOps<Self>;
}

/// Compare-swap for one type.
#[doc(hidden)]
pub struct AtomicCompareSwapOps<T> {
    pub compare_swap: unsafe extern "C" fn(*mut T, T, T, i32) -> T,
}

macro_rules! atomic_compare_swap_functions {
    ($($how:tt)*) => {
        c_table!($($how)*
            compare_swap: one(nvshmem_, _atomic_compare_swap),
        )
    };
}

macro_rules! implement_atomic_compare_swap {
    ($($rust:ty => $c:ident),* $(,)?) => {
        $(
            impl AtomicCompareSwap for $rust {
                const COMPARE_SWAP: AtomicCompareSwapOps<Self> =
                    atomic_compare_swap_functions!(@build AtomicCompareSwapOps, $c;);
            }
        )*
        pub(crate) const ATOMIC_COMPARE_SWAP_WRAPPED: Names =
            &[$(atomic_compare_swap_functions!(@names $c;)),*];
    };
}
for_each_atomic_compare_swap!(implement_atomic_compare_swap);

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
}

/// Fetch-add, add, fetch-inc and inc for one type.
#[doc(hidden)]
pub struct AtomicIntegerOps<T> {
    pub fetch_add: unsafe extern "C" fn(*mut T, T, i32) -> T,
    pub add: unsafe extern "C" fn(*mut T, T, i32),
    pub fetch_inc: unsafe extern "C" fn(*mut T, i32) -> T,
    pub inc: unsafe extern "C" fn(*mut T, i32),
}

macro_rules! atomic_integer_functions {
    ($($how:tt)*) => {
        c_table!($($how)*
            fetch_add: one(nvshmem_, _atomic_fetch_add),
            add: one(nvshmem_, _atomic_add),
            fetch_inc: one(nvshmem_, _atomic_fetch_inc),
            inc: one(nvshmem_, _atomic_inc),
        )
    };
}

macro_rules! implement_atomic_integer {
    ($($rust:ty => $c:ident),* $(,)?) => {
        $(
            impl AtomicInteger for $rust {
                const ARITHMETIC: AtomicIntegerOps<Self> =
                    atomic_integer_functions!(@build AtomicIntegerOps, $c;);
            }
        )*
        pub(crate) const ATOMIC_INTEGER_WRAPPED: Names =
            &[$(atomic_integer_functions!(@names $c;)),*];
    };
}
for_each_atomic_integer!(implement_atomic_integer);

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

macro_rules! atomic_bitwise_functions {
    ($($how:tt)*) => {
        c_table!($($how)*
            fetch_and: one(nvshmem_, _atomic_fetch_and),
            fetch_or: one(nvshmem_, _atomic_fetch_or),
            fetch_xor: one(nvshmem_, _atomic_fetch_xor),
            and: one(nvshmem_, _atomic_and),
            or: one(nvshmem_, _atomic_or),
            xor: one(nvshmem_, _atomic_xor),
        )
    };
}

macro_rules! implement_atomic_bitwise {
    ($($rust:ty => $c:ident),* $(,)?) => {
        $(
            impl AtomicBitwise for $rust {
                const BITWISE: AtomicBitwiseOps<Self> =
                    atomic_bitwise_functions!(@build AtomicBitwiseOps, $c;);
            }
        )*
        pub(crate) const ATOMIC_BITWISE_WRAPPED: Names =
            &[$(atomic_bitwise_functions!(@names $c;)),*];
    };
}
for_each_atomic_bitwise!(implement_atomic_bitwise);

#[cfg(test)]
mod tests {
    use super::*;

    fn size_of_c_name(name: &str) -> usize {
        match name {
            "float" | "int32" | "uint32" => 4,
            "double" | "int64" | "uint64" | "ptrdiff" | "size" | "long" => 8,
            "int8" | "uint8" => 1,
            "int16" | "uint16" | "short" | "ushort" => 2,
            other => panic!("no size known for NVSHMEM type {other}"),
        }
    }

    macro_rules! check_sizes {
        ($($rust:ty => $c:ident),* $(,)?) => { $(
            assert_eq!(
                core::mem::size_of::<$rust>(),
                size_of_c_name(stringify!($c)),
                "{} maps to {}", stringify!($rust), stringify!($c)
            );
        )* };
    }

    #[test]
    fn every_table_maps_to_c_types_of_the_same_size() {
        for_each_element!(check_sizes);
        for_each_wait_element!(check_sizes);
        for_each_atomic_element!(check_sizes);
        for_each_atomic_compare_swap!(check_sizes);
        for_each_atomic_integer!(check_sizes);
        for_each_atomic_bitwise!(check_sizes);
        nvshmem_abi::for_each_arith_reduce_element!(check_sizes);
        nvshmem_abi::for_each_bitwise_reduce_element!(check_sizes);
    }

    #[test]
    fn tables_name_the_scoped_c_functions() {
        let names: Vec<&str> = ELEMENT_WRAPPED
            .iter()
            .flat_map(|t| t.iter())
            .flat_map(|f| f.iter().copied())
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
