# The starter project (starter/, made with `./x new` and built outside the repository by
# `./x gpu-bundle`) at 1 and 2 PEs, through nvshmemrun and through its own relaunch. Once, MPS off.
if [[ $MPS == off ]]; then
    for pes in 1 2; do
        run "starter" $pes 60 "$DIST"/nvshmemrun -n $pes --pes-per-gpu $pes --timeout 50 "$DIST"/starter
    done
    run "starter, relaunching itself" 2 60 "$DIST"/starter -n 2 --pes-per-gpu 2 --timeout 50
fi
