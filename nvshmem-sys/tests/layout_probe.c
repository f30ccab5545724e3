/* Prints, as "key value" lines, what NVSHMEM's headers say about the structs nvshmem-sys mirrors:
 * sizes, alignments, field offsets, the values the initializer macros put in, and the status
 * codes. tests/layout.rs compiles this with the system C compiler against the installed headers
 * and compares every line with the Rust side. Only headers that need no CUDA headers are used. */
#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "device_host/nvshmem_types.h"
#include "non_abi/nvshmemx_error.h"

/* Static, so that padding is zero and the initializers are the macros' alone. */
static nvshmemx_uniqueid_t uniqueid = NVSHMEMX_UNIQUEID_INITIALIZER;
static nvshmemx_uniqueid_args_t uniqueid_args = NVSHMEMX_UNIQUEID_ARGS_INITIALIZER;
static nvshmemx_init_args_t init_args = NVSHMEMX_INIT_ARGS_INITIALIZER;
static nvshmemx_init_attr_t init_attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
static nvshmemx_init_attr_t init_attr_v1 = NVSHMEMX_INIT_ATTR_V1_INITIALIZER;
static nvshmem_team_config_t team_config = NVSHMEM_TEAM_CONFIG_INITIALIZER;
static nvshmemx_init_attr_t versions_only; /* zero, then nvshmemx_init_init_attr_ver_only */

static long long nonzero_bytes(const void *start, size_t size) {
    const unsigned char *bytes = start;
    long long count = 0;
    for (size_t i = 0; i < size; i++) count += bytes[i] != 0;
    return count;
}

#define P(key, value) printf("%s %lld\n", key, (long long)(value))
#define LAYOUT(name, type)                    \
    P(name ".size", sizeof(type));            \
    P(name ".align", _Alignof(type))
#define OFFSET(name, type, field) P(name "." #field ".offset", offsetof(type, field))

int main(void) {
    LAYOUT("uniqueid", nvshmemx_uniqueid_t);
    OFFSET("uniqueid", nvshmemx_uniqueid_t, version);
    OFFSET("uniqueid", nvshmemx_uniqueid_t, internal);

    LAYOUT("uniqueid_args", nvshmemx_uniqueid_args_t);
    OFFSET("uniqueid_args", nvshmemx_uniqueid_args_t, version);
    OFFSET("uniqueid_args", nvshmemx_uniqueid_args_t, id);
    OFFSET("uniqueid_args", nvshmemx_uniqueid_args_t, myrank);
    OFFSET("uniqueid_args", nvshmemx_uniqueid_args_t, nranks);

    LAYOUT("init_args", nvshmemx_init_args_t);
    OFFSET("init_args", nvshmemx_init_args_t, version);
    OFFSET("init_args", nvshmemx_init_args_t, uid_args);
    OFFSET("init_args", nvshmemx_init_args_t, cuda_device_id);
    OFFSET("init_args", nvshmemx_init_args_t, content);

    LAYOUT("init_attr", nvshmemx_init_attr_t);
    OFFSET("init_attr", nvshmemx_init_attr_t, version);
    OFFSET("init_attr", nvshmemx_init_attr_t, mpi_comm);
    OFFSET("init_attr", nvshmemx_init_attr_t, args);
    OFFSET("init_attr", nvshmemx_init_attr_t, args.uid_args.id);
    OFFSET("init_attr", nvshmemx_init_attr_t, args.content);

    LAYOUT("team_config", nvshmem_team_config_t);
    OFFSET("team_config", nvshmem_team_config_t, version);
    OFFSET("team_config", nvshmem_team_config_t, num_contexts);
    OFFSET("team_config", nvshmem_team_config_t, uniqueid);
    OFFSET("team_config", nvshmem_team_config_t, padding);

    P("UNIQUEID_INITIALIZER.version", uniqueid.version);
    P("UNIQUEID_INITIALIZER.internal.nonzero", nonzero_bytes(uniqueid.internal, sizeof uniqueid.internal));

    P("UNIQUEID_ARGS_INITIALIZER.version", uniqueid_args.version);
    P("UNIQUEID_ARGS_INITIALIZER.id.is_null", uniqueid_args.id == NULL);
    P("UNIQUEID_ARGS_INITIALIZER.myrank", uniqueid_args.myrank);
    P("UNIQUEID_ARGS_INITIALIZER.nranks", uniqueid_args.nranks);

    P("INIT_ARGS_INITIALIZER.version", init_args.version);
    P("INIT_ARGS_INITIALIZER.uid_args.version", init_args.uid_args.version);
    P("INIT_ARGS_INITIALIZER.content.nonzero", nonzero_bytes(init_args.content, sizeof init_args.content));

    P("INIT_ATTR_INITIALIZER.version", init_attr.version);
    P("INIT_ATTR_INITIALIZER.mpi_comm.is_null", init_attr.mpi_comm == NULL);
    P("INIT_ATTR_INITIALIZER.args.version", init_attr.args.version);
    P("INIT_ATTR_INITIALIZER.args.uid_args.version", init_attr.args.uid_args.version);
    P("INIT_ATTR_INITIALIZER.args.uid_args.id.is_null", init_attr.args.uid_args.id == NULL);
    P("INIT_ATTR_INITIALIZER.args.uid_args.myrank", init_attr.args.uid_args.myrank);
    P("INIT_ATTR_INITIALIZER.args.uid_args.nranks", init_attr.args.uid_args.nranks);
    P("INIT_ATTR_INITIALIZER.args.cuda_device_id", init_attr.args.cuda_device_id);
    P("INIT_ATTR_INITIALIZER.args.content.nonzero",
      nonzero_bytes(init_attr.args.content, sizeof init_attr.args.content));

    P("INIT_ATTR_V1_INITIALIZER.version", init_attr_v1.version);
    P("INIT_ATTR_V1_INITIALIZER.args.version", init_attr_v1.args.version);
    P("INIT_ATTR_V1_INITIALIZER.args.uid_args.nranks", init_attr_v1.args.uid_args.nranks);
    P("INIT_ATTR_V1_INITIALIZER.args.cuda_device_id", init_attr_v1.args.cuda_device_id);
    P("INIT_ATTR_V1_INITIALIZER.args.content.nonzero",
      nonzero_bytes(init_attr_v1.args.content, sizeof init_attr_v1.args.content));

    nvshmemx_init_init_attr_ver_only(versions_only);
    P("init_attr_ver_only.version", versions_only.version);
    P("init_attr_ver_only.args.version", versions_only.args.version);
    P("init_attr_ver_only.args.uid_args.version", versions_only.args.uid_args.version);
    P("init_attr_ver_only.args.uid_args.myrank", versions_only.args.uid_args.myrank);

    P("TEAM_CONFIG_INITIALIZER.version", team_config.version);
    P("TEAM_CONFIG_INITIALIZER.num_contexts", team_config.num_contexts);
    P("TEAM_CONFIG_INITIALIZER.uniqueid", team_config.uniqueid);
    P("TEAM_CONFIG_INITIALIZER.padding.nonzero", nonzero_bytes(team_config.padding, sizeof team_config.padding));

    P("NVSHMEMX_SUCCESS", NVSHMEMX_SUCCESS);
    P("NVSHMEMX_ERROR_INVALID_VALUE", NVSHMEMX_ERROR_INVALID_VALUE);
    P("NVSHMEMX_ERROR_OUT_OF_MEMORY", NVSHMEMX_ERROR_OUT_OF_MEMORY);
    P("NVSHMEMX_ERROR_NOT_SUPPORTED", NVSHMEMX_ERROR_NOT_SUPPORTED);
    P("NVSHMEMX_ERROR_SYMMETRY", NVSHMEMX_ERROR_SYMMETRY);
    P("NVSHMEMX_ERROR_GPU_NOT_SELECTED", NVSHMEMX_ERROR_GPU_NOT_SELECTED);
    P("NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED", NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED);
    P("NVSHMEMX_ERROR_INTERNAL", NVSHMEMX_ERROR_INTERNAL);
    return 0;
}
