//! What nvshmem-host's types reject in a host program, as compile errors. Each case's expected
//! error is in the `.stderr` file beside it (regenerate with `TRYBUILD=overwrite` and review).

#[test]
fn the_host_api_rejects() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/rejects/*.rs");
}
