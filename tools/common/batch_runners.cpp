#include "batch_runners.hpp"

#include "fs/cpu/batch.hpp"
#include "fs/cpu/pipeline.hpp"
#if defined(FS_HAVE_CUDA_BATCH)
#include "fs/gpu/batch.hpp"
#endif

namespace fs {

std::unique_ptr<BatchRunner> makeBatchRunnerFor(Backend& backend) {
    if (backend.id() == "cpu") return cpu::makeCpuBatchRunner(backend);
#if defined(FS_HAVE_CUDA_BATCH)
    if (backend.id() == "cuda") return gpu::makeCudaBatchRunner(backend);
#endif
    return makeLoopBatchRunner(backend);
}

std::unique_ptr<PipelineRunner> makePipelineRunnerFor(Backend& backend, const std::string& mode) {
#if defined(FS_HAVE_CUDA_BATCH)
    if (backend.id() == "cuda") return gpu::makeCudaPipelineRunner(mode);
#endif
    return cpu::makePipelineRunner(backend, mode);
}

}  // namespace fs
