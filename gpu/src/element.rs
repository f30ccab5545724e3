//! The element types of NVSHMEM's typed calls, and the one table that maps them to C names.

use crate::ffi;
use crate::rma::{RmaOps, ScopedRmaOps};

/// Invokes `$callback!` with every `(Rust type, NVSHMEM type name)` pair of the typed API.
///
/// This is the single list the typed layer is generated from: a line here gives a type every typed
/// operation, a line in an operation's declaration (in [`crate::ffi`] and [`crate::rma`]) gives every
/// type that operation.
macro_rules! for_each_element {
    ($callback:ident) => {
        $callback! {
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
pub(crate) use for_each_element;

mod sealed {
    pub trait Sealed {}
}

/// A type NVSHMEM's typed calls move: `f32`, `f64`, `i8`…`i64`, `u8`…`u64`, `isize`, `usize`.
///
/// Sealed: each implementation is tied to the NVSHMEM functions of the same C type, so only the types
/// of the table in this module implement it.
///
/// ```
/// use nvshmem_gpu::Element;
/// assert_eq!(<f32 as Element>::NVSHMEM_NAME, "float");
/// assert_eq!(<u64 as Element>::NVSHMEM_NAME, "uint64");
/// ```
pub trait Element: Copy + sealed::Sealed + 'static {
    /// NVSHMEM's name of the type, as in `nvshmem_<name>_put`.
    const NVSHMEM_NAME: &'static str;
    /// The NVSHMEM functions for this type; use the functions of [`crate::rma`] instead.
    #[doc(hidden)]
    const RMA: RmaOps<Self>;
}

macro_rules! implement_element {
    ($($rust:ty => $c:ident),* $(,)?) => { paste::paste! { $(
        impl sealed::Sealed for $rust {}
        impl Element for $rust {
            const NVSHMEM_NAME: &'static str = stringify!($c);
            const RMA: RmaOps<Self> = RmaOps {
                p: ffi::[<nvshmem_ $c _p>],
                g: ffi::[<nvshmem_ $c _g>],
                thread: ScopedRmaOps {
                    put: ffi::[<nvshmem_ $c _put>],
                    put_nbi: ffi::[<nvshmem_ $c _put_nbi>],
                    get: ffi::[<nvshmem_ $c _get>],
                    get_nbi: ffi::[<nvshmem_ $c _get_nbi>],
                },
                warp: ScopedRmaOps {
                    put: ffi::[<nvshmemx_ $c _put_warp>],
                    put_nbi: ffi::[<nvshmemx_ $c _put_nbi_warp>],
                    get: ffi::[<nvshmemx_ $c _get_warp>],
                    get_nbi: ffi::[<nvshmemx_ $c _get_nbi_warp>],
                },
                block: ScopedRmaOps {
                    put: ffi::[<nvshmemx_ $c _put_block>],
                    put_nbi: ffi::[<nvshmemx_ $c _put_nbi_block>],
                    get: ffi::[<nvshmemx_ $c _get_block>],
                    get_nbi: ffi::[<nvshmemx_ $c _get_nbi_block>],
                },
            };
        }
    )* } };
}
for_each_element!(implement_element);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_element_maps_to_a_c_type_of_its_size() {
        fn size_of_c_name(name: &str) -> usize {
            match name {
                "float" | "int32" | "uint32" => 4,
                "double" | "int64" | "uint64" | "ptrdiff" | "size" => 8,
                "int8" | "uint8" => 1,
                "int16" | "uint16" => 2,
                other => panic!("no size known for NVSHMEM type {other}"),
            }
        }
        macro_rules! check {
            ($($rust:ty => $c:ident),* $(,)?) => { $(
                assert_eq!(
                    core::mem::size_of::<$rust>(),
                    size_of_c_name(<$rust as Element>::NVSHMEM_NAME),
                    "{} maps to {}", stringify!($rust), stringify!($c)
                );
            )* };
        }
        for_each_element!(check);
    }
}
