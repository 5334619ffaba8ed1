#include "batch_runners.hpp"

#include "fs/cpu/batch.hpp"
#include "fs/cpu/pipeline.hpp"

namespace fs::cli {

std::unique_ptr<BatchRunner> makeBatchRunnerFor(Backend& backend) {
    if (backend.id() == "cpu") return cpu::makeCpuBatchRunner(backend);
    return makeLoopBatchRunner(backend);
}

std::unique_ptr<PipelineRunner> makePipelineRunnerFor(Backend& backend, const std::string& mode) {
    return cpu::makePipelineRunner(backend, mode);
}

}  // namespace fs::cli
