#pragma once
// Plain C++ (no CUDA header): batches and pipelines on the CUDA device.
#include <memory>
#include <string>

#include "fs/batch.hpp"
#include "fs/pipeline.hpp"

namespace fs::gpu {

// Uploads each input once and filters it with every spec on the device: in
// mode "auto" every spec up to 31x31 in one fused launch (a shared-memory
// tile per block, weights in constant memory), larger ones and any other
// mode with one launch of that mode per spec. Images flow through 4 slots
// (own stream, device buffers and pinned staging, reused across calls), so
// uploads, filters and downloads of neighbouring images overlap with the
// host copying finished outputs out of pinned staging on several threads.
// An image whose outputs do not fit in device memory runs pair by pair
// through cudaBackend.run() (strips); without a device every pair carries
// the backend's reason.
// Timing of each result: uploadMs, kernelMs (all its image's launches),
// downloadMs (all its image's outputs), hostPrepMs (staging the input and
// copying the outputs out of pinned memory) and totalMs (the image's span,
// overlapping its neighbours') are its image's, shared by its results.
class CudaBatchRunner : public BatchRunner {
public:
    using BatchRunner::BatchRunner;

    // As runGrid, into images the caller owns: outputs[i * specs.size() + j]
    // must have inputs[i]'s size and channels and specs[j]'s output depth
    // (any stride). Reusing them across calls saves the page faults of fresh
    // result memory, which bound runGrid on the host (docs/performance.md);
    // outputs in pinned memory (cudaHostAlloc, cudaHostRegister) are written
    // by the download itself, with no host copy at all. The returned results
    // carry errors and timing; their `output` stays empty.
    virtual std::vector<RunResult> runGridInto(const std::vector<ConstImageView>& inputs,
                                               const std::vector<FilterSpec>& specs, const std::string& mode,
                                               const std::vector<ImageView>& outputs) = 0;
};

struct CudaBatchOptions {
    int hostThreads = 0;    // threads copying results out of pinned staging; 0: the cores there are, at most 8
    bool prefault = false;  // map fresh result pages in bulk (madvise MADV_POPULATE_WRITE) before writing them:
                            // faster on one thread, slower on several (the populate calls contend)
};
std::unique_ptr<CudaBatchRunner> makeCudaBatchRunner(Backend& cudaBackend, CudaBatchOptions options = {});

// Every step on the device, intermediates never leaving it: the source is
// uploaded once and only the last result comes back. Convolutions use `mode`
// ("auto", "shared", ...). Safe beside other threads' CUDA work: every run
// holds the device through fs::gpu::Engine.
std::unique_ptr<PipelineRunner> makeCudaPipelineRunner(std::string mode);

// 4-connected labelling on the device (union-find with atomicMin); labels
// as fs::cpu::labelComponents: f32, 1..count in raster order of each
// object's first pixel. Empty on success, otherwise why not.
std::string labelComponentsCuda(ConstImageView mask, Image& labels, long long& count);

}  // namespace fs::gpu
