//! The collective check of symmetric allocations: every PE must request the same sizes in the same
//! order, free its buffers in the same order, and no PE may refuse a request that the others go on
//! to allocate, or NVSHMEM's heap goes out of step across PEs and the job deadlocks or corrupts
//! memory.
//!
//! Before each allocation, every PE reaches its own verdict on the request (`local_verdict`: the
//! arguments, the heap's cap, the GPU's free memory, which differ between GPUs), writes
//! `(sequence number, bytes, alignment, refusal, history)` into its slot of a small symmetric
//! ledger, all PEs meet in a barrier, each gathers every PE's record (`nvshmemx_getmem_on_stream`),
//! and all meet again. Every PE then reads the same records and so reaches the same outcome: where
//! the histories differ, the same error on every PE; else where any PE refused, the same error on
//! every PE, naming the PEs that refused and why; else, where the requests differ, the same error
//! listing each PE's request. In every case no PE calls `nvshmem_malloc`. The cost is two barriers
//! and one small get per PE per allocation: on by default in every build (safe kernels rely on it:
//! a buffer's local length bounds its length on every PE only when the check passed). Only
//! [`crate::Nvshmem::set_allocation_check`], which is `unsafe`, switches it: every PE must make the
//! same choice at the same point, and a PE whose check is off while another's is on would have the
//! other read its heap as a ledger. The environment cannot switch it (a variable may differ between
//! PEs): [`crate::environment::ALLOCATION_CHECK`] is refused at initialisation. Buffers allocated
//! with it off cannot be passed to safe kernels nor to on-stream operations that reach other PEs,
//! and with it off a refusal is this PE's alone: the others, not told, wait in `nvshmem_malloc` for
//! it.
//!
//! The history (`HeapHistory`) is a digest of every event that moves this PE's heap: each
//! allocation (its bytes and alignment) and each free (which allocation it freed), in order. Frees
//! are collective, so PEs that drop their buffers in different orders all meet in each free, yet
//! their heaps go out of step and a later buffer can lie at different offsets on different PEs; the
//! digest, carried in the record every PE writes anyway, finds that at the next checked allocation
//! at no extra communication. Allocations made with the check off, and their frees, enter it too:
//! they move the heap as much as checked ones, so the first checked allocation after them finds
//! unequal ones. The ledger's own allocation does not: every PE makes it, of one size, just before
//! its first checked allocation, after the very events that check then compares.
//!
//! The ledger itself is allocated at the first checked allocation, not at initialisation: with the
//! check off, a program's buffers then lie at the same heap offsets as the same
//! allocations made from CUDA C++, so the two run the same transfers over the same addresses. A
//! ledger allocated first would shift every buffer, which changes the speed of large block-scope
//! transfers and so makes comparisons with CUDA C++ unfair.

use crate::environment::HeapBound;
use crate::error::{
    AllocationRefusal, AllocationRequest, DriverErrorContext as _, Error, MemoryError,
};
use crate::result::stream::{Delivery, Transfer};
use crate::{lengths, result};
use cudarc::driver::CudaStream;
use nvshmem_sys::NvshmemHost;
use std::ffi::c_void;

/// Words of one PE's record: sequence number, bytes and alignment (0: NVSHMEM's default), then its
/// refusal ([`Refusal::words`], zeros where it can make the request), then its history's digest
/// ([`HeapHistory::digest`]). The alignment too, because requests of one size but different
/// alignments can land at different heap offsets on different PEs.
const RECORD: usize = 7;

/// What [`Refusal::Overflow`] reports as overflowing.
const REQUEST_BYTES: &str = "the request's bytes (elements × element size)";

/// Why this PE cannot make a symmetric allocation: found before any PE allocates, and part of the
/// record every PE learns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Zero elements (or a zero-sized element type).
    Empty,
    /// `nvshmem_align` with an alignment that is not a power of two of at least the type's.
    InvalidAlignment { alignment: usize, minimum: usize },
    /// Elements × element size overflows `usize`.
    Overflow { len: usize, size: usize },
    /// The heap cannot hold `bytes` more beside the `in_use` bytes of live buffers.
    Heap {
        bytes: usize,
        in_use: usize,
        bound: HeapBound,
    },
}

impl Refusal {
    /// The refusal as the last three words of a record: a kind (never 0), then two values.
    fn words(self) -> [u64; 3] {
        let word = |value: usize| value as u64;
        match self {
            Refusal::Empty => [1, 0, 0],
            Refusal::InvalidAlignment { alignment, minimum } => [2, word(alignment), word(minimum)],
            Refusal::Overflow { len, size } => [3, word(len), word(size)],
            Refusal::Heap { in_use, bound, .. } => match bound {
                HeapBound::Cap(cap) => [4, cap, word(in_use)],
                HeapBound::Fixed(size) => [5, size, word(in_use)],
                HeapBound::FreeMemory(free) => [6, free, word(in_use)],
            },
        }
    }

    /// The refusal a record of a request of `bytes` holds; `None` for none (or a kind this build
    /// does not know, which the records' comparison then reports as a mismatch).
    fn from_words(bytes: u64, [kind, a, b]: [u64; 3]) -> Option<Refusal> {
        let value = |word: u64| word as usize;
        let heap = |bound| Refusal::Heap {
            bytes: value(bytes),
            in_use: value(b),
            bound,
        };
        Some(match kind {
            1 => Refusal::Empty,
            2 => Refusal::InvalidAlignment {
                alignment: value(a),
                minimum: value(b),
            },
            3 => Refusal::Overflow {
                len: value(a),
                size: value(b),
            },
            4 => heap(HeapBound::Cap(a)),
            5 => heap(HeapBound::Fixed(a)),
            6 => heap(HeapBound::FreeMemory(a)),
            _ => return None,
        })
    }

    /// The error this refusal is.
    pub(crate) fn into_error(self) -> MemoryError {
        match self {
            Refusal::Empty => MemoryError::EmptyAllocation,
            Refusal::InvalidAlignment { alignment, minimum } => {
                MemoryError::InvalidAlignment { alignment, minimum }
            }
            Refusal::Overflow { len, size } => MemoryError::Overflow {
                quantity: REQUEST_BYTES,
                count: len,
                factor: size,
            },
            Refusal::Heap {
                bytes,
                in_use,
                bound,
            } => MemoryError::HeapExhausted {
                bytes,
                in_use,
                bound: Some(bound),
            },
        }
    }
}

/// A request for `len` elements of `size` bytes each, aligned to `alignment` (`None`: NVSHMEM's
/// default), which must then be a power of two of at least `minimum`, with `in_use` bytes held by live buffers, the heap bounded by
/// `bound` and `free` bytes free on the GPU: its bytes, or why this PE refuses it.
///
/// NVSHMEM crashes the process when it cannot place a request in the heap or back it with device
/// memory, so a request the heap's cap cannot hold beside the live buffers, or one beyond the GPU's
/// free memory, is refused here, while the heap is still intact. NVSHMEM keeps part of the heap for
/// itself, so a request just below the cap's room can still fail inside NVSHMEM.
pub(crate) fn local_verdict(
    (len, size, minimum): (usize, usize, usize),
    alignment: Option<usize>,
    in_use: usize,
    bound: Option<HeapBound>,
    free: usize,
) -> Result<usize, Refusal> {
    if len == 0 || size == 0 {
        return Err(Refusal::Empty);
    }
    if let Some(alignment) = alignment
        && (!alignment.is_power_of_two() || alignment < minimum)
    {
        return Err(Refusal::InvalidAlignment { alignment, minimum });
    }
    let bytes =
        lengths::product(REQUEST_BYTES, len, size).map_err(|_| Refusal::Overflow { len, size })?;
    let heap = |bound| Refusal::Heap {
        bytes,
        in_use,
        bound,
    };
    if let Some(HeapBound::Cap(cap)) = bound
        && in_use.saturating_add(bytes) as u64 > cap
    {
        return Err(heap(HeapBound::Cap(cap)));
    }
    if bytes > free {
        return Err(heap(HeapBound::FreeMemory(free as u64)));
    }
    Ok(bytes)
}

/// This PE's symmetric-heap events so far, as a digest: every allocation (checked or not) and every
/// free, in order. PEs whose heaps moved alike have equal digests; a free of another allocation, or
/// one allocation of another size, makes them differ from then on, as each step is a bijection of
/// the digest for a given event, so events that follow alike keep different digests apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HeapHistory {
    digest: u64,
    /// Allocations so far: the last one's number.
    allocations: u64,
}

impl HeapHistory {
    /// No events: what every PE's history is at initialisation.
    pub(crate) const EMPTY: HeapHistory = HeapHistory {
        digest: 0,
        allocations: 0,
    };

    /// Adds an allocation of `bytes` aligned to `alignment` (0: NVSHMEM's default); returns its
    /// number, which its free names.
    pub(crate) fn allocated(&mut self, bytes: usize, alignment: usize) -> u64 {
        self.allocations += 1;
        self.fold(&[1, bytes as u64, alignment as u64]);
        self.allocations
    }

    /// Adds the free of allocation number `allocation`.
    pub(crate) fn freed(&mut self, allocation: u64) {
        self.fold(&[2, allocation]);
    }

    /// The digest of the events so far.
    pub(crate) fn digest(self) -> u64 {
        self.digest
    }

    /// Folds an event's words (a kind, never 0, then its values) into the digest: per word, the
    /// splitmix64 finaliser of the digest offset by the golden ratio and crossed with the word.
    fn fold(&mut self, words: &[u64]) {
        for &word in words {
            let mut z = self.digest.wrapping_add(0x9e37_79b9_7f4a_7c15) ^ word;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            self.digest = z ^ (z >> 31);
        }
    }
}

/// The ledger: `RECORD` words for this PE's own request, then `RECORD` words per PE gathered.
pub(crate) struct Ledger {
    lib: &'static NvshmemHost,
    /// Device address of the ledger's first word.
    address: u64,
    n_pes: i32,
    sequence: u64,
}

impl Ledger {
    /// Allocates the ledger (collectively: every PE does it at its first checked allocation).
    pub(crate) fn allocate(lib: &'static NvshmemHost, n_pes: i32) -> Result<Ledger, Error> {
        // A record for this PE and one per PE: a few words per PE of a job NVSHMEM could start.
        let bytes = (1 + n_pes as usize) * RECORD * size_of::<u64>();
        let address = result::malloc(lib, bytes, result::Allocation::Zeroed)? as u64;
        Ok(Ledger {
            lib,
            address,
            n_pes,
            sequence: 0,
        })
    }

    /// The device address of word `index`.
    fn word(&self, index: usize) -> u64 {
        self.address + (index * std::mem::size_of::<u64>()) as u64
    }

    /// Runs the check for a request aligned to `alignment` (0: NVSHMEM's default) of which this
    /// PE's verdict is `verdict`, made after the events of `history`, gathering the records on
    /// `stream`; `Ok` when every PE has the same history, can make the request and asked for the
    /// same.
    pub(crate) fn check(
        &mut self,
        stream: &CudaStream,
        (verdict, alignment): (Result<usize, Refusal>, usize),
        history: HeapHistory,
    ) -> Result<(), Error> {
        self.sequence += 1;
        let own = record(self.sequence, verdict, alignment, history);
        // SAFETY: the ledger holds at least `RECORD` words of device memory.
        unsafe { cudarc::driver::result::memcpy_htod_sync(self.address, &own) }
            .doing("writing this PE's allocation record")?;
        result::barrier_all(self.lib);
        for pe in 0..self.n_pes {
            // SAFETY: both addresses are in the symmetric ledger, which has a slot for every PE;
            // PE `pe` wrote its record before the barrier above; the stream is the handle's own.
            unsafe {
                let slot = self.word(RECORD * (1 + pe as usize)) as *mut c_void;
                let source = self.address as *const c_void;
                let raw_stream = stream.cu_stream().cast();
                let get = Transfer::Get(Delivery::Blocking);
                result::stream::putmem_or_getmem(
                    self.lib,
                    get,
                    slot,
                    source,
                    RECORD * 8,
                    pe,
                    raw_stream,
                );
            }
        }
        stream
            .synchronize()
            .doing("gathering every PE's allocation record")?;
        let mut gathered = vec![0u64; RECORD * self.n_pes as usize];
        // SAFETY: the gathered area holds `n_pes × RECORD` words after the own record.
        unsafe { cudarc::driver::result::memcpy_dtoh_sync(&mut gathered, self.word(RECORD)) }
            .doing("reading the gathered allocation records")?;
        result::barrier_all(self.lib);
        agree(own, &gathered)
    }
}

/// This PE's record of its request number `sequence` aligned to `alignment`, of which its verdict
/// is `verdict`, made after the events of `history`.
fn record(
    sequence: u64,
    verdict: Result<usize, Refusal>,
    alignment: usize,
    history: HeapHistory,
) -> [u64; RECORD] {
    let (bytes, [kind, a, b]) = match verdict {
        Ok(bytes) => (bytes, [0; 3]),
        Err(refusal @ Refusal::Heap { bytes, .. }) => (bytes, refusal.words()),
        Err(refusal) => (0, refusal.words()),
    };
    [
        sequence,
        bytes as u64,
        alignment as u64,
        kind,
        a,
        b,
        history.digest(),
    ]
}

/// The outcome every PE reaches from the same `gathered` records (one per PE, in PE order): an
/// error where the histories differ, listing every PE's digest (the heaps may be out of step, which
/// no request can mend); else an error where any PE refused (the refusal itself where all refused
/// alike, else each refusing PE with its reason); else `Ok` when every record is `own`; else the
/// mismatch, listing every request.
fn agree(own: [u64; RECORD], gathered: &[u64]) -> Result<(), Error> {
    let digests: Vec<u64> = gathered
        .chunks_exact(RECORD)
        .map(|record| record[6])
        .collect();
    if digests.iter().any(|&digest| digest != digests[0]) {
        return Err(MemoryError::HeapHistoryMismatch { digests }.into());
    }
    let refusals: Vec<(i32, Refusal)> = gathered
        .chunks_exact(RECORD)
        .enumerate()
        .filter_map(|(pe, record)| {
            Refusal::from_words(record[1], [record[3], record[4], record[5]])
                .map(|refusal| (pe as i32, refusal))
        })
        .collect();
    if let Some(&(_, first)) = refusals.first() {
        let n_pes = gathered.len() / RECORD;
        if refusals.len() == n_pes && refusals.iter().all(|&(_, refusal)| refusal == first) {
            return Err(first.into_error().into());
        }
        let refusals = refusals
            .into_iter()
            .map(|(pe, refusal)| AllocationRefusal {
                pe,
                reason: refusal.into_error(),
            })
            .collect();
        return Err(MemoryError::AllocationRefused { refusals }.into());
    }
    if gathered.chunks_exact(RECORD).all(|record| record == own) {
        return Ok(());
    }
    let requests = gathered
        .chunks_exact(RECORD)
        .enumerate()
        .map(|(pe, record)| AllocationRequest {
            pe: pe as i32,
            sequence: record[0],
            bytes: record[1],
            alignment: record[2],
        })
        .collect();
    Err(MemoryError::AllocationMismatch { requests }.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: usize = 1 << 30;

    const NO_EVENTS: HeapHistory = HeapHistory::EMPTY;

    /// The records of PEs whose verdicts on their request number 3 are `verdicts`, made with no
    /// events before.
    fn records(verdicts: &[Result<usize, Refusal>]) -> Vec<u64> {
        verdicts
            .iter()
            .flat_map(|&v| record(3, v, 0, NO_EVENTS))
            .collect()
    }

    /// Every PE's outcome from the same gathered records of PEs whose verdicts on their request
    /// number 3, made after the events of their histories, are `pes`, as messages; they must all
    /// be the same.
    fn outcome_after(pes: &[(Result<usize, Refusal>, HeapHistory)]) -> Result<(), String> {
        let own = |&(verdict, history)| record(3, verdict, 0, history);
        let gathered: Vec<u64> = pes.iter().flat_map(own).collect();
        let outcomes: Vec<Result<(), String>> = pes
            .iter()
            .map(|pe| agree(own(pe), &gathered).map_err(|e| e.to_string()))
            .collect();
        assert!(
            outcomes.iter().all(|outcome| *outcome == outcomes[0]),
            "PEs disagree: {outcomes:?}"
        );
        outcomes[0].clone()
    }

    /// [`outcome_after`] with no events before the request.
    fn outcome(verdicts: &[Result<usize, Refusal>]) -> Result<(), String> {
        let pes: Vec<_> = verdicts.iter().map(|&v| (v, NO_EVENTS)).collect();
        outcome_after(&pes)
    }

    /// The history of a PE that allocated `sizes` (their bytes, with NVSHMEM's alignment) and then
    /// freed the allocations numbered `frees`, in that order.
    fn history(sizes: &[usize], frees: &[u64]) -> HeapHistory {
        let mut history = HeapHistory::EMPTY;
        for (number, &bytes) in (1..).zip(sizes) {
            assert_eq!(history.allocated(bytes, 0), number);
        }
        for &allocation in frees {
            history.freed(allocation);
        }
        history
    }

    #[test]
    fn the_history_tells_the_order_of_events() {
        let a_then_b = history(&[4096, 4096], &[1, 2]);
        assert_eq!(a_then_b, history(&[4096, 4096], &[1, 2]));
        assert_ne!(a_then_b.digest(), history(&[4096, 4096], &[2, 1]).digest());
        assert_ne!(a_then_b.digest(), history(&[4096, 4096], &[1]).digest());
        assert_ne!(a_then_b.digest(), history(&[4096, 8192], &[1, 2]).digest());
        assert_ne!(history(&[64], &[]).digest(), NO_EVENTS.digest());
        let aligned = |alignment| {
            let mut history = HeapHistory::EMPTY;
            history.allocated(4096, alignment);
            history.digest()
        };
        assert_ne!(aligned(0), aligned(4096));
        // Events that follow alike keep histories that differ apart.
        let mut first = history(&[64, 64], &[1, 2]);
        let mut second = history(&[64, 64], &[2, 1]);
        for _ in 0..1000 {
            first.allocated(64, 0);
            second.allocated(64, 0);
            assert_ne!(first.digest(), second.digest());
        }
    }

    #[test]
    fn buffers_freed_in_different_orders_are_refused_alike_on_every_pe() {
        // PE 0 dropped A then B, PE 1 B then A; both now ask for the same 64 bytes.
        let pes = [
            (Ok(64), history(&[4096, 4096], &[1, 2])),
            (Ok(64), history(&[4096, 4096], &[2, 1])),
        ];
        let message = outcome_after(&pes).unwrap_err();
        assert!(
            message.contains("the PEs freed (or allocated) symmetric buffers in different orders")
                && message.contains(&format!("PE 1: {:#018x}", pes[1].1.digest()))
                && message.contains("Drop symmetric buffers in the same order on every PE"),
            "{message}"
        );
        // The history is compared before the request: a refusal on one PE does not hide it.
        let refused = [pes[0], (Err(Refusal::Empty), pes[1].1)];
        assert_eq!(outcome_after(&refused).unwrap_err(), message);
        // The same events in the same order on both: the request goes ahead.
        let alike = history(&[4096, 4096], &[2, 1]);
        assert_eq!(outcome_after(&[(Ok(64), alike), (Ok(64), alike)]), Ok(()));
        let error = agree(
            record(3, Ok(64), 0, pes[0].1),
            &[
                record(3, Ok(64), 0, pes[0].1),
                record(3, Ok(64), 0, pes[1].1),
            ]
            .concat(),
        )
        .unwrap_err();
        assert!(
            matches!(
                &error,
                Error::Memory(MemoryError::HeapHistoryMismatch { digests })
                    if *digests == [pes[0].1.digest(), pes[1].1.digest()]
            ),
            "{error}"
        );
    }

    #[test]
    fn the_same_size_with_another_alignment_is_a_mismatch() {
        let record = |bytes, alignment| [3, bytes, alignment, 0, 0, 0, 0];
        let pair = |a: [u64; RECORD], b: [u64; RECORD]| [a, b].concat();
        assert!(agree(record(4096, 0), &pair(record(4096, 0), record(4096, 0))).is_ok());
        let mismatch = agree(
            record(4096, 4096),
            &pair(record(4096, 4096), record(4096, 16)),
        )
        .unwrap_err()
        .to_string();
        assert!(
            mismatch.contains("PE 1 asked for 4096 bytes aligned to 16 bytes (its allocation #3)"),
            "{mismatch}"
        );
        let earlier = [2, 64, 0, 0, 0, 0, 0];
        assert!(agree(record(64, 0), &pair(record(64, 0), earlier)).is_err());
    }

    #[test]
    fn a_gpu_short_of_free_memory_refuses_on_every_pe() {
        // PE 1's GPU has 1 GiB free, PE 0's 40: PE 1 alone refuses 2 GiB locally.
        let heap = |free| local_verdict((2 * GIB, 1, 1), None, 0, None, free);
        let verdicts = [heap(40 * GIB), heap(GIB)];
        assert_eq!(verdicts[0], Ok(2 * GIB));
        let message = outcome(&verdicts).unwrap_err();
        assert!(
            message.contains("refused on 1 PE(s); no PE allocated it")
                && message.contains("PE 1: the symmetric heap cannot hold 2147483648 more bytes")
                && message.contains("the GPU has only 1024 MiB free")
                && message.contains("run fewer PEs per GPU"),
            "{message}"
        );
        assert!(!message.contains("PE 0:"), "{message}");
    }

    #[test]
    fn every_pe_refusing_alike_is_that_refusal() {
        let cap = Some(HeapBound::Cap(GIB as u64));
        let over_cap = local_verdict((2 * GIB, 1, 1), None, 0, cap, 40 * GIB);
        let gathered = records(&[over_cap, over_cap]);
        let error = agree(record(3, over_cap, 0, NO_EVENTS), &gathered).unwrap_err();
        assert!(
            matches!(
                error,
                Error::Memory(MemoryError::HeapExhausted {
                    bytes,
                    bound: Some(HeapBound::Cap(_)),
                    ..
                }) if bytes == 2 * GIB
            ),
            "{error}"
        );
        let message = error.to_string();
        assert!(
            message.contains("set NVSHMEM_MAX_MEMORY_PER_GPU to at least 3072M"),
            "{message}"
        );
    }

    #[test]
    fn argument_refusals_on_one_pe_reach_every_pe() {
        let fine = Ok(64);
        for (refusal, part) in [
            (
                Refusal::Empty,
                "PE 1: a symmetric allocation of zero elements",
            ),
            (
                Refusal::InvalidAlignment {
                    alignment: 24,
                    minimum: 8,
                },
                "PE 1: alignment 24 is not a power of two",
            ),
            (
                Refusal::Overflow {
                    len: usize::MAX,
                    size: 8,
                },
                "PE 1: the request's bytes (elements × element size) (18446744073709551615 × 8) \
                 does not fit in usize",
            ),
        ] {
            let message = outcome(&[fine, Err(refusal)]).unwrap_err();
            assert!(message.contains(part), "{message}");
        }
    }

    #[test]
    fn the_local_verdict_checks_arguments_then_the_heap() {
        let none = None;
        let free = 40 * GIB;
        assert_eq!(
            local_verdict((0, 4, 8), None, 0, none, free),
            Err(Refusal::Empty)
        );
        for alignment in [0, 4, 24] {
            assert_eq!(
                local_verdict((4, 4, 8), Some(alignment), 0, none, free),
                Err(Refusal::InvalidAlignment {
                    alignment,
                    minimum: 8
                })
            );
        }
        assert_eq!(
            local_verdict((usize::MAX, 8, 8), None, 0, none, free),
            Err(Refusal::Overflow {
                len: usize::MAX,
                size: 8
            })
        );
        assert_eq!(
            local_verdict((1 << 63, 2, 8), None, 0, none, free),
            Err(Refusal::Overflow {
                len: 1 << 63,
                size: 2
            })
        );
        let cap = Some(HeapBound::Cap(2 * GIB as u64));
        assert!(local_verdict((GIB, 1, 8), Some(4096), GIB, cap, free).is_ok());
        assert!(matches!(
            local_verdict((GIB + 1, 1, 8), None, GIB, cap, free),
            Err(Refusal::Heap {
                bound: HeapBound::Cap(_),
                ..
            })
        ));
        assert!(matches!(
            local_verdict((GIB, 1, 8), None, 0, none, GIB - 1),
            Err(Refusal::Heap {
                bound: HeapBound::FreeMemory(_),
                ..
            })
        ));
    }

    #[test]
    fn every_refusal_survives_its_record() {
        for refusal in [
            Refusal::Empty,
            Refusal::InvalidAlignment {
                alignment: 3,
                minimum: 8,
            },
            Refusal::Overflow {
                len: 1 << 63,
                size: 4,
            },
            Refusal::Heap {
                bytes: 5 << 28,
                in_use: GIB,
                bound: HeapBound::Cap(2 * GIB as u64),
            },
            Refusal::Heap {
                bytes: 5,
                in_use: 0,
                bound: HeapBound::Fixed(4),
            },
            Refusal::Heap {
                bytes: GIB,
                in_use: 7,
                bound: HeapBound::FreeMemory(3),
            },
        ] {
            let record = record(9, Err(refusal), 0, NO_EVENTS);
            let words = [record[3], record[4], record[5]];
            assert_eq!(Refusal::from_words(record[1], words), Some(refusal));
        }
        assert_eq!(Refusal::from_words(0, [0, 0, 0]), None);
    }
}
