// `finalize` takes the handle by value, which a live buffer still borrows.
#![forbid(unsafe_code)]

fn main() -> Result<(), nvshmem_host::Error> {
    let nvshmem = nvshmem_host::Nvshmem::init()?;
    let buffer = nvshmem.alloc_zeroed::<u32>(16)?;
    nvshmem.finalize()?;
    println!("{:?}", buffer.to_vec()?);
    Ok(())
}
