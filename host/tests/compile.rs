//! What nvshmem-host's types reject in a host program, as compile errors (`compile/fail/`). Each
//! case's expected error is in the `.stderr` file beside it (regenerate with `TRYBUILD=overwrite`
//! and review).

#[test]
fn the_host_api_rejects() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/compile/fail/*.rs");
}
