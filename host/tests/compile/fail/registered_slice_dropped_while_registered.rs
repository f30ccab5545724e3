// A registration borrows the cudarc allocation: it cannot be freed while NVSHMEM may use it.
#![forbid(unsafe_code)]

fn main() -> Result<(), nvshmem_host::Error> {
    let nvshmem = nvshmem_host::Nvshmem::init()?;
    let slice = nvshmem.stream().alloc_zeros::<u32>(16).expect("allocated");
    let registered = nvshmem.register(&slice)?;
    drop(slice);
    drop(registered);
    Ok(())
}
