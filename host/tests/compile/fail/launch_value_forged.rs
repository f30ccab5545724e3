//! A launch value names the device words a kernel receives: safe host code cannot write its own
//! (an address and a length of its choosing passed for a symmetric slice).
#![forbid(unsafe_code)]

use nvshmem_host::LaunchValue;

fn main() {
    let _forged = LaunchValue {
        words: [0xdead_0000, 1 << 40],
        count: 2,
        borrow: std::marker::PhantomData,
    };
}
