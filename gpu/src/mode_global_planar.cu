// Mode "global-planar": the primer's AoS/SoA lesson on the "global" kernel.
// Images live interleaved (RGBRGB, an array of structures) on the host and
// the device; this mode first splits them into one plane per channel (a
// structure of arrays) in its work area, then filters every plane with one
// thread per output sample (grid z = channel: consecutive threads read
// consecutive samples of one plane, unit stride) and writes the result back
// interleaved. The split is part of its time: planes pay off only where the
// data already lives that way. Bit-identical to "global" (same taps, same
// order). Weights in constant memory, generic run-time loops.
#include <algorithm>
#include <string>

#include "constant_weights.cuh"
#include "cuda_support.hpp"
#include "device_buffer.hpp"
#include "device_common.cuh"

namespace fs::gpu {
namespace {

// One stream's planes (ModeWorkspaces owns it).
class PlanarWorkspace final : public ModeWorkspace {
public:
    std::size_t bytes() const override { return planes.bytes(); }
    DeviceBuffer planes;
};

struct Planes {
    unsigned char* base = nullptr;
    std::size_t pitch = 0;       // bytes per plane row
    std::size_t planeBytes = 0;  // pitch x the source buffer's rows
};

// Source buffer row r, channel c -> plane c, row r (same rows, same wrap).
template <class T, int C> __global__ void splitPlanes(KernelGeom g, Planes p) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= g.width) return;
    for (int r = blockIdx.y; r < g.srcRows; r += gridDim.y) {
        const T* in = reinterpret_cast<const T*>(g.src + static_cast<std::size_t>(r) * g.srcPitch) + x * C;
#pragma unroll
        for (int c = 0; c < C; ++c)
            reinterpret_cast<T*>(p.base + c * p.planeBytes + static_cast<std::size_t>(r) * p.pitch)[x] = in[c];
    }
}

// Output sample (x, y, channel blockIdx.z) from plane blockIdx.z; stored
// interleaved with storePixel's arithmetic for one channel.
template <class T, int C> __global__ void planarKernel(KernelGeom g, KernelMath m, Planes p) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= g.width || row >= g.outRows) return;
    const int y = g.outRow0 + row;
    KernelGeom plane = g;
    plane.src = p.base + c * p.planeBytes;
    plane.srcPitch = p.pitch;
    const int rx = m.kw / 2, ry = m.kh / 2, taps = m.kw * m.kh;
    float a = 0.0f, b = 0.0f;
    for (int ky = 0; ky < m.kh; ++ky)
        for (int kx = 0; kx < m.kw; ++kx) {
            const float v = loadPixel<T, 1, false>(plane, x + kx - rx, y + ky - ry).c[0];
            const int tap = ky * m.kw + kx;
            a = fmaf(c_weights[tap], v, a);
            if (m.kernelCount > 1) b = fmaf(c_weights[taps + tap], v, b);
        }
    const float r = m.kernelCount > 1 ? magnitudeUnfused(a, b) : a;
    const float v = mappingUnfused(r, m.scale, m.offset, m.absolute);
    unsigned char* out = g.dst + static_cast<std::size_t>(row) * g.dstPitch;
    if (m.outFloat) reinterpret_cast<float*>(out)[x * C + c] = v;
    else reinterpret_cast<T*>(out)[x * C + c] = PixelTraits<T>::store(v);
}

template <class F> void forPixel(const PreparedFilter& f, F&& fn) {
    dispatchPixel(f.inDepth, f.channels, [&](auto tag, auto channels) { fn(tag, channels); });
}

Refusal planPlanar(const PreparedFilter& f, const LaunchConfig& want, int width, int rows, LaunchPlan& out) {
    if (want.halo != HaloScheme::Default) return refuseKnob("global-planar", "shared-memory halo (it reads global memory)");
    if (want.radius == RadiusPath::Compiled)
        return refuseKnob("global-planar", "compiled radius (its loops run to the kernel size)");
    if (pickCount(want.perThreadX, 1, {1}) < 0 || pickCount(want.perThreadY, 1, {1}) < 0)
        return "the global-planar mode computes one sample per thread";
    forPixel(f, [&](auto tag, auto channels) {
        out.kernel = reinterpret_cast<const void*>(planarKernel<decltype(tag), decltype(channels)::value>);
    });
    out.block = pickBlock(want, dim3(32, 8));
    out.grid = gridFor(width, rows, out.block, 1, 1);
    out.grid.z = static_cast<unsigned>(f.channels);
    out.sharedBytes = 0;
    out.config = LaunchConfig{static_cast<int>(out.block.x), static_cast<int>(out.block.y), 1, 1, HaloScheme::Default,
                              RadiusPath::Runtime};
    out.variant = "global-planar, " + std::to_string(f.channels) + " planes split first, one sample per thread";
    return checkPlan(out);
}

Refusal supportsPlanar(const PreparedFilter&) { return {}; }

cudaError_t launchPlanar(const LaunchArgs& a, cudaStream_t stream) {
    if (!a.workspaces) return cudaErrorInvalidValue;
    const PreparedFilter& f = *a.filter;
    const KernelGeom& g = a.geom;
    LaunchPlan plan;
    if (!planPlanar(f, a.config, g.width, g.outRows, plan).ok()) return cudaErrorInvalidConfiguration;
    if (g.width < 1 || g.outRows < 1) return cudaSuccess;
    PlanarWorkspace& ws = a.workspaces->get<PlanarWorkspace>(&globalPlanarMode(), stream);
    Planes p;
    p.pitch = alignUp(static_cast<std::size_t>(g.width) * depthBytes(f.inDepth), 512);
    p.planeBytes = p.pitch * static_cast<std::size_t>(g.srcRows);
    if (const cudaError_t err = ws.planes.reserve(p.planeBytes * f.channels); err != cudaSuccess) return err;
    p.base = ws.planes.data();
    forPixel(f, [&](auto tag, auto channels) {
        splitPlanes<decltype(tag), decltype(channels)::value>
            <<<dim3(ceilDiv(g.width, 256), static_cast<unsigned>(std::min(g.srcRows, 65535))), 256, 0, stream>>>(g, p);
    });
    if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
    return launchPlanned(plan, stream, g, f.math, p);
}

std::vector<LaunchConfig> planarCandidates() { return candidateGrid({{1, 1}}); }

}  // namespace

const ModeImpl& globalPlanarMode() {
    static const ModeImpl mode{
        "global-planar",
        "The primer's lesson on layouts: an array of structures (RGBRGB, how images are stored) against a structure "
        "of arrays (all the reds, then all the greens, then the blues). This mode splits the interleaved image into "
        "one plane per channel first, then runs global's one-thread-per-output kernel on every plane, so a warp "
        "reads consecutive samples of one colour instead of every third or fourth byte, and writes the result back "
        "interleaved. The split is part of the time: compare it with global on RGB and RGBA images to see when the "
        "better access pattern pays for the extra pass. Its results equal global's bit for bit.",
        supportsPlanar, uploadConstantWeights, planPlanar, launchPlanar, planarCandidates};
    return mode;
}

}  // namespace fs::gpu
