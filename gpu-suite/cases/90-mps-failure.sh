# A PE that ends while its kernel runs leaves the MPS server failing every later client (MPS pass
# only, last, since it breaks the server and then restarts it):
# 1. the faults job (PE 1 killed, PE 0 ended by the launcher inside its barrier kernel) must fail
#    with the launcher saying that MPS may need restarting;
# 2. the next job, when the server did fail, must fail saying that MPS is in a failed state and how
#    to restart it; when the server kept serving, the row says so (SKIPPED: nothing to explain);
# 3. MPS is restarted, and must serve a job again.
[[ $MPS == on ]] || return 0
run_expect_text "faults kill under MPS: the launcher says MPS may need restarting" 2 137 8 \
    "MPS is in use" \
    $DIST/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 50 $DIST/faults --fault kill --victim 1
if execute "ring after the fault under MPS: the error names MPS's failed state" 2 60 \
    $DIST/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 50 $DIST/ring; then
    mps_name="ring after the fault under MPS: the error names MPS's failed state"
    if [[ $status == 0 ]]; then
        record "$mps_name" 2 "$(seconds $ms)" "SKIPPED (the MPS server kept serving: nothing to explain)" "$log"
    elif grep -qF "MPS is in use" "$log" && grep -qF "failed state" "$log" &&
        grep -qF "echo quit | nvidia-cuda-mps-control" "$log"; then
        record "$mps_name" 2 "$(seconds $ms)" "PASS (exit $status, with MPS's failed state and the restart)" "$log"
    else
        record "$mps_name" 2 "$(seconds $ms)" "FAIL (exit $status, without MPS's failed state and the restart)" "$log"
    fi
fi
stop_mps >>"$LOG/mps.log" 2>&1
if start_mps >>"$LOG/mps.log" 2>&1; then
    run "ring after restarting MPS" 2 60 $DIST/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 50 $DIST/ring
else
    mps_down="MPS could not be restarted"
    record "MPS restarted after the fault" - - "FAIL ($mps_down)" "$LOG/mps.log"
fi
