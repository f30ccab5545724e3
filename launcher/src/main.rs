//! `nvshmemrun`: starts N processes (PEs) of a program on this machine and supervises them.
//! See `nvshmemrun --help`, and the `nvshmem_launch` library for the details.

fn main() {
    // Warnings by default; RUST_LOG=debug shows what the launcher found and chose.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    std::process::exit(nvshmem_launch::cli::main(std::env::args_os().skip(1)));
}
