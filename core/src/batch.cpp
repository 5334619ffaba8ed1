#include "fs/batch.hpp"

#include <exception>
#include <new>

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

}  // namespace

std::vector<RunResult> BatchRunner::runSpecs(ConstImageView input, const std::vector<FilterSpec>& specs,
                                             const std::string& mode) {
    std::vector<RunResult> results;
    results.reserve(specs.size());
    for (const FilterSpec& spec : specs) results.push_back(runOne(backend_, spec, input, mode));
    return results;
}

std::vector<RunResult> BatchRunner::runGrid(const std::vector<ConstImageView>& inputs,
                                            const std::vector<FilterSpec>& specs, const std::string& mode) {
    std::vector<RunResult> results;
    results.reserve(inputs.size() * specs.size());
    for (const ConstImageView& input : inputs)
        for (RunResult& r : runSpecs(input, specs, mode)) results.push_back(std::move(r));
    return results;
}

std::unique_ptr<BatchRunner> makeLoopBatchRunner(Backend& backend) { return std::make_unique<BatchRunner>(backend); }

}  // namespace fs
