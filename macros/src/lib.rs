//! The `#[kernel]` attribute for nvshmem-gpu kernels.
//!
//! A kernel is a Rust function compiled to PTX (target `nvptx64-nvidia-cuda`) and launched by the
//! host on many GPU threads at once. [`macro@kernel`] turns an ordinary-looking function into such
//! an entry point: when compiling for `nvptx64` it becomes an exported `extern "ptx-kernel"`
//! function whose PTX entry name is the function's name. On any other target (host builds of the
//! kernel crate, for the unit tests of its plain index arithmetic) the kernel does not exist: its
//! body uses device-only functions and nothing on the host may call it. The rules below, and the
//! check that every parameter type is `Copy`, apply on every target.
//!
//! Use it through the device crate, which re-exports it:
//!
//! ```no_run
//! #![cfg_attr(target_arch = "nvptx64", no_std)]
//! // Needed by the `extern "ptx-kernel"` functions #[kernel] generates for nvptx64.
//! #![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
//!
//! use nvshmem_gpu::kernel;
//! // The thread indices exist only on the GPU, like the kernels that use them.
//! #[cfg(target_arch = "nvptx64")]
//! use nvshmem_gpu::thread;
//!
//! /// A parameter struct passed by value: `Copy`, with a C layout the host can reproduce.
//! #[derive(Clone, Copy)]
//! #[repr(C)]
//! pub struct Scale {
//!     pub factor: f32,
//!     pub offset: f32,
//! }
//!
//! /// Writes `scale.factor * x[i] + scale.offset` to `y[i]` for every `i < n`.
//! ///
//! /// # Safety
//! ///
//! /// `x` and `y` point to `n` `f32`s of device memory, `y` not overlapping `x`.
//! #[kernel]
//! pub unsafe fn scale_add(x: *const f32, y: *mut f32, n: usize, scale: Scale) {
//!     let i = thread::global_index_x();
//!     if i < n {
//!         // SAFETY: `i < n`, and the caller guarantees `n` elements behind `x` and `y`.
//!         unsafe { *y.add(i) = scale.factor * *x.add(i) + scale.offset };
//!     }
//! }
//! ```
//!
//! # Rules
//!
//! `#[kernel]` checks the function and reports every rule it breaks, pointing at the offending
//! part:
//!
//! - It must be a free function declared `pub fn` or `pub unsafe fn`; `pub`, because it is an
//!   exported entry point the host launches by name.
//!   - A safe `pub fn` takes only types whose every value the host's typed launch keeps valid
//!     (`nvshmem_gpu::KernelParam`: numbers, `bool`, `Team`, `SymmetricSlice<T>`), so its body can
//!     be safe code; a parameter written `SymmetricSlice<T>` is passed as two PTX parameters (its
//!     address and its length), and any other must be `nvshmem_gpu::SingleParam`, so that a slice
//!     hidden behind an alias is refused rather than passed in the wrong shape.
//!   - An `unsafe fn` takes raw pointers and any `Copy` type; launching it is `unsafe`, and its doc
//!     comment should say what the launch must guarantee, in a `# Safety` section.
//! - It returns nothing (`()` at most): results go through a pointer argument.
//! - It is not generic (no type, const or lifetime parameters, no `where` clause, no `impl Trait`
//!   parameters), not `async`, not `const`, not variadic, takes no `self`, and names no ABI of its
//!   own (`#[kernel]` supplies it). It carries no `#[no_mangle]` or `#[export_name]` either, not
//!   even through `#[cfg_attr]`: `#[kernel]` marks it `#[unsafe(no_mangle)]` itself.
//! - Each parameter is a plain `name: Type` or `mut name: Type` (use `_name` for one the kernel
//!   does not use), without `#[cfg]` or `#[cfg_attr]`: the launch descriptor lists every
//!   parameter, so the host and device lists must be the same.
//! - Each parameter type is `Copy`, because kernel arguments are copied byte for byte into the
//!   launch: raw pointers `*const T`/`*mut T` to device memory, scalars such as `usize` or `f32`,
//!   and `#[derive(Clone, Copy)]` `#[repr(C)]` structs. A type that is not `Copy` fails to compile
//!   with an error at the parameter's type, which the generated code checks. References (`&T`,
//!   `&mut T`, also inside tuples, arrays and generic arguments) are rejected outright: they would
//!   be host addresses.
//! - `#[kernel]` itself takes no arguments.
//!
//! The function's other attributes and its doc comment are kept.
//!
//! # What it generates
//!
//! For `#[kernel] pub unsafe fn name(params) { body }` (or a safe `pub fn`), the kernel for
//! `nvptx64` and nothing else of the function, and on every target the check of the parameter
//! types and the kernel's launch descriptor:
//!
//! ```text
//! #[cfg(target_arch = "nvptx64")]
//! /* the function's own attributes and doc comment */
//! #[unsafe(no_mangle)]
//! pub unsafe extern "ptx-kernel" fn name(params) { body }
//!
//! /* the function's own #[cfg] attributes */
//! const _: () = { /* a compile-time check that every parameter type is `Copy` (unsafe) or a
//!                   `KernelParam` (safe) */ };
//! // (left out for a kernel without parameters)
//!
//! /* the function's own #[cfg] attributes */
//! pub struct Name; // `name` in UpperCamelCase
//! unsafe impl nvshmem_gpu::KernelDescriptor for Name {
//!     const NAME: &'static str = "name";
//!     type Params = (/* the parameter types */);
//! }
//! unsafe impl nvshmem_gpu::SafeKernel for Name {} // for a safe `pub fn` only
//! ```
//!
//! The host names the kernel by its descriptor (`module.typed_kernel::<Name>()` in nvshmem-host),
//! which checks a launch's arguments against `Params` at compile time.
//!
//! On the host the kernel is gone, so code there cannot call it by mistake, and its body (which calls
//! device-only functions) is not compiled. The `ptx-kernel` ABI is unstable, so a kernel crate built
//! for `nvptx64` needs `#![feature(abi_ptx)]`.

mod kernel;

use proc_macro::TokenStream;

/// Makes a `pub fn` or `pub unsafe fn` a GPU kernel: an exported `extern "ptx-kernel"` entry point
/// named after the function when compiling for `nvptx64`, and on every target its launch
/// descriptor; on other targets the function itself is left out (only the check of its parameter
/// types remains).
///
/// Takes no arguments: write `#[kernel]`. See the [crate documentation](crate) for the rules the
/// function must follow (not generic, no return value, `Copy` parameters and no references, ...)
/// and the exact code generated.
///
/// ```no_run
/// use nvshmem_gpu::kernel;
///
/// /// Sets `n` `u32`s at `out` to `value`.
/// ///
/// /// # Safety
/// ///
/// /// `out` points to `n` `u32`s of device memory.
/// #[kernel]
/// pub unsafe fn fill(out: *mut u32, n: usize, value: u32) {
///     // ...
/// }
/// ```
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernel::expand(attr.into(), item.into()).into()
}
