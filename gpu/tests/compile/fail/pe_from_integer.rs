// A `Pe` cannot be built from an integer without the check (or `unsafe`).
use nvshmem_gpu::Pe;

pub fn forge() -> Pe {
    Pe(3)
}

fn main() {}
