// Only symmetric buffers and registrations are local memory NVSHMEM may read and write: a type of
// the program's own, naming any address, cannot be made one (the trait is sealed).
#![forbid(unsafe_code)]

use nvshmem_host::LocalMemory;

struct Forged(u64);

impl LocalMemory<u32> for Forged {
    fn len(&self) -> usize {
        1 << 20
    }

    fn local_ptr(&self) -> *mut u32 {
        self.0 as *mut u32
    }
}

fn main() {}
