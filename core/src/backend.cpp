#include "fs/backend.hpp"

#include "fs/batch.hpp"
#include "fs/pipeline.hpp"

namespace fs {

std::optional<ModeInfo> Backend::findMode(const std::string& mode) const {
    for (ModeInfo& m : modes())
        if (m.id == mode) return std::move(m);
    return std::nullopt;
}

std::string Backend::defaultMode() const {
    const std::vector<ModeInfo> all = modes();
    for (const ModeInfo& m : all)
        if (m.isDefault) return m.id;
    return all.empty() ? std::string() : all.front().id;
}

RunResult Backend::runWithLaunch(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                                 const LaunchConfig& launch) {
    if (launch.isDefault()) return run(spec, input, mode);
    RunResult result;
    result.timing.backend = id();
    result.timing.mode = mode;
    result.error = displayName() + " has no launch configuration (block shape, outputs per thread); "
                   "only GPU backends do";
    return result;
}

LaunchReport Backend::describeLaunch(const FilterSpec&, int, int, Depth, int, const std::string& mode,
                                     const LaunchConfig&) const {
    LaunchReport report;
    report.mode = mode;
    report.error = displayName() + " has no launch configuration";
    return report;
}

Explanation Backend::explain(const FilterSpec& spec, int, int, Depth, int, const std::string& mode) const {
    Explanation e;
    const std::optional<ModeInfo> info = findMode(mode);
    if (!info) {
        e.error = "unknown " + displayName() + " mode '" + mode + "'";
        return e;
    }
    if (std::string why = validateSpec(spec); !why.empty()) {
        e.error = why;
        return e;
    }
    e.mode = info->id;
    e.why = info->description;
    e.kernel = displayName() + " " + info->id;
    if (!info->available) e.note = info->unavailableReason;
    return e;
}

TuneResult Backend::tune(const FilterSpec&, ConstImageView, const std::string& mode, const TuneOptions&,
                         const TuneProgress&) {
    TuneResult result;
    result.mode = mode;
    result.error = displayName() + " has no launch configuration to tune";
    return result;
}

std::unique_ptr<BatchRunner> Backend::makeBatchRunner() { return makeLoopBatchRunner(*this); }

std::unique_ptr<PipelineRunner> Backend::makePipelineRunner(const std::string&) { return nullptr; }

std::string Backend::resetTuning() { return displayName() + " has no launch configuration to tune"; }

std::string validateRun(const FilterSpec& spec, ConstImageView input) {
    if (std::string why = validateImage(input); !why.empty()) return why;
    if (std::string why = validateSpec(spec); !why.empty()) return why;
    return emptyOutputReason(spec, input.width, input.height);
}

}  // namespace fs
