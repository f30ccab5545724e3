// Nor is it `Sync`: another thread cannot copy into or out of it through a shared reference.
#![forbid(unsafe_code)]

fn main() -> Result<(), nvshmem_host::Error> {
    let nvshmem = nvshmem_host::Nvshmem::init()?;
    let buffer = nvshmem.alloc_zeroed::<u32>(16)?;
    let shared = &buffer;
    std::thread::scope(|scope| {
        scope.spawn(move || shared.to_vec());
    });
    Ok(())
}
