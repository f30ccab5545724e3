//! Host-side addresses of other PEs' copies of a symmetric buffer: peer pointers (`nvshmem_ptr`),
//! which a kernel can load from and store to directly where the PEs' GPUs are connected (NVLink,
//! PCIe peer access, or the same GPU), and team multicast pointers (`nvshmemx_mc_ptr`), where the
//! platform has NVLink SHARP.

use crate::{Error, SymmetricBuffer, Team, TeamError, result};
use bytemuck::Pod;

impl<T: Pod> SymmetricBuffer<'_, T> {
    /// The address of PE `pe`'s copy of this buffer, usable by this PE's kernels with plain loads
    /// and stores; `None` where it is not reachable that way (another node, no peer access: use
    /// NVSHMEM's puts and gets). A PE outside `0..n_pes` is [`TeamError::InvalidPe`].
    ///
    /// ```no_run
    /// let nvshmem = nvshmem_host::Nvshmem::init()?;
    /// let buffer = nvshmem.alloc_zeroed::<f32>(1024)?;
    /// for pe in 0..nvshmem.n_pes() {
    ///     println!("PE {pe}: {:?}", buffer.peer_ptr(pe)?);
    /// }
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn peer_ptr(&self, pe: i32) -> Result<Option<*mut T>, Error> {
        let n_pes = self.nvshmem.n_pes();
        if !(0..n_pes).contains(&pe) {
            return Err(TeamError::InvalidPe { pe, n_pes }.into());
        }
        let address = self.as_symmetric_ptr().as_ptr().cast_const().cast();
        // SAFETY: the buffer lies in the symmetric heap; `pe` is in range (checked above).
        let ptr = unsafe { result::peer_ptr(self.nvshmem.lib(), address, pe) };
        Ok(ptr.map(|ptr| ptr.cast()))
    }

    /// The multicast address of this buffer for `team`: a store there reaches every PE of the team
    /// (`nvshmemx_mc_ptr`). `None` where the platform has no multicast (no NVLink SHARP, or
    /// NVSHMEM started with `NVSHMEM_DISABLE_NVLS=1`); [`Error::MissingSymbol`] where the host
    /// library predates the call.
    pub fn multicast_ptr(&self, team: Team) -> Result<Option<*mut T>, Error> {
        let address = self.as_symmetric_ptr().as_ptr().cast_const().cast();
        let live = self.nvshmem.live_teams();
        let team = live.raw(team)?;
        // SAFETY: the buffer lies in the symmetric heap; the team exists (and stays so while `live`
        // lives), and NVSHMEM answers null for a team without this PE.
        let ptr = unsafe { result::multicast_ptr(self.nvshmem.lib(), team, address) }?;
        Ok(ptr.map(|ptr| ptr.cast()))
    }
}
