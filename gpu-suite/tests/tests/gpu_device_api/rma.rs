//! Remote memory access: put, get, p, g, strided, byte and `f64` transfers, and `rma::ptr`.

use super::layout::{self, N};
use super::support::{IMAGE, check, filled, init, launch, zeroed};

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn rma_put_get_p_g_strided_bytes_and_ptr_move_the_right_values() {
    use layout::rma::*;
    let nvshmem = init();
    let (me, n) = (nvshmem.my_pe(), nvshmem.n_pes());
    let module = nvshmem.load_module(IMAGE).expect("load");
    let sent = filled!(nvshmem, N, |i| source(me, i));
    let out = zeroed!(nvshmem, i32, OUT_REGIONS * N);
    let strided = zeroed!(nvshmem, i32, STRIDED_REGIONS * N);
    let byte_source = filled!(nvshmem, N, |i| byte(me, i));
    let bytes = zeroed!(nvshmem, u8, BYTE_REGIONS * N);
    let reals = zeroed!(nvshmem, f64, REAL_REGIONS * N);
    let reach = zeroed!(nvshmem, i32, REACH_WORDS);
    nvshmem.barrier_all();
    launch(
        &nvshmem,
        &module,
        "rma_families",
        &[
            &sent.as_symmetric_ptr(),
            &out.as_symmetric_ptr(),
            &strided.as_symmetric_ptr(),
            &byte_source.as_symmetric_ptr(),
            &bytes.as_symmetric_ptr(),
            &reals.as_symmetric_ptr(),
            &reach.as_symmetric_ptr(),
        ],
    );
    let reach = reach.to_vec().unwrap();
    assert_eq!(
        reach,
        [1, 1],
        "PE {me}: rma::ptr must reach the next PE on the same GPU and return the local address for this PE"
    );
    let out = out.to_vec().unwrap();
    for region in 0..OUT_REGIONS {
        check(
            &format!("out region {region}"),
            me,
            &out[region * N..][..N],
            |i| expected_out(me, n, region, i),
        );
    }
    let strided = strided.to_vec().unwrap();
    for region in 0..STRIDED_REGIONS {
        check(
            &format!("strided region {region}"),
            me,
            &strided[region * N..][..N],
            |i| expected_strided(me, n, region, i),
        );
    }
    let bytes = bytes.to_vec().unwrap();
    for region in 0..BYTE_REGIONS {
        check(
            &format!("bytes region {region}"),
            me,
            &bytes[region * N..][..N],
            |i| expected_byte(me, n, region, i),
        );
    }
    let reals = reals.to_vec().unwrap();
    for region in 0..REAL_REGIONS {
        check(
            &format!("reals region {region}"),
            me,
            &reals[region * N..][..N],
            |i| expected_real(me, n, region, i),
        );
    }
    println!("PE {me}/{n}: RMA families OK");
    nvshmem.barrier_all();
}
