//! The collective check of symmetric allocations: every PE must request the same sizes in the same
//! order, or NVSHMEM's heap goes out of step across PEs and the job deadlocks or corrupts memory.
//!
//! Before each allocation, every PE writes `(sequence number, bytes)` into its slot of a small
//! symmetric ledger, all PEs meet in a barrier, each gathers every PE's record
//! (`nvshmemx_getmem_on_stream`), and all meet again. A mismatch is the same error on every PE,
//! listing each PE's request, and no PE calls `nvshmem_malloc`. The cost is two barriers and one
//! small get per PE per allocation: on by default in debug builds, switchable with
//! [`Nvshmem::set_allocation_check`] or `NVSHMEMRS_CHECK_ALLOCATIONS=0|1`.
//!
//! The ledger itself is allocated at the first checked allocation, not at initialisation: with the
//! check off (release builds), a program's buffers then lie at the same heap offsets as the same
//! allocations made from CUDA C++. With the ledger allocated first, Rust's block-scope
//! `put_nbi`/`get_nbi` of 1 MiB over 132 blocks ran 3-5 % slower than with it allocated lazily;
//! the warp-scope ones did not move (H200, 2026-11-30; bench/results/getbw-layout-2026-11-30.txt).

use crate::error::CudaContext as _;
use crate::{Error, Nvshmem, result};
use std::ffi::c_void;

/// The environment variable that switches the check on (`1`) or off (`0`).
pub const CHECK_VARIABLE: &str = "NVSHMEMRS_CHECK_ALLOCATIONS";

/// Words of one PE's record: sequence number and bytes.
const RECORD: usize = 2;

/// One PE's allocation request, as the check saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllocationRequest {
    /// The PE.
    pub pe: i32,
    /// Its count of symmetric allocations so far, this one included.
    pub sequence: u64,
    /// The bytes it asked for.
    pub bytes: u64,
}

/// The ledger: `RECORD` words for this PE's own request, then `RECORD` words per PE gathered.
pub(crate) struct Ledger {
    /// Device address of the ledger's first word.
    address: u64,
    sequence: u64,
}

impl Ledger {
    /// Whether the check starts switched on: `NVSHMEMRS_CHECK_ALLOCATIONS`, else debug builds.
    pub(crate) fn enabled_by_default() -> bool {
        match std::env::var(CHECK_VARIABLE).as_deref() {
            Ok("0") => false,
            Ok(_) => true,
            Err(_) => cfg!(debug_assertions),
        }
    }

    /// Allocates the ledger (collectively: every PE does it at its first checked allocation).
    pub(crate) fn allocate(lib: &nvshmem_sys::NvshmemHost, n_pes: i32) -> Result<Ledger, Error> {
        let bytes = (1 + n_pes as usize) * RECORD * std::mem::size_of::<u64>();
        let address = result::malloc(lib, bytes, result::Allocation::Zeroed)? as u64;
        Ok(Ledger {
            address,
            sequence: 0,
        })
    }

    /// The device address of word `index`.
    fn word(&self, index: usize) -> u64 {
        self.address + (index * std::mem::size_of::<u64>()) as u64
    }

    /// Runs the check for a request of `bytes`; `Ok` when every PE asked for the same.
    pub(crate) fn check(&mut self, nvshmem: &Nvshmem, bytes: usize) -> Result<(), Error> {
        self.sequence += 1;
        let own = [self.sequence, bytes as u64];
        // SAFETY: the ledger holds at least `RECORD` words of device memory.
        unsafe { cudarc::driver::result::memcpy_htod_sync(self.address, &own) }
            .doing("writing this PE's allocation record")?;
        nvshmem.barrier_all();
        let lib = nvshmem.lib();
        let stream = nvshmem.stream().cu_stream();
        for pe in 0..nvshmem.n_pes() {
            // SAFETY: both addresses are in the symmetric ledger, which has a slot for every PE;
            // PE `pe` wrote its record before the barrier above.
            unsafe {
                let slot = self.word(RECORD * (1 + pe as usize)) as *mut c_void;
                let source = self.address as *const c_void;
                lib.nvshmemx_getmem_on_stream(slot, source, RECORD * 8, pe, stream.cast());
            }
        }
        nvshmem.synchronize()?;
        let mut gathered = vec![0u64; RECORD * nvshmem.n_pes() as usize];
        // SAFETY: the gathered area holds `n_pes × RECORD` words after the own record.
        unsafe { cudarc::driver::result::memcpy_dtoh_sync(&mut gathered, self.word(RECORD)) }
            .doing("reading the gathered allocation records")?;
        nvshmem.barrier_all();
        let requests: Vec<AllocationRequest> = gathered
            .chunks_exact(RECORD)
            .enumerate()
            .map(|(pe, record)| AllocationRequest {
                pe: pe as i32,
                sequence: record[0],
                bytes: record[1],
            })
            .collect();
        if requests
            .iter()
            .all(|request| [request.sequence, request.bytes] == own)
        {
            Ok(())
        } else {
            Err(Error::AllocationMismatch { requests })
        }
    }
}
