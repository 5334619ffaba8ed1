// Mode "global": one thread per output pixel; image and weights both read
// from global memory (the version every course starts with).
#include "direct_kernel.cuh"

namespace fs::gpu {
namespace {

Refusal supportsGlobal(const PreparedFilter&) { return {}; }
cudaError_t prepareGlobal(const PreparedFilter&, cudaStream_t) { return cudaSuccess; }
Refusal planGlobal(const PreparedFilter& f, const LaunchConfig& want, int width, int rows, LaunchPlan& out) {
    return planDirect("global", directKernelFor<GlobalSource, GlobalWeights>(f), want, width, rows, out);
}
cudaError_t launchGlobal(const LaunchArgs& a, cudaStream_t stream) {
    return launchDirect(globalMode(), a, stream, GlobalSource{}, GlobalWeights{a.filter->deviceWeights});
}

}  // namespace

const ModeImpl& globalMode() {
    static const ModeImpl mode{"global",
                               "One thread per output pixel; pixels and weights are read from global memory for "
                               "every tap. The baseline the other modes improve on.",
                               supportsGlobal, prepareGlobal, planGlobal, launchGlobal, directCandidates};
    return mode;
}

}  // namespace fs::gpu
