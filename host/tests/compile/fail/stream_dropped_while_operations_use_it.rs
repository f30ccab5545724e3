// `Nvshmem::on` borrows the stream it checked: the stream cannot be dropped while operations may
// still be enqueued on it through the `OnStream`.
#![forbid(unsafe_code)]

use nvshmem_host::{Nvshmem, StreamOperations};

fn main() -> Result<(), nvshmem_host::Error> {
    let nvshmem = Nvshmem::init()?;
    let stream = nvshmem.context().new_stream().expect("a stream");
    let on = nvshmem.on(&stream)?;
    drop(stream);
    on.barrier_all_on_stream();
    Ok(())
}
