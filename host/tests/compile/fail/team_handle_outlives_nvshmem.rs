// A team's handle borrows NVSHMEM: it cannot be destroyed after NVSHMEM is finalised.
#![forbid(unsafe_code)]

use nvshmem_host::{Nvshmem, Team};

fn main() -> Result<(), nvshmem_host::Error> {
    let nvshmem = Nvshmem::init()?;
    let team = nvshmem.split_strided(Team::WORLD, 0, 1, 1)?;
    nvshmem.finalize()?;
    drop(team);
    Ok(())
}
