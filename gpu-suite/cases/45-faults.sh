# Fail-fast: one PE dies (or its kernel traps on a put to a PE that does not exist) while the others
# wait for it in a device barrier. The launcher must end the job with the victim's status; the bound
# covers NVSHMEM start-up (~1-2 s) plus the 5 s guarantee.
# MPS-off pass only: under MPS, a client that dies while its kernel runs makes the MPS server fail
# every later client with "unspecified launch failure" until it is restarted (seen here).
[[ $MPS == off ]] || return 0
for pes in 2 4; do
    run "faults none (control: all reach the barrier)" $pes 60 \
        $DIST/nvshmemrun -n $pes --pes-per-gpu $pes --timeout 50 $DIST/faults --fault none
    run_expect "faults exit: victim exits 3" $pes 3 8 \
        $DIST/nvshmemrun -n $pes --pes-per-gpu $pes --timeout 50 $DIST/faults --fault exit
    run_expect "faults kill: victim gets SIGKILL" $pes 137 8 \
        $DIST/nvshmemrun -n $pes --pes-per-gpu $pes --timeout 50 $DIST/faults --fault kill --victim $((pes - 1))
    run_expect "faults segv: victim segfaults" $pes 139 8 \
        $DIST/nvshmemrun -n $pes --pes-per-gpu $pes --timeout 50 $DIST/faults --fault segv --victim 0
    run_expect "faults panic: victim panics" $pes 101 8 \
        $DIST/nvshmemrun -n $pes --pes-per-gpu $pes --timeout 50 $DIST/faults --fault panic
    # The victim puts to PE $pes, which does not exist: the device check prints the call and traps.
    run_expect_text "faults bad-pe: victim's put to a missing PE traps" $pes 4 8 \
        "nvshmem_gpu::rma::block::put_nbi called with PE $pes, but the PEs are 0..$pes" \
        $DIST/nvshmemrun -n $pes --pes-per-gpu $pes --timeout 50 $DIST/faults --fault bad-pe
    # A safe kernel asks its slice for the range past its end: the bounds check names it and traps.
    run_expect_text "faults slice-past-end: the safe layer's bounds check traps" $pes 4 8 \
        "SymmetricSlice::range: range 1024..1025 is out of bounds for a symmetric slice of 1024 elements" \
        $DIST/nvshmemrun -n $pes --pes-per-gpu $pes --timeout 50 $DIST/faults --fault slice-past-end
done
