//! The thread-scope collectives over loads and stores: when every member of the team maps every
//! other member's memory (the team lies inside `NVSHMEM_TEAM_SHARED`), `alltoall` and `fcollect`
//! push their blocks with the calling thread's own stores and `reduce` and `reducescatter` pull
//! their operands with its own loads; otherwise [`crate::collective`] calls NVSHMEM.
//!
//! One thread moves all of a thread-scope collective's data, and NVSHMEM's bitcode moves and
//! combines it one piece per memory round trip (see [`super`]). Here a piece is 16 bytes and four
//! are in flight at a time ([`super::striped`] for the copies, [`combine_pass`], four from each of
//! two members, for the reductions), so that a collective of a few KiB waits for a few memory round
//! trips rather than one per piece.
//!
//! Every member of the team takes the same path: NVSHMEM makes `NVSHMEM_TEAM_SHARED` the PEs that
//! all reach each other (it falls back to each PE alone when the PEs' lists of peers disagree), so
//! a team lies inside one member's shared team exactly when it lies inside every member's; the
//! other tests (sizes, overlap of `dest` and `source`) read only arguments that every member
//! passes alike, symmetric addresses being the same on every PE.
//!
//! The protocols are NVSHMEM's own in outline. The pushes write straight into the peers' `dest`,
//! then complete and meet in a team barrier (NVSHMEM's alltoall signals each peer and waits for
//! each peer's signal: the same rendezvous). The pulls need a team barrier first, so that every
//! member's `source` is stored and visible, and a team sync after, so that no member returns, and
//! reuses its `source`, while another still reads it. NVSHMEM's barrier fences before it signals
//! but not after its wait, and its team sync not at all, so the PTX memory model's order comes from
//! fences here: an acquire after each barrier, before the data it guards is read, and a release
//! before the sync, after the last read of the members' `source`. Every member combines the
//! operands in team order, so all of them compute the same bits, floating-point sums included.

use super::striped::{self, Piece};
use super::{Pull, Push};
use crate::relaxed::RelaxedAccess;
use crate::team::Team;
use crate::{ffi, team};

/// The smallest block, in bytes, that [`push_blocks`] pushes. NVSHMEM's alltoall starts with less,
/// its rendezvous being one signal to each peer, and moves a piece per round trip; a push starts
/// with a team barrier and moves four 16-byte pieces per round trip, which repays the barrier only
/// from blocks this large.
pub(crate) const PUSH_MIN_BYTES: usize = 256;

/// The smallest reduction that [`pull_reduce`] pulls, in bytes of all members' operands together
/// (the bytes per PE times the team's size). A pull costs a team barrier and a team sync, then one
/// memory round trip per batch of four 16-byte pieces from each member after the first; NVSHMEM's
/// reduction costs less to start and more per byte. Where the two cross depends on the bytes of
/// all members together rather than per PE (twice the PEs, half the bytes per PE), hence a
/// threshold in bytes of all members' operands. A team of one PE copies, and is not worth a
/// threshold of its own.
pub(crate) const PULL_MIN_TEAM_BYTES: usize = 256;

/// This PE's number in `team` and the team's size, if every member of `team` maps every other
/// member's memory: if `team` lies inside `NVSHMEM_TEAM_SHARED`.
#[inline(always)]
fn mapped_team(team: Team) -> Option<(i32, i32)> {
    let size = team::n_pes(team);
    if size > team::n_pes(Team::SHARED) {
        return None;
    }
    let rank = team::my_pe(team)?;
    (0..size)
        .all(|member| member_in(team, member, Team::SHARED).is_some())
        .then_some((rank, size))
}

/// The number in `other` of the team's PE `member`, `None` if it is not in `other`: what
/// [`team::translate_pe`] answers, without its range check and the team-size query it costs
/// (the callers loop over `0..n_pes(team)`).
#[inline(always)]
fn member_in(team: Team, member: i32, other: Team) -> Option<i32> {
    debug_assert!((0..team::n_pes(team)).contains(&member));
    // SAFETY: `Team` values name existing teams, and `member` indexes `team`'s PEs (the callers
    // take it from `0..n_pes(team)`).
    let pe = unsafe { ffi::nvshmem_team_translate_pe(team.raw(), member, other.raw()) };
    (pe >= 0).then_some(pe)
}

/// The address of the symmetric `symmetric` on the team's PE `member`, mapped into this PE.
///
/// # Safety
/// `team` is a [`mapped_team`], `member` is in `0..n_pes(team)`, `symmetric` a symmetric address.
#[inline(always)]
unsafe fn member_address<T>(team: Team, member: i32, symmetric: *const T) -> *mut T {
    let pe = member_in(team, member, Team::WORLD).expect("every PE of a team is in WORLD");
    // SAFETY: the caller's contract: `symmetric` is symmetric and `pe` a valid PE.
    let mapped = unsafe { ffi::nvshmem_ptr(symmetric.cast(), pe) };
    assert!(
        !mapped.is_null(),
        "a PE of NVSHMEM_TEAM_SHARED is not mapped"
    );
    mapped.cast()
}

/// Whether the byte ranges `[a, a + a_bytes)` and `[b, b + b_bytes)` share a byte.
#[inline(always)]
fn overlap<A, B>(a: *const A, a_bytes: usize, b: *const B, b_bytes: usize) -> bool {
    let (a, b) = (a as usize, b as usize);
    a < b + b_bytes && b < a + a_bytes
}

/// Stores a block of `block_bytes` bytes at `dest + rank × block_bytes` in every member's memory
/// (`rank` being this PE's number in the team), the block of `source` that `push` says, then meets
/// the team in a barrier. Returns `false`, having done nothing, if the block is smaller than
/// [`PUSH_MIN_BYTES`], if `team` is not a [`mapped_team`] or if `dest` overlaps `source`
/// (NVSHMEM's algorithm then runs).
///
/// # Safety
/// One thread of every member calls it, in the same order relative to other collective calls on
/// `team`, from a cooperatively launched kernel; `dest` is symmetric and holds `n × block_bytes`
/// bytes on every member (`n` the team's size), `source` holds `n × block_bytes` local bytes
/// ([`Push::Alltoall`]) or `block_bytes` ([`Push::Fcollect`]); this PE is in `team`.
#[inline(always)]
pub(crate) unsafe fn push_blocks(
    team: Team,
    push: Push,
    dest: *mut u8,
    source: *const u8,
    block_bytes: usize,
) -> bool {
    if block_bytes < PUSH_MIN_BYTES {
        return false;
    }
    let Some((rank, size)) = mapped_team(team) else {
        return false;
    };
    let (source_stride, source_bytes) = match push {
        Push::Alltoall => (block_bytes, size as usize * block_bytes),
        Push::Fcollect => (0, block_bytes),
    };
    if overlap(dest, size as usize * block_bytes, source, source_bytes) {
        return false;
    }
    // SAFETY: the caller's contract: every block read lies in `source`, every block written in a
    // member's `dest`, at this PE's slot, which no other member writes.
    unsafe {
        let slot = dest.add(rank as usize * block_bytes);
        // Starting with the next member, as NVSHMEM does, spreads the members' first stores.
        for step in 1..=size {
            let member = (rank + step) % size;
            let to = member_address(team, member, slot);
            let from = source.add(member as usize * source_stride);
            striped::copy(to, from, block_bytes, 0, 1);
        }
        // The barrier releases the stores above (it fences at system scope before it signals),
        // but its wait ends without an acquire: the fence after it makes the blocks the other
        // members stored into this PE's `dest` what this thread reads next. Alone in its team,
        // this thread stored every block of `dest` itself, and needs none.
        let _ = ffi::nvshmem_barrier(team.raw());
        #[cfg(target_arch = "nvptx64")]
        if size > 1 {
            crate::memory::fence_acq_rel_system();
        }
    }
    true
}

/// Combines `count` elements of every member's `source` (those `pull` says) with `combine` into
/// this PE's `dest`: `dest[i] = combine(combine(source₀[i], source₁[i]), …)` over the team's members in order, between
/// a team barrier and a team sync. Returns `false`, having done nothing, if the members' operands
/// together are smaller than [`PULL_MIN_TEAM_BYTES`], if `team` is not a [`mapped_team`] or if
/// `dest` overlaps `source` (NVSHMEM's algorithm then runs).
///
/// # Safety
/// One thread of every member calls it, in the same order relative to other collective calls on
/// `team`, from a cooperatively launched kernel; `source` is symmetric and holds `count`
/// ([`Pull::Reduce`]) or `n × count` elements ([`Pull::ReduceScatter`], `n` the team's size),
/// `dest` holds `count`; this PE is in `team`; `T` is one of NVSHMEM's reduction types (a plain
/// number whose size divides 16).
#[inline(always)]
pub(crate) unsafe fn pull_reduce<T: RelaxedAccess, C: Fn(T, T) -> T + Copy>(
    team: Team,
    pull: Pull,
    dest: *mut T,
    source: *const T,
    count: usize,
    combine: C,
) -> bool {
    let bytes = count * size_of::<T>();
    if bytes.saturating_mul(team::n_pes(team).max(0) as usize) < PULL_MIN_TEAM_BYTES {
        return false;
    }
    let Some((rank, size)) = mapped_team(team) else {
        return false;
    };
    let (offset, source_len) = match pull {
        Pull::Reduce => (0, count),
        Pull::ReduceScatter => (rank as usize * count, size as usize * count),
    };
    if overlap(dest, bytes, source, source_len * size_of::<T>()) {
        return false;
    }
    // SAFETY: the caller's contract; `dest` overlaps no member's `source` (this PE's is checked
    // above, the others are other PEs' memory).
    unsafe {
        let block = source.add(offset);
        if size == 1 {
            striped::copy(dest.cast(), block.cast(), bytes, 0, 1);
            return true;
        }
        // A barrier, not a sync: each member fences its stores (to its `source` among them)
        // before it signals (a release), which a team sync, volatile accesses and no fence, does
        // not. The barrier's wait ends without an acquire; the fence after it orders the loads
        // below after it, so they read what the members stored, not lines this multiprocessor's
        // L1 cache kept from an earlier call.
        let _ = ffi::nvshmem_barrier(team.raw());
        #[cfg(target_arch = "nvptx64")]
        crate::memory::fence_acq_rel_system();
        let (first, second) = (
            member_address(team, 0, block),
            member_address(team, 1, block),
        );
        combine_pass(dest, first, second, count, combine);
        for member in 2..size {
            combine_pass(
                dest,
                dest,
                member_address(team, member, block),
                count,
                combine,
            );
        }
        // A release before the sync: the loads above complete before any member learns that
        // this PE is done with its `source` and writes it again.
        #[cfg(target_arch = "nvptx64")]
        crate::memory::fence_acq_rel_system();
        let _ = ffi::nvshmem_team_sync(team.raw());
    }
    true
}

/// `dest[i] = combine(first[i], second[i])` for `i < count`: in 16-byte pieces, four from each
/// operand at a time, while all three addresses allow it, then element by element. `dest` may be
/// `first`. Every load and store is a relaxed atomic one ([`Piece`], [`RelaxedAccess`]), as in
/// [`striped`]'s copies.
///
/// A batch's eight loads come before [`loads_issued`], its combinations after. Without that point,
/// `ptxas` sank each pair of loads down to its combination, to save registers, so that two loads
/// were in flight at a time instead of eight, and a reduction of a few KiB took half as long again.
/// Not inlined, so that the kernels that hold it and NVSHMEM's reduction (the other path) stay
/// smaller.
///
/// # Safety
/// `first` and `second` are valid for `count` reads, `dest` for `count` writes; `dest` is `first`
/// or overlaps neither; `T` is a plain number whose size divides 16, every bit pattern a value.
#[inline(never)]
unsafe fn combine_pass<T: RelaxedAccess, C: Fn(T, T) -> T + Copy>(
    dest: *mut T,
    first: *const T,
    second: *const T,
    count: usize,
    combine: C,
) {
    const PIECE: usize = size_of::<[u64; 2]>();
    let mut done = 0;
    // SAFETY: every index read or written is below `count` (pieces cover whole elements, as the
    // element size divides 16); pieces are read only from 16-byte aligned addresses; a piece of
    // `dest` is written after the same piece of `first` is read, so `dest == first` is fine.
    unsafe {
        if (dest as usize | first as usize | second as usize).is_multiple_of(PIECE) {
            let pieces = count * size_of::<T>() / PIECE;
            let (to, a, b) = (
                dest.cast::<[u64; 2]>(),
                first.cast::<[u64; 2]>(),
                second.cast::<[u64; 2]>(),
            );
            // `T` is as `combine_piece` needs (the caller's contract).
            let pieces_of = |a, b| combine_piece(a, b, combine);
            let mut i = 0;
            // All eight loads before any combination, in named variables (an array indexed in a
            // loop lives in local memory), with `loads_issued` between them and the combinations
            // so that `ptxas` keeps them there (above).
            while i + 4 <= pieces {
                let (a0, a1, a2, a3) = (
                    Piece::load(a.add(i)),
                    Piece::load(a.add(i + 1)),
                    Piece::load(a.add(i + 2)),
                    Piece::load(a.add(i + 3)),
                );
                let (b0, b1, b2, b3) = (
                    Piece::load(b.add(i)),
                    Piece::load(b.add(i + 1)),
                    Piece::load(b.add(i + 2)),
                    Piece::load(b.add(i + 3)),
                );
                loads_issued();
                Piece::store(to.add(i), pieces_of(a0, b0));
                Piece::store(to.add(i + 1), pieces_of(a1, b1));
                Piece::store(to.add(i + 2), pieces_of(a2, b2));
                Piece::store(to.add(i + 3), pieces_of(a3, b3));
                i += 4;
            }
            while i < pieces {
                let piece = pieces_of(Piece::load(a.add(i)), Piece::load(b.add(i)));
                Piece::store(to.add(i), piece);
                i += 1;
            }
            done = pieces * PIECE / size_of::<T>();
        }
        for i in done..count {
            let element = combine(
                T::load_relaxed(first.add(i).cast_mut()),
                T::load_relaxed(second.add(i).cast_mut()),
            );
            T::store_relaxed(dest.add(i), element);
        }
    }
}

/// Keeps the loads before it above it, so that they are all issued before anything after it
/// waits for one of them: a `bar.warp.sync` of this thread alone, a point that no memory access
/// crosses, in `ptxas` as in LLVM, and that costs a few cycles.
#[inline(always)]
fn loads_issued() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: the mask names this thread alone, which is here; the barrier waits for nobody.
    unsafe {
        core::arch::asm!(
            "{{ .reg .b32 me; mov.u32 me, %lanemask_eq; bar.warp.sync me; }}",
            options(nostack)
        );
    }
}

/// Combines two 16-byte pieces lane by lane, a lane being one `T`.
///
/// # Safety
/// `T` is a plain number whose size divides 16, every bit pattern a value.
#[inline(always)]
unsafe fn combine_piece<T, C: Fn(T, T) -> T>(a: [u64; 2], b: [u64; 2], combine: C) -> [u64; 2] {
    let mut out = a;
    let (a, b) = (&raw const a, &raw const b);
    let lanes = size_of::<[u64; 2]>() / size_of::<T>();
    // SAFETY: `T` is a plain number whose size divides 16 and for which every bit pattern is a
    // value (the caller's contract); each lane lies inside its piece.
    unsafe {
        let (a, b, to) = (a.cast::<T>(), b.cast::<T>(), (&raw mut out).cast::<T>());
        for lane in 0..lanes {
            to.add(lane).write_unaligned(combine(
                a.add(lane).read_unaligned(),
                b.add(lane).read_unaligned(),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{RelaxedAccess, combine_pass, overlap};
    use core::fmt::Debug;

    /// Elements per test buffer of `T` (24 pieces of 16 bytes).
    const fn slots<T>() -> usize {
        24 * 16 / size_of::<T>()
    }

    /// Combines `count` elements of two patterned buffers that start `skew` elements past a 16-byte
    /// boundary, into a third buffer and then in place into the first, and checks every element
    /// against `combine`, and that nothing around them is touched.
    fn check<T: RelaxedAccess + PartialEq + Debug>(
        combine: fn(T, T) -> T,
        value: fn(usize) -> T,
        skew: usize,
        count: usize,
    ) {
        assert!(skew + count <= slots::<T>(), "buffers too small");
        let (mut first, mut second, mut dest) = ([0u128; 24], [0u128; 24], [0u128; 24]);
        let (a, b) = (
            first.as_mut_ptr().cast::<T>(),
            second.as_mut_ptr().cast::<T>(),
        );
        let d = dest.as_mut_ptr().cast::<T>();
        let untouched = value(usize::MAX / 7);
        let inside = |i: usize| (skew..skew + count).contains(&i);
        // SAFETY: every index is below `slots::<T>()`, inside the three buffers.
        unsafe {
            for i in 0..slots::<T>() {
                a.add(i).write(value(i));
                b.add(i).write(value(i.wrapping_mul(5) + 3));
                d.add(i).write(untouched);
            }
            combine_pass(d.add(skew), a.add(skew), b.add(skew), count, combine);
            for i in 0..slots::<T>() {
                let expected = if inside(i) {
                    combine(value(i), value(i * 5 + 3))
                } else {
                    untouched
                };
                assert_eq!(
                    d.add(i).read(),
                    expected,
                    "element {i}, skew {skew}, count {count}"
                );
            }
            combine_pass(a.add(skew), a.add(skew), b.add(skew), count, combine);
            for i in 0..slots::<T>() {
                let expected = if inside(i) { d.add(i).read() } else { value(i) };
                assert_eq!(
                    a.add(i).read(),
                    expected,
                    "in place: element {i}, skew {skew}, count {count}"
                );
            }
        }
    }

    /// Every count up to a few pieces past the batches of four, at every skew within a piece.
    fn sweep<T: RelaxedAccess + PartialEq + Debug>(combine: fn(T, T) -> T, value: fn(usize) -> T) {
        let lanes = 16 / size_of::<T>();
        for skew in 0..lanes {
            for count in 0..=(slots::<T>() - lanes) {
                check(combine, value, skew, count);
            }
        }
    }

    #[test]
    fn pieces_batches_and_tails_combine_every_element_once() {
        sweep::<u64>(u64::wrapping_add, |i| {
            (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        });
        sweep::<i32>(i32::wrapping_mul, |i| (i as i32).wrapping_mul(-40_503));
        sweep::<f32>(f32::min, |i| (i % 17) as f32 - 8.5);
        sweep::<f64>(|a, b| a + b, |i| i as f64 * 0.25);
        sweep::<u16>(|a, b| a ^ b, |i| i.wrapping_mul(2_654_435_761) as u16);
        sweep::<i8>(i8::max, |i| i.wrapping_mul(37) as i8);
    }

    #[test]
    fn ranges_overlap_when_they_share_a_byte() {
        let at = |address: usize| address as *const u8;
        assert!(
            !overlap(at(0x1000), 0x100, at(0x1100), 0x100),
            "adjacent, after"
        );
        assert!(
            !overlap(at(0x1100), 0x100, at(0x1000), 0x100),
            "adjacent, before"
        );
        assert!(overlap(at(0x1000), 0x101, at(0x1100), 0x100), "one byte");
        assert!(
            overlap(at(0x1000), 0x100, at(0x1000), 0x100),
            "the same range"
        );
        assert!(
            overlap(at(0x1000), 0x400, at(0x1100), 0x10),
            "one inside the other"
        );
    }
}
