//! The NVSHMEM device API for kernels written in Rust and compiled to PTX.
//!
//! A kernel crate (`crate-type = ["cdylib"]`, built by `nvshmem-builder` for `nvptx64-nvidia-cuda`)
//! depends on this crate and writes kernels with [`kernel`]:
//!
//! ```no_run
//! #![cfg_attr(target_arch = "nvptx64", no_std)]
//! #![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
//! use nvshmem_gpu::{kernel, pe, rma, sync, SymmetricPtr};
//! #[cfg(target_arch = "nvptx64")] // thread indices exist only on the GPU
//! use nvshmem_gpu::thread;
//!
//! /// Every PE writes `n` floats into the next PE's `dest`.
//! #[kernel]
//! pub unsafe fn shift(source: SymmetricPtr<f32>, dest: SymmetricPtr<f32>, n: usize) {
//!     if thread::global_index_x() == 0 {
//!         let next = (pe::my_pe() + 1) % pe::n_pes();
//!         // SAFETY: both buffers hold `n` elements on every PE, and `next` is a valid PE.
//!         unsafe { rma::put(dest, source.as_ptr(), n, next) };
//!         // SAFETY: every thread of every PE that reaches this point calls it (cooperative launch).
//!         unsafe { sync::barrier_all() };
//!     }
//! }
//! ```
//!
//! # Layout
//! One module per concept, mirroring the sections of NVSHMEM's API reference:
//!
//! | module | NVSHMEM section | contents |
//! |---|---|---|
//! | [`thread`] | (CUDA built-ins) | thread, block and grid indices, `__syncthreads` (GPU target only) |
//! | [`warp`] | (CUDA warp shuffles) | `warp::sum`, `warp::sum_f64`, a warp's sum in every lane (GPU target only) |
//! | [`memory`] | (PTX memory model) | atomics, relaxed loads and fences on this GPU's own memory, at GPU and system scope (GPU target only) |
//! | [`grid`] | (cooperative launch) | `grid::GridBarrier`, a barrier for all blocks of a cooperatively launched grid (GPU target only) |
//! | [`pe`] | Library setup, exit, and query | [`pe::my_pe`], [`pe::n_pes`], versions, [`pe::global_exit`] |
//! | [`team`] | Team management | [`Team`] and its predefined teams, [`team::my_pe`], [`team::n_pes`], [`team::translate_pe`] |
//! | [`rma`] | Remote memory access | `put`/`get`/`p`/`g`, strided `iput`/`iget`, `_nbi` forms, byte forms, [`rma::ptr`]; [`rma::warp`], [`rma::block`] |
//! | [`signal`] | Signaling operations | `put_signal`(`_nbi`), [`signal::signal_op`], [`signal::signal_fetch`], [`signal::signal_wait_until`]; [`SignalOp`] |
//! | [`p2p`] | Point-to-point synchronization | `wait_until`(`_all`/`_any`/`_some`, `_vector`), `test` and its forms, [`Cmp`]; `wait_until_timeout` |
//! | [`atomic`] | Atomic memory operations | fetch, set, swap, compare-swap, (fetch-)add, (fetch-)inc, (fetch-)and/or/xor |
//! | [`sync`] | Memory ordering, barriers | `quiet`, `fence`, `barrier_all`, `sync_all`, team `barrier`/`team_sync`, at every scope NVSHMEM has; `barrier_all_timeout` |
//! | [`collective`] | Collective communication | `reduce` with [`collective::op`], `reducescatter`, `broadcast`, `fcollect`, `alltoall`, byte forms; [`collective::warp`], [`collective::block`] |
//! | [`ffi`] | all of the above | the C functions under their C names (`nvshmem_float_put`, …) |
//!
//! The GPU-only modules are documented on every target; their examples are marked `ignore`, as
//! rustdoc builds them for the host, and `gpu/tests/device_examples.rs` compiles them for the GPU.
//!
//! The modules form layers, each importing only from those below it: [`ffi`] (NVSHMEM's C
//! declarations, which use nothing of this crate), then `thread`, `group`, [`pe`], [`team`] and the
//! element tables, then the device checks (`checks`, `debug`, and `deadline`, which puts the time limit of
//! the "Checks" section below on blocking calls), then the load/store path (`peer`, below), then
//! [`rma`], [`signal`], [`p2p`], [`atomic`] and [`collective`], and [`sync`] on top (its timeouts
//! signal and test). `gpu/tests/layers.rs` reads the sources and fails on an import cycle or a
//! typed import in `ffi`.
//!
//! Below them all is the crate `nvshmem-abi`: what kernels share with `nvshmem-host` and
//! `nvshmem-builder` ([`SymmetricPtr`], [`Team`], [`Cmp`], [`SignalOp`], [`collective::op`], the
//! reduction tables, and the names and layout of the module globals the host fills), defined there
//! once and re-exported here.
//!
//! Typed calls are generic over sealed traits, one per family of NVSHMEM types, each implemented
//! from one table of `(Rust type, C type name)` pairs (in `element.rs`): [`Element`] (RMA and
//! collectives: `f32`, `f64`, `i8`…`i64`, `u8`…`u64`, `isize`, `usize`), [`WaitElement`],
//! [`AtomicElement`], [`AtomicCompareSwap`], [`AtomicAdd`], [`AtomicInteger`], [`AtomicBitwise`], and [`collective::ReduceOp`] for the
//! (operator, type) pairs of reductions. A line in a table gives a type its family; a line in a
//! family's function list gives every type of the family that function. A call NVSHMEM does not
//! have for a type (a float fetch-add, an `Xor` reduction of `f32`, a wait on `f32`) or for a scope
//! (a warp-scope `wait_until`) is a compile error, not a link or run-time error.
//!
//! # C function → Rust item
//! `<T>` is a C type name of the family's table, `<op>` a reduction operator; `_warp`/`_block`
//! forms are the same function in the module's `warp`/`block` submodule (or with that suffix in
//! [`sync`]).
//!
//! | C function | Rust item |
//! |---|---|
//! | `nvshmem_my_pe`, `nvshmem_n_pes` | [`pe::my_pe`], [`pe::n_pes`] |
//! | `nvshmem_info_get_version`, `nvshmem_info_get_name`, `nvshmemx_vendor_get_version_info` | [`pe::info_version`], [`pe::info_name`], [`pe::vendor_version`] |
//! | `nvshmem_global_exit` | [`pe::global_exit`] |
//! | `nvshmem_team_my_pe`, `nvshmem_team_n_pes`, `nvshmem_team_translate_pe` | [`team::my_pe`], [`team::n_pes`], [`team::translate_pe`] |
//! | `nvshmem_<T>_p`, `nvshmem_<T>_g` | [`rma::p`], [`rma::g`] |
//! | `nvshmem_<T>_put`, `nvshmemx_<T>_put_{warp,block}` | [`rma::put`], [`rma::warp::put`], [`rma::block::put`] |
//! | `nvshmem_<T>_get`, `nvshmemx_<T>_get_{warp,block}` | [`rma::get`], [`rma::warp::get`], [`rma::block::get`] |
//! | `nvshmem_<T>_{put,get}_nbi`, `nvshmemx_<T>_{put,get}_nbi_{warp,block}` | [`rma::put_nbi`], [`rma::get_nbi`] (and scoped) |
//! | `nvshmem_<T>_{iput,iget}`, `nvshmemx_<T>_{iput,iget}_{warp,block}` | [`rma::iput`], [`rma::iget`] (and scoped) |
//! | `nvshmem_{putmem,getmem}[_nbi]`, `nvshmemx_{putmem,getmem}[_nbi]_{warp,block}` | [`rma::putmem`], [`rma::getmem`], [`rma::putmem_nbi`], [`rma::getmem_nbi`] (and scoped) |
//! | `nvshmem_ptr`, `nvshmemx_mc_ptr` | [`rma::ptr`], [`rma::mc_ptr`] |
//! | `nvshmem_<T>_put_signal[_nbi]`, `nvshmemx_<T>_put_signal[_nbi]_{warp,block}` | [`signal::put_signal`], [`signal::put_signal_nbi`] (and scoped) |
//! | `nvshmem_putmem_signal[_nbi]`, `nvshmemx_putmem_signal[_nbi]_{warp,block}` | [`signal::putmem_signal`], [`signal::putmem_signal_nbi`] (and scoped) |
//! | `nvshmemx_signal_op`, `nvshmem_signal_fetch`, `nvshmem_signal_wait_until` | [`signal::signal_op`], [`signal::signal_fetch`], [`signal::signal_wait_until`] |
//! | `nvshmem_<T>_wait_until[_all,_any,_some][_vector]` | [`p2p::wait_until`], [`p2p::wait_until_all`], [`p2p::wait_until_any`], [`p2p::wait_until_some`], [`p2p::wait_until_all_vector`], [`p2p::wait_until_any_vector`], [`p2p::wait_until_some_vector`] |
//! | `nvshmem_<T>_test[_all,_any,_some][_vector]` | [`p2p::test`], [`p2p::test_all`], [`p2p::test_any`], [`p2p::test_some`], [`p2p::test_all_vector`], [`p2p::test_any_vector`], [`p2p::test_some_vector`] |
//! | `nvshmem_<T>_atomic_{fetch,set,swap}` | [`atomic::fetch`], [`atomic::set`], [`atomic::swap`] |
//! | `nvshmem_<T>_atomic_compare_swap` | [`atomic::compare_swap`] |
//! | `nvshmem_<T>_atomic_{fetch_add,add,fetch_inc,inc}` | [`atomic::fetch_add`], [`atomic::add`], [`atomic::fetch_inc`], [`atomic::inc`] |
//! | `nvshmemx_{float,double}_atomic_{fetch_add,add}` (3.7) | [`atomic::fetch_add`], [`atomic::add`] of `f32`, `f64` |
//! | `nvshmem_<T>_atomic_{fetch_and,fetch_or,fetch_xor,and,or,xor}` | [`atomic::fetch_and`], [`atomic::fetch_or`], [`atomic::fetch_xor`], [`atomic::and`], [`atomic::or`], [`atomic::xor`] |
//! | `nvshmem_quiet`, `nvshmem_fence` | [`sync::quiet`], [`sync::fence`] |
//! | `nvshmemx_flush[_warp,_block]` (3.7) | `sync::flush`, `sync::flush_warp`, `sync::flush_block` |
//! | `nvshmem_barrier_all`, `nvshmemx_barrier_all_{warp,block}` | [`sync::barrier_all`], [`sync::barrier_all_warp`], [`sync::barrier_all_block`] |
//! | `nvshmem_sync_all`, `nvshmemx_sync_all_{warp,block}` | [`sync::sync_all`], [`sync::sync_all_warp`], [`sync::sync_all_block`] |
//! | `nvshmem_barrier`, `nvshmemx_barrier_{warp,warpgroup,block}` | [`sync::barrier`], [`sync::barrier_warp`], [`sync::barrier_warpgroup`], [`sync::barrier_block`] |
//! | `nvshmem_team_sync`, `nvshmemx_team_sync_{warp,block}` | [`sync::team_sync`], [`sync::team_sync_warp`], [`sync::team_sync_block`] |
//! | `nvshmem_<T>_<op>_reduce`, `nvshmemx_<T>_<op>_reduce_{warp,block}` | [`collective::reduce`] with `op::Sum`, `Prod`, `Min`, `Max`, `And`, `Or`, `Xor` (and scoped) |
//! | `nvshmem_<T>_<op>_reducescatter`, `nvshmemx_<T>_<op>_reducescatter_{warp,block}` | [`collective::reducescatter`] (and scoped) |
//! | `nvshmem_<T>_{broadcast,fcollect,alltoall}`, `nvshmemx_<T>_{broadcast,fcollect,alltoall}_{warp,block}` | [`collective::broadcast`], [`collective::fcollect`], [`collective::alltoall`] (and scoped) |
//! | `nvshmem_{broadcast,fcollect,alltoall}mem`, `nvshmemx_{broadcast,fcollect,alltoall}mem_{warp,block}` | [`collective::broadcastmem`], [`collective::fcollectmem`], [`collective::alltoallmem`] (and scoped) |
//! | `nvshmemx_double2_maxloc_reduce_block` | [`collective::block::maxloc_reduce`] |
//!
//! Functions marked (3.7) exist only in NVSHMEM 3.7 and later: the wrappers come with the crate's
//! `nvshmem-3-7` feature, which nvshmem-builder turns on for such an install (`FIRST_RELEASE` lists
//! them).
//!
//! # Not wrapped
//! Every public function of NVSHMEM 3.4.5's and 3.8.0's device bitcode is wrapped above or in
//! [`ffi`], except these (the coverage test, `gpu/tests/coverage.rs`, enforces the list against
//! both; `{a,b}` is either, `*` any text):
//!
//! | C functions | why |
//! |---|---|
//! | `nvshmem*_{half,bfloat16}_*` | stable Rust has no IEEE binary16 or bfloat16 type (`f16` is unstable); move such data with the byte functions |
//! | `nvshmem*_{put,get,iput,iget}{8,16,32,64,128}*` | the sized forms: the typed forms of the unsigned type of that width do the same (`rma::put::<u32>` for `nvshmem_put32`); 128-bit has no element type |
//! | `nvshmemx_put6_signal*` | NVSHMEM 3.4.5's name for `nvshmemx_put16_signal_{warp,block}[_nbi]` (a typo in its `NVSHMEMI_REPT_FOR_SIZES_WITH_SCOPE2`, fixed by 3.8); a sized form, see above |
//! | `nvshmemx_qp_*` | 3.5's operations on explicit queue pairs: they need queue pairs from the host's `nvshmemx_qp_create`, which the host crate does not offer |
//! | `nvshmemx_{ask,give,release}_smem` | 3.8's lending of shared memory to NVSHMEM's own collectives: a tuning aid for CUDA C++ kernels that size their shared memory by hand |
//! | `nvshmemx_region_*` | 3.8's batched-RMA regions: new and sparsely documented; wrap them when a use needs them |
//! | `nvshmemx_signal_counted_reset` | 3.8's counted signals: as for regions |
//! | `nvshmem*_{char,schar,short,int,long,longlong,uchar,ushort,uint,ulong,ulonglong}_*` | C's platform-named integer types: each has the width of a fixed-width type with a typed wrapper; declared under their C names in [`ffi`] (the test checks that), typed only where NVSHMEM has no fixed-width form (`short` waits for `i16`, `long` atomics for `i64`) |
//!
//! # Load/store path
//! For a peer whose memory is mapped into this PE (NVLink or PCIe peers, and this PE itself), the
//! [`rma`] `put`/`get` families and their byte forms, the [`signal`] puts with signal, and the
//! thread-scope [`collective::alltoall`], [`collective::fcollect`], [`collective::reduce`] and
//! [`collective::reducescatter`] move the data with the calling threads' own loads and stores, as
//! NVSHMEM's header path does in CUDA C++, instead of calling NVSHMEM's device bitcode, whose copy
//! loop is slower. Atomics on the way (the signal addition) follow NVSHMEM's rule: through the
//! mapping only when every PE of the job is reached by loads and stores, which `nvshmem-host`
//! establishes when it loads the module (for the NVSHMEM releases it knows; a module loaded
//! otherwise hands every addition to NVSHMEM). The crate's `nvshmem-only`
//! feature turns this path off, so every call is NVSHMEM's own (`PtxBuilder::load_store(false)`
//! in `nvshmem-builder`); results are the same either way.
//!
//! # Contract
//! NVSHMEM calls are `unsafe fn`s: the caller guarantees what NVSHMEM's API reference requires (valid
//! PE numbers, symmetric destinations allocated on every PE, collective calls reached by every PE).
//! Each function's `# Safety` section lists its conditions. Symmetric addresses travel as
//! [`SymmetricPtr`], which only the host crate creates from `nvshmem_malloc`, so passing a private or
//! host pointer where NVSHMEM needs a symmetric one is a type error. Teams travel as [`Team`], which
//! safe code only gets from the predefined constants or the host crate's team splits.
//!
//! The NVSHMEM functions themselves come from NVSHMEM's device bitcode, which the builder links in;
//! code that calls them can only run in a kernel built that way.
//!
//! # Checks
//! NVSHMEM does not check PE numbers on the device: a put to PE `n_pes()` reads past its peer
//! tables and faults somewhere else, or hangs. With this crate's `checks` feature, every call that
//! takes a PE (the [`rma`] transfers and [`rma::ptr`], [`signal`]'s puts and `signal_op`, every
//! [`atomic`], at every scope) first checks it against `0..pe::n_pes()`, and the `root` of
//! [`collective::broadcast`] and `broadcastmem` against `0..team::n_pes(team)`. On a PE out of
//! range, one thread of each warp that made the call prints, through CUDA's `vprintf`,
//!
//! ```text
//! nvshmem-gpu: PE 1 (block 3, thread 0): nvshmem_gpu::rma::block::put_nbi called with PE 4, but the PEs are 0..4
//! ```
//!
//! and the warp traps, so the launch fails on the host (`CUDA_ERROR_LAUNCH_FAILED`, which
//! `nvshmem-host` reports pointing at this line) instead of faulting elsewhere or hanging. A check
//! costs a read of NVSHMEM's PE count and one compare; without the feature the checks compile to
//! nothing. The [`ffi`] functions are never checked.
//!
//! The feature also puts a deadline on every call that waits for other PEs, so that a call not
//! every PE makes (a barrier inside `if my_pe() == 0`) ends the job instead of hanging it: every
//! [`p2p`] `wait_until` form and [`signal::signal_wait_until`] poll the matching test, and every
//! barrier, sync and collective ([`sync`], [`collective`], at thread, warp and block scope) first
//! meets the team's other PEs in a handshake of signals, then calls NVSHMEM's routine. A call still
//! waiting after the limit prints, from one thread,
//!
//! ```text
//! nvshmem-gpu: PE 0 (block 0, thread 0): nvshmem_gpu::sync::barrier_all: PE 1 (number 1 of the team's 2) has not arrived: is the call inside a branch that not every PE takes? Gave up after 60000 ms (NVSHMEMRS_DEVICE_TIMEOUT_S sets the limit)
//! ```
//!
//! (a wait names its variable, the condition and the value it has) and traps. The limit is 60 s;
//! `nvshmem-host` sets it from `NVSHMEMRS_DEVICE_TIMEOUT_S` (seconds) when it loads the module, and
//! gives the handshakes a symmetric scratch, which makes loading such a module collective. Without
//! that scratch (a module loaded by other code), or for a team handle of 32 or more, the handshake
//! is skipped and NVSHMEM's routine waits as it does without checks; [`sync::barrier_warpgroup`]
//! has no handshake either (its four warps have no barrier of their own to gather at). The
//! handshake doubles the cost of a barrier or collective, and a polled wait reads a clock per poll:
//! debug-build prices.
//!
//! `nvshmem-builder` turns the feature on when the crate that builds the kernels is built with debug
//! assertions (a `cargo build` or `cargo test` without `--release`) and leaves it off otherwise;
//! `PtxBuilder::checks(true)` turns it on in a release build, `checks(false)` off in a debug one. A
//! kernel crate can also enable it for good: `nvshmem-gpu = { …, features = ["checks"] }`.
#![cfg_attr(not(test), no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(stdarch_nvptx, asm_experimental_arch))]
// The GPU-only modules appear in the host's documentation too, marked as such.
#![cfg_attr(doc, feature(doc_cfg))]
#![warn(missing_docs)]

pub use nvshmem_macros::kernel;

mod element;

pub mod atomic;
mod call_scope;
mod checks;
pub mod collective;
mod deadline;
mod debug;
pub mod ffi;
#[cfg_attr(doc, doc(cfg(target_arch = "nvptx64")))]
pub mod grid;
mod leader;
#[cfg_attr(doc, doc(cfg(target_arch = "nvptx64")))]
pub mod memory;
pub mod p2p;
#[cfg(all(target_arch = "nvptx64", feature = "panic-handler"))]
mod panic;
mod params;
pub mod pe;
mod peer;
mod relaxed;
pub mod rma;
mod scope;
pub mod signal;
mod slice;
pub mod sync;
pub mod team;
#[cfg_attr(doc, doc(cfg(target_arch = "nvptx64")))]
pub mod thread;
#[cfg_attr(doc, doc(cfg(target_arch = "nvptx64")))]
pub mod warp;

pub use element::{
    AtomicAdd, AtomicBitwise, AtomicCompareSwap, AtomicElement, AtomicInteger, Element, WaitElement,
};
pub use leader::Leader;
pub use nvshmem_abi::SymmetricPtr;
pub use nvshmem_abi::{KernelDescriptor, KernelParam, ParamCode, SafeKernel, SingleParam};
pub use p2p::Cmp;

/// What `#[kernel]`'s expansion names: the signature's parts (see `nvshmem_abi`'s launch items).
#[doc(hidden)]
pub mod __kernel {
    pub use nvshmem_abi::{LayoutCode, ParamCode, ParamCodeOf, encode_signature, signature_len};
}
pub use pe::Pe;
pub use relaxed::{LocalAtomic, RelaxedAccess};
pub use scope::{Block, Pending, Thread, Warp};
pub use signal::SignalOp;
pub use slice::{Signal, SymmetricSlice};
pub use team::Team;

/// The C functions the typed layer wraps, from the same tables the wrappers are built from (the
/// coverage test adds the functions the untyped wrappers call by name).
#[doc(hidden)]
pub fn wrapped_c_functions() -> impl Iterator<Item = &'static str> {
    let families: [element::Names; 6] = [
        element::ELEMENT_WRAPPED,
        element::WAIT_WRAPPED,
        element::ATOMIC_WRAPPED,
        element::ATOMIC_COMPARE_SWAP_WRAPPED,
        element::ATOMIC_INTEGER_WRAPPED,
        element::ATOMIC_BITWISE_WRAPPED,
    ];
    let typed = families
        .into_iter()
        .flatten()
        .flat_map(|by_table| by_table.iter().copied());
    let reductions = collective::REDUCE_WRAPPED
        .iter()
        .flat_map(|by_group| by_group.iter())
        .flat_map(|by_type| by_type.iter())
        .flat_map(|by_op| by_op.iter().copied());
    typed.chain(reductions)
}

/// The functions of NVSHMEM's device bitcode deliberately left unwrapped, as `(pattern, why)`; the
/// crate documentation's "Not wrapped" table shows the same list. In a pattern `*` is any text and
/// `{a,b}` either alternative.
#[doc(hidden)]
pub const NOT_WRAPPED: &[(&str, &str)] = &[
    // First: the queue-pair forms exist for every type, half and C's names included.
    (
        "nvshmemx_qp_*",
        "explicit queue pairs need the host's nvshmemx_qp_create, which the host crate lacks",
    ),
    (
        "nvshmem*_{half,bfloat16}_*",
        "stable Rust has no IEEE binary16 or bfloat16 type",
    ),
    (
        "nvshmem*_{put,get,iput,iget}{8,16,32,64,128}*",
        "sized forms: the typed forms of the unsigned type of that width do the same",
    ),
    (
        "nvshmemx_put6_signal*",
        "NVSHMEM 3.4.5's misspelt sized form nvshmemx_put16_signal_{warp,block}",
    ),
    (
        "nvshmem*_{char,schar,short,int,long,longlong,uchar,ushort,uint,ulong,ulonglong}_*",
        "C's platform-named integer types: declared in ffi, typed through the fixed-width types",
    ),
    (
        "nvshmemx_{ask,give,release}_smem",
        "lends shared memory to NVSHMEM's collectives: a tuning aid for CUDA C++ kernels",
    ),
    (
        "nvshmemx_region_*",
        "batched-RMA regions: new and sparsely documented",
    ),
    (
        "nvshmemx_signal_counted_reset",
        "counted signals: new and sparsely documented",
    ),
];

/// The device functions this crate declares and wraps that older NVSHMEM releases lack, as
/// `(pattern, release series that added them)`; their wrappers need the `nvshmem-3-7` feature.
#[doc(hidden)]
pub const FIRST_RELEASE: &[(&str, &str)] = &[
    ("nvshmemx_flush{,_warp,_block}", "3.7"),
    ("nvshmemx_{float,double}_atomic_{fetch_add,add}", "3.7"),
];
