//! Compile tests of `#[kernel]` on the host target: valid kernels compile (only their parameter
//! check remains on the host),
//! and each broken rule fails with the error recorded in the `.stderr` file next to the test.
//!
//! After changing an error, regenerate the `.stderr` files with `TRYBUILD=overwrite` and review
//! them.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/*.rs");
}
