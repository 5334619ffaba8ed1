#pragma once
// Internal: what a mode needs to filter rows of an image already on the device.
// Shared by the mode files, the pipeline and the benchmark; not for the UI.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"

namespace fs::gpu {

constexpr int kMaxKernels = 2;  // Combine::Magnitude uses two

// Where the pixels are. The source buffer holds image rows rowBase,
// rowBase+1, ... (modulo imageHeight, so a wrap-border strip can start at the
// bottom); the destination's row 0 is image row outRow0.
struct KernelGeom {
    const unsigned char* src = nullptr;
    std::size_t srcPitch = 0;
    unsigned char* dst = nullptr;
    std::size_t dstPitch = 0;
    int width = 0;
    int imageHeight = 0;
    int rowBase = 0;
    int srcRows = 0;  // rows the source buffer holds
    int outRow0 = 0;
    int outRows = 0;
    BorderMode border = BorderMode::Reflect101;
    float borderValue = 0.0f;
};

// How the responses become output values. Kernels of different sizes are
// zero-padded to one size (kw x kh) so every mode loops over one shape.
struct KernelMath {
    int kernelCount = 1;
    int kw = 1, kh = 1;
    float scale = 1.0f, offset = 0.0f;
    bool absolute = false;
    bool outFloat = false;  // store F32 whatever the input depth
};

// A FilterSpec turned into what the device modes consume, built once per run.
struct PreparedFilter {
    KernelMath math;
    Depth inDepth = Depth::U8;
    int channels = 1;
    std::vector<float> weights;  // kernelCount * kh * kw, row-major per kernel
    const float* deviceWeights = nullptr;  // same, in device memory (global mode)
    bool separable = false;  // every kernel is rank 1
    int sepW = 1, sepH = 1;  // separable factor lengths (== kw, kh)
    std::vector<float> sepRow, sepCol;  // kernelCount * kw, kernelCount * kh
};

std::string prepareFilter(const FilterSpec& spec, Depth inDepth, int channels, PreparedFilter& out);

struct LaunchArgs {
    KernelGeom geom;
    const PreparedFilter* filter = nullptr;
};

// One implementation mode. supports() says why a filter cannot run ("" if it
// can); prepare() runs once per run (weights to constant memory); launch()
// runs per strip or pipeline piece. All return CUDA errors, never throw.
struct ModeImpl {
    const char* id;
    const char* description;
    std::string (*supports)(const PreparedFilter& f);
    cudaError_t (*prepare)(const PreparedFilter& f, cudaStream_t stream);
    cudaError_t (*launch)(const LaunchArgs& args, cudaStream_t stream);
};

const ModeImpl& globalMode();
const ModeImpl& constantMode();
const ModeImpl& sharedMode();
const ModeImpl& textureMode();
const ModeImpl& separableMode();
const ModeImpl& registersMode();
// The fastest correct one for this filter (what the "auto" mode runs).
const ModeImpl& chooseAutoMode(const PreparedFilter& f);

// Every mode id in display order, "auto" last; nullptr for an unknown id.
const std::vector<const char*>& modeIds();
const ModeImpl* findModeImpl(const std::string& id, const PreparedFilter& f);

}  // namespace fs::gpu

namespace fs::gpu {

// Properties of the current device, read once.
const cudaDeviceProp& deviceProps();

// Block and grid for a tiled kernel: block.x threads wide (tile width),
// block.y threads tall each computing rowsPerThread rows. Chosen from the
// device's shared memory and multiprocessor count: the smallest halo overhead
// that still fits two blocks per multiprocessor and fills the GPU.
struct TileShape {
    dim3 block;
    dim3 grid;
    std::size_t sharedBytes = 0;
    bool ok = false;  // false: even the smallest tile needs too much shared memory
};
using SharedBytesFor = std::size_t (*)(int tileW, int tileH, int rx, int ry, int channels, int kernels);
TileShape chooseTileShape(int width, int rows, int rx, int ry, int channels, int kernels, int rowsPerThread,
                          SharedBytesFor sharedBytesFor);

}  // namespace fs::gpu
