//! The safe barriers, syncs and collectives: calls a PE makes once, through the one group of its
//! launch that holds a [`Leader`].
//!
//! NVSHMEM counts a PE's barriers and collectives per team in device memory that the group making
//! the call updates with a plain load, add and store (`sync_counter[0] += 1` by the group's first
//! thread in NVSHMEM 3.4.5's `barrier.cuh`), and its reductions and broadcasts share the team's
//! scratch. So two collective calls on one team from one PE at the same time (a `barrier_all` from
//! every thread of a grid, or from every block at once) lose increments: PEs hang or leave early.
//! NVSHMEM requires one calling group per PE; the types here make that the only thing safe code can
//! write:
//!
//! - a [`Leader`] exists in one group of a launch only: [`Thread::leader`] in thread 0 of block 0,
//!   [`Warp::leader`] in warp 0 of block 0, [`Block::leader`] in block 0 (indices `(0, 0, 0)`);
//!   everywhere else they return `None`, and nothing else makes one;
//! - it is neither `Copy` nor `Clone`, no kernel parameter has its type, and every call below
//!   borrows it mutably.
//!
//! The first thread of each of these groups is the same thread, thread 0 of block 0, and in every
//! NVSHMEM collective of a scope the group's first thread is the one that updates the team's
//! counters (and this crate's `checks` handshake, too). So whatever tokens a kernel obtains, of any
//! scope, and however often, every update of a team's counters on this PE comes from that one
//! thread, in its program order: no two can race. A second token in the same thread is harmless for
//! the same reason: one thread makes one call at a time.
//!
//! One kernel's tokens cannot meet another kernel's on the same PE either: the host's typed launch
//! runs safe kernels on the handle's one stream, in order, and waits for each to finish before it
//! returns (a kernel launched otherwise is the `unsafe` launch's caller's responsibility).
//!
//! What the types do not enforce is that every PE makes the same calls in the same order, and that
//! the whole group (warp, block) takes part in each: a PE that misses a call hangs the others (the
//! `checks` feature traps instead, naming the PE), and a group that diverges hangs or moves wrong
//! values. Every address any PE's call touches lies in that PE's slices, checked here against
//! what the call reads and writes, inside symmetric allocations of the same size on every PE.
//!
//! ```ignore
//! use nvshmem_gpu::{Block, SymmetricSlice, Team, collective::op};
//! # fn all_reduce(partial: SymmetricSlice<f64>, total: SymmetricSlice<f64>) {
//! if let Some(mut leader) = Block::leader() {
//!     // Every thread of block 0 of every PE gets here.
//!     leader.reduce(Team::WORLD, op::Sum, total, partial);
//!     leader.barrier_all();
//! }
//! # }
//! ```

use crate::collective::{self, ReduceOp};
use crate::element::Element;
use crate::scope::{Block, Thread, Warp, concat_cstr};
use crate::slice::SymmetricSlice;
use crate::team::Team;
use crate::{sync, team};
use core::ffi::CStr;
use core::marker::PhantomData;

/// The right to make this PE's barriers, syncs and collectives at scope `S` (see the module
/// documentation): held by one thread ([`Thread::leader`]), warp ([`Warp::leader`]) or block
/// ([`Block::leader`]) per launch.
#[derive(Debug)]
pub struct Leader<S> {
    scope: PhantomData<S>,
}

impl<S> Leader<S> {
    /// The token, for the scopes' `leader` functions only.
    #[cfg(any(target_arch = "nvptx64", doc))]
    const fn new() -> Leader<S> {
        Leader { scope: PhantomData }
    }
}

/// Whether this thread is in block `(0, 0, 0)`.
#[cfg(any(target_arch = "nvptx64", doc))]
#[inline]
fn in_first_block() -> bool {
    use crate::thread;
    thread::block_idx_x() | thread::block_idx_y() | thread::block_idx_z() == 0
}

#[cfg(any(target_arch = "nvptx64", doc))]
impl Thread {
    /// This PE's thread-scope [`Leader`] in thread 0 of block 0 (both counted over x, y and z),
    /// `None` in every other thread.
    #[inline]
    pub fn leader() -> Option<Leader<Thread>> {
        (in_first_block() && crate::thread::rank_in_block() == 0).then(Leader::new)
    }
}

#[cfg(any(target_arch = "nvptx64", doc))]
impl Warp {
    /// This PE's warp-scope [`Leader`] in every thread of warp 0 of block 0 (the block's threads
    /// of rank 0 to 31), `None` in every other thread.
    #[inline]
    pub fn leader() -> Option<Leader<Warp>> {
        (in_first_block() && crate::thread::rank_in_block() < 32).then(Leader::new)
    }
}

#[cfg(any(target_arch = "nvptx64", doc))]
impl Block {
    /// This PE's block-scope [`Leader`] in every thread of block 0, `None` in every other block.
    #[inline]
    pub fn leader() -> Option<Leader<Block>> {
        in_first_block().then(Leader::new)
    }
}

/// What a collective reads and writes, by its kind: the lengths its slices must have.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    /// `dest` and `source` of one length (reduce, broadcast); `in_place` allows them to be the
    /// same elements.
    Same { in_place: bool },
    /// `dest` holds one block of `source`'s `n` (reduce-scatter).
    Scatter,
    /// `dest` holds `n` blocks of `source`'s length (fcollect).
    Gather,
    /// `dest` and `source` hold `n` blocks of one length (alltoall).
    Exchange,
}

/// The count NVSHMEM takes for a collective of `shape` over a team of `n` PEs with slices of
/// `dest` and `source` elements, or `None` where the lengths do not fit the shape.
const fn count_of(shape: Shape, dest: usize, source: usize, n: usize) -> Option<usize> {
    match shape {
        Shape::Same { .. } if dest == source => Some(dest),
        Shape::Scatter => match dest.checked_mul(n) {
            Some(total) if total == source => Some(dest),
            _ => None,
        },
        Shape::Gather => match source.checked_mul(n) {
            Some(total) if total == dest => Some(source),
            _ => None,
        },
        Shape::Exchange if dest == source && n > 0 && dest.is_multiple_of(n) => Some(dest / n),
        _ => None,
    }
}

/// Whether `a` and `b` share an element, unless they are the same elements and `in_place` (an
/// empty slice shares none).
fn overlap<T>(a: SymmetricSlice<T>, b: SymmetricSlice<T>, in_place: bool) -> bool {
    let (a_start, b_start) = (a.as_symmetric_ptr().as_ptr(), b.as_symmetric_ptr().as_ptr());
    if in_place && a_start == b_start && a.len() == b.len() {
        return false;
    }
    // Both ranges lie in allocations, so their ends do not wrap.
    let (a_start, b_start) = (a_start as usize, b_start as usize);
    let (a_end, b_end) = (
        a_start + a.len() * size_of::<T>(),
        b_start + b.len() * size_of::<T>(),
    );
    !a.is_empty() && !b.is_empty() && a_start < b_end && b_start < a_end
}

/// Checks `dest` and `source` of a `shape` collective `call` over `team` and returns its count;
/// traps (panics on the host) where the lengths do not fit or the slices overlap.
#[inline(always)]
#[track_caller]
fn checked_count<T>(
    call: &'static CStr,
    shape: Shape,
    team: Team,
    dest: SymmetricSlice<T>,
    source: SymmetricSlice<T>,
) -> usize {
    let n = team::n_pes(team);
    let count = count_of(shape, dest.len(), source.len(), n as usize);
    let in_place = matches!(shape, Shape::Same { in_place: true });
    match count {
        Some(count) if !overlap(dest, source, in_place) => count,
        _ => collective_misfit(call, dest.len(), source.len(), n),
    }
}

/// Traps (on the host: panics) for `call`'s slices that do not fit it.
#[cold]
#[track_caller]
fn collective_misfit(call: &'static CStr, dest: usize, source: usize, n_pes: i32) -> ! {
    #[cfg(target_arch = "nvptx64")]
    crate::debug::collective_misfit(call, dest, source, n_pes);
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "{}: a destination of {dest} and a source of {source} elements do not fit this collective \
         over a team of {n_pes} PEs, or they overlap; see the call's documentation for the lengths",
        call.to_str().unwrap_or("?")
    )
}

/// The safe collective calls of one scope, over the raw tier's functions of that scope.
macro_rules! leader_calls {
    ($scope:ident, $name:literal, $collective:path,
     $barrier_all:path, $sync_all:path, $barrier:path, $team_sync:path) => {
        impl Leader<$scope> {
            /// Completes this group's transfers, then waits until every PE's leader has arrived
            /// (`barrier_all`). A PE that never arrives hangs the others.
            #[inline]
            pub fn barrier_all(&mut self) {
                // SAFETY: one group per PE makes collective calls (this token, module docs); a PE
                // that misses the call hangs the others, which is no memory access.
                unsafe { $barrier_all() }
            }

            /// Waits until every PE's leader has arrived, without completing transfers
            /// (`sync_all`).
            #[inline]
            pub fn sync_all(&mut self) {
                // SAFETY: as for `barrier_all`.
                unsafe { $sync_all() }
            }

            /// Completes this group's transfers, then waits until every PE of `team` has arrived
            /// (`barrier` on a team). Every PE of `team` calls it.
            #[inline]
            pub fn barrier(&mut self, team: Team) {
                // SAFETY: as for `barrier_all`; a kernel's `Team` names a live team that contains
                // this PE (`Team`'s docs: a PE outside a split gets no `Team`).
                unsafe { $barrier(team) }
            }

            /// Waits until every PE of `team` has arrived, without completing transfers
            /// (`team_sync`). Every PE of `team` calls it.
            #[inline]
            pub fn team_sync(&mut self, team: Team) {
                // SAFETY: as for `barrier`.
                unsafe { $team_sync(team) }
            }

            /// Combines `source` of every PE of `team` element-wise with `op` into `dest` on every
            /// PE (`reduce`). `dest` and `source` have one length (they may be the same slice, but
            /// may not overlap otherwise); traps where not.
            #[inline]
            #[track_caller]
            pub fn reduce<T: crate::RelaxedAccess, O: ReduceOp<T>>(
                &mut self,
                team: Team,
                op: O,
                dest: SymmetricSlice<T>,
                source: SymmetricSlice<T>,
            ) {
                let call = concat_cstr!($name, "::reduce");
                let count = checked_count(call, Shape::Same { in_place: true }, team, dest, source);
                let (to, from) = (dest.as_symmetric_ptr(), source.as_symmetric_ptr());
                use $collective as raw;
                // SAFETY: both slices hold `count` elements inside symmetric allocations of their
                // size on every PE (checked), this PE is in `team`, and one group per PE calls
                // (module docs).
                unsafe { raw::reduce(team, op, to, from, count) }
            }

            /// Combines `source` (`n` blocks, `n` the team's size) of every PE of `team`
            /// element-wise with `op`, and leaves block `i` of the result in `dest` on the team's
            /// PE `i` (`reducescatter`). `source` is `n` times as long as `dest`, and they do not
            /// overlap; traps where not.
            #[inline]
            #[track_caller]
            pub fn reducescatter<T: crate::RelaxedAccess, O: ReduceOp<T>>(
                &mut self,
                team: Team,
                op: O,
                dest: SymmetricSlice<T>,
                source: SymmetricSlice<T>,
            ) {
                let call = concat_cstr!($name, "::reducescatter");
                let count = checked_count(call, Shape::Scatter, team, dest, source);
                let (to, from) = (dest.as_symmetric_ptr(), source.as_symmetric_ptr());
                use $collective as raw;
                // SAFETY: `dest` holds `count` and `source` `count × n` elements (checked), as
                // for `reduce`.
                unsafe { raw::reducescatter(team, op, to, from, count) }
            }

            /// Copies `source` of the team's PE `root` into `dest` on every PE of `team`
            /// (`broadcast`). `dest` and `source` have one length and do not overlap, and `root`
            /// is in `0..team::n_pes(team)`; traps where not.
            #[inline]
            #[track_caller]
            pub fn broadcast<T: Element>(
                &mut self,
                team: Team,
                dest: SymmetricSlice<T>,
                source: SymmetricSlice<T>,
                root: i32,
            ) {
                let call = concat_cstr!($name, "::broadcast");
                let count =
                    checked_count(call, Shape::Same { in_place: false }, team, dest, source);
                if !(0..team::n_pes(team)).contains(&root) {
                    root_out_of_range(call, root, team::n_pes(team));
                }
                let (to, from) = (dest.as_symmetric_ptr(), source.as_symmetric_ptr());
                use $collective as raw;
                // SAFETY: as for `reduce`, and `root` is a PE of the team (checked).
                unsafe { raw::broadcast(team, to, from, count, root) }
            }

            /// Concatenates `source` of every PE of `team`, in team order, into `dest` on every PE
            /// (`fcollect`, an all-gather). `dest` is `n` times as long as `source` (`n` the
            /// team's size), and they do not overlap; traps where not.
            #[inline]
            #[track_caller]
            pub fn fcollect<T: Element>(
                &mut self,
                team: Team,
                dest: SymmetricSlice<T>,
                source: SymmetricSlice<T>,
            ) {
                let call = concat_cstr!($name, "::fcollect");
                let count = checked_count(call, Shape::Gather, team, dest, source);
                let (to, from) = (dest.as_symmetric_ptr(), source.as_symmetric_ptr());
                use $collective as raw;
                // SAFETY: `source` holds `count` and `dest` `count × n` elements (checked), as
                // for `reduce`.
                unsafe { raw::fcollect(team, to, from, count) }
            }

            /// Sends block `j` of `source` (`n` blocks, `n` the team's size) to the team's PE `j`,
            /// which stores it as block `i` of its `dest`, `i` being this PE's number in the team
            /// (`alltoall`). `dest` and `source` have one length, a multiple of `n`, and do not
            /// overlap; traps where not.
            #[inline]
            #[track_caller]
            pub fn alltoall<T: Element>(
                &mut self,
                team: Team,
                dest: SymmetricSlice<T>,
                source: SymmetricSlice<T>,
            ) {
                let call = concat_cstr!($name, "::alltoall");
                let count = checked_count(call, Shape::Exchange, team, dest, source);
                let (to, from) = (dest.as_symmetric_ptr(), source.as_symmetric_ptr());
                use $collective as raw;
                // SAFETY: both slices hold `count × n` elements (checked), as for `reduce`.
                unsafe { raw::alltoall(team, to, from, count) }
            }
        }
    };
}

/// Traps (on the host: panics) for `call`'s `root` outside the team's `0..n_pes`.
#[cold]
#[track_caller]
fn root_out_of_range(call: &'static CStr, root: i32, n_pes: i32) -> ! {
    #[cfg(target_arch = "nvptx64")]
    crate::debug::root_out_of_range(call, root, n_pes);
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "{}: root {root} is not a PE of the team, whose PEs are 0..{n_pes}",
        call.to_str().unwrap_or("?")
    )
}

leader_calls!(
    Thread,
    "Leader<Thread>",
    collective,
    sync::barrier_all,
    sync::sync_all,
    sync::barrier,
    sync::team_sync
);
leader_calls!(
    Warp,
    "Leader<Warp>",
    collective::warp,
    sync::barrier_all_warp,
    sync::sync_all_warp,
    sync::barrier_warp,
    sync::team_sync_warp
);
leader_calls!(
    Block,
    "Leader<Block>",
    collective::block,
    sync::barrier_all_block,
    sync::sync_all_block,
    sync::barrier_block,
    sync::team_sync_block
);

#[cfg(test)]
mod tests {
    use super::{Shape, count_of, overlap};
    use crate::slice::SymmetricSlice;

    #[test]
    fn each_collective_takes_the_lengths_it_reads_and_writes() {
        let same = Shape::Same { in_place: false };
        assert_eq!(count_of(same, 8, 8, 4), Some(8));
        assert_eq!(count_of(same, 8, 7, 4), None);
        assert_eq!(count_of(Shape::Scatter, 2, 8, 4), Some(2));
        assert_eq!(count_of(Shape::Scatter, 2, 7, 4), None);
        assert_eq!(count_of(Shape::Scatter, 3, 8, 4), None);
        assert_eq!(count_of(Shape::Gather, 8, 2, 4), Some(2));
        assert_eq!(count_of(Shape::Gather, 9, 2, 4), None);
        assert_eq!(count_of(Shape::Exchange, 8, 8, 4), Some(2));
        assert_eq!(count_of(Shape::Exchange, 6, 6, 4), None);
        assert_eq!(count_of(Shape::Exchange, 8, 4, 4), None);
    }

    #[test]
    fn lengths_that_overflow_fit_no_collective() {
        let big = usize::MAX / 2 + 1;
        assert_eq!(count_of(Shape::Scatter, big, 0, 2), None);
        assert_eq!(count_of(Shape::Gather, 0, big, 2), None);
        assert_eq!(count_of(Shape::Exchange, 8, 8, 0), None);
    }

    #[test]
    fn overlapping_slices_are_found_and_in_place_is_allowed_where_asked() {
        let mut storage = [0u32; 16];
        // SAFETY: host memory stands in for a symmetric allocation in these tests.
        let all = unsafe { SymmetricSlice::from_raw_parts(storage.as_mut_ptr(), 16) };
        assert!(!overlap(all.range(..8), all.range(8..), false));
        assert!(overlap(all.range(..9), all.range(8..), false));
        assert!(overlap(all.range(..8), all.range(..8), false));
        assert!(!overlap(all.range(..8), all.range(..8), true));
        assert!(overlap(all.range(..8), all.range(1..9), true));
        assert!(!overlap(all.range(4..4), all.range(..8), false));
    }
}
