// A FilterSpec on an image already on the device, through one of the CUDA
// backend's modes (gpu/src/launch.hpp): the same launches the backend makes,
// over the whole image at once instead of pipelined pieces.
#include "device_image.hpp"
#include "launch.hpp"
#include "tuning.hpp"

namespace fs::gpu::batch {

std::mutex& deviceMutex() {
    static std::mutex m;
    return m;
}

std::string convolveOnDevice(const FilterSpec& spec, const DeviceImage& in, const std::string& modeId, DeviceImage& out,
                             cudaStream_t s) {
    if (cudaError_t err = out.allocate(in.width, in.height, in.channels, spec.outputDepth(in.depth)); err != cudaSuccess)
        return cudaProblem("allocating the output", err);
    return convolveInto(spec, in.view(), modeId, out.data(), out.pitch(), s);
}

std::string convolveInto(const FilterSpec& spec, const DeviceView& in, const std::string& modeId, unsigned char* dst,
                         std::size_t dstPitch, cudaStream_t s) {
    // The mode's default configuration, not the tuned one: batch runs stay as they were timed.
    ResolvedLaunch resolved;
    if (std::string why = resolveMode(spec, in.depth, in.channels, modeId, resolved); !why.empty()) return why;
    PreparedFilter& f = resolved.filter;
    const ModeImpl* mode = resolved.mode;

    // Global mode reads weights from device memory: one buffer of the largest
    // size, reused in stream order (callers hold deviceMutex()).
    static float* deviceWeights = nullptr;
    if (!deviceWeights) {
        const cudaError_t err = cudaMalloc(&deviceWeights, sizeof(float) * kMaxKernels * kMaxKernelSize * kMaxKernelSize);
        if (err != cudaSuccess) {
            deviceWeights = nullptr;
            return cudaProblem("allocating the weights", err);
        }
    }
    cudaError_t err = cudaMemcpyAsync(deviceWeights, f.weights.data(), f.weights.size() * sizeof(float),
                                      cudaMemcpyHostToDevice, s);
    if (err == cudaSuccess) err = mode->prepare(f, s);
    if (err != cudaSuccess) return cudaProblem("uploading the weights", err);
    f.deviceWeights = deviceWeights;

    LaunchArgs args;
    args.filter = &f;
    KernelGeom& g = args.geom;
    g = wholeImageGeom(in.data, in.pitch, in.width, in.height);
    g.dst = dst;
    g.dstPitch = dstPitch;
    g.border = spec.border.mode;
    g.borderValue = spec.border.value;
    if ((err = mode->launch(args, s)) != cudaSuccess) return cudaProblem(std::string("mode ") + mode->id, err);
    // The pageable weights copied above are staged before cudaMemcpyAsync returns, so `f` may go now.
    return {};
}

}  // namespace fs::gpu::batch
