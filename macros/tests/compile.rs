//! Compile tests of `#[kernel]` on the host target: the valid kernels of `compile/pass/` compile
//! (only their parameter check remains on the host), and each broken rule of `compile/fail/` fails
//! with the error in the `.stderr` file beside it (regenerate with `TRYBUILD=overwrite` and
//! review).

#[test]
fn the_kernel_attribute_rejects() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/compile/pass/*.rs");
    cases.compile_fail("tests/compile/fail/*.rs");
}
