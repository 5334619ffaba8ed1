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

std::vector<RunResult> BatchRunner::runSpecs(ConstImageView input, const std::vector<FilterSpec>& specs,
                                             const std::string& mode) {
    std::vector<RunResult> results;
    results.reserve(specs.size());
    // A cancelled batch stops between pairs; the pairs not run say so.
    for (const FilterSpec& spec : specs)
        results.push_back(runCancelled() ? cancelledRun(backend_, mode) : runOne(backend_, spec, input, mode));
    return results;
}

std::vector<RunResult> BatchRunner::runGrid(const std::vector<ConstImageView>& inputs,
                                            const std::vector<FilterSpec>& specs, const std::string& mode) {
    std::vector<RunResult> results;
    results.reserve(inputs.size() * specs.size());
    for (const ConstImageView& input : inputs) {
        if (runCancelled()) {
            for (std::size_t j = 0; j < specs.size(); ++j) results.push_back(cancelledRun(backend_, mode));
            continue;
        }
        for (RunResult& r : runSpecs(input, specs, mode)) results.push_back(std::move(r));
    }
    return results;
}

std::unique_ptr<BatchRunner> makeLoopBatchRunner(Backend& backend) { return std::make_unique<BatchRunner>(backend); }

}  // namespace fs
