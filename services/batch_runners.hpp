#pragma once
// The best batch and pipeline runner each backend has: the CPU spreads jobs
// over cores, CUDA keeps inputs and intermediates on the device; any other
// backend gets the plain loop (batch) or the CPU runner around it (pipeline).
// Part of fs_backends, so the CLI and the GUI pick runners the same way.
#include <memory>
#include <string>

#include "fs/batch.hpp"
#include "fs/pipeline.hpp"

namespace fs {

std::unique_ptr<BatchRunner> makeBatchRunnerFor(Backend& backend);
std::unique_ptr<PipelineRunner> makePipelineRunnerFor(Backend& backend, const std::string& mode);

}  // namespace fs
