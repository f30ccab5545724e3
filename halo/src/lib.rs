//! Halo exchange for stencil codes on NVSHMEM.
//!
//! A stencil code splits a grid over PEs; each PE updates its own cells and, every iteration,
//! copies the cells along its edges into the *halo* (a frame of ghost cells) of the PEs next to it.
//! This crate is that layer:
//!
//! | module | side | what |
//! |---|---|---|
//! | [`decomposition`] | both | [`Decomposition1d`] (rows) and [`Decomposition2d`] (a [`ProcessGrid`]): owned cells, neighbours (open or periodic), and each PE's [`Patch`], the layout its kernels see |
//! | [`decomposition3d`] | both | [`Decomposition3d`] (a [`ProcessGrid3d`]): boxes, the 26 neighbours ([`Direction3d`]: faces, edges, corners), each PE's [`Patch3d`] and the [`Region3d`]s it sends and receives |
//! | [`packing`] | both | the layout of packed halos (strided edges and faces sent through a contiguous buffer): 2-D columns, 3-D faces, edges and corners |
//! | [`tiling`] | both | how stencil kernels cover a patch with blocks, top-to-bottom or boundary rows first |
//! | [`schedule`] | both | which iterations compute the residual norm, and where each norm is kept |
//! | `device` | GPU | pushing halos to neighbours (element `p`, block `put_nbi`), the signal handshake that replaces a global barrier, the residual norm's partial sums |
//! | `host` (feature `host`) | CPU | symmetric grids with halos, the on-stream barrier, the iteration loop's signal words and norm bookkeeping, the persistent kernel's grid size |
//!
//! Everything in `decomposition`, `decomposition3d`, `packing`, `tiling` and `schedule` is plain integer arithmetic, `no_std`
//! (the crate is `no_std` unless the `host` feature is on),
//! shared by host and kernels and unit-tested on the CPU. The `device` module exists only when
//! compiling for `nvptx64` (document it with `--target nvptx64-nvidia-cuda -Zbuild-std=core`).
//! Kernel crates depend on this crate with default features; host programs enable `host`.
//!
//! # The exchange, and who may write what when
//! Each PE keeps two symmetric arrays (`a`, `a_new`) of [`Patch::len`] elements. Iteration `k` reads
//! `a` (owned cells and halo), writes `a_new`, and pushes the new edge cells into the neighbours'
//! `a_new` halos; then the arrays swap. Two things must hold before a PE pushes in iteration `k`:
//! the neighbour has finished reading that halo in iteration `k - 1` (it is the same array), and
//! before it computes its edges, the neighbours' pushes of iteration `k - 1` have arrived. A global
//! barrier between iterations gives both. The signal handshake gives both with neighbours only:
//! after its last push of iteration `k`, a PE sets the neighbour's signal word for that side to
//! `k + 1` (after `quiet`); in iteration `k` a PE waits until the words of the sides it needs are at
//! least `k`. Since the blocks that compute a PE's edge rows are the only readers of its halo and
//! also the ones that push, the signal also says the halo has been read.
#![cfg_attr(not(any(test, feature = "host")), no_std)]
#![warn(missing_docs)]

pub mod decomposition;
pub mod decomposition3d;
#[cfg(target_arch = "nvptx64")]
pub mod device;
#[cfg(feature = "host")]
pub mod host;
pub mod packing;
pub mod schedule;
pub mod tiling;

pub use decomposition::{
    Boundary, Box2d, Decomposition1d, Decomposition2d, DecompositionError, Direction, Neighbours,
    Patch, ProcessGrid, Split,
};
pub use decomposition3d::{Box3d, Decomposition3d, Direction3d, Patch3d, ProcessGrid3d, Region3d};
pub use schedule::{NORM_ROWS, NormSchedule};
pub use tiling::Tiling;

use nvshmem_gpu::{KernelParam, SingleParam, SymmetricPtr};

/// Slots that partial norms are spread over, so that blocks adding their partial sums do not all
/// contend for one address. Each slot is [`NORM_SLOT_STRIDE`] `f64` apart (one 128-byte line).
pub const NORM_SLOTS: usize = 64;

/// Distance between two norm slots, in `f64`.
pub const NORM_SLOT_STRIDE: usize = 16;

/// The `f64` elements of one set of norm slots.
pub const NORM_SLOTS_LEN: usize = NORM_SLOTS * NORM_SLOT_STRIDE;

/// What a stencil launch does with the residual norm, as a kernel parameter: the slot set its
/// blocks add their partial sums to (if the launch computes a norm), and an earlier launch's slot
/// set to sum with the row of every PE's totals that sum goes to (if the launch before it computed
/// one).
///
/// A norm is summed by the next launch on the stream, not by the last block of its own: the end
/// of a launch orders every block's additions before the next launch, so no block has to count
/// itself in, which would cost each of them a fence and a round trip to memory on its way out. The
/// first warp of the next launch sums the slots (zeroing them for the norm after next) and puts
/// the PE's total into `totals[my_pe]` on every PE; once every PE's kernels have finished and the
/// PEs have met, each PE sums its row in PE order, so every PE gets the same norm without a
/// barrier on the norm's iteration. After the last launch, a launch that only sums takes the last
/// norm (`host::NormBuffers::closing`).
///
/// Its invariant, which makes it a [`KernelParam`] that safe kernels may take: it is
/// [`NONE`](Self::NONE), or `slots` and `pending` are each null or point at [`NORM_SLOTS_LEN`]
/// `f64` in this PE's device memory, and `totals` points at one symmetric `f64` per PE where
/// `pending` is not null, all allocated for as long as a kernel uses it. Only `host::NormBuffers`
/// (which owns such buffers) and the `unsafe` [`from_raw_parts`](Self::from_raw_parts) and
/// [`at`](Self::at) make one; the fields are private, so safe code cannot point it elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct NormTarget {
    /// [`NORM_SLOTS_LEN`] local `f64` partial sums this launch adds to (null: it computes no norm).
    slots: *mut f64,
    /// [`NORM_SLOTS_LEN`] local `f64` partial sums of an earlier launch, complete, that this launch
    /// sums (null: none).
    pending: *mut f64,
    /// The pending norm's row: one symmetric `f64` per PE.
    totals: SymmetricPtr<f64>,
}

impl NormTarget {
    /// The target of a launch that neither adds to a norm nor sums one.
    pub const NONE: NormTarget = NormTarget {
        slots: core::ptr::null_mut(),
        pending: core::ptr::null_mut(),
        // SAFETY: never dereferenced: a target without pending slots puts nothing.
        totals: unsafe { SymmetricPtr::from_raw(core::ptr::null_mut()) },
    };

    /// The target made of its three addresses.
    ///
    /// # Safety
    /// `slots` and `pending` are each null or point at [`NORM_SLOTS_LEN`] `f64` in this PE's device
    /// memory, and `totals` at `n_pes` symmetric `f64` where `pending` is not null, allocated for
    /// as long as any kernel given the target runs.
    pub const unsafe fn from_raw_parts(
        slots: *mut f64,
        pending: *mut f64,
        totals: SymmetricPtr<f64>,
    ) -> NormTarget {
        NormTarget {
            slots,
            pending,
            totals,
        }
    }

    /// Whether the launch adds to a norm.
    pub fn adds(&self) -> bool {
        !self.slots.is_null()
    }

    /// Whether the launch sums an earlier launch's norm.
    pub fn sums(&self) -> bool {
        !self.pending.is_null()
    }

    /// The target of a launch that adds to norm `adds` and sums norm `sums` (either may be
    /// `None`), in buffers laid out as `host::NormBuffers` lays them out, `self` being their start
    /// (its `slots` and `totals`): two slot sets used in turn (norm `j` in set `j % 2`, while norm
    /// `j - 1` is summed from the other), and rows of `n_pes` totals used in turn (norm `j` in row
    /// [`NormSchedule::row`]`(j)`).
    ///
    /// # Safety
    /// `self` holds two slot sets and more than `NormSchedule::row(j)` rows of `n_pes` totals for
    /// the `j` summed; `n_pes` is the number of PEs.
    pub unsafe fn at(&self, adds: Option<u32>, sums: Option<u32>, n_pes: u32) -> NormTarget {
        let set = |j: u32| (j % 2) as usize * NORM_SLOTS_LEN;
        // SAFETY: inside the buffers (the caller's contract).
        unsafe {
            NormTarget {
                slots: adds.map_or(core::ptr::null_mut(), |j| self.slots.add(set(j))),
                pending: sums.map_or(core::ptr::null_mut(), |j| self.slots.add(set(j))),
                totals: match sums {
                    Some(j) => self
                        .totals
                        .add(NormSchedule::row(j) as usize * n_pes as usize),
                    None => NormTarget::NONE.totals,
                },
            }
        }
    }
}

/// The signal words and arrival counters of one PE's halo exchange, as a kernel parameter.
///
/// `words` holds four symmetric `u64`, one per [`Direction`] (in the order of their numbers): word
/// `d` is set by the neighbour on side `d` once this PE's halo on that side holds the neighbour's
/// cells of an iteration (to that iteration's number plus one). `arrivals` holds four local `u32`
/// counters, one per direction, that the blocks pushing towards that side increment, so that the
/// last one to finish raises the neighbour's word. Both start at zero (`host::HaloSignals` allocates
/// them with `calloc` and resets them before a run).
///
/// Its invariant, which makes it a [`KernelParam`]: both addresses point at four such values,
/// allocated for as long as a kernel uses them. Only `host::HaloSignals` (which owns them) and the
/// `unsafe` [`from_raw_parts`](Self::from_raw_parts) make one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct SignalWords {
    /// Four symmetric signal words.
    words: SymmetricPtr<u64>,
    /// Four local arrival counters.
    arrivals: *mut u32,
}

impl SignalWords {
    /// The words and counters made of their addresses.
    ///
    /// # Safety
    /// `words` points at four symmetric `u64` and `arrivals` at four `u32` in this PE's device
    /// memory, allocated for as long as any kernel given them runs.
    pub const unsafe fn from_raw_parts(
        words: SymmetricPtr<u64>,
        arrivals: *mut u32,
    ) -> SignalWords {
        SignalWords { words, arrivals }
    }
}

/// The counter of the blocks of one launch that have reached the meeting at its end
/// (`device::meet_at_end`), as a kernel parameter; [`NONE`](Self::NONE) for a launch without a
/// meeting. Its invariant, which makes it a [`KernelParam`]: it is `NONE` or points at a `u32` in
/// this PE's device memory, allocated for as long as a kernel uses it (`host::MeetingPlace` owns
/// one; the `unsafe` [`from_raw`](Self::from_raw) makes one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(transparent)]
pub struct MeetingCounter {
    counter: *mut u32,
}

impl MeetingCounter {
    /// No meeting: the patch has no neighbours.
    pub const NONE: MeetingCounter = MeetingCounter {
        counter: core::ptr::null_mut(),
    };

    /// The counter at `counter`.
    ///
    /// # Safety
    /// `counter` is null or points at a `u32` in this PE's device memory, allocated for as long as
    /// any kernel given it runs.
    pub const unsafe fn from_raw(counter: *mut u32) -> MeetingCounter {
        MeetingCounter { counter }
    }

    /// Whether there is a meeting.
    pub fn is_some(&self) -> bool {
        !self.counter.is_null()
    }
}

// What safe kernels may take (`nvshmem_gpu::KernelParam`). The plain structs are valid with any
// values: kernels check the relations they rely on (a patch's layout against the arrays' lengths)
// before they use them. The three holding addresses are valid by construction (their invariants
// above): safe code can make only `NONE` or take one from the host types that own the memory, and
// every launch that passes one is `unsafe` (the host crate's typed launch has no `IntoParam` for
// them), its caller keeping the owners alive until the kernel has finished.
macro_rules! kernel_params {
    ($($ty:ty),*) => { $(
        // SAFETY: as said above; `#[repr(C)]` or `#[repr(transparent)]`, the same layout on host and
        // device, passed as one parameter; outside the closed set of codes, known by its layout.
        unsafe impl KernelParam for $ty {
            const CODE: nvshmem_gpu::ParamCode =
                nvshmem_gpu::ParamCode::layout(size_of::<$ty>(), align_of::<$ty>());
            type Launch = $ty;
        }
        // SAFETY: as above.
        unsafe impl SingleParam for $ty {}
    )* };
}
kernel_params!(Patch, Tiling, NormTarget, SignalWords, MeetingCounter);

/// A set of sides, as a bit mask of [`Direction`] numbers.
///
/// ```
/// use nvshmem_halo::{Direction, Sides};
/// let sides = Sides::NONE.with(Direction::Up).with(Direction::Left);
/// assert!(sides.contains(Direction::Left) && !sides.contains(Direction::Down));
/// assert_eq!(sides.skip_mask(), [0, 1, 0, 1]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct Sides(pub u32);

impl Sides {
    /// No side.
    pub const NONE: Sides = Sides(0);

    /// These sides and `direction`.
    pub const fn with(self, direction: Direction) -> Sides {
        Sides(self.0 | 1 << direction as u32)
    }

    /// Whether `direction` is one of them.
    pub const fn contains(self, direction: Direction) -> bool {
        self.0 & (1 << direction as u32) != 0
    }

    /// Whether there is no side.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// NVSHMEM's skip array for `wait_until_all` over the four words: 1 for every side *not* in the
    /// set.
    pub const fn skip_mask(self) -> [i32; 4] {
        let mut mask = [1; 4];
        let mut d = 0;
        while d < 4 {
            if self.0 & (1 << d) != 0 {
                mask[d] = 0;
            }
            d += 1;
        }
        mask
    }
}
