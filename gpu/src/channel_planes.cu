// The planar channel layout: split, per-plane launches, merge (channel_planes.hpp).
#include "channel_planes.hpp"

#include <algorithm>
#include <cstdint>

#include "cuda_support.hpp"
#include "device_buffer.hpp"

namespace fs::gpu {
namespace {

class PlanesWorkspace final : public ModeWorkspace {
public:
    std::size_t bytes() const override { return in.bytes() + out.bytes(); }
    DeviceBuffer in, out;
};

// The work area's owner: one per stream, whatever the mode.
const char kPlanesOwner = 0;

struct PlaneSet {
    unsigned char* base = nullptr;
    std::size_t pitch = 0;       // bytes per plane row
    std::size_t planeBytes = 0;  // pitch x rows
};

// Rows of interleaved elements E (the sample's bytes: u8, u16, f32 as bits)
// <-> one plane per channel. Threads walk x, so the planes' side is coalesced.
template <class E>
__global__ void splitIntoPlanes(const unsigned char* src, std::size_t srcPitch, int width, int rows, int channels,
                                PlaneSet planes) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const E* in = reinterpret_cast<const E*>(src + static_cast<std::size_t>(r) * srcPitch) + x * channels;
        for (int c = 0; c < channels; ++c)
            reinterpret_cast<E*>(planes.base + c * planes.planeBytes + static_cast<std::size_t>(r) * planes.pitch)[x] =
                in[c];
    }
}

template <class E>
__global__ void mergePlanes(PlaneSet planes, int width, int rows, int channels, unsigned char* dst,
                            std::size_t dstPitch) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        E* out = reinterpret_cast<E*>(dst + static_cast<std::size_t>(r) * dstPitch) + x * channels;
        for (int c = 0; c < channels; ++c)
            out[c] = reinterpret_cast<const E*>(planes.base + c * planes.planeBytes +
                                                static_cast<std::size_t>(r) * planes.pitch)[x];
    }
}

template <class F> void forElementBytes(std::size_t bytes, F&& fn) {
    if (bytes == 1) fn(std::uint8_t{});
    else if (bytes == 2) fn(std::uint16_t{});
    else fn(std::uint32_t{});
}

dim3 rowsGrid(int width, int rows) {
    return dim3(ceilDiv(width, 256), static_cast<unsigned>(std::clamp(rows, 1, 65535)));
}

}  // namespace

cudaError_t launchOnPlanes(const ModeImpl& mode, const LaunchArgs& args, int channels, cudaStream_t stream,
                           cudaEvent_t split, cudaEvent_t filtered) {
    if (!args.workspaces || !args.filter) return cudaErrorInvalidValue;
    const KernelGeom& g = args.geom;
    if (g.width < 1 || g.outRows < 1) return cudaSuccess;
    const std::size_t inBytes = depthBytes(args.filter->inDepth);
    const std::size_t outBytes = args.filter->math.outFloat ? sizeof(float) : inBytes;
    PlanesWorkspace& ws = args.workspaces->get<PlanesWorkspace>(&kPlanesOwner, stream);
    PlaneSet in, out;
    in.pitch = alignUp(static_cast<std::size_t>(g.width) * inBytes, 512);
    in.planeBytes = in.pitch * static_cast<std::size_t>(g.srcRows);
    out.pitch = alignUp(static_cast<std::size_t>(g.width) * outBytes, 512);
    out.planeBytes = out.pitch * static_cast<std::size_t>(g.outRows);
    cudaError_t err = ws.in.reserve(in.planeBytes * channels);
    if (err == cudaSuccess) err = ws.out.reserve(out.planeBytes * channels);
    if (err != cudaSuccess) return err;
    in.base = ws.in.data();
    out.base = ws.out.data();

    forElementBytes(inBytes, [&](auto e) {
        splitIntoPlanes<decltype(e)><<<rowsGrid(g.width, g.srcRows), 256, 0, stream>>>(g.src, g.srcPitch, g.width,
                                                                                        g.srcRows, channels, in);
    });
    if ((err = cudaGetLastError()) != cudaSuccess) return err;
    if (split) cudaEventRecord(split, stream);
    for (int c = 0; c < channels; ++c) {
        // The plane keeps the piece's rows and wrap: only where they live changes.
        LaunchArgs plane = args;
        plane.geom.src = in.base + c * in.planeBytes;
        plane.geom.srcPitch = in.pitch;
        plane.geom.dst = out.base + c * out.planeBytes;
        plane.geom.dstPitch = out.pitch;
        if ((err = mode.launch(plane, stream)) != cudaSuccess) return err;
    }
    if (filtered) cudaEventRecord(filtered, stream);
    forElementBytes(outBytes, [&](auto e) {
        mergePlanes<decltype(e)><<<rowsGrid(g.width, g.outRows), 256, 0, stream>>>(out, g.width, g.outRows, channels,
                                                                                    g.dst, g.dstPitch);
    });
    return cudaGetLastError();
}

}  // namespace fs::gpu
