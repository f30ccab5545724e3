# The ring example at 1, 2 and 4 PEs on one GPU, through the launcher.
for pes in 1 2 4; do
    run "ring example" $pes 120 $DIST/nvshmemrun -n $pes --pes-per-gpu $pes --timeout 100 $DIST/ring
done
