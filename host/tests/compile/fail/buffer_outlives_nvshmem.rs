// A symmetric buffer borrows the handle: it cannot be used after NVSHMEM is finalised.
#![forbid(unsafe_code)]

fn main() -> Result<(), nvshmem_host::Error> {
    let buffer;
    {
        let nvshmem = nvshmem_host::Nvshmem::init()?;
        buffer = nvshmem.alloc_zeroed::<u32>(16)?;
    }
    println!("{:?}", buffer.to_vec()?);
    Ok(())
}
