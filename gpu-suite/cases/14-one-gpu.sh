# One GPU, several PEs, as a first day meets it (the launcher's MPS handling and the initialisation
# deadline). In the pass without MPS: a job of 2 PEs on one GPU is warned about before it runs, and
# `--mps` runs it under a daemon of its own that is gone when the job ends. In both passes: one PE of
# two started by hand, whose partner never comes, ends at NVSHMEMRS_INIT_TIMEOUT with a message that
# names the deadline, instead of waiting inside NVSHMEM's initialisation for ever.
if [[ $MPS == off ]]; then
    name="ring, 2 PEs on one GPU without MPS: warned before the job runs"
    if execute "$name" 2 120 "$DIST"/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 100 "$DIST"/ring; then
        if [[ $status == 0 ]] && grep -q "share a GPU without MPS" "$log"; then
            record "$name" 2 "$(seconds "$ms")" PASS "$log"
        else
            record "$name" 2 "$(seconds "$ms")" "FAIL (exit $status; warning present: $(grep -c 'share a GPU without MPS' "$log"))" "$log"
        fi
    fi
    name="ring --mps, 2 PEs: a private MPS daemon, stopped when the job ends"
    if execute "$name" 2 120 "$DIST"/nvshmemrun --mps -n 2 --pes-per-gpu 2 --timeout 100 "$DIST"/ring; then
        left=$(pgrep -c -f nvidia-cuda-mps || true)
        if [[ $status == 0 && ${left:-0} == 0 ]] && ! grep -q "share a GPU without MPS" "$log"; then
            record "$name" 2 "$(seconds "$ms")" "PASS (no MPS process left)" "$log"
        else
            record "$name" 2 "$(seconds "$ms")" "FAIL (exit $status, $left MPS process(es) left)" "$log"
        fi
        pkill -f nvidia-cuda-mps-server 2>/dev/null || true
    fi
fi
name="one PE of two started by hand, the other never comes: ends at NVSHMEMRS_INIT_TIMEOUT=5"
# shellcheck disable=SC2016 # expanded by the inner shell
if execute "$name" 1 60 env DIST="$DIST" bash -c '
    id=$(mktemp -d)/unique-id
    NVSHMEMRS_INIT_TIMEOUT=5 NVSHMEMRS_PES_PER_GPU=2 "$DIST"/interop --rendezvous "$id" --rank 0 -n 2'; then
    if [[ $status != 0 && $ms -lt 30000 ]] && grep -q "NVSHMEMRS_INIT_TIMEOUT" "$log"; then
        record "$name" 1 "$(seconds "$ms")" "PASS (exit $status, the deadline named)" "$log"
    else
        record "$name" 1 "$(seconds "$ms")" "FAIL (exit $status after $(seconds "$ms") s)" "$log"
    fi
fi
