// The start of NVSHMEM under our launcher, for the CUDA C++ reference programs of bench/reference.
//
// Start-up mirrors the Rust host crate (host/src/runtime.rs): the PE picks GPU
// LOCAL_PE / PES_PER_GPU; PE 0 makes NVSHMEM's unique id and publishes it as the file
// `nvshmem-unique-id` in the launcher's rendezvous folder; the others read it; then every PE
// initialises with NVSHMEMX_INIT_WITH_UNIQUEID. Started without the launcher, a program is one PE.
#pragma once

#include <nvshmem.h>
#include <nvshmemx.h>

#include "util.cuh"

static PeInfo start_nvshmem() {
    PeInfo me = pe_from_launcher();
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    exchange_id(me, "nvshmem-unique-id", &id, sizeof id, [](void *out) {
        if (nvshmemx_get_uniqueid((nvshmemx_uniqueid_t *)out) != 0) REF_DIE("nvshmemx_get_uniqueid failed");
    });
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    if (nvshmemx_set_attr_uniqueid_args(me.pe, me.n_pes, &id, &attr) != 0)
        REF_DIE("nvshmemx_set_attr_uniqueid_args failed");
    if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) REF_DIE("nvshmemx_init_attr failed");
    if (nvshmem_my_pe() != me.pe || nvshmem_n_pes() != me.n_pes)
        REF_DIE("NVSHMEM started PE %d of %d, the launcher said %d of %d", nvshmem_my_pe(), nvshmem_n_pes(),
                me.pe, me.n_pes);
    return me;
}
