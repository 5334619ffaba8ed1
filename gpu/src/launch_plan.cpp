// The checks and the report every mode's launch plan shares: what the device
// and the kernel's compiled attributes allow (cudaFuncGetAttributes,
// cudaOccupancyMaxActiveBlocksPerMultiprocessor), so a refused configuration
// always says which resource ran out.
#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "launch.hpp"

namespace fs::gpu {
namespace {

std::string kb(std::size_t bytes) { return std::to_string((bytes + 512) / 1024) + " KB"; }

}  // namespace

std::string refuseKnob(const char* mode, const char* what) {
    return std::string("the ") + mode + " mode has no " + what;
}

int pickCount(int requested, int fallback, std::initializer_list<int> allowed) {
    const int v = requested > 0 ? requested : fallback;
    return std::find(allowed.begin(), allowed.end(), v) != allowed.end() ? v : -1;
}

std::string countList(std::initializer_list<int> allowed) {
    std::string s;
    int i = 0;
    for (int v : allowed) {
        if (i > 0) s += i + 1 == static_cast<int>(allowed.size()) ? " or " : ", ";
        s += std::to_string(v);
        ++i;
    }
    return s;
}

dim3 pickBlock(const LaunchConfig& want, dim3 fallback) {
    if (want.blockX > 0 && want.blockY > 0)
        return dim3(static_cast<unsigned>(want.blockX), static_cast<unsigned>(want.blockY));
    return fallback;
}

dim3 gridFor(int width, int rows, dim3 block, int perThreadX, int perThreadY) {
    return dim3(ceilDiv(width, static_cast<int>(block.x) * perThreadX),
                ceilDiv(std::max(rows, 1), static_cast<int>(block.y) * perThreadY));
}

const char* refusalReasonName(RefusalReason reason) {
    switch (reason) {
    case RefusalReason::None: return "none";
    case RefusalReason::UnknownMode: return "unknown mode";
    case RefusalReason::InvalidFilter: return "invalid filter";
    case RefusalReason::FilterUnsupported: return "filter unsupported";
    case RefusalReason::ConfigRefused: return "configuration refused";
    case RefusalReason::DeviceLimit: return "device limit";
    case RefusalReason::NoDevice: return "no device";
    }
    return "?";
}

Refusal supportedIfPlans(ModeImpl::PlanFn plan, const PreparedFilter& f) {
    LaunchPlan unused;
    Refusal r = plan(f, LaunchConfig{}, 64, 64, unused);
    if (r.ok() || r.reason == RefusalReason::NoDevice) return {};
    r.reason = RefusalReason::FilterUnsupported;
    return r;
}

std::vector<LaunchConfig> candidateGrid(std::initializer_list<std::pair<int, int>> perThread) {
    static const int blocks[][2] = {{8, 8},   {16, 8},  {16, 16}, {32, 4},  {32, 8}, {32, 16},
                                    {32, 32}, {64, 4},  {64, 8},  {64, 16}, {128, 4}};
    std::vector<LaunchConfig> out;
    for (const auto& b : blocks)
        for (const auto& p : perThread) out.push_back(LaunchConfig{b[0], b[1], p.first, p.second, {}, {}});
    return out;
}

namespace {
// What the device says about one (kernel, block, shared memory) choice never
// changes: remembered, so a launch per pipeline piece does not re-query it.
Refusal checkResources(const LaunchPlan& plan);
}  // namespace

Refusal checkPlan(const LaunchPlan& plan) {
    if (!plan.kernel)  // a variant left out of this build (kernel_variants.hpp)
        return {RefusalReason::ConfigRefused, "this configuration's kernel is not built (-DFS_CUDA_ALL_VARIANTS=ON builds it)"};
    if (!deviceUsable()) return {RefusalReason::NoDevice, "no usable CUDA device to check the launch against"};
    const cudaDeviceProp& p = deviceProps();
    if (plan.grid.y > static_cast<unsigned>(p.maxGridSize[1]) || plan.grid.x > static_cast<unsigned>(p.maxGridSize[0]))
        return {RefusalReason::DeviceLimit, "the grid " + std::to_string(plan.grid.x) + "x" + std::to_string(plan.grid.y) +
                                                " exceeds the device's limit; use a taller block or more outputs per thread"};
    using Key = std::tuple<const void*, unsigned, unsigned, std::size_t>;
    static std::mutex mutex;
    static std::map<Key, Refusal> known;
    const Key key{plan.kernel.address(), plan.block.x, plan.block.y, plan.sharedBytes};
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (auto it = known.find(key); it != known.end()) return it->second;
    }
    Refusal verdict = checkResources(plan);
    if (verdict.reason == RefusalReason::NoDevice) return verdict;  // may change once a device is usable
    std::lock_guard<std::mutex> lock(mutex);
    known.emplace(key, verdict);
    return verdict;
}

namespace {
Refusal checkResources(const LaunchPlan& plan) {
    const auto limit = [](std::string why) { return Refusal{RefusalReason::DeviceLimit, std::move(why)}; };
    const cudaDeviceProp& p = deviceProps();
    const int threads = static_cast<int>(plan.block.x * plan.block.y);
    if (plan.block.x > static_cast<unsigned>(p.maxThreadsDim[0]) || plan.block.y > static_cast<unsigned>(p.maxThreadsDim[1]))
        return limit("block " + std::to_string(plan.block.x) + "x" + std::to_string(plan.block.y) +
               " exceeds the device's block dimensions (" + std::to_string(p.maxThreadsDim[0]) + "x" +
               std::to_string(p.maxThreadsDim[1]) + ")");
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, plan.kernel.address()) != cudaSuccess) {
        cudaGetLastError();
        return {RefusalReason::NoDevice, "cannot read the kernel's attributes (no usable CUDA device)"};
    }
    if (threads > attr.maxThreadsPerBlock)
        return limit(std::to_string(threads) + " threads per block: this kernel launches at most " +
               std::to_string(attr.maxThreadsPerBlock) + " (" + std::to_string(attr.numRegs) +
               " registers per thread; its __launch_bounds__ and the " + std::to_string(p.regsPerBlock) +
               " registers of a block limit it)");
    const std::size_t shared = plan.sharedBytes + attr.sharedSizeBytes;
    if (shared > p.sharedMemPerBlockOptin)
        return limit("the tile with its halo needs " + kb(shared) + " of shared memory per block; this device allows " +
               kb(p.sharedMemPerBlockOptin));
    if (plan.sharedBytes > 48 * 1024 &&
        cudaFuncSetAttribute(plan.kernel.address(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(plan.sharedBytes)) != cudaSuccess) {
        cudaGetLastError();
        return limit("the device refused " + kb(plan.sharedBytes) + " of dynamic shared memory for this kernel");
    }
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, plan.kernel.address(), threads, plan.sharedBytes) != cudaSuccess) {
        cudaGetLastError();
        return limit("the occupancy calculator refused this launch");
    }
    if (blocks < 1) return "no block of this shape fits on a multiprocessor (registers or shared memory)";
    return {};
}
}  // namespace

LaunchReport reportPlan(const LaunchPlan& plan, const std::string& mode) {
    LaunchReport r;
    r.mode = mode;
    r.config = plan.config;
    r.kernel = plan.variant;
    r.threadsPerBlock = static_cast<int>(plan.block.x * plan.block.y);
    r.gridX = static_cast<int>(plan.grid.x);
    r.gridY = static_cast<int>(plan.grid.y);
    r.sharedBytesPerBlock = plan.sharedBytes;
    if (const Refusal why = checkPlan(plan); !why.ok()) {
        r.error = why.message;
        return r;
    }
    const cudaDeviceProp& p = deviceProps();
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, plan.kernel.address());
    r.registersPerThread = attr.numRegs;
    r.sharedBytesPerBlock = plan.sharedBytes + attr.sharedSizeBytes;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.activeBlocksPerSM, plan.kernel.address(), r.threadsPerBlock,
                                                  plan.sharedBytes);
    const int warpsPerBlock = (r.threadsPerBlock + p.warpSize - 1) / p.warpSize;
    r.maxWarpsPerSM = p.maxThreadsPerMultiProcessor / p.warpSize;
    r.activeWarpsPerSM = r.activeBlocksPerSM * warpsPerBlock;

    // Which resource stops one more block: the smallest of the separate limits.
    const int byThreads = p.maxThreadsPerMultiProcessor / (warpsPerBlock * p.warpSize);
    const int byBlocks = p.maxBlocksPerMultiProcessor;
    const int regsPerWarp = (attr.numRegs * p.warpSize + 255) / 256 * 256;  // allocation unit: 256 registers
    const int byRegisters = attr.numRegs > 0 ? p.regsPerMultiprocessor / (regsPerWarp * warpsPerBlock) : byBlocks;
    const std::size_t perBlockShared = r.sharedBytesPerBlock + p.reservedSharedMemPerBlock;
    const int byShared = r.sharedBytesPerBlock > 0 ? static_cast<int>(p.sharedMemPerMultiprocessor / perBlockShared)
                                                   : byBlocks;
    // Every resource that alone allows no more blocks than the tightest one.
    const int least = std::min({byThreads, byBlocks, byRegisters, byShared});
    r.limiter.clear();
    auto add = [&](int limit, const char* name) {
        if (limit == least) r.limiter += (r.limiter.empty() ? "" : " and ") + std::string(name);
    };
    add(byShared, "shared memory");
    add(byRegisters, "registers");
    add(byThreads, "threads");
    add(byBlocks, "blocks per SM");
    const long long blocks = static_cast<long long>(plan.grid.x) * plan.grid.y;
    if (blocks < static_cast<long long>(r.activeBlocksPerSM) * p.multiProcessorCount)
        r.limiter += " (and the grid: " + std::to_string(blocks) + " blocks do not fill " +
                     std::to_string(p.multiProcessorCount) + " multiprocessors)";
    return r;
}

}  // namespace fs::gpu
