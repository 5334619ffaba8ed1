#pragma once
// Plain C++ (no CUDA header): batches and pipelines on the CUDA device.
#include <memory>
#include <string>

#include "fs/batch.hpp"
#include "fs/pipeline.hpp"

namespace fs::gpu {

// Uploads each input once and filters it with every spec on the device: in
// mode "auto" all specs in one launch over the kernel array, in any other
// mode one launch of that mode per spec. Falls back to cudaBackend.run() per
// pair when the outputs do not fit in device memory or the device is missing.
// Timing: uploadMs, kernelMs and totalMs are the whole image's (shared by its
// results); downloadMs is each result's own.
std::unique_ptr<BatchRunner> makeCudaBatchRunner(Backend& cudaBackend);

// Every step on the device, intermediates never leaving it: the source is
// uploaded once and only the last result comes back. Convolutions use `mode`
// ("auto", "shared", ...). Not to be run while another thread uses the CUDA
// backend (the modes keep their weights in process-wide constant memory).
std::unique_ptr<PipelineRunner> makeCudaPipelineRunner(std::string mode);

// 4-connected labelling on the device (union-find with atomicMin); labels
// as fs::cpu::labelComponents: f32, 1..count in raster order of each
// object's first pixel. Empty on success, otherwise why not.
std::string labelComponentsCuda(ConstImageView mask, Image& labels, long long& count);

}  // namespace fs::gpu
