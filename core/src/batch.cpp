#include "fs/batch.hpp"

#include <exception>
#include <new>

#include "fs/run_control.hpp"

namespace fs {

namespace {

// Backend::run promises not to throw; this keeps that promise for the whole batch.
RunResult runOne(Backend& backend, const FilterSpec& spec, ConstImageView input, const std::string& mode) {
    try {
        return backend.run(spec, input, mode);
    } catch (const std::bad_alloc&) {
        RunResult r;
        r.error = "out of memory";
        return r;
    } catch (const std::exception& e) {
        RunResult r;
        r.error = e.what();
        return r;
    }
}

RunResult cancelledRun(const Backend& backend, const std::string& mode) {
    RunResult r;
    r.timing.backend = backend.id();
    r.timing.mode = mode;
    r.error = kRunCancelled;
    return r;
}

}  // namespace

RunResult BatchRunner::runPair(ConstImageView input, const FilterSpec& spec, const std::string& mode) {
    if (runCancelled()) return cancelledRun(backend_, mode);
    RunControl pair(currentRunControl());
    const ScopedRunControl scoped(&pair);
    return runOne(backend_, spec, input, mode);
}

std::vector<RunResult> BatchRunner::runSpecs(ConstImageView input, const std::vector<FilterSpec>& specs,
                                             const std::string& mode) {
    return BatchRunner::runGrid({input}, specs, mode);
}

std::vector<RunResult> BatchRunner::runGrid(const std::vector<ConstImageView>& inputs,
                                            const std::vector<FilterSpec>& specs, const std::string& mode) {
    // A cancelled batch stops between pairs; the pairs not run say so.
    // Progress counts the pairs run, and stays where the cancel found it.
    RunControl* const control = currentRunControl();
    const std::size_t pairs = inputs.size() * specs.size();
    std::vector<RunResult> results;
    results.reserve(pairs);
    for (const ConstImageView& input : inputs)
        for (const FilterSpec& spec : specs) {
            results.push_back(runPair(input, spec, mode));
            if (control && !control->cancelled())
                control->setProgress(static_cast<double>(results.size()) / static_cast<double>(pairs));
        }
    return results;
}

std::unique_ptr<BatchRunner> makeLoopBatchRunner(Backend& backend) { return std::make_unique<BatchRunner>(backend); }

}  // namespace fs
