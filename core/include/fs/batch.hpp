#pragma once
// Many filters on many images (the 1:N:N and N:M:M cases of training-data
// generation). A BatchRunner says nothing of how the work is spread: the
// default loops over Backend::run; the CPU runner spreads jobs over cores and
// the CUDA runner keeps each input on the device once. Results never depend
// on which runner produced them.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "fs/backend.hpp"

namespace fs {

class BatchRunner {
public:
    explicit BatchRunner(Backend& backend) : backend_(backend) {}
    virtual ~BatchRunner() = default;
    BatchRunner(const BatchRunner&) = delete;
    BatchRunner& operator=(const BatchRunner&) = delete;

    Backend& backend() const { return backend_; }

    // One image x N specs: result[j] is specs[j] on `input`, exactly what
    // backend().run(specs[j], input, mode) returns. Never throws: a failed
    // pair carries its error and the others still run.
    virtual std::vector<RunResult> runSpecs(ConstImageView input, const std::vector<FilterSpec>& specs,
                                            const std::string& mode);

    // N images x M specs: result[i * specs.size() + j] is specs[j] on inputs[i].
    // The default runs the pairs in that order.
    virtual std::vector<RunResult> runGrid(const std::vector<ConstImageView>& inputs,
                                           const std::vector<FilterSpec>& specs, const std::string& mode);

protected:
    // backend().run for one pair, never throwing; "cancelled" without running
    // when the thread's RunControl was cancelled. The pair runs under a
    // control of its own, so the rows it reports do not move the batch's progress.
    RunResult runPair(ConstImageView input, const FilterSpec& spec, const std::string& mode);

private:
    Backend& backend_;
};

// One Backend::run per (image, spec) pair, in order, on the calling thread.
std::unique_ptr<BatchRunner> makeLoopBatchRunner(Backend& backend);

}  // namespace fs
