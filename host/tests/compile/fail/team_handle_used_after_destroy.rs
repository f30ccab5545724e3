// `destroy` consumes the team's handle: the handle cannot be used afterwards (its `Team` value, a
// `Copy`, is refused at run time instead, as `TeamError::Destroyed`).
#![forbid(unsafe_code)]

use nvshmem_host::{Nvshmem, Team};

fn main() -> Result<(), nvshmem_host::Error> {
    let nvshmem = Nvshmem::init()?;
    if let Some(even) = nvshmem.split_strided(Team::WORLD, 0, 2, 1)? {
        even.destroy()?;
        println!("{}", even.n_pes());
    }
    Ok(())
}
