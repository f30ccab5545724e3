//! NVSHMEM's unique id as a value programs can pass around themselves: create it on one PE, send
//! its bytes to the others by any means (a TCP store, a shared file, a job scheduler), and start
//! every PE with [`Nvshmem::init_with_unique_id`](crate::Nvshmem::init_with_unique_id).
//!
//! ```no_run
//! use nvshmem_host::{Nvshmem, UniqueId};
//! # fn send_to_the_others(_: &[u8]) {}
//! # fn receive_from_rank_0() -> Vec<u8> { Vec::new() }
//! # let (rank, n_pes) = (0, 2);
//! let id = if rank == 0 {
//!     let id = UniqueId::new()?;
//!     send_to_the_others(id.as_bytes());
//!     id
//! } else {
//!     UniqueId::from_bytes(&receive_from_rank_0())?
//! };
//! let nvshmem = Nvshmem::init_with_unique_id(&id, rank, n_pes)?;
//! # Ok::<(), nvshmem_host::Error>(())
//! ```

use crate::result::{self, UniqueIdBytes};
use crate::{Error, InitError};

/// An NVSHMEM unique id (`nvshmemx_uniqueid_t`): the token every PE of a job started with
/// [`Nvshmem::init_with_unique_id`](crate::Nvshmem::init_with_unique_id) must share.
///
/// Its bytes carry the address PE 0 listens on; they are checked for length and for NVSHMEM's
/// layout version word when read back, not for anything else.
#[derive(Clone, PartialEq, Eq)]
pub struct UniqueId {
    bytes: UniqueIdBytes,
}

impl std::fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UniqueId(..)")
    }
}

impl UniqueId {
    /// The number of bytes of an id (128 with NVSHMEM 3).
    pub const LEN: usize = std::mem::size_of::<UniqueIdBytes>();

    /// A fresh id (`nvshmemx_get_uniqueid`), made on the PE that will be PE 0 (rank 0). Loads
    /// NVSHMEM's host library; needs no GPU.
    pub fn new() -> Result<UniqueId, Error> {
        let lib = nvshmem_sys::library()?;
        Ok(UniqueId {
            bytes: result::get_unique_id(lib)?,
        })
    }

    /// The id's bytes, to send to the other PEs.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Reads an id back from the bytes [`UniqueId::as_bytes`] gave on PE 0. Refuses bytes of the
    /// wrong length and bytes that do not start with NVSHMEM's version word for this layout (not an
    /// id, or an id of another NVSHMEM major version).
    ///
    /// ```
    /// use nvshmem_host::{Error, InitError, UniqueId};
    /// let error = UniqueId::from_bytes(&[0u8; 12]).unwrap_err();
    /// assert!(matches!(error, Error::Init(InitError::UniqueIdLength { found: 12, .. })));
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<UniqueId, Error> {
        let bytes: UniqueIdBytes = bytes.try_into().map_err(|_| InitError::UniqueIdLength {
            found: bytes.len(),
            expected: UniqueId::LEN,
        })?;
        let version = i32::from_ne_bytes(bytes[..4].try_into().expect("4 bytes"));
        if version != nvshmem_sys::UNIQUEID_VERSION {
            return Err(InitError::UniqueIdVersion {
                found: version,
                expected: nvshmem_sys::UNIQUEID_VERSION,
            }
            .into());
        }
        Ok(UniqueId { bytes })
    }

    pub(crate) fn raw(&self) -> &UniqueIdBytes {
        &self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `nvshmemx_get_uniqueid` writes: the version word, then opaque bytes.
    fn made_by_nvshmem() -> Vec<u8> {
        let mut bytes = nvshmem_sys::UNIQUEID_VERSION.to_ne_bytes().to_vec();
        bytes.extend((0..UniqueId::LEN - 4).map(|i| (i * 7 + 3) as u8));
        bytes
    }

    #[test]
    fn bytes_round_trip() {
        let bytes = made_by_nvshmem();
        let id = UniqueId::from_bytes(&bytes).unwrap();
        assert_eq!(id.as_bytes(), &bytes[..]);
        assert_eq!(UniqueId::from_bytes(id.as_bytes()).unwrap(), id);
    }

    #[test]
    fn a_short_or_long_id_names_both_lengths() {
        let mut bytes = made_by_nvshmem();
        bytes.push(0);
        for wrong in [&bytes[..], &bytes[..UniqueId::LEN - 1], &[][..]] {
            let error = UniqueId::from_bytes(wrong).unwrap_err();
            let message = error.to_string();
            assert!(
                message.contains(&format!("{} byte(s)", wrong.len()))
                    && message.contains(&format!("an NVSHMEM unique id has {}", UniqueId::LEN)),
                "{message}"
            );
        }
    }

    #[test]
    fn bytes_that_are_not_an_id_are_refused() {
        let mut bytes = made_by_nvshmem();
        bytes[..4].copy_from_slice(&0x2_0080i32.to_ne_bytes());
        let message = UniqueId::from_bytes(&bytes).unwrap_err().to_string();
        assert!(
            message.contains("version word 131200") && message.contains("expected 65664"),
            "{message}"
        );
        let message = UniqueId::from_bytes(&[b'x'; UniqueId::LEN])
            .unwrap_err()
            .to_string();
        assert!(message.contains("not an NVSHMEM unique id"), "{message}");
    }
}
