// The autotuner: times a mode's candidate launch configurations on the
// user's image (uploaded once, CUDA events, median of repeats), keeps the
// fastest in the tuning cache, and re-times best and default side by side so
// the choice is never slower than the default by more than noise.
#include "tuning.hpp"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "device_buffer.hpp"
#include "pipeline.hpp"

namespace fs::gpu {
namespace {

TuneCache& processCache() {
    static TuneCache cache(TuneCache::defaultPath());
    static std::once_flag loaded;
    std::call_once(loaded, [] { cache.load(); });  // an unusable file leaves the cache empty
    return cache;
}

TuneKey keyFor(const ModeImpl& mode, const PreparedFilter& f, int width, int height) {
    TuneKey key;
    key.gpu = deviceProps().name;  // not cudaDeviceName(): runPipeline asks while holding the device lock
    key.mode = mode.id;
    key.radiusX = f.math.kw / 2;
    key.radiusY = f.math.kh / 2;
    key.depth = f.inDepth;
    key.channels = f.channels;
    key.kernels = f.math.kernelCount;
    key.sizeClass = sizeClass(width, height);
    return key;
}

// Block shapes from the range (8x8 ... 32x32, 32x4 ... 64x16) and
// outputs per thread each mode is built for; refusals are kept in the table.
std::vector<LaunchConfig> candidates(const ModeImpl& mode) {
    static const int blocks[][2] = {{8, 8},   {16, 8},  {16, 16}, {32, 4},  {32, 8}, {32, 16},
                                    {32, 32}, {64, 4},  {64, 8},  {64, 16}, {128, 4}};
    std::vector<std::pair<int, int>> perThread;
    const std::string id = mode.id;
    if (id == "shared") perThread = {{1, 1}, {1, 2}, {1, 4}, {1, 8}, {2, 2}, {2, 4}, {2, 8}};
    else if (id == "registers") perThread = {{1, 2}, {1, 4}, {1, 8}, {1, 16}, {2, 2}, {2, 4}, {2, 8}, {4, 2}, {4, 4}, {4, 8}};
    else if (id == "separable") perThread = {{1, 2}, {1, 4}, {1, 8}};
    else perThread = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 4}, {4, 1}};
    std::vector<LaunchConfig> out;
    for (const auto& b : blocks)
        for (const auto& p : perThread) out.push_back(LaunchConfig{b[0], b[1], p.first, p.second, {}, {}});
    return out;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

struct DeviceImage {
    DeviceBuffer src, dst, weights;
};

}  // namespace

LaunchConfig tunedConfig(const ModeImpl& mode, const PreparedFilter& f, int width, int height) {
    const std::optional<LaunchConfig> cached = processCache().find(keyFor(mode, f, width, height));
    if (!cached) return {};
    LaunchPlan plan;
    return mode.plan(f, *cached, width, height, plan).empty() ? *cached : LaunchConfig{};
}

std::string resetCudaTuning() { return processCache().reset(); }

std::string resolveMode(const FilterSpec& spec, Depth depth, int channels, const std::string& modeId,
                        ResolvedLaunch& out) {
    if (std::string why = prepareFilter(spec, depth, channels, out.filter); !why.empty()) return why;
    out.mode = findModeImpl(modeId, out.filter);
    if (!out.mode) return "unknown CUDA mode '" + modeId + "'";
    if (!(out.reason = out.mode->supports(out.filter)).empty())
        return std::string("mode ") + out.mode->id + ": " + out.reason;
    return {};
}

std::string resolveLaunch(const FilterSpec& spec, Depth depth, int channels, const std::string& modeId,
                          const LaunchConfig& launch, int width, int height, ResolvedLaunch& out) {
    if (std::string why = resolveMode(spec, depth, channels, modeId, out); !why.empty()) return why;
    out.config = modeId == "auto" && launch.isDefault() ? tunedConfig(*out.mode, out.filter, width, height) : launch;
    if (!(out.reason = out.mode->plan(out.filter, out.config, width, height, out.plan)).empty())
        return std::string("mode ") + out.mode->id + ", " + out.config.toString() + ": " + out.reason;
    return {};
}

LaunchReport describeCudaLaunch(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                                const std::string& modeId, const LaunchConfig& launch) {
    LaunchReport report;
    report.mode = modeId;
    if (std::string why = cudaUnavailableReason(); !why.empty()) return report.error = why, report;
    if (width < 1 || height < 1) return report.error = "no image", report;
    ResolvedLaunch r;
    const std::string why = resolveLaunch(spec, depth, channels, modeId, launch, width, height, r);
    if (r.mode) report.mode = r.mode->id;
    if (!why.empty()) {
        // The report names the mode and configuration itself: the reason alone.
        report.error = r.reason.empty() ? why : r.reason;
        report.config = r.config;
        return report;
    }
    return reportPlan(r.plan, r.mode->id);
}

TuneResult tuneCudaMode(const FilterSpec& spec, ConstImageView input, const std::string& modeId,
                        const TuneOptions& options, const TuneProgress& progress) {
    TuneResult result;
    result.mode = modeId;
    if (std::string why = validateRun(spec, input); !why.empty()) return result.error = why, result;
    ResolvedLaunch resolved;
    const std::string unresolved = resolveLaunch(spec, input.depth, input.channels, modeId, LaunchConfig{},
                                                 input.width, input.height, resolved);
    if (resolved.mode) result.mode = resolved.mode->id;
    if (!unresolved.empty()) return result.error = unresolved, result;
    PreparedFilter& f = resolved.filter;
    const ModeImpl* mode = resolved.mode;
    const TuneKey key = keyFor(*mode, f, input.width, input.height);
    const int repeats = std::max(1, options.repeats), warmup = std::max(0, options.warmup);

    if (options.useCache) {
        if (std::optional<LaunchConfig> cached = processCache().find(key)) {
            LaunchPlan plan;
            if (mode->plan(f, *cached, input.width, input.height, plan).empty()) {
                result.best = plan.config;
                result.fromCache = true;
            }
        }
    }

    const std::string problem = withDevice([&](cudaStream_t stream) -> std::string {
        const Depth outDepth = spec.outputDepth(input.depth);
        const std::size_t inRow = input.rowBytes();
        const std::size_t outRow = depthBytes(outDepth) * input.channels * static_cast<std::size_t>(input.width);
        const std::size_t inPitch = (inRow + 511) / 512 * 512, outPitch = (outRow + 511) / 512 * 512;
        std::size_t freeBytes = 0, totalBytes = 0;
        cudaMemGetInfo(&freeBytes, &totalBytes);
        if ((inPitch + outPitch) * input.height > freeBytes / 10 * 8)
            return "the image is too large to tune in one piece on this device; tune a smaller image of the same "
                   "kind (results are kept per size class)";
        DeviceImage d;
        cudaError_t err = cudaSuccess;
        auto fail = [&](const char* what) {
            cudaGetLastError();
            return std::string(what) + ": " + cudaGetErrorString(err);
        };
        if ((err = d.src.reserve(inPitch * input.height)) != cudaSuccess ||
            (err = d.dst.reserve(outPitch * input.height)) != cudaSuccess ||
            (err = d.weights.reserve(f.weights.size() * sizeof(float))) != cudaSuccess)
            return fail("allocating device memory for tuning");
        if ((err = cudaMemcpy2DAsync(d.src.get(), inPitch, input.data, input.stride, inRow, input.height,
                                     cudaMemcpyHostToDevice, stream)) != cudaSuccess ||
            (err = cudaMemcpyAsync(d.weights.get(), f.weights.data(), f.weights.size() * sizeof(float),
                                   cudaMemcpyHostToDevice, stream)) != cudaSuccess)
            return fail("uploading the image for tuning");
        f.deviceWeights = static_cast<const float*>(d.weights.get());
        if ((err = mode->prepare(f, stream)) != cudaSuccess || (err = cudaStreamSynchronize(stream)) != cudaSuccess)
            return fail("uploading the weights");

        LaunchArgs args;
        args.filter = &f;
        KernelGeom& g = args.geom;
        g.src = d.src.data();
        g.srcPitch = inPitch;
        g.dst = d.dst.data();
        g.dstPitch = outPitch;
        g.width = input.width;
        g.imageHeight = input.height;
        g.srcRows = input.height;
        g.outRows = input.height;
        g.border = spec.border.mode;
        g.borderValue = spec.border.value;

        cudaEvent_t start = nullptr, stop = nullptr;
        cudaEventCreate(&start);
        cudaEventCreate(&stop);
        // Median kernel ms of one configuration, or why it cannot run.
        auto time = [&](const LaunchConfig& config, double& ms) -> std::string {
            LaunchPlan plan;
            if (std::string why = mode->plan(f, config, input.width, input.height, plan); !why.empty()) return why;
            args.config = config;
            std::vector<double> samples;
            for (int i = 0; i < warmup + repeats; ++i) {
                cudaEventRecord(start, stream);
                err = mode->launch(args, stream);
                cudaEventRecord(stop, stream);
                if (err == cudaSuccess) err = cudaEventSynchronize(stop);
                if (err != cudaSuccess) {
                    cudaGetLastError();
                    return std::string("launch failed: ") + cudaGetErrorString(err);
                }
                float t = 0.0f;
                cudaEventElapsedTime(&t, start, stop);
                if (i >= warmup) samples.push_back(t);
            }
            ms = median(samples);
            return {};
        };
        auto finish = [&](std::string message) {
            cudaEventDestroy(start);
            cudaEventDestroy(stop);
            return message;
        };

        LaunchPlan defaultPlan;
        if (std::string why = mode->plan(f, LaunchConfig{}, input.width, input.height, defaultPlan); !why.empty())
            return finish(why);
        result.defaultConfig = defaultPlan.config;
        if (std::string why = time(LaunchConfig{}, result.defaultMs); !why.empty()) return finish(why);
        if (result.fromCache) {
            std::string why = time(result.best, result.bestMs);
            return finish(why);
        }

        std::vector<LaunchConfig> list = candidates(*mode);
        const int total = static_cast<int>(list.size()) + 3;  // + the second stage and the confirmation
        int done = 0;
        auto step = [&] { return !progress || progress(++done, total); };
        TuneEntry best{result.defaultConfig, result.defaultMs, {}};
        auto consider = [&](const LaunchConfig& c) {
            TuneEntry e;
            LaunchPlan plan;
            e.error = mode->plan(f, c, input.width, input.height, plan);
            e.config = e.error.empty() ? plan.config : c;
            if (e.error.empty()) e.error = time(c, e.medianMs);
            if (e.error.empty() && e.medianMs < best.medianMs) best = e;
            result.entries.push_back(e);
        };
        for (const LaunchConfig& c : list) {
            consider(c);
            if (!step()) return result.cancelled = true, finish({});
        }
        // Second stage on the winner: the other halo scheme and the run-time radius.
        const LaunchConfig winner = best.config;
        LaunchConfig other = winner;
        other.halo = winner.halo == HaloScheme::PerThread ? HaloScheme::Cooperative : HaloScheme::PerThread;
        if (winner.halo != HaloScheme::Default) consider(other);
        if (!step()) return result.cancelled = true, finish({});
        if (winner.radius == RadiusPath::Compiled) {
            LaunchConfig runtime = winner;
            runtime.radius = RadiusPath::Runtime;
            consider(runtime);
        }
        if (!step()) return result.cancelled = true, finish({});

        // Confirmation: best and default alternately, three rounds each.
        std::vector<double> bestMs, defaultMs;
        for (int round = 0; round < 3 && best.config != result.defaultConfig; ++round) {
            double a = 0, b = 0;
            if (!time(best.config, a).empty() || !time(LaunchConfig{}, b).empty()) break;
            bestMs.push_back(a), defaultMs.push_back(b);
        }
        if (!bestMs.empty() && median(bestMs) < median(defaultMs)) {
            result.best = best.config;
            result.bestMs = median(bestMs);
            result.defaultMs = median(defaultMs);
        } else {
            result.best = result.defaultConfig;
            result.bestMs = result.defaultMs;
        }
        step();
        return finish({});
    });
    if (!problem.empty()) {
        result.error = problem;
        return result;
    }
    if (result.fromCache) {
        result.note = "from the tuning cache " + processCache().path();
        return result;
    }
    if (!result.cancelled && options.storeResult) {
        processCache().store(key, result.best, result.bestMs);
        const std::string why = processCache().save();
        result.note = why.empty() ? "stored in " + processCache().path() : "not stored: " + why;
    }
    return result;
}

}  // namespace fs::gpu
