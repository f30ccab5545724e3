# Leaks in one long-running process (gpu-suite/tests/tests/gpu_leaks.rs): 1000 allocate/free cycles,
# 100 module loads and 100 team splits on one PE, whose free device memory must come back to its
# starting figure; the row's output gives the figures. Then each kind of leak planted on purpose
# (GPU_LEAKS_PLANT) must make the test fail (libtest's 101) with its message. MPS-off pass only: one
# PE needs no MPS.
[[ $MPS == off ]] || return 0
gpu_tests gpu_leaks
leaks_test=allocations_modules_and_teams_give_back_what_they_take
for plant in "alloc:allocate/free cycles" "module:over the module loads" "team:team splits"; do
    run_expect_text "gpu_leaks with a planted ${plant%%:*} leak: the test fails" 1 101 60 "${plant#*:}" \
        env GPU_LEAKS_PLANT=${plant%%:*} "$DIST"/gpu_leaks --ignored --exact $leaks_test --nocapture --test-threads 1
done
