// Shared by the CUDA C++ reference programs of bench/reference (no NVSHMEM here: common.cuh adds
// it): error checks, this PE's place under our launcher (dist/nvshmemrun), the exchange of a
// unique id through the launcher's rendezvous folder, medians, the GPU clock, list parsing.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <cuda_runtime.h>

#define REF_DIE(...)                                                      \
    do {                                                                  \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                   \
        fprintf(stderr, __VA_ARGS__);                                     \
        fprintf(stderr, "\n");                                            \
        fflush(stderr);                                                   \
        exit(1);                                                          \
    } while (0)

// Exits on a CUDA error (set-up paths, where going on makes no sense).
#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) REF_DIE("%s failed: %s", #call, cudaGetErrorString(err_)); \
    } while (0)

// Returns the error text from the enclosing function (measurement paths, which report and go on).
// It also clears the runtime's last error: a failed launch (a cooperative grid that does not fit)
// leaves it set, and the next CUDA_CHECK(cudaGetLastError()) would end the program for it.
#define CUDA_TRY(call)                                                     \
    do {                                                                   \
        cudaError_t err_ = (call);                                         \
        if (err_ != cudaSuccess) {                                         \
            cudaGetLastError();                                            \
            return std::string(#call) + ": " + cudaGetErrorString(err_);   \
        }                                                                  \
    } while (0)

struct PeInfo {
    int pe = 0;
    int n_pes = 1;
    int local_pe = 0;
    int pes_per_gpu = 1;
    int device = 0;
};

static int env_int(const char *name, int fallback) {
    const char *text = getenv(name);
    if (text == nullptr || *text == '\0') return fallback;
    char *end = nullptr;
    long value = strtol(text, &end, 10);
    if (*end != '\0' || value < 0) REF_DIE("%s=%s is not a whole number", name, text);
    return (int)value;
}

// This PE's place as the launcher gives it (NVSHMEMRS_PE, NVSHMEMRS_N_PES, NVSHMEMRS_LOCAL_PE,
// NVSHMEMRS_PES_PER_GPU), and its GPU: LOCAL_PE / PES_PER_GPU, made current. Started without the
// launcher, a program is PE 0 of 1.
static PeInfo pe_from_launcher() {
    PeInfo me;
    me.pe = env_int("NVSHMEMRS_PE", 0);
    me.n_pes = env_int("NVSHMEMRS_N_PES", 1);
    me.local_pe = env_int("NVSHMEMRS_LOCAL_PE", me.pe);
    me.pes_per_gpu = std::max(1, env_int("NVSHMEMRS_PES_PER_GPU", 1));
    int gpus = 0;
    CUDA_CHECK(cudaGetDeviceCount(&gpus));
    me.device = me.local_pe / me.pes_per_gpu;
    if (me.device >= gpus) REF_DIE("PE %d needs GPU %d but %d are visible", me.pe, me.device, gpus);
    CUDA_CHECK(cudaSetDevice(me.device));
    CUDA_CHECK(cudaFree(nullptr));  // creates the primary context now
    return me;
}

// Hands `size` bytes at `id` from PE 0 to every PE through the file `name` in the launcher's
// rendezvous folder (NVSHMEMRS_RENDEZVOUS), as the Rust side does (launcher/src/rendezvous.rs):
// PE 0 calls `make(id)`, writes a temporary file and renames it, so that a reader sees all of it
// or nothing; the others poll every 5 ms for up to 60 s. With one PE, only `make` runs.
template <typename Make>
static void exchange_id(const PeInfo &me, const char *name, void *id, size_t size, Make make) {
    if (me.n_pes == 1) {
        make(id);
        return;
    }
    const char *rendezvous = getenv("NVSHMEMRS_RENDEZVOUS");
    if (rendezvous == nullptr || *rendezvous == '\0')
        REF_DIE("NVSHMEMRS_N_PES=%d but no NVSHMEMRS_RENDEZVOUS: start through nvshmemrun", me.n_pes);
    std::string path = std::string(rendezvous) + "/" + name;
    if (me.pe == 0) {
        make(id);
        std::string partial = std::string(rendezvous) + "/." + name + "." + std::to_string(getpid()) + ".partial";
        FILE *file = fopen(partial.c_str(), "wb");
        if (file == nullptr) REF_DIE("cannot write %s: %s", partial.c_str(), strerror(errno));
        if (fwrite(id, size, 1, file) != 1) REF_DIE("cannot write %s", partial.c_str());
        fflush(file);
        fsync(fileno(file));
        fclose(file);
        if (rename(partial.c_str(), path.c_str()) != 0)
            REF_DIE("cannot rename %s: %s", partial.c_str(), strerror(errno));
        return;
    }
    for (int waited_ms = 0; waited_ms < 60000; waited_ms += 5) {
        struct stat info;
        if (stat(path.c_str(), &info) == 0) {
            if ((size_t)info.st_size != size)
                REF_DIE("%s holds %lld bytes, not %zu", path.c_str(), (long long)info.st_size, size);
            FILE *file = fopen(path.c_str(), "rb");
            if (file == nullptr || fread(id, size, 1, file) != 1) REF_DIE("cannot read %s", path.c_str());
            fclose(file);
            return;
        }
        usleep(5000);
    }
    REF_DIE("PE 0 did not publish %s within 60 s", path.c_str());
}

static double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

// The GPU's nanosecond clock, the same on every multiprocessor.
__device__ __forceinline__ uint64_t globaltimer() {
    uint64_t now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)::"memory");
    return now;
}

// Splits "a,b,c" into its non-empty parts.
static std::vector<std::string> split_list(const std::string &text) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        if (comma == std::string::npos) comma = text.size();
        if (comma > start) parts.push_back(text.substr(start, comma - start));
        start = comma + 1;
    }
    return parts;
}

// A whole number >= 1 (dies otherwise).
static uint32_t parse_whole(const char *flag, const std::string &text) {
    char *end = nullptr;
    unsigned long value = strtoul(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value < 1 || value > 0xffffffffUL)
        REF_DIE("%s takes a whole number >= 1, not `%s`", flag, text.c_str());
    return (uint32_t)value;
}
