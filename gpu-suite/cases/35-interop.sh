# nvshmem-host beside cudarc (examples/interop): the example at 2 PEs on one GPU through the
# launcher, the same through a unique id the PEs exchange in a file (two processes started here,
# each bounded by `timeout`), and the GPU tests of examples/interop/tests/gpu_interop.rs.
run "interop example" 2 120 $DIST/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 100 $DIST/interop
# shellcheck disable=SC2016 # expanded by the inner shell
run "interop unique-id file rendezvous" 2 120 env DIST="$DIST" bash -c '
    id=$(mktemp -d)/unique-id
    for rank in 0 1; do
        NVSHMEMRS_PES_PER_GPU=2 timeout 100 "$DIST"/interop --rendezvous "$id" --rank $rank -n 2 &
    done
    wait -n && wait -n'
expect_tests gpu_interop
# shellcheck disable=SC2154 # expected_tests: set by expect_tests (gpu-suite/run.sh)
for test in "${expected_tests[@]}"; do
    run_test "gpu_interop $test" 2 180 \
        "$DIST"/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 170 \
        "$DIST"/gpu_interop --ignored --exact "$test" --nocapture --test-threads 1
done
