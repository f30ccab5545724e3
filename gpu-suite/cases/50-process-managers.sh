# Real process managers start the same binaries (issue 7): Open MPI's mpirun (PMIx) and MPICH's
# hydra mpiexec (PMI-1, unpacked into .mpich by gpu-suite/fetch-mpich.sh). Once, in the MPS-off pass.
if [[ $MPS == off ]]; then
    for pes in 2 4; do run_under_mpirun "ring under Open MPI mpirun" $pes 120 $DIST/ring; done
    for pes in 2 4; do run_under_hydra "ring under MPICH hydra mpiexec" $pes 120 $DIST/ring; done
fi
