// Mode "constant": as "global", but the weights live in __constant__ memory,
// broadcast to the whole warp by the constant cache.
#include "constant_weights.cuh"
#include "direct_kernel.cuh"

namespace fs::gpu {
namespace {

Refusal supportsConstant(const PreparedFilter&) { return {}; }
Refusal planConstant(const PreparedFilter& f, const LaunchConfig& want, int width, int rows, LaunchPlan& out) {
    return planDirect("constant", directKernelFor<GlobalSource, ConstantWeights>(f), want, width, rows, out);
}
cudaError_t launchConstant(const LaunchArgs& a, cudaStream_t stream) {
    return launchDirect(constantMode(), a, stream, GlobalSource{}, ConstantWeights{});
}

}  // namespace

const ModeImpl& constantMode() {
    static const ModeImpl mode{"constant",
                               "One thread per output pixel with the weights in constant memory: every thread of a "
                               "warp reads the same weight at once, served as one broadcast.",
                               supportsConstant, uploadConstantWeights, planConstant, launchConstant, directCandidates};
    return mode;
}

}  // namespace fs::gpu
