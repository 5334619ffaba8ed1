#pragma once
// Plain C++ (no CUDA header): lets CUDA-GL interop filter a host image straight
// into device memory it owns, e.g. a mapped OpenGL pixel buffer.
#include <cstddef>
#include <string>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"
#include "fs/launch.hpp"
#include "fs/timing.hpp"

namespace fs::gpu {

// Device memory the caller owns on the current CUDA device. It must hold
// input.width x input.height pixels of spec.outputDepth(input.depth) with
// input.channels interleaved channels (3 channels stay RGBRGB, unpadded).
// pitch is the byte distance between row starts; it must be a multiple of the
// pixel size and at least width * pixel size.
struct DeviceOutput {
    void* data = nullptr;
    std::size_t pitch = 0;
};

// Runs `spec` in `mode` ("global", "constant", "shared", "texture",
// "separable", "registers", "auto") on `input` (host memory) and writes the result into
// `output`. Returns once the output is complete. Empty on success, otherwise
// why not (no device, bad spec, out of memory, launch failure); never throws.
// When `timing` is given it receives uploadMs, kernelMs and totalMs.
// `launch` sets the launch configuration (fs/launch.hpp); refused ones come
// back as the error.
std::string runToDevice(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                        DeviceOutput output, TimingRecord* timing = nullptr, const LaunchConfig& launch = {});

}  // namespace fs::gpu
