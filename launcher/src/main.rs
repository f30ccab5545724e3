//! `nvshmemrun`: starts N processes (PEs) of a program on this machine and supervises them.
//! See `nvshmemrun --help`, and the `nvshmem_launch` library for the details.

fn main() {
    std::process::exit(nvshmem_launch::cli::main(std::env::args_os().skip(1)));
}
