//! What can go wrong with symmetric memory: the heap's room, the collective check of allocations,
//! and the lengths of buffers and copies.

use crate::environment::{
    CUMEM_GRANULARITY, DISABLE_CUDA_VMM, HeapBound, MAX_MEMORY_PER_GPU, SYMMETRIC_SIZE,
};
use std::fmt;

/// One PE's symmetric allocation request, as the collective allocation check saw it (see
/// [`crate::allocation_check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllocationRequest {
    /// The PE.
    pub pe: i32,
    /// Its count of symmetric allocations so far, this one included.
    pub sequence: u64,
    /// The bytes it asked for.
    pub bytes: u64,
    /// The alignment it asked for (`alloc_aligned`), 0 for NVSHMEM's default.
    pub alignment: u64,
}

/// Why one PE refused a symmetric allocation, as every PE learns it from the collective check (see
/// [`MemoryError::AllocationRefused`]).
#[derive(Debug)]
pub struct AllocationRefusal {
    /// The PE that refused.
    pub pe: i32,
    /// Its reason, as it would have returned it alone.
    pub reason: MemoryError,
}

/// A symmetric allocation, or a copy or operation on symmetric buffers, cannot be made.
#[derive(Debug)]
#[non_exhaustive]
pub enum MemoryError {
    /// The symmetric heap cannot hold a request: refused before `nvshmem_malloc` where the request
    /// does not fit beside the live buffers within what bounds the heap (NVSHMEM fails such a
    /// request by crashing), or `nvshmem_malloc` returned null where the heap is fixed (CUDA's
    /// virtual memory management off) or its bound unknown; below a cap it grows to, the error is
    /// [`MemoryError::HeapGrowthFailed`].
    HeapExhausted {
        /// The bytes requested.
        bytes: usize,
        /// The bytes the handle's live buffers held at the request.
        in_use: usize,
        /// What bounds the heap; `None` where NVSHMEM's settings could not be read.
        bound: Option<HeapBound>,
    },
    /// `nvshmem_malloc` returned null for a request that the heap's cap can hold beside the live
    /// buffers with a granule to spare: NVSHMEM's own growth of the heap failed, not the cap.
    HeapGrowthFailed {
        /// The bytes requested.
        bytes: usize,
        /// The bytes the handle's live buffers held at the request.
        in_use: usize,
        /// The heap's cap (`NVSHMEM_MAX_MEMORY_PER_GPU`), not reached.
        cap: u64,
        /// The GPU's free memory just before the request.
        free: usize,
        /// The PEs sharing this PE's GPU.
        pes_per_gpu: usize,
        /// Whether MPS serves this machine.
        mps: bool,
    },
    /// The alignment asked of `nvshmem_align` is not a power of two, or is below the type's or a
    /// pointer's size (below which `nvshmem_align` is undefined).
    InvalidAlignment {
        /// The alignment asked for.
        alignment: usize,
        /// The least alignment allowed: the element type's, and at least a pointer's size.
        minimum: usize,
    },
    /// PEs asked for different symmetric allocations at the same point.
    AllocationMismatch {
        /// Every PE's request.
        requests: Vec<AllocationRequest>,
    },
    /// Some PEs refused a symmetric allocation for reasons that differ across PEs (a GPU with less
    /// free memory, another heap setting): every PE returns this same error and none allocated.
    /// Where every PE refused for the same reason, that reason is the error instead.
    AllocationRefused {
        /// Each refusing PE and its reason, in PE order.
        refusals: Vec<AllocationRefusal>,
    },
    /// Before a checked symmetric allocation, the PEs' heaps had moved differently: some PE dropped
    /// its buffers in another order than the others (every free still met, as frees are
    /// collective), or made allocations with the check off that the others did not make alike. A
    /// new buffer could then lie at different offsets on different PEs: every PE returns this error
    /// and none allocated, at this and every later checked allocation of the handle.
    HeapHistoryMismatch {
        /// Each PE's digest of its allocations and frees, in order, in PE order: PEs with equal
        /// digests moved their heaps alike.
        digests: Vec<u64>,
    },
    /// A symmetric allocation of zero elements was requested.
    EmptyAllocation,
    /// A length or byte count computed from the arguments does not fit in `usize`: no buffer can
    /// hold it.
    Overflow {
        /// What was computed (`the request's bytes (elements × element size)`, …).
        quantity: &'static str,
        /// The count given.
        count: usize,
        /// What it was multiplied by.
        factor: usize,
    },
    /// An element index past the end of a symmetric buffer.
    IndexOutOfRange {
        /// Which argument (`signal`).
        buffer: &'static str,
        /// The index given.
        index: usize,
        /// The buffer's length, in elements.
        len: usize,
    },
    /// A registration of memory that overlaps memory already registered with NVSHMEM through a
    /// [`crate::RegisteredBuffer`] that is alive or was leaked (`mem::forget`): a leaked guard keeps
    /// its range registered for the rest of the handle's life.
    AlreadyRegistered {
        /// The new allocation's device address.
        address: u64,
        /// Its bytes.
        bytes: usize,
        /// The registered range it overlaps: its address and bytes.
        registered: (u64, usize),
    },
    /// A symmetric buffer allocated with the allocation check off was passed to a safe kernel or to
    /// an on-stream operation that reaches other PEs: its size there is unknown.
    UncheckedBuffer {
        /// The buffer's bytes on this PE.
        bytes: usize,
    },
    /// A host slice and a buffer differ in length.
    LengthMismatch {
        /// The buffer's length.
        buffer: usize,
        /// The slice's length.
        slice: usize,
    },
    /// A symmetric buffer holds fewer elements than an operation needs.
    BufferTooShort {
        /// Which argument (`dest`, `source`, `signal`).
        buffer: &'static str,
        /// Its length, in elements.
        len: usize,
        /// The elements the operation needs.
        needed: usize,
    },
}

impl fmt::Display for MemoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemoryError::HeapExhausted {
                bytes,
                in_use,
                bound,
            } => {
                write!(
                    f,
                    "the symmetric heap cannot hold {bytes} more bytes ({} MiB)",
                    bytes.div_ceil(1 << 20)
                )?;
                if *in_use > 0 {
                    write!(
                        f,
                        " beside the {} MiB of live buffers",
                        in_use.div_ceil(1 << 20)
                    )?;
                }
                // The heap holds every live buffer and this one: its bound plus this request is
                // enough whatever the others take.
                let (variable, size, how) = match bound {
                    Some(HeapBound::Cap(cap)) => {
                        (MAX_MEMORY_PER_GPU, *cap, "NVSHMEM grows the heap up to")
                    }
                    Some(HeapBound::Fixed(size)) => (
                        SYMMETRIC_SIZE,
                        *size,
                        "with CUDA's virtual memory management off, the heap is fixed at",
                    ),
                    Some(HeapBound::FreeMemory(free)) => {
                        return write!(
                            f,
                            ": the GPU has only {} MiB free; free device memory (other buffers, \
                             other processes on this GPU) or run fewer PEs per GPU",
                            free >> 20
                        );
                    }
                    None => {
                        return write!(
                            f,
                            "; NVSHMEM's heap settings could not be read: set \
                             {MAX_MEMORY_PER_GPU} (or, with NVSHMEM_DISABLE_CUDA_VMM=1, \
                             {SYMMETRIC_SIZE}) larger, or free buffers first"
                        );
                    }
                };
                write!(
                    f,
                    ": {how} {variable} ({} MiB); set {variable} to at least {}M before starting \
                     the job, or free buffers first",
                    size >> 20,
                    size.saturating_add(*bytes as u64).div_ceil(1 << 20)
                )
            }
            MemoryError::HeapGrowthFailed {
                bytes,
                in_use,
                cap,
                free,
                pes_per_gpu,
                mps,
            } => {
                let mib = |bytes: u64| bytes.div_ceil(1 << 20);
                write!(
                    f,
                    "NVSHMEM could not place {bytes} bytes ({} MiB) beside the {} MiB of live \
                     buffers, though its cap, {MAX_MEMORY_PER_GPU} ({} MiB), leaves room for them: \
                     the cap is not what stopped it. nvshmem_malloc returned null; NVSHMEM printed \
                     its reason on this PE's standard error above (NVSHMEM_DEBUG=INFO \
                     NVSHMEM_DEBUG_SUBSYS=MEM shows each step). NVSHMEM grows the heap in pieces of \
                     {CUMEM_GRANULARITY} through CUDA's virtual memory management and maps each \
                     into every PE of this machine; the GPU had {} MiB free. ",
                    mib(*bytes as u64),
                    mib(*in_use as u64),
                    cap >> 20,
                    free >> 20,
                )?;
                if *pes_per_gpu > 1 && !*mps {
                    write!(
                        f,
                        "This PE shares its GPU with {} other PE(s) without MPS (NVSHMEM's limited \
                         multi-PE-per-GPU mode): run the job with `nvshmemrun --mps`, or fewer PEs per GPU. ",
                        pes_per_gpu - 1
                    )?;
                }
                write!(
                    f,
                    "A heap allocated whole at start does not grow: set {DISABLE_CUDA_VMM}=1 and \
                     {SYMMETRIC_SIZE}={}M",
                    mib((*in_use as u64).saturating_add(*bytes as u64))
                )
            }
            MemoryError::InvalidAlignment { alignment, minimum } => write!(
                f,
                "alignment {alignment} is not a power of two of at least {minimum} (the element \
                 type's alignment, and at least a pointer's size, as nvshmem_align requires); pass \
                 e.g. {}",
                (*minimum).max(alignment.next_power_of_two())
            ),
            MemoryError::AllocationMismatch { requests } => {
                write!(f, "symmetric allocations differ across PEs:")?;
                for request in requests {
                    write!(
                        f,
                        "\n  - PE {} asked for {} bytes",
                        request.pe, request.bytes
                    )?;
                    if request.alignment > 0 {
                        write!(f, " aligned to {} bytes", request.alignment)?;
                    }
                    write!(f, " (its allocation #{})", request.sequence)?;
                }
                write!(
                    f,
                    "\nEvery PE must allocate the same sizes, with the same alignment, in the same \
                     order; nothing was allocated"
                )
            }
            MemoryError::HeapHistoryMismatch { digests } => {
                write!(
                    f,
                    "the PEs freed (or allocated) symmetric buffers in different orders before this \
                     allocation, so their heaps may be out of step and a new buffer could lie at \
                     different offsets on different PEs; digests of each PE's allocations and frees:"
                )?;
                for (pe, digest) in digests.iter().enumerate() {
                    write!(f, "\n  - PE {pe}: {digest:#018x}")?;
                }
                write!(
                    f,
                    "\nNothing was allocated, and every later checked allocation is refused alike. \
                     Drop symmetric buffers in the same order on every PE (scopes that end alike \
                     do), and make allocations with the check off alike on every PE too"
                )
            }
            MemoryError::AllocationRefused { refusals } => {
                write!(
                    f,
                    "a symmetric allocation was refused on {} PE(s); no PE allocated it:",
                    refusals.len()
                )?;
                for refusal in refusals {
                    write!(f, "\n  - PE {}: {}", refusal.pe, refusal.reason)?;
                }
                Ok(())
            }
            MemoryError::Overflow {
                quantity,
                count,
                factor,
            } => write!(
                f,
                "{quantity} ({count} × {factor}) does not fit in usize, so no buffer can hold it; \
                 pass a count the buffers hold"
            ),
            MemoryError::IndexOutOfRange { buffer, index, len } => write!(
                f,
                "index {index} is past the end of the `{buffer}` buffer, which has {len} \
                 element(s); pass an index below {len}"
            ),
            MemoryError::AlreadyRegistered {
                address,
                bytes,
                registered: (start, length),
            } => write!(
                f,
                "the allocation at {address:#x} ({bytes} bytes) overlaps memory registered with \
                 NVSHMEM at {start:#x} ({length} bytes) by a RegisteredBuffer that is alive or was \
                 leaked (mem::forget keeps its range registered until NVSHMEM finalises); drop \
                 the other RegisteredBuffer first, or register another allocation"
            ),
            MemoryError::EmptyAllocation => write!(
                f,
                "a symmetric allocation of zero elements was requested; allocate at least one"
            ),
            MemoryError::UncheckedBuffer { bytes } => write!(
                f,
                "a symmetric buffer of {bytes} bytes, passed to a safe kernel or an operation that \
                 reaches other PEs, was allocated with the allocation check off, so its size on \
                 the other PEs is unknown and a transfer could touch memory past their buffers; allocate it with the check on (the default: do \
                 not call set_allocation_check(false) before it)"
            ),
            MemoryError::LengthMismatch { buffer, slice } => write!(
                f,
                "the host slice has {slice} elements but the symmetric buffer has {buffer}; copy \
                 slices of the buffer's length"
            ),
            MemoryError::BufferTooShort {
                buffer,
                len,
                needed,
            } => write!(
                f,
                "the `{buffer}` buffer has {len} element(s) but the operation needs {needed}; \
                 allocate it larger or move fewer elements"
            ),
        }
    }
}

impl std::error::Error for MemoryError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_heap_names_the_size_needed_and_the_variable() {
        let message = |in_use, bound| {
            MemoryError::HeapExhausted {
                bytes: 3 << 20,
                in_use,
                bound,
            }
            .to_string()
        };
        for (in_use, bound, parts) in [
            (
                0,
                Some(HeapBound::Cap(1 << 30)),
                &[
                    "cannot hold 3145728 more bytes (3 MiB): NVSHMEM grows the heap up to",
                    "up to NVSHMEM_MAX_MEMORY_PER_GPU (1024 MiB)",
                    "set NVSHMEM_MAX_MEMORY_PER_GPU to at least 1027M",
                ][..],
            ),
            (
                1022 << 20,
                Some(HeapBound::Cap(1 << 30)),
                &[
                    "cannot hold 3145728 more bytes (3 MiB) beside the 1022 MiB of live buffers",
                    "set NVSHMEM_MAX_MEMORY_PER_GPU to at least 1027M",
                ][..],
            ),
            (
                0,
                Some(HeapBound::Fixed(64 << 20)),
                &[
                    "fixed at NVSHMEM_SYMMETRIC_SIZE (64 MiB)",
                    "set NVSHMEM_SYMMETRIC_SIZE to at least 67M",
                ],
            ),
            (
                0,
                Some(HeapBound::FreeMemory(2 << 20)),
                &["the GPU has only 2 MiB free"],
            ),
            (0, None, &["could not be read"]),
        ] {
            let message = message(in_use, bound);
            for part in parts {
                assert!(message.contains(part), "{message}");
            }
        }
    }

    #[test]
    fn a_failed_growth_below_the_cap_does_not_blame_the_cap() {
        let message = |pes_per_gpu, mps| {
            MemoryError::HeapGrowthFailed {
                bytes: 1_600_000_000,
                in_use: 65 << 20,
                cap: 128 << 30,
                free: 130 << 30,
                pes_per_gpu,
                mps,
            }
            .to_string()
        };
        let shared = message(2, false);
        for part in [
            "could not place 1600000000 bytes (1526 MiB) beside the 65 MiB of live buffers",
            "NVSHMEM_MAX_MEMORY_PER_GPU (131072 MiB), leaves room for them",
            "the cap is not what stopped it",
            "NVSHMEM printed its reason on this PE's standard error above",
            "the GPU had 133120 MiB free",
            "shares its GPU with 1 other PE(s) without MPS",
            "run the job with `nvshmemrun --mps`, or fewer PEs per GPU",
            "set NVSHMEM_DISABLE_CUDA_VMM=1 and NVSHMEM_SYMMETRIC_SIZE=1591M",
        ] {
            assert!(shared.contains(part), "{part:?} in {shared}");
        }
        assert!(
            !shared.contains("NVSHMEM_MAX_MEMORY_PER_GPU to"),
            "{shared}"
        );
        for alone in [message(1, false), message(2, true)] {
            assert!(!alone.contains("without MPS"), "{alone}");
        }
    }
}
