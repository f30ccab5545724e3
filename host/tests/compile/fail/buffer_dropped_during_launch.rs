// A typed launch borrows its buffers for the call (a later drop waits for the kernel): a buffer
// cannot be freed between building the arguments and launching with them. `K` stands for the
// descriptor `#[kernel]` emits for `pub fn scale(data: SymmetricSlice<f32>, factor: f32)`.
#![forbid(unsafe_code)]

use nvshmem_host::{Error, LaunchShape, Nvshmem, SafeKernel, SliceParam};

fn scale<K: SafeKernel<Params = (SliceParam<f32>, f32)>>() -> Result<(), Error> {
    let nvshmem = Nvshmem::init()?;
    let module = nvshmem.load_module("")?;
    let scale = module.typed_kernel::<K>()?;
    let data = nvshmem.alloc_zeroed::<f32>(1024)?;
    let args = (&data, 2.0f32);
    drop(data);
    scale.run(LaunchShape::linear(1, 256), args)
}

fn main() {}
