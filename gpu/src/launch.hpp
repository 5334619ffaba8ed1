#pragma once
// Internal: what a mode needs to filter rows of an image already on the device.
// Shared by the mode files, the pipeline and the benchmark; not for the UI.
#include <cuda_runtime.h>

#include <cstddef>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"
#include "fs/lane_math.hpp"
#include "fs/launch.hpp"
#include "mode_workspace.hpp"
#include "refusal.hpp"
#include "typed_launch.hpp"

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

// A whole image in one launch: no strip, no wrap offset; dst and the border are the caller's.
inline KernelGeom wholeImageGeom(const unsigned char* src, std::size_t srcPitch, int width, int height) {
    KernelGeom g;
    g.src = src;
    g.srcPitch = srcPitch;
    g.width = width;
    g.imageHeight = height;
    g.srcRows = height;
    g.outRows = height;
    return g;
}

// How the responses become output values. Kernels of different sizes are
// zero-padded to one size (kw x kh) so every mode loops over one shape.
struct KernelMath {
    int kernelCount = 1;
    int kw = 1, kh = 1;
    float scale = 1.0f, offset = 0.0f;
    bool absolute = false;
    bool outFloat = false;  // store F32 whatever the input depth
    Depth inDepth = Depth::U8;  // for kernels that read the depth at run time (shared)
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
    // u8 in and out, identity mapping, and integer arithmetic gives the float
    // reference's result exactly (fs/lane_math.hpp): one kernel with weights
    // n / 2^shift (fs::dyadicForm) that have a lanes::LaneForm (Gaussian 3x3
    // and 5x5, Laplacian, Sobel x, sharpen; not a 1/9 box), or the magnitude
    // of two integer kernels that lanes::magnitudeFits (Sobel, Scharr,
    // Prewitt; its laneForm is the default: shift 0, no bias).
    bool packedLanes = false;
    lanes::LaneForm laneForm;
    // A magnitude whose first kernel has a zero centre column and second a
    // zero centre row (Sobel, Scharr, Prewitt): those 6 of 18 taps are skipped.
    bool laneGradientZeros = false;
    // A magnitude of [1 b 1] x [-1 0 1] and its transpose (Sobel, Prewitt):
    // b, and the lanes run it separably (lanes::gradientPairCentre).
    std::optional<int> laneGradientCentre;
    std::vector<int> laneWeights;  // kernelCount * kh * kw numerators
    // Pixels of the image it will run on (0: not known). "auto" reads it
    // where the fastest mode depends on how many waves the image fills.
    long long imagePixels = 0;
};

std::string prepareFilter(const FilterSpec& spec, Depth inDepth, int channels, PreparedFilter& out);

struct LaunchArgs {
    KernelGeom geom;
    const PreparedFilter* filter = nullptr;
    LaunchConfig config;  // as requested; the mode's plan() has accepted it
    // Work areas for modes that need them (fft), owned by the caller; the
    // other modes ignore it. A mode that needs one fails without it.
    ModeWorkspaces* workspaces = nullptr;
};

struct QuadSpan;

// A launch configuration resolved for one kernel variant: what runs and how
// it is shaped, for an output area of a given size.
struct LaunchPlan {
    LaunchConfig config;           // every knob resolved
    KernelRef kernel;              // the __global__ function
    dim3 block{1, 1, 1}, grid{1, 1, 1};
    std::size_t sharedBytes = 0;   // dynamic shared memory per block
    std::string variant;           // e.g. "r1 compiled, 1x8 per thread"
    // The quad kernels' span (quad_frame.hpp): the outputs outside it run in
    // leading rows of blocks that the launch adds to `grid`. nullptr for the
    // other kernels.
    QuadSpan (*quadSpan)(const KernelGeom& g, const KernelMath& m, int pixels, int rows) = nullptr;
};

// One implementation mode, registered once (mode_registry.cpp): its id and
// description appear only in its ModeImpl. supports() says why a filter
// cannot run (ok() if it can); prepare() runs once per run (weights to
// constant memory); plan() resolves a launch configuration for width x rows
// outputs or says why it is refused; launch() runs per strip or pipeline
// piece; candidates() are the configurations the autotuner times. Never throw.
// A mode that picks another per filter ("auto") sets choose() instead of the
// five functions.
struct ModeImpl {
    using PlanFn = Refusal (*)(const PreparedFilter& f, const LaunchConfig& want, int width, int rows, LaunchPlan& out);
    const char* id;
    const char* description;
    Refusal (*supports)(const PreparedFilter& f);
    cudaError_t (*prepare)(const PreparedFilter& f, cudaStream_t stream);
    PlanFn plan;
    cudaError_t (*launch)(const LaunchArgs& args, cudaStream_t stream);
    std::vector<LaunchConfig> (*candidates)();
    const ModeImpl& (*choose)(const PreparedFilter& f) = nullptr;
    bool isDefault = false;  // the backend's default (ModeInfo::isDefault)
    // Within a documented tolerance of the reference rather than its
    // per-tap arithmetic (ModeInfo::approximate): fft, tensor.
    bool approximate = false;
    // Why this device cannot run the mode at all (empty: it can, or no
    // device to ask); the backend lists the mode as unavailable with it.
    std::string (*deviceProblem)() = nullptr;

    bool choosesPerFilter() const { return choose != nullptr; }
};

const ModeImpl& globalMode();
const ModeImpl& global1dMode();
const ModeImpl& sharedTextbookMode();
const ModeImpl& constantMode();
const ModeImpl& sharedMode();
const ModeImpl& textureMode();
const ModeImpl& separableMode();
const ModeImpl& registersMode();
const ModeImpl& fftMode();
const ModeImpl& tensorMode();
const ModeImpl& autoMode();
// Whether the separable mode runs `f` by default as its rolling strip
// (mode_separable.cu): one square rank-1 kernel from 5x5 to 31x31, gray or
// 8-bit colour, that its quads do not run.
bool separableRunsStrip(const PreparedFilter& f);
// Whether it runs `f` as its quads: one square rank-1 kernel to 9x9 (gray u8
// to 13x13, f32 to 11x11), or a magnitude of two to 7x7, on a gray u8 or f32,
// a BGR8 or an RGBA8 image.
bool separableRunsQuads(const PreparedFilter& f);
// Whether the registers mode compiles `f` as quads of adjacent pixels above
// 7x7 (mode_registers.cu): one square kernel 9x9 to 15x15 on a gray u8 or
// f32 image, to 11x11 on BGR8, 9x9 on RGBA8.
bool registersRunsWideQuads(const PreparedFilter& f);

// ---- The registry (mode_registry.cpp) --------------------------------------
// Every mode in display order, the choosing one last.
const std::vector<const ModeImpl*>& registeredModes();
// The registered mode of that id, or nullptr.
const ModeImpl* findRegisteredMode(const std::string& id);
// The mode that runs `f` when `mode` is asked for (a choosing mode resolved).
const ModeImpl& modeFor(const ModeImpl& mode, const PreparedFilter& f);
// findRegisteredMode + modeFor; nullptr for an unknown id.
const ModeImpl* findModeImpl(const std::string& id, const PreparedFilter& f);
// A supports() for modes whose only limits are their planner's: refused
// when the default configuration does not plan (no device: not refused).
Refusal supportedIfPlans(ModeImpl::PlanFn plan, const PreparedFilter& f);
// The autotuner's block shapes (8x8 ... 32x32, 32x4 ... 128x4) times a
// mode's outputs per thread (x, y).
std::vector<LaunchConfig> candidateGrid(std::initializer_list<std::pair<int, int>> perThread);

}  // namespace fs::gpu

namespace fs::gpu {

// Properties of the current device, read once.
const cudaDeviceProp& deviceProps();
// Whether deviceProps() came from a device (else conservative stand-ins).
bool deviceUsable();

// Block and grid for a tiled kernel: block.x threads wide each computing
// colsPerThread columns (tile width block.x * colsPerThread), block.y threads
// tall each computing rowsPerThread rows. Chosen from the device's shared
// memory and multiprocessor count: the smallest halo overhead that still fits
// two blocks per multiprocessor and fills the GPU.
struct TileShape {
    dim3 block;
    dim3 grid;
    std::size_t sharedBytes = 0;
    bool ok = false;  // false: even the smallest tile needs too much shared memory
};
using SharedBytesFor = std::size_t (*)(int tileW, int tileH, int rx, int ry, int channels, int kernels);
TileShape chooseTileShape(int width, int rows, int rx, int ry, int channels, int kernels, int colsPerThread,
                          int rowsPerThread, SharedBytesFor sharedBytesFor);

// ---- Launch configurations (launch_plan.cpp) ------------------------------
inline unsigned ceilDiv(int a, int b) { return static_cast<unsigned>((a + b - 1) / b); }

// The checks every plan ends with, read from the device and the kernel's own
// attributes: threads per block, shared memory, at least one resident block,
// grid limits. ok() when the plan can launch; NoDevice without a device.
Refusal checkPlan(const LaunchPlan& plan);
// Refuses knobs a mode does not have: `what` names them in the message.
std::string refuseKnob(const char* mode, const char* what);
// The value of a per-thread knob (0: `fallback`), or -1 when `allowed` lacks it.
int pickCount(int requested, int fallback, std::initializer_list<int> allowed);
std::string countList(std::initializer_list<int> allowed);  // "1, 2 or 4"
// The block shape: the requested one, else the mode's default.
dim3 pickBlock(const LaunchConfig& want, dim3 fallback);
// Grid covering width x rows with tiles of block * perThread.
dim3 gridFor(int width, int rows, dim3 block, int perThreadX, int perThreadY);
// Occupancy and resources of a checked plan (the Launch panel).
LaunchReport reportPlan(const LaunchPlan& plan, const std::string& mode);

// The parameter lists of the kernel families a plan can hold; launchPlanned
// names its family, so its arguments are checked against it as it compiles,
// and the plan's kernel against it (KernelRef's tag) as it launches.
using GeomMathKernel = void (*)(KernelGeom, KernelMath);                 // global_1d, textbook, tensor
using GeomMathIntKernel = void (*)(KernelGeom, KernelMath, int);         // separable, registers, quads
using GeomMathIntIntKernel = void (*)(KernelGeom, KernelMath, int, int);  // shared
template <class Source, class Weights>
using DirectKernel = void (*)(KernelGeom, KernelMath, Source, Weights, int, int);  // constant, global, texture

namespace detail {
template <class Kernel> struct FamilyLaunch;
template <class... Params> struct FamilyLaunch<void (*)(Params...)> {
    template <class... Args>
    static cudaError_t launch(const LaunchPlan& plan, cudaStream_t stream, Args&&... args) {
        static_assert(sizeof...(Params) == sizeof...(Args), "launchPlanned: wrong number of kernel arguments");
        static_assert(kLaunchable<void (*)(Params...), Args&&...>,
                      "launchPlanned: an argument does not convert to its kernel parameter (or narrows)");
        return launchKernel(plan.kernel, plan.grid, plan.block, plan.sharedBytes, stream,
                            static_cast<std::remove_cv_t<Params>>(std::forward<Args>(args))...);
    }
};
}  // namespace detail

// Launches plan.kernel(args...) on `stream` as a kernel of family `Kernel`;
// raises the kernel's dynamic shared memory limit first when the plan needs
// more than the 48 KB default.
template <class Kernel, class... Args>
cudaError_t launchPlanned(const LaunchPlan& plan, cudaStream_t stream, Args&&... args) {
    if (plan.sharedBytes > 48 * 1024) {
        const cudaError_t err = cudaFuncSetAttribute(plan.kernel.address(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     static_cast<int>(plan.sharedBytes));
        if (err != cudaSuccess) return err;
    }
    return detail::FamilyLaunch<Kernel>::launch(plan, stream, std::forward<Args>(args)...);
}

// Plans `args.config` for this piece and launches it: every mode's launch().
template <class Kernel, class... Args>
cudaError_t planAndLaunch(const ModeImpl& mode, const LaunchArgs& a, cudaStream_t stream, Args&&... kernelArgs) {
    LaunchPlan plan;
    if (!mode.plan(*a.filter, a.config, a.geom.width, a.geom.outRows, plan).ok()) return cudaErrorInvalidConfiguration;
    return launchPlanned<Kernel>(plan, stream, std::forward<Args>(kernelArgs)...);
}

}  // namespace fs::gpu
