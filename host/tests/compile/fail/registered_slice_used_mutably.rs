// While registered, the allocation is borrowed shared: cudarc cannot write it through `&mut`.
#![forbid(unsafe_code)]

fn main() -> Result<(), nvshmem_host::Error> {
    let nvshmem = nvshmem_host::Nvshmem::init()?;
    let stream = nvshmem.stream();
    let mut slice = stream.alloc_zeros::<u32>(16).expect("allocated");
    let registered = nvshmem.register(&slice)?;
    stream.memcpy_htod(&[7u32; 16], &mut slice).expect("copied");
    drop(registered);
    Ok(())
}
