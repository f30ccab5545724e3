// The expert-parallel all-to-all in CUDA C++ against NVSHMEM's own headers: the twin of
// examples/moe-alltoall (kernels in examples/moe-alltoall/kernels/src/lib.rs, host in
// examples/moe-alltoall/src). Same buffers, the same layout, the same calls in the same order, the
// same routing from the same seed, the same `result:` line with impl=cuda.
//
//   dist/nvshmemrun -n 4 --pes-per-gpu 4 ./moe_alltoall [--tokens T,...] [--hidden H] [--top-k K]
//       [--experts-per-pe E] [--routing random,skewed,empty-pe] [--seed S] [--check] [--iters N]
//       [--warmup N] [--blocks N] [--threads N]
//
// Differences that follow the languages: the grid barrier is cooperative groups' `grid.sync()`
// (the Rust side uses nvshmem-gpu's GridBarrier, which resumes its counter from the epoch), the
// launch is `nvshmemx_collective_launch`, and the reads of the receive buffers are plain loads
// (the Rust side's slice reads are volatile).
#include <cooperative_groups.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common.cuh"

namespace cg = cooperative_groups;

// ---- the layout (kernels/src/lib.rs: Control, Scratch) ------------------------------------------
// control (u64, symmetric): [0, n) dispatch signal by source, [n, 2n) combine signal by expert PE,
// [2n, 2n + n * pairs) metadata by (source, slot). scratch (u32, local): the cursor of each
// destination, then each pair's slot.

// Visits start, start + step, ... below end: four at a time while four remain, then one at a time,
// as the Rust kernels' strided_by_four (every load of the four issued before any value is used).
template <typename Four, typename One>
__device__ __forceinline__ void strided_by_four(size_t start, size_t end, size_t step, Four four, One one) {
    size_t index = start;
    for (; index < end && end - index > 3 * step; index += 4 * step) four(index, step);
    for (; index < end; index += step) one(index);
}

__global__ void dispatch(const float *tokens, const uint32_t *experts, float *received, uint64_t *control,
                         uint32_t *scratch, size_t pairs, size_t hidden, uint32_t epoch, uint32_t k,
                         uint32_t experts_per_pe) {
    cg::grid_group grid = cg::this_grid();
    const size_t n = nvshmem_n_pes(), me = nvshmem_my_pe();
    uint32_t *cursors = scratch, *slots = scratch + n;
    size_t per_block = (pairs + gridDim.x - 1) / gridDim.x;
    size_t start = min(blockIdx.x * per_block, pairs), end = min(start + per_block, pairs);
    for (size_t pair = start + threadIdx.x; pair < end; pair += blockDim.x) {
        uint32_t expert = experts[pair];
        int dest = expert / experts_per_pe;
        uint32_t slot = atomicAdd(&cursors[dest], 1u);
        slots[pair] = slot;
        nvshmem_uint64_p(&control[2 * n + me * pairs + slot], ((uint64_t)pair << 32) | expert, dest);
    }
    __syncthreads();
    for (size_t pair = start; pair < end; pair++) {
        int dest = experts[pair] / experts_per_pe;
        size_t row = me * pairs + slots[pair];
        size_t token = pair / k;
        nvshmemx_float_put_block(received + row * hidden, tokens + token * hidden, hidden, dest);
    }
    nvshmem_quiet();
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x < n) {
        int dest = threadIdx.x;
        uint32_t rows = cursors[dest];
        cursors[dest] = 0;
        nvshmemx_signal_op(&control[me], ((uint64_t)epoch << 32) | rows, NVSHMEM_SIGNAL_SET, dest);
    }
}

__global__ void combine(float *received, float *combine_in, const float *weights, float *out, uint64_t *control,
                        size_t pairs, size_t hidden, size_t tokens, uint32_t epoch, uint32_t k) {
    cg::grid_group grid = cg::this_grid();
    const size_t n = nvshmem_n_pes(), me = nvshmem_my_pe();
    for (size_t source = 0; source < n; source++) {
        if (threadIdx.x == 0) nvshmem_signal_wait_until(&control[source], NVSHMEM_CMP_GE, (uint64_t)epoch << 32);
        __syncthreads();
        size_t rows = (uint32_t)((volatile uint64_t *)control)[source];
        for (size_t slot = blockIdx.x; slot < rows; slot += gridDim.x) {
            uint64_t meta = ((volatile uint64_t *)control)[2 * n + source * pairs + slot];
            size_t pair = meta >> 32;
            float scale = (float)((uint32_t)meta + 1);
            float *row = received + (source * pairs + slot) * hidden;
            strided_by_four(
                threadIdx.x, hidden, blockDim.x,
                [&](size_t h, size_t step) {
                    float v0 = row[h], v1 = row[h + step], v2 = row[h + 2 * step], v3 = row[h + 3 * step];
                    row[h] = __fmul_rn(v0, scale);
                    row[h + step] = __fmul_rn(v1, scale);
                    row[h + 2 * step] = __fmul_rn(v2, scale);
                    row[h + 3 * step] = __fmul_rn(v3, scale);
                },
                [&](size_t h) { row[h] = __fmul_rn(row[h], scale); });
            __syncthreads();
            nvshmemx_float_put_block(combine_in + pair * hidden, row, hidden, source);
        }
    }
    nvshmem_quiet();
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x < n) nvshmemx_signal_op(&control[n + me], epoch, NVSHMEM_SIGNAL_SET, threadIdx.x);
    if (threadIdx.x == 0)
        for (size_t expert_pe = 0; expert_pe < n; expert_pe++)
            nvshmem_signal_wait_until(&control[n + expert_pe], NVSHMEM_CMP_GE, epoch);
    __syncthreads();
    strided_by_four(
        (size_t)blockIdx.x * blockDim.x + threadIdx.x, tokens * hidden, (size_t)gridDim.x * blockDim.x,
        [&](size_t index, size_t step) {
            float sums[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (size_t choice = 0; choice < k; choice++) {
                float weight[4], value[4];
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    size_t at = index + j * step, pair = at / hidden * k + choice;
                    weight[j] = weights[pair];
                    value[j] = combine_in[pair * hidden + at % hidden];
                }
#pragma unroll
                for (int j = 0; j < 4; j++) sums[j] = __fadd_rn(sums[j], __fmul_rn(weight[j], value[j]));
            }
#pragma unroll
            for (int j = 0; j < 4; j++) out[index + j * step] = sums[j];
        },
        [&](size_t index) {
            size_t token = index / hidden, h = index % hidden;
            float sum = 0.0f;
            for (size_t choice = 0; choice < k; choice++) {
                size_t pair = token * k + choice;
                sum = __fadd_rn(sum, __fmul_rn(weights[pair], combine_in[pair * hidden + h]));
            }
            out[index] = sum;
        });
}

// ---- the problem (src/routing.rs) ----------------------------------------------------------------

struct SplitMix64 {
    uint64_t state;
    uint64_t next() {
        state += 0x9e3779b97f4a7c15ull;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    uint32_t below(uint32_t bound) { return (uint32_t)(next() % bound); }
};

enum Routing { RANDOM, SKEWED, EMPTY_PE };
static const char *ROUTING_NAMES[] = {"random", "skewed", "empty-pe"};

struct Problem {
    std::vector<float> tokens, weights;
    std::vector<uint32_t> experts;
};

static Problem make_problem(size_t n_tokens, size_t hidden, uint32_t k, uint32_t n_pes, uint32_t experts_per_pe,
                            Routing routing, uint64_t seed, uint32_t pe) {
    SplitMix64 rng{seed ^ ((uint64_t)pe + 1) * 0x2545f4914f6cdd1dull};
    uint32_t total = n_pes * experts_per_pe;
    uint32_t eligible = routing == EMPTY_PE ? total - experts_per_pe : total;
    Problem p;
    for (size_t t = 0; t < n_tokens; t++) {
        size_t chosen_from = p.experts.size();
        for (uint32_t c = 0; c < k; c++) {
            bool favourite = routing == SKEWED && rng.below(4) != 0;
            for (;;) {
                uint32_t expert = rng.below(favourite ? experts_per_pe : eligible);
                bool taken = false;
                for (size_t i = chosen_from; i < p.experts.size(); i++) taken |= p.experts[i] == expert;
                if (!taken) {
                    p.experts.push_back(expert);
                    break;
                }
                favourite = favourite && rng.below(4) != 0;
            }
        }
    }
    for (size_t i = 0; i < n_tokens * k; i++) p.weights.push_back((float)(1 + rng.below(255)) / 256.0f);
    for (size_t i = 0; i < n_tokens * hidden; i++)
        p.tokens.push_back((float)(((uint64_t)pe * 7 + (i / hidden) * 13 + i % hidden) % 61 + 1) / 8.0f);
    return p;
}

// Tokens whose result differs from the CPU's (every bit).
static size_t wrong_tokens(const Problem &p, const std::vector<float> &got, size_t hidden, uint32_t k) {
    size_t wrong = 0;
    for (size_t t = 0; t < got.size() / hidden; t++) {
        bool bad = false;
        for (size_t h = 0; h < hidden; h++) {
            float sum = 0.0f;
            for (uint32_t c = 0; c < k; c++)
                sum += p.weights[t * k + c] * (p.tokens[t * hidden + h] * (float)(p.experts[t * k + c] + 1));
            bad |= memcmp(&sum, &got[t * hidden + h], sizeof sum) != 0;
        }
        wrong += bad;
    }
    return wrong;
}

// ---- the run (src/main.rs) -----------------------------------------------------------------------

struct Options {
    std::vector<uint32_t> tokens{128, 256, 512, 1024, 2048, 4096};
    uint32_t hidden = 4096, top_k = 2, experts_per_pe = 4, iters = 20, warmup = 3, threads = 256, blocks = 0;
    std::vector<Routing> routings{RANDOM};
    uint64_t seed = 48;
    bool check = false;
};

static Options parse(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; i++) {
        std::string flag = argv[i];
        if (flag == "--check") {
            o.check = true;
            continue;
        }
        if (i + 1 >= argc) REF_DIE("%s needs a value", flag.c_str());
        std::string value = argv[++i];
        if (flag == "--tokens") {
            o.tokens.clear();
            for (auto &part : split_list(value)) o.tokens.push_back(parse_whole("--tokens", part));
        } else if (flag == "--hidden") {
            o.hidden = parse_whole("--hidden", value);
        } else if (flag == "--top-k") {
            o.top_k = parse_whole("--top-k", value);
        } else if (flag == "--experts-per-pe") {
            o.experts_per_pe = parse_whole("--experts-per-pe", value);
        } else if (flag == "--seed") {
            o.seed = strtoull(value.c_str(), nullptr, 10);
        } else if (flag == "--iters") {
            o.iters = value == "0" ? 0 : parse_whole("--iters", value);
        } else if (flag == "--warmup") {
            o.warmup = value == "0" ? 0 : parse_whole("--warmup", value);
        } else if (flag == "--blocks") {
            o.blocks = parse_whole("--blocks", value);
        } else if (flag == "--threads") {
            o.threads = parse_whole("--threads", value);
        } else if (flag == "--routing") {
            o.routings.clear();
            for (auto &part : split_list(value)) {
                int r = 0;
                while (r < 3 && part != ROUTING_NAMES[r]) r++;
                if (r == 3) REF_DIE("--routing takes random, skewed or empty-pe, not `%s`", part.c_str());
                o.routings.push_back((Routing)r);
            }
        } else {
            REF_DIE("unknown flag %s", flag.c_str());
        }
    }
    return o;
}

int main(int argc, char **argv) {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    Options o = parse(argc, argv);
    PeInfo me = start_nvshmem();
    const size_t n = me.n_pes, hidden = o.hidden, k = o.top_k;
    if (n * o.experts_per_pe > 128) REF_DIE("more than 128 experts: lower --experts-per-pe");
    int sms = 0, dispatch_per_sm = 0, combine_per_sm = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, me.device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&dispatch_per_sm, dispatch, o.threads, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&combine_per_sm, combine, o.threads, 0));
    int blocks = o.blocks != 0 ? (int)o.blocks : std::min(sms, std::min(dispatch_per_sm, combine_per_sm) * sms);
    bool failed = false;
    for (uint32_t n_tokens : o.tokens) {
        size_t pairs = (size_t)n_tokens * k;
        auto *tokens = (float *)nvshmem_malloc(n_tokens * hidden * sizeof(float));
        auto *experts = (uint32_t *)nvshmem_malloc(pairs * sizeof(uint32_t));
        auto *weights = (float *)nvshmem_malloc(pairs * sizeof(float));
        auto *received = (float *)nvshmem_malloc(n * pairs * hidden * sizeof(float));
        auto *combine_in = (float *)nvshmem_calloc(pairs * hidden, sizeof(float));
        auto *out = (float *)nvshmem_calloc(n_tokens * hidden, sizeof(float));
        auto *control = (uint64_t *)nvshmem_calloc(2 * n + n * pairs, sizeof(uint64_t));
        uint32_t *scratch = nullptr;
        CUDA_CHECK(cudaMalloc(&scratch, (n + pairs) * sizeof(uint32_t)));
        CUDA_CHECK(cudaMemset(scratch, 0, (n + pairs) * sizeof(uint32_t)));
        if (!tokens || !experts || !weights || !received || !combine_in || !out || !control)
            REF_DIE("nvshmem_malloc failed for %u tokens (NVSHMEM_SYMMETRIC_SIZE?)", n_tokens);
        uint32_t epoch = 0, k32 = o.top_k;
        size_t hidden_z = hidden, n_tokens_z = n_tokens;
        auto round = [&] {
            epoch++;
            void *dispatch_args[] = {&tokens, &experts, &received, &control, &scratch, &pairs,
                                     &hidden_z, &epoch, &k32, &o.experts_per_pe};
            CUDA_CHECK((cudaError_t)nvshmemx_collective_launch((const void *)dispatch, blocks, o.threads,
                                                                dispatch_args, 0, 0));
            void *combine_args[] = {&received, &combine_in, &weights, &out, &control, &pairs,
                                    &hidden_z, &n_tokens_z, &epoch, &k32};
            CUDA_CHECK((cudaError_t)nvshmemx_collective_launch((const void *)combine, blocks, o.threads,
                                                                combine_args, 0, 0));
        };
        for (Routing routing : o.routings) {
            if ((routing == EMPTY_PE ? (n - 1) * o.experts_per_pe : n * o.experts_per_pe) < k)
                REF_DIE("routing %s leaves fewer experts than --top-k", ROUTING_NAMES[routing]);
            Problem p = make_problem(n_tokens, hidden, o.top_k, n, o.experts_per_pe, routing, o.seed, me.pe);
            CUDA_CHECK(cudaMemcpy(tokens, p.tokens.data(), p.tokens.size() * sizeof(float), cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemcpy(experts, p.experts.data(), pairs * sizeof(uint32_t), cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemcpy(weights, p.weights.data(), pairs * sizeof(float), cudaMemcpyHostToDevice));
            char what[256];
            snprintf(what, sizeof what, "pes %zu tokens %u hidden %zu k %zu experts %zu routing %s", n, n_tokens,
                     hidden, k, n * o.experts_per_pe, ROUTING_NAMES[routing]);
            if (o.check) {
                CUDA_CHECK(cudaMemset(out, 0, n_tokens * hidden * sizeof(float)));
                CUDA_CHECK(cudaMemset(combine_in, 0, pairs * hidden * sizeof(float)));
                CUDA_CHECK(cudaDeviceSynchronize());
                nvshmem_barrier_all();
                round();
                CUDA_CHECK(cudaDeviceSynchronize());
                std::vector<float> got(n_tokens * hidden);
                CUDA_CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
                size_t wrong = wrong_tokens(p, got, hidden, o.top_k);
                if (wrong == 0) {
                    printf("check: %s: PE %d: all %u tokens equal the CPU reference\n", what, me.pe, n_tokens);
                } else {
                    printf("check: %s: PE %d differs: %zu of %u tokens wrong\n", what, me.pe, wrong, n_tokens);
                    failed = true;
                }
            }
            if (o.iters > 0) {
                CUDA_CHECK(cudaDeviceSynchronize());
                nvshmem_barrier_all();
                for (uint32_t i = 0; i < o.warmup; i++) round();
                cudaEvent_t start, stop;
                CUDA_CHECK(cudaEventCreate(&start));
                CUDA_CHECK(cudaEventCreate(&stop));
                CUDA_CHECK(cudaEventRecord(start, 0));
                for (uint32_t i = 0; i < o.iters; i++) round();
                CUDA_CHECK(cudaEventRecord(stop, 0));
                CUDA_CHECK(cudaEventSynchronize(stop));
                float ms = 0;
                CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
                double seconds = ms / 1e3 / o.iters;
                if (me.pe == 0)
                    printf("result: moe-alltoall impl=cuda %s: %.1f us per dispatch+combine, %.1f GB/s\n", what,
                           seconds * 1e6, 2.0 * pairs * hidden * sizeof(float) / seconds / 1e9);
                CUDA_CHECK(cudaEventDestroy(start));
                CUDA_CHECK(cudaEventDestroy(stop));
            }
        }
        CUDA_CHECK(cudaDeviceSynchronize());
        nvshmem_barrier_all();
        CUDA_CHECK(cudaFree(scratch));
        nvshmem_free(control);
        nvshmem_free(out);
        nvshmem_free(combine_in);
        nvshmem_free(received);
        nvshmem_free(weights);
        nvshmem_free(experts);
        nvshmem_free(tokens);
    }
    nvshmem_finalize();
    return failed ? 1 : 0;
}
