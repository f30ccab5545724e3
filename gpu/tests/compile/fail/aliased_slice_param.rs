// #[kernel] passes a parameter written `SymmetricSlice<T>` as two words; one hidden behind an alias
// would be passed as one, so a safe kernel refuses it.
use nvshmem_gpu::{SymmetricSlice, kernel};

type Floats = SymmetricSlice<f32>;

#[kernel]
pub fn scale(data: Floats) {
    let _ = data;
}

fn main() {}
