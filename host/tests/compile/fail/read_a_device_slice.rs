//! A typed launch's conversion of a buffer gives no slice that host code could read (a CPU read
//! of a device address): the value is opaque.
#![forbid(unsafe_code)]

use nvshmem_host::{IntoParam, Nvshmem, SliceParam};

fn main() -> Result<(), nvshmem_host::Error> {
    let nvshmem = Nvshmem::init()?;
    let buffer = nvshmem.alloc_zeroed::<u64>(8)?;
    let value = IntoParam::<SliceParam<u64>>::into_param(&buffer)?;
    let _ = value.read(0);
    Ok(())
}
