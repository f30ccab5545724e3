// A symmetric buffer is freed with NVSHMEM's context current on the freeing thread, so it stays on
// the thread that allocated it: it is not `Send`.
#![forbid(unsafe_code)]

fn main() -> Result<(), nvshmem_host::Error> {
    let nvshmem = nvshmem_host::Nvshmem::init()?;
    let buffer = nvshmem.alloc_zeroed::<u32>(16)?;
    std::thread::scope(|scope| {
        scope.spawn(move || drop(buffer));
    });
    Ok(())
}
