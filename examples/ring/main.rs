fn main() {
    println!("{}", include_str!(env!("RING_KERNELS_PTX")).len());
}
