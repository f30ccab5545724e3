//! The collective check of symmetric allocations: every PE must request the same sizes in the same
//! order, or NVSHMEM's heap goes out of step across PEs and the job deadlocks or corrupts memory.
//!
//! Before each allocation, every PE writes `(sequence number, bytes, alignment)` into its slot of a
//! small symmetric ledger, all PEs meet in a barrier, each gathers every PE's record
//! (`nvshmemx_getmem_on_stream`), and all meet again. A mismatch is the same error on every PE,
//! listing each PE's request, and no PE calls `nvshmem_malloc`. The cost is two barriers and one
//! small get per PE per allocation: on by default in every build (safe kernels rely on it: a
//! buffer's local length bounds its length on every PE only when the check passed), switchable with
//! [`crate::Nvshmem::set_allocation_check`] or `NVSHMEMRS_CHECK_ALLOCATIONS=0|1`; buffers allocated
//! with it off cannot be passed to safe kernels.
//!
//! The ledger itself is allocated at the first checked allocation, not at initialisation: with the
//! check off, a program's buffers then lie at the same heap offsets as the same
//! allocations made from CUDA C++, so the two run the same transfers over the same addresses. A
//! ledger allocated first would shift every buffer, which changes the speed of large block-scope
//! transfers and so makes comparisons with CUDA C++ unfair.

use crate::error::{AllocationRequest, CudaContext as _, Error, MemoryError};
use crate::result;
use crate::result::stream::{Delivery, Transfer};
use cudarc::driver::CudaStream;
use nvshmem_sys::NvshmemHost;
use std::ffi::c_void;

/// The environment variable that switches the check on (`1`) or off (`0`).
pub const CHECK_VARIABLE: &str = "NVSHMEMRS_CHECK_ALLOCATIONS";

/// Words of one PE's record: sequence number, bytes and alignment (0: NVSHMEM's default). The
/// alignment too, because requests of one size but different alignments can land at different
/// heap offsets on different PEs.
const RECORD: usize = 3;

/// The ledger: `RECORD` words for this PE's own request, then `RECORD` words per PE gathered.
pub(crate) struct Ledger {
    lib: &'static NvshmemHost,
    /// Device address of the ledger's first word.
    address: u64,
    n_pes: i32,
    sequence: u64,
}

impl Ledger {
    /// Whether the check starts switched on: unless `NVSHMEMRS_CHECK_ALLOCATIONS=0`.
    pub(crate) fn enabled_by_default() -> bool {
        std::env::var(CHECK_VARIABLE).as_deref() != Ok("0")
    }

    /// Allocates the ledger (collectively: every PE does it at its first checked allocation).
    pub(crate) fn allocate(lib: &'static NvshmemHost, n_pes: i32) -> Result<Ledger, Error> {
        let bytes = (1 + n_pes as usize) * RECORD * std::mem::size_of::<u64>();
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

    /// Runs the check for a request of `bytes` aligned to `alignment` (0: NVSHMEM's default),
    /// gathering the records on `stream`; `Ok` when every PE asked for the same.
    pub(crate) fn check(
        &mut self,
        stream: &CudaStream,
        bytes: usize,
        alignment: usize,
    ) -> Result<(), Error> {
        self.sequence += 1;
        let own = [self.sequence, bytes as u64, alignment as u64];
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

/// `Ok` when every PE's record in `gathered` is `own`; otherwise the mismatch, listing them all.
fn agree(own: [u64; RECORD], gathered: &[u64]) -> Result<(), Error> {
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
    use super::agree;

    #[test]
    fn the_same_size_with_another_alignment_is_a_mismatch() {
        assert!(agree([3, 4096, 0], &[3, 4096, 0, 3, 4096, 0]).is_ok());
        let mismatch = agree([3, 4096, 4096], &[3, 4096, 4096, 3, 4096, 16])
            .unwrap_err()
            .to_string();
        assert!(
            mismatch.contains("PE 1 asked for 4096 bytes aligned to 16 bytes (its allocation #3)"),
            "{mismatch}"
        );
        assert!(agree([3, 64, 0], &[3, 64, 0, 2, 64, 0]).is_err());
    }
}
