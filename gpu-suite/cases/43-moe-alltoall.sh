# The expert-parallel all-to-all (examples/moe-alltoall) at 2, 4 and 8 PEs on one GPU.
#
# MPS off: correctness only (the PEs time-slice): every token of every PE compared bit for bit with
# the CPU reference, for the random, skewed and empty-PE routings, at an odd token count (1000),
# and once with hidden size 7168 and top-4. Then the planted defect: PE 0 skips the dispatch of one
# (token, expert) pair, and the check must fail naming PE 0.
# MPS on, each PE limited to its share of the multiprocessors (so that every PE's cooperative grid
# is resident at once): the same checks, then the timed rounds for 128 to 4096 tokens per PE
# (`result:` lines: microseconds per dispatch + combine and the rate of the rows moved). The
# receive buffers of 4096 tokens at 8 PEs take 1 GiB per PE, hence the larger symmetric heap.
# shellcheck disable=SC2046,SC2086 # the launcher prefix is split on purpose, as elsewhere
# moe_on PES SECONDS: the launcher's command line for PES PEs on one GPU, in MPS's share per PE.
moe_on() {
    echo "env $(mps_share "$1") NVSHMEM_SYMMETRIC_SIZE=3G $DIST/nvshmemrun -n $1 --pes-per-gpu $1 --timeout $2"
}
moe_routings=(--routing random,skewed,empty-pe)

for pes in 2 4 8; do
    run "moe-alltoall --check, 1000 tokens x 4096, three routings" $pes 120 $(moe_on $pes 110) \
        $DIST/moe-alltoall --tokens 128,1000 --hidden 4096 "${moe_routings[@]}" --check --iters 0
done
run "moe-alltoall --check, 300 tokens x 7168, top-4" 4 120 $(moe_on 4 110) \
    $DIST/moe-alltoall --tokens 300 --hidden 7168 --top-k 4 "${moe_routings[@]}" --check --iters 0
if declare -F run_expect_text >/dev/null; then
    for pes in 2 8; do
        run_expect_text "moe-alltoall --plant lost-token: the check fails" $pes '!0' 60 \
            "PE 0 differs:" $(moe_on $pes 50) $DIST/moe-alltoall --tokens 1000 --routing random \
            --check --plant lost-token --iters 0
    done
fi
[[ $MPS == on ]] || return 0

for pes in 2 4 8; do
    run "moe-alltoall timing, 128..4096 tokens x 4096, three routings, --check" $pes 300 \
        $(moe_on $pes 290) $DIST/moe-alltoall --hidden 4096 "${moe_routings[@]}" --check --iters 50
done
