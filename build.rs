//! Builds every example's kernel crate to PTX; the runners include it with
//! `include_str!(env!("<PACKAGE>_PTX"))`.

fn main() {
    for kernels in ["examples/ring/kernels"] {
        if let Err(error) = nvshmem_builder::PtxBuilder::new(kernels).build() {
            eprintln!("error: {error}");
            std::process::exit(1);
        }
    }
}
