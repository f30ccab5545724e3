//! Buffer layouts, inputs and expected results shared by the device-API test kernels (`kernels/`,
//! `teams-kernels/`) and their host-side checks (`tests/gpu_device_api/`). Plain arithmetic.
#![no_std]

/// Threads per block; every kernel runs as one block of 4 warps (one sm_90 warpgroup).
pub const THREADS: u32 = 128;
/// Elements per region of the point-to-point kernels.
pub const N: usize = 256;
/// The most PEs the kernels handle (fixed-size local arrays).
pub const MAX_PES: usize = 8;

/// The next PE around the ring.
pub const fn next(me: i32, n: i32) -> i32 {
    (me + 1) % n
}

/// The previous PE around the ring.
pub const fn prev(me: i32, n: i32) -> i32 {
    (me + n - 1) % n
}

/// RMA: `put`/`get`/`p`/`g`/`iput`/`iget`/byte forms/`ptr`.
pub mod rma {
    use super::{N, next, prev};

    /// Regions of `N` elements in the `out` buffer (`i32`): 0–3 puts from the previous PE (thread,
    /// warp nbi, block, block nbi), 4–7 gets from the next PE (thread, warp, block nbi, thread nbi).
    pub const OUT_REGIONS: usize = 8;
    /// Regions of `N` in `strided` (`i32`): 0 thread iput, 1 warp iput, 2 block iget, 3 thread iget.
    pub const STRIDED_REGIONS: usize = 4;
    /// Regions of `N` in `bytes` (`u8`): 0 thread putmem, 1 warp putmem_nbi, 2 block putmem,
    /// 3 block getmem.
    pub const BYTE_REGIONS: usize = 4;
    /// The part of each byte region that its transfer moves, as `(offset, length)`: the same
    /// offset into `byte_source` and into the region, so that the copy takes every piece size of
    /// the load/store path: region 0 (aligned, odd length) 16-, 8-, 4- and 1-byte pieces, region 1
    /// (odd offset) bytes only, region 2 (offset 4) 4- and 1-byte pieces, region 3 (offset 8) 8-,
    /// 4- and 1-byte pieces. The bytes around the span stay 0.
    pub const BYTE_SPANS: [(usize, usize); BYTE_REGIONS] =
        [(0, N - 1), (1, N - 2), (4, N - 5), (8, N - 9)];
    /// Regions of `N` in `reals` (`f64`): 0 `p` from the previous PE, 1 `g` of the next PE's
    /// region 0, 2 stores through `ptr` by the previous PE.
    pub const REAL_REGIONS: usize = 3;
    /// Words of `reach` (`i32`): 0 whether `ptr` reached the next PE, 1 whether `ptr` to this PE
    /// is the local address.
    pub const REACH_WORDS: usize = 2;

    /// Element `i` of PE `pe`'s `i32` source.
    pub const fn source(pe: i32, i: usize) -> i32 {
        pe * 100_000 + i as i32
    }

    /// Byte `i` of PE `pe`'s byte source.
    pub const fn byte(pe: i32, i: usize) -> u8 {
        (pe as usize * 37 + i) as u8
    }

    /// What PE `pe` writes with `p`.
    pub fn p_value(pe: i32, i: usize) -> f64 {
        pe as f64 + i as f64 * 0.25
    }

    /// What PE `pe` stores through `ptr`.
    pub fn direct_value(pe: i32, i: usize) -> f64 {
        -(pe as f64) - i as f64 * 0.5
    }

    /// Element `i` of region `region` of `out` on PE `me` of `n`.
    pub const fn expected_out(me: i32, n: i32, region: usize, i: usize) -> i32 {
        if region < 4 {
            source(prev(me, n), i)
        } else {
            source(next(me, n), i)
        }
    }

    /// Element `i` of region `region` of `strided` on PE `me` of `n`.
    pub const fn expected_strided(me: i32, n: i32, region: usize, i: usize) -> i32 {
        let (from_prev, from_next) = (prev(me, n), next(me, n));
        match region {
            0 if i.is_multiple_of(2) && i / 2 < N / 2 => source(from_prev, i / 2),
            1 if i < N / 2 => source(from_prev, 2 * i),
            2 if i.is_multiple_of(2) && i / 2 < N / 3 => source(from_next, 3 * (i / 2)),
            3 if i < N / 2 => source(from_next, 2 * i),
            _ => 0,
        }
    }

    /// Byte `i` of region `region` of `bytes` on PE `me` of `n`.
    pub const fn expected_byte(me: i32, n: i32, region: usize, i: usize) -> u8 {
        let (offset, length) = BYTE_SPANS[region];
        if i < offset || i >= offset + length {
            0
        } else if region < 3 {
            byte(prev(me, n), i)
        } else {
            byte(next(me, n), i)
        }
    }

    /// Element `i` of region `region` of `reals` on PE `me` of `n`.
    pub fn expected_real(me: i32, n: i32, region: usize, i: usize) -> f64 {
        match region {
            0 => p_value(prev(me, n), i),
            1 => p_value(me, i),
            _ => direct_value(prev(me, n), i),
        }
    }
}

/// Signals: put-with-signal at every scope, `signal_op`, `signal_fetch`, `signal_wait_until`.
pub mod signal {
    use super::prev;

    /// Regions of `N` in `data` (`u64`): 0 thread put_signal, 1 warp put_signal_nbi, 2 block
    /// put_signal, 3 thread putmem_signal_nbi, 4 warp putmem_signal.
    pub const DATA_REGIONS: usize = 5;
    /// Signal words.
    pub const SIGNALS: usize = 8;
    /// Result words.
    pub const RESULTS: usize = 6;

    /// Element `i` of PE `pe`'s source.
    pub const fn source(pe: i32, i: usize) -> u64 {
        ((pe as u64) << 32) | i as u64
    }

    /// The results on PE `me` of `n`: what `signal_wait_until` returned for words 0, 2, 5, 6, and
    /// `signal_fetch` of words 5 and 1.
    pub const fn expected_results(me: i32, n: i32) -> [u64; RESULTS] {
        [1, 1, n as u64, prev(me, n) as u64 + 100, n as u64, 7]
    }
}

/// Put-with-signal ordering, round after round: each PE sends a payload to the next PE with one
/// put-with-signal form per kernel launch (a *variant*: call × scope × signal operation), and the
/// receiver reads the payload in the kernel as soon as it sees the signal, counting the elements
/// that do not yet hold this round's values. Values change every round, so data that arrived after
/// its signal reads as an older round's.
pub mod signal_order {
    use super::THREADS;

    /// Elements (`u64`) of a payload: 16 KiB, 128 lines of 128 bytes, so that a signal that
    /// overtook its data would find many lines still in flight.
    pub const ELEMENTS: usize = 2048;
    /// Payload slots in `data`, used round-robin: a sender may run this many rounds ahead of its
    /// receiver (an acknowledgement says which rounds the receiver has read), which saves context
    /// switches where the PEs time-slice a GPU.
    pub const SLOTS: usize = 4;
    /// Rounds per variant of the real check.
    pub const ROUNDS: u32 = 256;
    /// Rounds per variant with the planted defect (every read is stale there, so a few suffice).
    pub const PLANTED_ROUNDS: u32 = 8;
    /// The put-with-signal calls, in variant order.
    pub const CALLS: [&str; 4] = [
        "put_signal",
        "put_signal_nbi",
        "putmem_signal",
        "putmem_signal_nbi",
    ];
    /// The scopes, in variant order: `thread` (thread 0 sends), `warp` (warp 0), `block`.
    pub const SCOPES: [&str; 3] = ["thread", "warp", "block"];
    /// The signal operations, in variant order: index 0 `Set`, index 1 `Add`.
    pub const OPS: [&str; 2] = ["Set", "Add"];
    /// Variants: every call at every scope with every signal operation.
    pub const VARIANTS: usize = CALLS.len() * SCOPES.len() * OPS.len();
    /// Signal words (`u64`) per variant: one per slot, then the acknowledgement word.
    pub const WORDS: usize = SLOTS + 1;
    /// The acknowledgement word of a variant: the number of rounds the next PE has read.
    pub const ACK: usize = SLOTS;
    /// Result words (`u64`) per thread: elements checked, elements stale, and the first stale
    /// element's round, index and value (`u64::MAX` when none was stale).
    pub const THREAD_RESULTS: usize = 5;
    /// Result words of a variant: `THREAD_RESULTS` per thread of the block.
    pub const VARIANT_RESULTS: usize = THREADS as usize * THREAD_RESULTS;
    /// Result words (`u64`): `VARIANT_RESULTS` per variant.
    pub const RESULTS: usize = VARIANTS * VARIANT_RESULTS;

    /// Variant `variant`'s call, scope and signal operation, as indices into [`CALLS`], [`SCOPES`]
    /// and [`OPS`].
    pub const fn parts(variant: usize) -> (usize, usize, usize) {
        (
            variant / (SCOPES.len() * OPS.len()),
            variant / OPS.len() % SCOPES.len(),
            variant % OPS.len(),
        )
    }

    /// Element `i` of the payload PE `pe` sends in round `round` of variant `variant`: the fields
    /// on hexadecimal digit boundaries (`0xVV_RRRRRR_PP_IIII`, the variant from 1), so that a
    /// stale value printed in hexadecimal says which round it came from. Never 0, the initial data.
    pub const fn value(variant: usize, round: u64, pe: i32, i: usize) -> u64 {
        ((variant as u64 + 1) << 48) | (round << 24) | ((pe as u64) << 16) | i as u64
    }

    /// The value round `round` sends with signal operation `op` to the word of its slot.
    pub const fn signal_sent(op: usize, round: u64) -> u64 {
        if op == 0 { round + 1 } else { 1 }
    }

    /// The value the slot's word holds once round `round`'s signal has arrived: `Set` leaves the
    /// round's own value; `Add` has added 1 once per round of this slot.
    pub const fn signal_awaited(op: usize, round: u64) -> u64 {
        if op == 0 {
            round + 1
        } else {
            round / SLOTS as u64 + 1
        }
    }
}

/// Slots reused with plain loads after `signal_wait_until` (see the `slot_reuse` kernel): `LANES`
/// pipelines, each a sending block on every PE that puts round after round into the next PE's
/// slots, and a receiving block there that waits for each round's signal and reads the slot.
pub mod slot_reuse {
    use super::THREADS;

    /// Pipelines; the grid has a sending and a receiving block for each, on every PE.
    pub const LANES: usize = 8;
    /// Blocks of the cooperative launch.
    pub const BLOCKS: u32 = 2 * LANES as u32;
    /// Elements (`u64`) of a round's payload: 8 KiB, so that a lane's slots stay in its receiving
    /// multiprocessor's L1 cache from one use to the next.
    pub const ELEMENTS: usize = 1024;
    /// Payload slots per lane, used round-robin: a sender runs at most this many rounds ahead.
    pub const SLOTS: usize = 4;
    /// Rounds: each slot is reused `ROUNDS / SLOTS − 1` times.
    pub const ROUNDS: u32 = 1024;
    /// Signal words (`u64`) per lane: one per slot, then the acknowledgement word, which counts
    /// the rounds the next PE's receiving block has read.
    pub const WORDS: usize = SLOTS + 1;
    /// The acknowledgement word of a lane.
    pub const ACK: usize = SLOTS;
    /// Result words (`u64`) per receiving thread: elements checked, elements stale, and the first
    /// stale element's round, index and value (`u64::MAX` when none was stale).
    pub const THREAD_RESULTS: usize = 5;
    /// Result words of a lane.
    pub const LANE_RESULTS: usize = THREADS as usize * THREAD_RESULTS;
    /// Result words (`u64`).
    pub const RESULTS: usize = LANES * LANE_RESULTS;

    /// Element `i` of the payload PE `pe` sends in round `round` of lane `lane`, as
    /// `0xLL_RRRRRR_PP_IIII` (the lane from 1), so that a stale value says which round it came
    /// from. Never 0, the initial data.
    pub const fn value(lane: usize, round: u64, pe: i32, i: usize) -> u64 {
        ((lane as u64 + 1) << 48) | (round << 24) | ((pe as u64) << 16) | i as u64
    }
}

/// Point-to-point synchronisation: `wait_until*` and `test*`.
pub mod p2p {
    /// Result slots (`i64`).
    pub const RESULTS: usize = 48;
    /// First slot of the indices `wait_until_some` found.
    pub const SOME_INDICES: usize = 20;
    /// First slot of the indices `test_some_vector` found.
    pub const SOME_VECTOR_INDICES: usize = 30;

    /// The results on PE `me` of `n` (see the kernel for what each slot records).
    pub fn expected_results(me: i32, n: i32) -> [i64; RESULTS] {
        let _ = me;
        let n = n as i64;
        let mut expected = [0i64; RESULTS];
        let head = [
            n - 1,                      // wait_until_any, only the last not skipped
            n - 1,                      // wait_until_any_vector, same
            n,                          // wait_until_some: every flag
            n,                          // wait_until_some_vector
            1,                          // test, own flag
            0,                          // test, > 1000
            1,                          // test_all >= 1
            0,                          // test_all >= 2
            0,                          // test_any == 1: PE 0's flag
            -1,                         // test_any == 999: none
            n - 1,                      // test_some, PE 0 skipped
            1,                          // test_all_vector
            -1,                         // test_any_vector with wrong values: none
            n,                          // test_some_vector
            1,                          // test on i16 (`short`)
            1,                          // test_all on i32
            1,                          // wait_until_timeout returned
            if n > 1 { 1 } else { -1 }, // first index test_some found with PE 0 skipped
        ];
        expected[..head.len()].copy_from_slice(&head);
        for q in 0..n as usize {
            expected[SOME_INDICES + q] = q as i64;
            expected[SOME_VECTOR_INDICES + q] = q as i64;
        }
        expected
    }
}

/// Atomics on PE 0's variables by every PE.
pub mod atomic {
    /// `i32` variables.
    pub const INTS: usize = 12;
    /// `i64` variables.
    pub const LONGS: usize = 4;
    /// `u32` variables.
    pub const UINTS: usize = 2;
    /// `u64` variables.
    pub const ULONGS: usize = 3;
    /// `usize` variables.
    pub const SIZES: usize = 2;
    /// `f32` variables.
    pub const FLOATS: usize = 2;
    /// `f64` variables.
    pub const DOUBLES: usize = 1;
    /// `isize` variables.
    pub const ISIZES: usize = 2;
    /// Ticket kinds: values fetched by each PE, gathered on PE 0 at `kind × MAX_PES + pe`.
    pub const TICKETS: usize = 16;
    /// Per-PE results of the fetches after the last barrier.
    pub const RESULTS: usize = 8;

    /// Ticket kinds.
    pub mod ticket {
        /// `fetch_add(1)` on `ints[0]`.
        pub const INT_FETCH_ADD: usize = 0;
        /// `fetch_inc` on `ints[2]`.
        pub const INT_FETCH_INC: usize = 1;
        /// `compare_swap(0, pe + 1)` on `ints[4]`.
        pub const INT_COMPARE_SWAP: usize = 2;
        /// `swap(pe + 1)` on `ints[5]`.
        pub const INT_SWAP: usize = 3;
        /// `fetch_or(1 << pe)` on `ints[7]`.
        pub const INT_FETCH_OR: usize = 4;
        /// `fetch_add(1 << 33)` on `longs[0]`, divided by `1 << 33`.
        pub const LONG_FETCH_ADD: usize = 5;
        /// `compare_swap(0, pe + 1)` on `longs[2]`.
        pub const LONG_COMPARE_SWAP: usize = 6;
        /// `fetch_add(3)` on `uints[0]`, divided by 3.
        pub const UINT_FETCH_ADD: usize = 7;
        /// `fetch_inc` on `ulongs[1]`.
        pub const ULONG_FETCH_INC: usize = 8;
        /// `compare_swap(0, pe + 1)` on `sizes[1]`.
        pub const SIZE_COMPARE_SWAP: usize = 9;
        /// `swap(pe + 1)` on `floats[1]`.
        pub const FLOAT_SWAP: usize = 10;
        /// `swap(-(pe + 1))` on `isizes[1]`.
        pub const ISIZE_SWAP: usize = 11;
        /// `fetch_and` on `ints[10]`.
        pub const INT_FETCH_AND: usize = 12;
        /// `fetch_xor(pe + 1)` on `ints[11]`.
        pub const INT_FETCH_XOR: usize = 13;
        /// `fetch_xor(1 << (40 + pe))` on `ulongs[2]`.
        pub const ULONG_FETCH_XOR: usize = 14;
        /// `compare_swap(0, -(pe + 1))` on `isizes[0]`.
        pub const ISIZE_COMPARE_SWAP: usize = 15;
    }

    /// The bit mask of PEs `0..n`.
    pub const fn mask(n: i32) -> i64 {
        (1i64 << n) - 1
    }

    /// The final `ints` on PE 0, except the compare-swap and swap slots (4, 5), which depend on
    /// the order the PEs ran in (checked with the tickets).
    pub fn expected_ints(n: i32) -> [Option<i32>; INTS] {
        let m = mask(n) as i32;
        let xor_all = (1..=n).fold(0, |x, v| x ^ v);
        [
            Some(n),
            Some(n),
            Some(n),
            Some(n * (n + 1) / 2),
            None,
            None,
            Some(42),
            Some(m),
            Some(m),
            Some(0xFF & !m),
            Some(0xF0F0 & !(m << 4)),
            Some(xor_all),
        ]
    }
}

/// Barriers and syncs over all PEs, and the team and PE queries that need no team creation.
pub mod world {
    /// Counters, one per barrier variant: barrier_all at thread, warp, block scope, sync_all at
    /// thread, warp, block scope, barrier_all_timeout, barrier_all_block_timeout.
    pub const VARIANTS: usize = 8;
    /// Result slots (`i64`).
    pub const RESULTS: usize = 32;
    /// First slot of the team and version queries.
    pub const QUERIES: usize = 10;

    /// The results on PE `me` of `n`, with NVSHMEM release `version`.
    pub fn expected_results(me: i32, n: i32, version: (i32, i32, i32)) -> [i64; RESULTS] {
        let mut expected = [0i64; RESULTS];
        for slot in expected.iter_mut().take(VARIANTS) {
            *slot = n as i64;
        }
        let queries = [
            me as i64,        // team::my_pe(WORLD)
            n as i64,         // team::n_pes(WORLD)
            me as i64,        // team::my_pe(NODE)
            n as i64,         // team::n_pes(NODE)
            me as i64,        // translate_pe(WORLD, me, WORLD)
            -1,               // translate_pe(WORLD, n, WORLD)
            1,                // info_version major
            3,                // info_version minor
            version.0 as i64, // vendor major
            version.1 as i64, // vendor minor
            version.2 as i64, // vendor patch
            1,                // info_name starts with "NVSHMEM v"
        ];
        expected[QUERIES..QUERIES + queries.len()].copy_from_slice(&queries);
        expected
    }
}

/// Team barriers and collectives over a team (WORLD, or a team split on the host).
pub mod collective {
    /// Elements per PE of the collectives: 256 bytes of `i32`, so that the thread-scope reductions
    /// and fcollect take the load/store path (`nvshmem_gpu` pulls reductions of 256 bytes or more
    /// over all members, and pushes blocks of 256 bytes or more).
    pub const COUNT: usize = 64;
    /// Elements of a source buffer: a block of `COUNT` per possible team member.
    pub const SOURCE: usize = COUNT * super::MAX_PES;
    /// Regions of `SOURCE` elements in the `i32` destination: reduce with 0 `Sum`, 1 `Min` (of
    /// `COUNT + 3` elements), 2 `Max`, 3 `And` (block), 4 `Or`, 5 `Xor` (in place), 6 `Prod`;
    /// 7 reduce-scatter `Sum`; 8 broadcast from team PE `1 % n`; 9 fcollect; 10 alltoall of
    /// `ALLTOALL_INTS` (warp); 11 broadcastmem from team PE 0 (block); 12 fcollectmem of `MEM_INTS`
    /// (block); 13 alltoallmem of `MEM_INTS` (block); 14 reduce-scatter `Max` (block); 15 a copy of
    /// the source plus one; 16 `Sum` of region 15, taken after an earlier `Sum` of it before the
    /// plus one; 17 `Sum` of `SMALL` elements. Thread scope where not said.
    pub const INT_REGIONS: usize = 18;
    /// Elements of the small thread-scope `Sum` (region 17): 68 bytes per PE, which `nvshmem_gpu`
    /// pulls over teams of 4 or more (256 bytes or more in all: one batch of 16-byte pieces and an
    /// element) and leaves to NVSHMEM's reduction over smaller ones.
    pub const SMALL: usize = COUNT / 4 + 1;
    /// Regions of `SOURCE` elements in the `f64` destination: 0 reduce `Sum` (warp),
    /// 1 reduce-scatter `Sum` (warp), 2 alltoall of `ALLTOALL_REALS`.
    pub const REAL_REGIONS: usize = 3;
    /// Barrier and sync variants over the team: barrier at thread, warp, block, warpgroup scope,
    /// team_sync at thread, warp, block scope.
    pub const VARIANTS: usize = 7;
    /// Query slots: my_pe(team), n_pes(team), translate(team, 0, WORLD), translate(WORLD, my world
    /// PE, team), translate(team, n_pes, WORLD), my_pe(SHARED) exists, n_pes(NODE).
    pub const QUERIES: usize = 8;
    /// Block size of the alltoall of `i32` (warp scope).
    pub const ALLTOALL_INTS: usize = 4;
    /// Block size of the byte forms, in `i32`s.
    pub const MEM_INTS: usize = 2;
    /// Block size of the alltoall of `f64` (thread scope): 256 bytes, the load/store path.
    pub const ALLTOALL_REALS: usize = 32;

    /// Element `i` of the `i32` source of world PE `pe`: 1..=5, so that products stay exact.
    pub const fn int_source(pe: i32, i: usize) -> i32 {
        ((pe as usize * 7 + i * 3) % 5) as i32 + 1
    }

    /// Element `i` of the `f64` source of world PE `pe`: multiples of 1/4, exact in sums and in
    /// products of the first `COUNT` elements.
    pub fn real_source(pe: i32, i: usize) -> f64 {
        1.0 + pe as f64 * 0.5 + i as f64 * 0.25
    }

    /// The max-location input of world PE `pe`: `(value, location)`.
    pub fn maxloc_source(pe: i32) -> (f64, f64) {
        (((pe * 5) % 7) as f64, pe as f64)
    }
}

/// The safe layer's atomics on slice elements and its grid barrier (`safe_atomics_and_grid`,
/// launched cooperatively as `BLOCKS` blocks of `THREADS` threads).
pub mod safe_atomics {
    use super::THREADS;

    /// Blocks of the launch.
    pub const BLOCKS: u32 = 4;
    /// Threads of the launch.
    pub const GRID_THREADS: usize = (BLOCKS * THREADS) as usize;
    /// Grid barrier rounds.
    pub const ROUNDS: u32 = 16;

    /// `counts` (`u64`): every thread adds 1 to word 0 of every PE (`atomic_fetch_add`).
    pub const FETCH_ADDED: usize = 0;
    /// Every thread adds 2 to this word of every PE (`atomic_add`).
    pub const ADDED: usize = 1;
    /// Every thread adds 1 to this word of its own PE (`local_fetch_add`).
    pub const LOCAL: usize = 2;
    /// Every thread of every PE tries `atomic_compare_swap(0 → its PE + 1)` on PE 0's word.
    pub const CLAIMED: usize = 3;
    /// PE 0 counts the successful compare-swaps here (exactly one).
    pub const CLAIMS: usize = 4;
    /// Each PE's thread 0 swaps `100 + its PE` into this word of the next PE (`atomic_swap`).
    pub const SWAPPED: usize = 5;
    /// What that swap returned (0) plus what `atomic_fetch` then reads back from the own word.
    pub const FETCHED: usize = 6;
    /// Each PE's thread 0 sets this word of the next PE to 7 (`atomic_set`).
    pub const SET: usize = 7;
    /// Words of `counts`.
    pub const COUNTS: usize = 8;

    /// `cells` (`u32`): the grid barrier's counter.
    pub const BARRIER: usize = 0;
    /// Blocks that saw another block's round number differ from their own after a wait.
    pub const ERRORS: usize = 1;
    /// From here, one word per block: the round it is in.
    pub const ROUND_OF_BLOCK: usize = 2;
    /// From here, `GRID_THREADS` words: how often each ticket of the local fetch-add came out.
    pub const TICKETS: usize = ROUND_OF_BLOCK + BLOCKS as usize;
    /// From here (16-byte aligned in a 16-byte aligned buffer), 8 words: thread 0 of block 0
    /// writes `VECTOR_VALUES` with `write_vector`, reads them back with `read_vector` and writes
    /// them reversed into the next 4 with `write_strided`.
    pub const VECTOR: usize = (TICKETS + GRID_THREADS).next_multiple_of(4);
    /// The values of the vector round trip.
    pub const VECTOR_VALUES: [u32; 4] = [11, 12, 13, 14];
    /// Words of `cells`.
    pub const CELLS: usize = VECTOR + 8;

    /// `cells[at]` after the kernel, for `at` from `ERRORS` on.
    pub fn expected_cell(at: usize) -> u32 {
        match at {
            ERRORS => 0,
            _ if at < TICKETS => ROUNDS,
            _ if at < TICKETS + GRID_THREADS => 1,
            _ if at < VECTOR => 0,
            _ if at < VECTOR + 4 => VECTOR_VALUES[at - VECTOR],
            _ => VECTOR_VALUES[VECTOR + 7 - at],
        }
    }

    /// `counts` on PE `me` of `n` after the kernel.
    pub fn expected_counts(me: usize, n: usize) -> [u64; COUNTS] {
        let threads = GRID_THREADS as u64;
        let previous = ((me + n - 1) % n) as u64;
        [
            n as u64 * threads,
            2 * n as u64 * threads,
            threads,
            // Word 3 holds the winner's PE + 1 on PE 0 (checked separately), 0 elsewhere.
            0,
            u64::from(me == 0),
            100 + previous,
            100 + previous,
            7,
        ]
    }
}

/// The safe layer's collectives through a `Leader` over the world team (`safe_collectives`, one
/// block of `THREADS` threads): each result region holds `REGION` `i32`s.
pub mod safe_collectives {
    use super::MAX_PES;

    /// Elements per PE in the reduce, broadcast and per-block in fcollect, alltoall, reduce-scatter.
    pub const BLOCK: usize = 4;
    /// Elements of each region (the largest: `n × BLOCK`).
    pub const REGION: usize = MAX_PES * BLOCK;
    /// Regions of `out`: reduce (block scope), broadcast, fcollect, alltoall, reduce-scatter,
    /// max (thread scope), min (warp scope).
    pub const REGIONS: usize = 7;

    /// Element `i` of PE `pe`'s source.
    pub const fn source_value(pe: usize, i: usize) -> i32 {
        (pe * 100 + i) as i32
    }

    /// `out` on PE `me` of `n` after the kernel (`None`: left as it was, 0).
    pub fn expected(me: usize, n: usize, at: usize) -> i32 {
        let (region, i) = (at / REGION, at % REGION);
        let all = |f: &dyn Fn(usize) -> i32| (0..n).map(f).sum::<i32>();
        let within = |len: usize, value: i32| if i < len { value } else { 0 };
        match region {
            0 => within(n * BLOCK, all(&|p| source_value(p, i))),
            1 => within(n * BLOCK, source_value(n - 1, i)),
            2 => within(n * BLOCK, source_value(i / BLOCK, i % BLOCK)),
            3 => within(n * BLOCK, source_value(i / BLOCK, me * BLOCK + i % BLOCK)),
            4 => within(BLOCK, all(&|p| source_value(p, me * BLOCK + i))),
            5 => within(1, source_value(n - 1, 0)),
            6 => within(1, source_value(0, 1)),
            _ => 0,
        }
    }
}
