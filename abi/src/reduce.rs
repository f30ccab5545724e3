//! NVSHMEM's reductions: the operators, and the element types each group of operators takes.
//!
//! The device's `collective::reduce` and the host's on-stream reductions are implemented from these
//! tables, so both offer the same (operator, type) pairs. A table is a macro that calls back:
//! `for_each_arith_reduce_element!(callback extra tokens)` expands to `callback! { extra tokens
//! f32 => float, f64 => double, … }`, the Rust type and NVSHMEM's name of it in
//! `nvshmem_<name>_sum_reduce`.

/// Invokes `$callback!` with the tokens after it, then every `Rust type => NVSHMEM type name` pair
/// of the arithmetic reductions `sum`, `prod`, `min`, `max` (NVSHMEM's standard reduce types
/// without `half` and `bfloat16`).
///
/// ```
/// macro_rules! names {
///     ($($rust:ty => $c:ident),* $(,)?) => { [$(stringify!($c)),*] };
/// }
/// let names = nvshmem_abi::for_each_arith_reduce_element!(names);
/// assert_eq!(names[0], "float");
/// assert!(names.contains(&"size"));
/// ```
#[macro_export]
macro_rules! for_each_arith_reduce_element {
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
            usize => size,
        }
    };
}

/// Invokes `$callback!` with the tokens after it, then every `Rust type => NVSHMEM type name` pair
/// of the bitwise reductions `and`, `or`, `xor` (the integers of
/// [`for_each_arith_reduce_element!`]).
#[macro_export]
macro_rules! for_each_bitwise_reduce_element {
    ($callback:ident $($args:tt)*) => {
        $callback! {
            $($args)*
            i8 => int8,
            i16 => int16,
            i32 => int32,
            i64 => int64,
            u8 => uint8,
            u16 => uint16,
            u32 => uint32,
            u64 => uint64,
            usize => size,
        }
    };
}

/// Invokes `$callback!` with the tokens after it, then every arithmetic reduction operator as
/// `C name => marker type in` [`op`](crate::op).
#[macro_export]
macro_rules! for_each_arith_reduce_op {
    ($callback:ident $($args:tt)*) => {
        $callback! { $($args)* sum => Sum, prod => Prod, min => Min, max => Max }
    };
}

/// Invokes `$callback!` with the tokens after it, then every bitwise reduction operator as
/// `C name => marker type in` [`op`](crate::op).
#[macro_export]
macro_rules! for_each_bitwise_reduce_op {
    ($callback:ident $($args:tt)*) => {
        $callback! { $($args)* and => And, or => Or, xor => Xor }
    };
}

/// The reduction operators, as values: `collective::reduce(team, op::Sum, …)` on the device,
/// `reduce_on_stream(team, op::Sum, …)` on the host.
pub mod op {
    macro_rules! define_ops {
        ($($c:ident => $Op:ident),* $(,)?) => { $(
            #[doc = concat!("The `", stringify!($c), "` reduction operator (`nvshmem_<T>_", stringify!($c), "_reduce`).")]
            #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
            pub struct $Op;
        )* };
    }
    crate::for_each_arith_reduce_op!(define_ops);
    crate::for_each_bitwise_reduce_op!(define_ops);
}
