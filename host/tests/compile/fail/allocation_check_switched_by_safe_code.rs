// The allocation check is what makes a buffer's length the same on every PE; a PE that switches it
// off while another keeps it on lets their heaps go out of step unseen. Safe code cannot switch it
// (nor can the environment: its variable is refused at initialisation).
#![forbid(unsafe_code)]

use nvshmem_host::Nvshmem;

fn main() {
    let nvshmem = Nvshmem::init().expect("init");
    if nvshmem.my_pe() == 1 {
        nvshmem.set_allocation_check(false);
    }
    let _unequal = nvshmem.alloc::<u64>(64 + nvshmem.my_pe() as usize);
}
