// Two threads of one PE may not make NVSHMEM's collective calls at once: each would enter another
// collective (here two allocations) while the other PEs enter one. The handle is not `Sync`.
#![forbid(unsafe_code)]

fn main() -> Result<(), nvshmem_host::Error> {
    let nvshmem = nvshmem_host::Nvshmem::init()?;
    let shared = &nvshmem;
    std::thread::scope(|scope| {
        scope.spawn(move || shared.alloc_zeroed::<u32>(16).map(drop));
        shared.alloc_zeroed::<u32>(16).map(drop)
    })?;
    Ok(())
}
