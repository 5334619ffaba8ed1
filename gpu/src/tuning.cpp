// The autotuner: times a mode's candidate launch configurations on the
// user's image (uploaded once, CUDA events, median of repeats), keeps the
// fastest in the tuning cache, and re-times best and default side by side so
// the choice is never slower than the default by more than noise.
#include "tuning.hpp"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "channel_planes.hpp"
#include "dispatch.hpp"
#include "engine_core.hpp"

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
    key.gpu = deviceProps().name;  // not Engine::deviceName(): runs ask while holding the device
    key.mode = mode.id;
    key.radiusX = f.math.kw / 2;
    key.radiusY = f.math.kh / 2;
    key.depth = f.inDepth;
    key.channels = f.channels;
    key.kernels = f.math.kernelCount;
    key.sizeClass = sizeClass(width, height);
    return key;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

// The user's image on the device, uploaded once, and one mode's launches on
// it timed with events (median of `repeats` after `warmup`).
class CandidateTimer {
public:
    CandidateTimer(DeviceSession& session, const FilterSpec& spec, ConstImageView input, ResolvedLaunch& resolved,
                   const TuneOptions& options)
        : session_(session), spec_(spec), input_(input), f_(resolved.filter), mode_(*resolved.mode),
          repeats_(std::max(1, options.repeats)), warmup_(std::max(0, options.warmup)) {}
    ~CandidateTimer() {
        events_.destroy();
        if (image_) Engine::instance().release(image_);
    }
    CandidateTimer(const CandidateTimer&) = delete;
    CandidateTimer& operator=(const CandidateTimer&) = delete;

    std::string upload() {
        const cudaStream_t stream = session_.stream(0);
        const Depth outDepth = spec_.outputDepth(input_.depth);
        const std::size_t inRow = input_.rowBytes();
        const std::size_t outRow = depthBytes(outDepth) * input_.channels * static_cast<std::size_t>(input_.width);
        const std::size_t inPitch = alignUp(inRow, kPitchAlign), outPitch = alignUp(outRow, kPitchAlign);
        std::size_t freeBytes = 0, totalBytes = 0;
        cudaMemGetInfo(&freeBytes, &totalBytes);
        if ((inPitch + outPitch) * input_.height > freeBytes / 10 * 8)
            return "the image is too large to tune in one piece on this device; tune a smaller image of the same "
                   "kind (results are kept per size class)";
        cudaError_t err = events_.create();
        if (err != cudaSuccess) return cudaMessage("creating CUDA events", err);
        std::string error;
        image_ = Engine::instance().upload(input_, error);  // inside our session: the lock is recursive
        if (!image_) return error;
        if ((err = dst_.reserve(outPitch * input_.height)) != cudaSuccess)
            return failed("allocating device memory for tuning", err);
        const DeviceView src = session_.core().resident.at(image_.id).view();
        if ((err = session_.uploadWeights(mode_, f_, stream)) != cudaSuccess ||
            (err = cudaStreamSynchronize(stream)) != cudaSuccess)
            return failed("uploading the weights", err);
        args_.filter = &f_;
        args_.workspaces = &session_.core().workspaces;
        args_.geom = wholeImageGeom(src.data, src.pitch, input_.width, input_.height);
        args_.geom.dst = dst_.data();
        args_.geom.dstPitch = outPitch;
        args_.geom.border = spec_.border.mode;
        args_.geom.borderValue = spec_.border.value;
        return {};
    }

    // Median kernel ms of one configuration, or why it cannot run.
    std::string time(const LaunchConfig& config, double& ms) {
        LaunchPlan plan;
        if (Refusal why = mode_.plan(f_, config, input_.width, input_.height, plan); !why.ok()) return why.message;
        const cudaStream_t stream = session_.stream(0);
        args_.config = config;
        std::vector<double> samples;
        for (int i = 0; i < warmup_ + repeats_; ++i) {
            cudaEventRecord(events_.uploaded, stream);
            cudaError_t err = mode_.launch(args_, stream);
            cudaEventRecord(events_.filtered, stream);
            if (err == cudaSuccess) err = cudaEventSynchronize(events_.filtered);
            if (err != cudaSuccess) return failed("launch failed", err);
            if (i >= warmup_) samples.push_back(events_.kernelMs());
        }
        ms = median(samples);
        return {};
    }

    const ModeImpl& mode() const { return mode_; }
    const PreparedFilter& filter() const { return f_; }
    int width() const { return input_.width; }
    int height() const { return input_.height; }

private:
    static std::string failed(const char* what, cudaError_t err) {
        cudaGetLastError();
        return cudaMessage(what, err);
    }

    DeviceSession& session_;
    const FilterSpec& spec_;
    ConstImageView input_;
    PreparedFilter& f_;
    const ModeImpl& mode_;
    const int repeats_, warmup_;
    DeviceImageHandle image_;  // the user's image, resident while tuning
    DeviceBuffer dst_;
    PieceEvents events_;
    LaunchArgs args_;
};

// Counts the tuner's steps for the progress callback; false once cancelled.
class TuneSteps {
public:
    TuneSteps(int total, const TuneProgress& progress) : total_(total), progress_(progress) {}
    bool next() { return !progress_ || progress_(++done_, total_); }

private:
    int total_, done_ = 0;
    const TuneProgress& progress_;
};

// Times one configuration into result.entries; keeps it in `best` when faster.
void consider(CandidateTimer& timer, const LaunchConfig& c, TuneEntry& best, TuneResult& result) {
    TuneEntry e;
    LaunchPlan plan;
    const Refusal refused = timer.mode().plan(timer.filter(), c, timer.width(), timer.height(), plan);
    e.error = refused.message;
    e.config = refused.ok() ? plan.config : c;
    if (refused.ok()) e.error = timer.time(c, e.medianMs);
    if (e.error.empty() && e.medianMs < best.medianMs) best = e;
    result.entries.push_back(e);
}

// Second stage on the winner: the other halo scheme and the run-time radius.
// False when cancelled.
bool refineWinner(CandidateTimer& timer, TuneEntry& best, TuneResult& result, TuneSteps& steps) {
    const LaunchConfig winner = best.config;
    LaunchConfig other = winner;
    other.halo = winner.halo == HaloScheme::PerThread ? HaloScheme::Cooperative : HaloScheme::PerThread;
    if (winner.halo != HaloScheme::Default) consider(timer, other, best, result);
    if (!steps.next()) return false;
    if (winner.radius == RadiusPath::Compiled) {
        LaunchConfig runtime = winner;
        runtime.radius = RadiusPath::Runtime;
        consider(timer, runtime, best, result);
    }
    return steps.next();
}

// Best and default alternately, three rounds each: the choice is kept only
// when it beats the default in the same conditions.
void confirmBest(CandidateTimer& timer, const TuneEntry& best, TuneResult& result) {
    std::vector<double> bestMs, defaultMs;
    for (int round = 0; round < 3 && best.config != result.defaultConfig; ++round) {
        double a = 0, b = 0;
        if (!timer.time(best.config, a).empty() || !timer.time(LaunchConfig{}, b).empty()) break;
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
}

// Every candidate of the mode, the second stage and the confirmation.
void searchCandidates(CandidateTimer& timer, TuneResult& result, const TuneProgress& progress) {
    const std::vector<LaunchConfig> list = timer.mode().candidates();
    TuneSteps steps(static_cast<int>(list.size()) + 3, progress);  // + the second stage and the confirmation
    TuneEntry best{result.defaultConfig, result.defaultMs, {}};
    for (const LaunchConfig& c : list) {
        consider(timer, c, best, result);
        if (!steps.next()) {
            result.cancelled = true;
            return;
        }
    }
    if (!refineWinner(timer, best, result, steps)) {
        result.cancelled = true;
        return;
    }
    confirmBest(timer, best, result);
    steps.next();
}

// The tuning on the device: the default's time, then the cached choice
// re-timed or the full search.
std::string tuneOnDevice(const FilterSpec& spec, ConstImageView input, ResolvedLaunch& resolved,
                         const TuneOptions& options, const TuneProgress& progress, TuneResult& result) {
    DeviceSession session;
    if (!session.problem().empty()) return session.problem();
    CandidateTimer timer(session, spec, input, resolved, options);
    if (std::string why = timer.upload(); !why.empty()) return why;
    LaunchPlan defaultPlan;
    if (Refusal why = resolved.mode->plan(resolved.filter, LaunchConfig{}, input.width, input.height, defaultPlan);
        !why.ok())
        return why.message;
    result.defaultConfig = defaultPlan.config;
    if (std::string why = timer.time(LaunchConfig{}, result.defaultMs); !why.empty()) return why;
    if (result.fromCache) return timer.time(result.best, result.bestMs);
    searchCandidates(timer, result, progress);
    return {};
}

}  // namespace

LaunchConfig tunedConfig(const ModeImpl& mode, const PreparedFilter& f, int width, int height) {
    const std::optional<LaunchConfig> cached = processCache().find(keyFor(mode, f, width, height));
    if (!cached) return {};
    LaunchPlan plan;
    return mode.plan(f, *cached, width, height, plan).ok() ? *cached : LaunchConfig{};
}

std::string resetCudaTuning() { return processCache().reset(); }

Refusal resolveMode(const FilterSpec& spec, Depth depth, int channels, int width, int height,
                    const std::string& modeId, ResolvedLaunch& out) {
    if (std::string why = prepareFilter(spec, depth, channels, out.filter); !why.empty())
        return {RefusalReason::InvalidFilter, why};
    out.filter.imagePixels = static_cast<long long>(width) * height;
    const ModeImpl* requested = findRegisteredMode(modeId);
    if (!requested) return {RefusalReason::UnknownMode, "unknown CUDA mode '" + modeId + "'"};
    out.mode = &modeFor(*requested, out.filter);
    out.tunedByDefault = requested->choosesPerFilter();
    out.reason = out.mode->supports(out.filter).message;
    if (!out.reason.empty()) return {RefusalReason::FilterUnsupported, std::string("mode ") + out.mode->id + ": " + out.reason};
    return {};
}

Refusal resolveLaunch(const FilterSpec& spec, Depth depth, int channels, const std::string& modeId,
                      const LaunchConfig& launch, int width, int height, ResolvedLaunch& out) {
    // Planar: the mode is chosen, tuned and planned for one plane, a gray image.
    const bool planar = launch.layout == ChannelLayout::Planar && channels > 1;
    if (Refusal why = resolveMode(spec, depth, planar ? 1 : channels, width, height, modeId, out); !why.ok())
        return why;
    out.planes = planar ? channels : 1;
    LaunchConfig want = launch;
    want.layout = ChannelLayout::Interleaved;
    out.config = out.tunedByDefault && want.isDefault() ? tunedConfig(*out.mode, out.filter, width, height) : want;
    Refusal planned = out.mode->plan(out.filter, out.config, width, height, out.plan);
    if (planned.ok()) {
        if (planar) {
            out.plan.config.layout = ChannelLayout::Planar;
            out.plan.variant += ", on " + std::to_string(channels) + " channel planes";
        }
        return {};
    }
    out.reason = planned.message;
    LaunchConfig shown = out.config;
    shown.layout = launch.layout;
    return {planned.reason, std::string("mode ") + out.mode->id + ", " + shown.toString() + ": " + out.reason};
}

cudaError_t launchResolved(const ResolvedLaunch& r, LaunchArgs args, cudaStream_t stream, cudaEvent_t split,
                           cudaEvent_t filtered) {
    args.filter = &r.filter;
    args.config = r.config;
    if (r.planes > 1) return launchOnPlanes(*r.mode, args, r.planes, stream, split, filtered);
    return r.mode->launch(args, stream);
}

LaunchReport describeCudaLaunch(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                                const std::string& modeId, const LaunchConfig& launch) {
    LaunchReport report;
    report.mode = modeId;
    if (std::string why = Engine::instance().unavailableReason(); !why.empty()) return report.error = why, report;
    if (width < 1 || height < 1) return report.error = "no image", report;
    ResolvedLaunch r;
    const Refusal why = resolveLaunch(spec, depth, channels, modeId, launch, width, height, r);
    if (r.mode) report.mode = r.mode->id;
    if (!why.ok()) {
        // The report names the mode and configuration itself: the reason alone.
        report.error = r.reason.empty() ? why.message : r.reason;
        report.config = r.config;
        report.config.layout = launch.layout;
        return report;
    }
    return reportPlan(r.plan, r.mode->id);
}

Explanation explainCuda(const FilterSpec& spec, int width, int height, Depth depth, int channels,
                        const std::string& modeId) {
    Explanation e;
    if (width < 1 || height < 1) return e.error = "no image", e;
    ResolvedLaunch r;
    if (const Refusal why = resolveMode(spec, depth, channels, width, height, modeId, r); !why.ok())
        return e.error = why.message, e;
    e.mode = r.mode->id;
    if (r.tunedByDefault) {
        const AutoChoice choice = chooseAuto(r.filter);
        if (choice.rule) e.rule = choice.rule->id, e.why = choice.rule->why;
    }
    const std::string noDevice = Engine::instance().unavailableReason();
    LaunchConfig config;
    if (noDevice.empty() && r.tunedByDefault) {
        config = tunedConfig(*r.mode, r.filter, width, height);
        if (!config.isDefault()) e.tuned = config.toString() + " (from the tuning cache)";
    }
    const Refusal planned = r.mode->plan(r.filter, config, width, height, r.plan);
    if (!planned.ok() && planned.reason != RefusalReason::NoDevice) return e.error = planned.message, e;
    e.kernel = r.plan.variant;
    e.launch = r.plan.config.toString() + ", grid " + std::to_string(r.plan.grid.x) + "x" +
               std::to_string(r.plan.grid.y);
    if (!noDevice.empty()) e.note = "planned without a device (" + noDevice + "): occupancy and tuning not checked";
    return e;
}

TuneResult tuneCudaMode(const FilterSpec& spec, ConstImageView input, const std::string& modeId,
                        const TuneOptions& options, const TuneProgress& progress) {
    TuneResult result;
    result.mode = modeId;
    if (std::string why = validateRun(spec, input); !why.empty()) return result.error = why, result;
    ResolvedLaunch resolved;
    const Refusal unresolved = resolveLaunch(spec, input.depth, input.channels, modeId, LaunchConfig{}, input.width,
                                             input.height, resolved);
    if (resolved.mode) result.mode = resolved.mode->id;
    if (!unresolved.ok()) return result.error = unresolved.message, result;
    const TuneKey key = keyFor(*resolved.mode, resolved.filter, input.width, input.height);
    if (options.useCache) {
        if (std::optional<LaunchConfig> cached = processCache().find(key)) {
            LaunchPlan plan;
            if (resolved.mode->plan(resolved.filter, *cached, input.width, input.height, plan).ok()) {
                result.best = plan.config;
                result.fromCache = true;
            }
        }
    }
    if (std::string problem = tuneOnDevice(spec, input, resolved, options, progress, result); !problem.empty()) {
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
