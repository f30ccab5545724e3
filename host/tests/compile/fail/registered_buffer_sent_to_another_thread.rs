// A registration is unregistered with NVSHMEM's context current on its thread: it is not `Send`.
#![forbid(unsafe_code)]

fn main() -> Result<(), nvshmem_host::Error> {
    let nvshmem = nvshmem_host::Nvshmem::init()?;
    let slice = nvshmem.stream().alloc_zeros::<u32>(16).expect("allocated");
    let registered = nvshmem.register(&slice)?;
    std::thread::scope(|scope| {
        scope.spawn(move || drop(registered));
    });
    Ok(())
}
