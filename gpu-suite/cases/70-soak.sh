# Soak: SOAK_JOBS consecutive jobs in each MPS pass (default 100, so 200 over both passes), taking in
# turn the ring and the Jacobi check on a small grid, at 2 and 4 PEs on one GPU. One row per pass:
# it passes with 0 failed jobs and 0 processes of the jobs left over afterwards, and gives the counts
# and the total seconds. The first failures' output is shown.
soak_jobs=${SOAK_JOBS:-100}
soak_name="soak: $soak_jobs jobs of ring and jacobi --check"
if [[ $MPS == on && -n $mps_down ]]; then
    record "$soak_name" "2,4" - "FAIL (not run: $mps_down)"
else
    soak_log=$(case_log soak -)
    : >"$soak_log"
    soak_failed=0
    soak_start=$(date +%s%N)
    for ((job = 0; job < soak_jobs; job++)); do
        pes=$((job % 2 == 0 ? 2 : 4))
        if ((job / 2 % 2 == 0)); then
            program=("$DIST/ring")
        else
            program=("$DIST/jacobi" --nx 256 --ny 256 --iters 20 --norm-every 5 --check)
        fi
        job_log=$(case_log soak-job "$pes")
        timeout --kill-after=5 90 "$DIST/nvshmemrun" -n $pes --pes-per-gpu $pes --timeout 80 \
            "${program[@]}" >"$job_log" 2>&1
        job_status=$?
        if [[ $job_status != 0 ]]; then
            soak_failed=$((soak_failed + 1))
            if ((soak_failed <= 3)); then
                echo "job $job (${program[*]##*/}, $pes PEs) exited with $job_status:" >>"$soak_log"
                tail -n 10 "$job_log" >>"$soak_log"
            fi
        fi
        # Progress on the console, so that a suite cut short by its caller still shows how far the
        # soak got and how long its jobs take.
        if (((job + 1) % 10 == 0)); then
            echo "soak, MPS $MPS: $((job + 1)) of $soak_jobs jobs, $soak_failed failed, $(seconds $((($(date +%s%N) - soak_start) / 1000000))) s"
        fi
    done
    soak_ms=$((($(date +%s%N) - soak_start) / 1000000))
    # The jobs' processes still alive: the launcher, or a PE it did not end.
    soak_left=$(for proc in /proc/[0-9]*; do readlink "$proc/exe"; done 2>/dev/null |
        grep -cE "/$DIST/(nvshmemrun|ring|jacobi)$")
    soak_counts="$soak_jobs jobs, $soak_failed failed, $soak_left process(es) left over"
    echo "$soak_counts, $(seconds $soak_ms) s" >>"$soak_log"
    if [[ $soak_failed == 0 && $soak_left == 0 ]]; then
        record "$soak_name" "2,4" "$(seconds $soak_ms)" "PASS ($soak_counts)" "$soak_log"
    else
        record "$soak_name" "2,4" "$(seconds $soak_ms)" "FAIL ($soak_counts)" "$soak_log"
    fi
fi
