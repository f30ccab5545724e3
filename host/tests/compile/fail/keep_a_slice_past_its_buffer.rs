//! A typed launch's conversion of a buffer borrows it: nothing made for a launch outlives the
//! buffer's free (a use after free in a later launch).
#![forbid(unsafe_code)]

use nvshmem_host::{IntoParam, Nvshmem, SliceParam};

fn main() -> Result<(), nvshmem_host::Error> {
    let nvshmem = Nvshmem::init()?;
    let buffer = nvshmem.alloc_zeroed::<u64>(8)?;
    let value = IntoParam::<SliceParam<u64>>::into_param(&buffer)?;
    drop(buffer);
    println!("{value:?}");
    Ok(())
}
