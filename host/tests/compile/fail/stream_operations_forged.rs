// The on-stream operations run only on NVSHMEM's handle or a stream checked by `Nvshmem::on`: a
// type of the program's own cannot take them on (the trait is sealed).
#![forbid(unsafe_code)]

use nvshmem_host::StreamOperations;

struct Elsewhere;

impl StreamOperations for Elsewhere {}

fn main() {}
