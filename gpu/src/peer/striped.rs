//! One copy shared by a group of threads: thread `rank` of `size` moves pieces `rank`,
//! `rank + size`, ... of the range, in the widest pieces both addresses allow. The transfers
//! ([`super::copy`], GPU only) and the pushed collectives ([`super::collective`]) copy with it; it
//! is pointer arithmetic over [`crate::relaxed`]'s accesses, so its tests run on the host, one rank
//! after the other.
//!
//! Every load and store of a copy is a relaxed atomic access ([`Piece`]): the ranges are slices
//! that safe code of other threads may read or write meanwhile ([`crate::SymmetricSlice`]'s
//! relaxed `read` and `write`), and by Rust's rules a plain or volatile access racing those would be
//! a data race, atomic ones never are. Such a read meanwhile sees an old or a new value of each
//! element.

use crate::relaxed::{RelaxedAccess, load_16_relaxed, store_16_relaxed};

/// Copies `bytes` bytes from `source` to `dest`, thread `rank` of `size` taking every `size`-th
/// piece: 16-byte pieces while both addresses allow, then 8-, 4- and 1-byte ones for the rest,
/// each a relaxed atomic load and store ([`Piece`]).
///
/// Each stage returns as soon as nothing is left, so a transfer of whole 16-byte pieces between
/// 16-byte aligned buffers, the common case, executes the 16-byte stage alone: the bookkeeping of
/// stages with nothing to do doubled the instructions of a small group transfer and cost much of
/// its bandwidth.
///
/// After a 16-byte stage less than 16 bytes are left, so the 8-byte stage that follows it has at
/// most one piece: it copies it without the batched loop, and told that less than 16 bytes are
/// left, the compiler drops that stage's loops altogether (the batched loop there cost a small
/// warp-scope put some 30 instructions). Only buffers that are 8- but not 16-byte aligned take the
/// batched 8-byte stage. The 16-byte stage stays outside the branch on alignment: inside it, its
/// loop test could no longer be hoisted out of a caller's loop.
///
/// # Safety
/// Both ranges are valid for `bytes` bytes and do not overlap; the group's threads call it with the
/// same `dest`, `source` and `bytes` and distinct ranks below `size`.
#[inline(always)]
pub(crate) unsafe fn copy(
    dest: *mut u8,
    source: *const u8,
    bytes: usize,
    rank: usize,
    size: usize,
) {
    let mut done = 0;
    // One stage: if both addresses allow `$piece`-sized pieces, copy the whole pieces of what is
    // left, and return once nothing is.
    macro_rules! stage {
        ($piece:ty, $loads:expr) => {
            if aligned(dest, source, size_of::<$piece>()) {
                let rest = bytes - done;
                done += copy_pieces::<$piece>(
                    dest.add(done),
                    source.add(done),
                    rest,
                    rank,
                    size,
                    $loads,
                );
                if done == bytes {
                    return;
                }
            }
        };
    }
    // SAFETY: each stage copies whole pieces of the part not yet copied, which lies inside both
    // ranges. `done` is a multiple of the previous stage's piece size, so the rest is as aligned
    // as the start and a stage runs only when both addresses allow its piece.
    unsafe {
        let sixteen_aligned = aligned(dest, source, size_of::<[u64; 2]>());
        stage!([u64; 2], Loads::Batched);
        if sixteen_aligned {
            // Less than 16 bytes are left: at most one 8-byte piece, which needs no batching.
            // SAFETY: the 16-byte stage ran and copied every whole 16-byte piece.
            core::hint::assert_unchecked(bytes - done < size_of::<[u64; 2]>());
            stage!(u64, Loads::OneByOne);
        } else {
            stage!(u64, Loads::Batched);
        }
        stage!(u32, Loads::OneByOne);
        let rest = bytes - done;
        copy_pieces::<u8>(
            dest.add(done),
            source.add(done),
            rest,
            rank,
            size,
            Loads::OneByOne,
        );
    }
}

/// Whether both addresses are multiples of `alignment`.
#[inline(always)]
fn aligned(dest: *mut u8, source: *const u8, alignment: usize) -> bool {
    (dest as usize | source as usize).is_multiple_of(alignment)
}

/// How a thread of [`copy_pieces`] loads its pieces.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Loads {
    /// Four pieces before it stores any: with one load in flight at a time, a thread that copies
    /// alone (thread scope, or a small group) waits a full memory round trip per piece. The stage
    /// that moves the bulk of a transfer batches: the 16-byte one, or the 8-byte one when the
    /// buffers are not 16-byte aligned.
    Batched,
    /// One piece at a time, as NVSHMEM's header path does: the 4- and 1-byte stages, which move
    /// at most a few bytes unless the buffers are misaligned, stay small (batched, they raised a
    /// block-scope get kernel from 72 to 96 registers).
    OneByOne,
}

/// A piece of a copy, loaded and stored as relaxed atomics of its width: 16 bytes as two 64-bit
/// words in one vector access ([`load_16_relaxed`], whose documentation says why that is atomic
/// element by element), 8, 4 and 1 bytes as `core::sync::atomic` accesses ([`RelaxedAccess`]).
pub(super) trait Piece: Copy {
    /// Loads the piece at `at`.
    ///
    /// # Safety
    /// `at` is valid for reads of `size_of::<Self>()` bytes and aligned to that size, and no
    /// non-atomic access races with this one (as for a plain access, which races with any).
    unsafe fn load(at: *const Self) -> Self;

    /// Stores `piece` at `at`.
    ///
    /// # Safety
    /// As for [`load`](Self::load), for writes.
    unsafe fn store(at: *mut Self, piece: Self);
}

impl Piece for [u64; 2] {
    #[inline(always)]
    unsafe fn load(at: *const Self) -> Self {
        // SAFETY: the caller's contract: 16 readable bytes, 16-byte aligned.
        unsafe { load_16_relaxed(at.cast_mut().cast()) }
    }

    #[inline(always)]
    unsafe fn store(at: *mut Self, piece: Self) {
        // SAFETY: as for `load`, for writes.
        unsafe { store_16_relaxed(at.cast(), piece) }
    }
}

/// Implements [`Piece`] for integers through their [`RelaxedAccess`].
macro_rules! atomic_piece {
    ($($t:ty),*) => { $(
        impl Piece for $t {
            #[inline(always)]
            unsafe fn load(at: *const Self) -> Self {
                // SAFETY: the caller's contract (an integer's alignment is its size).
                unsafe { <$t>::load_relaxed(at.cast_mut()) }
            }

            #[inline(always)]
            unsafe fn store(at: *mut Self, piece: Self) {
                // SAFETY: as for `load`, for writes.
                unsafe { <$t>::store_relaxed(at, piece) }
            }
        }
    )* };
}

atomic_piece!(u64, u32, u8);

/// Copies the whole `P`-sized pieces of the first `bytes` bytes (this thread's share of them:
/// pieces `rank`, `rank + size`, ...) and returns how many bytes those pieces cover. Batched loads
/// fetch four pieces before they store them (the ranges do not overlap, so the order is free).
///
/// # Safety
/// As for [`copy`], and both addresses are aligned to `size_of::<P>()`.
#[inline(always)]
unsafe fn copy_pieces<P: Piece>(
    dest: *mut u8,
    source: *const u8,
    bytes: usize,
    rank: usize,
    size: usize,
    loads: Loads,
) -> usize {
    let pieces = bytes / size_of::<P>();
    let (dest, source) = (dest.cast::<P>(), source.cast::<P>());
    let mut i = rank;
    // SAFETY: every piece read or written has an index below `pieces`, inside both ranges; the
    // addresses are aligned to the piece's size; the ranges do not overlap, so loading ahead reads
    // the same values.
    unsafe {
        // Four named loads rather than an array: an array indexed in a loop lives in local memory.
        while loads == Loads::Batched && i + 3 * size < pieces {
            let (at0, at1, at2, at3) = (i, i + size, i + 2 * size, i + 3 * size);
            let (piece0, piece1) = (P::load(source.add(at0)), P::load(source.add(at1)));
            let (piece2, piece3) = (P::load(source.add(at2)), P::load(source.add(at3)));
            P::store(dest.add(at0), piece0);
            P::store(dest.add(at1), piece1);
            P::store(dest.add(at2), piece2);
            P::store(dest.add(at3), piece3);
            i += 4 * size;
        }
        while i < pieces {
            P::store(dest.add(i), P::load(source.add(i)));
            i += size;
        }
    }
    pieces * size_of::<P>()
}

#[cfg(test)]
mod tests {
    use super::copy;

    /// Copies `len` bytes from offset `from` of a patterned buffer to offset `to` of a zeroed one,
    /// running the ranks of a group of `size` one after the other, and checks that exactly those
    /// bytes arrive and nothing around them is touched.
    fn check(from: usize, to: usize, len: usize, size: usize) {
        // Buffers of u128 start 16-byte aligned, so the offsets decide the alignment.
        let mut source = [0u128; 40];
        let mut dest = [0u128; 40];
        let source_bytes = source.len() * 16;
        // SAFETY: a u128 array is plain bytes.
        let source_view = unsafe {
            core::slice::from_raw_parts_mut(source.as_mut_ptr().cast::<u8>(), source_bytes)
        };
        for (i, byte) in source_view.iter_mut().enumerate() {
            *byte = (i * 7 + 1) as u8 | 1; // never 0, so a missed byte shows
        }
        for rank in 0..size {
            // SAFETY: both ranges lie inside their arrays (the callers keep offset + len within
            // 640 bytes) and the arrays do not overlap.
            unsafe {
                copy(
                    dest.as_mut_ptr().cast::<u8>().add(to),
                    source.as_ptr().cast::<u8>().add(from),
                    len,
                    rank,
                    size,
                )
            };
        }
        // SAFETY: as above.
        let (source_view, dest_view) = unsafe {
            (
                core::slice::from_raw_parts(source.as_ptr().cast::<u8>(), source_bytes),
                core::slice::from_raw_parts(dest.as_ptr().cast::<u8>(), source_bytes),
            )
        };
        for (i, &byte) in dest_view.iter().enumerate() {
            let expected = if (to..to + len).contains(&i) {
                source_view[i - to + from]
            } else {
                0
            };
            assert_eq!(
                byte, expected,
                "byte {i} after copying {len} bytes from offset {from} to offset {to} with {size} \
                 thread(s)"
            );
        }
    }

    #[test]
    fn every_length_and_alignment_arrives_whole_and_alone() {
        for size in [1, 3, 32] {
            for from in 0..17 {
                for to in 0..17 {
                    for len in (0..=70).chain([127, 128, 129, 255, 256, 257, 400]) {
                        check(from, to, len, size);
                    }
                }
            }
        }
    }

    #[test]
    fn groups_larger_than_the_piece_count_copy_everything_once() {
        // 128 threads over 3 pieces of 16 bytes and a tail: most ranks have nothing to do.
        for len in [0, 1, 15, 16, 48, 57, 600] {
            check(0, 0, len, 128);
            check(16, 32, len, 128);
            check(8, 24, len.min(560), 128);
        }
    }
}
