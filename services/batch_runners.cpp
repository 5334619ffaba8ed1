#include "batch_runners.hpp"

#include "fs/cpu/pipeline.hpp"

namespace fs {

std::unique_ptr<BatchRunner> makeBatchRunnerFor(Backend& backend) { return backend.makeBatchRunner(); }

std::unique_ptr<PipelineRunner> makePipelineRunnerFor(Backend& backend, const std::string& mode) {
    if (std::unique_ptr<PipelineRunner> own = backend.makePipelineRunner(mode)) return own;
    return cpu::makePipelineRunner(backend, mode);
}

}  // namespace fs
