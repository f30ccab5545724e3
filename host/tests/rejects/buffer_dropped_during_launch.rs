// A typed launch borrows its buffers until the kernel has finished: a buffer cannot be freed
// between building the arguments and launching with them.
#![forbid(unsafe_code)]

mod kernels {
    use nvshmem_gpu::{SymmetricSlice, kernel};

    #[kernel]
    pub fn scale(data: SymmetricSlice<f32>, factor: f32) {
        let _ = (data, factor);
    }
}

fn main() -> Result<(), nvshmem_host::Error> {
    let nvshmem = nvshmem_host::Nvshmem::init()?;
    let module = nvshmem.load_module("")?;
    let scale = module.typed_kernel::<kernels::Scale>()?;
    let data = nvshmem.alloc_zeroed::<f32>(1024)?;
    let args = (&data, 2.0f32);
    drop(data);
    scale.run(nvshmem_host::LaunchConfig::linear(1, 256), args)
}
