// CUDA-GL interop: register the GL pixel buffer once, map it each frame, let
// the chosen CUDA mode write into it (directly when the result already is
// 4-channel u8, else through the engine's display scratch and one conversion
// pass on a session stream), unmap. The frame holds one DeviceSession.
#include "fs/gpu/gl_interop.hpp"

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <functional>

#include "cuda_support.hpp"
#include "engine_core.hpp"
#include "fs/gpu/cuda_backend.hpp"
#include "fs/gpu/device_run.hpp"
#include "fs/gpu/engine.hpp"
#include "fs/pixel_math.hpp"
#include "typed_launch.hpp"

namespace fs::gpu {

namespace {

template <class T> __device__ std::uint8_t displayByte(T v);
template <> __device__ std::uint8_t displayByte<std::uint8_t>(std::uint8_t v) { return v; }
template <> __device__ std::uint8_t displayByte<std::uint16_t>(std::uint16_t v) {
    return static_cast<std::uint8_t>((static_cast<unsigned>(v) + 128u) / 257u);
}
template <> __device__ std::uint8_t displayByte<float>(float v) { return saturateU8(v); }

// Result (1, 3 or 4 channels, fs order: gray / BGR / BGRA) -> BGRA8, the way
// the GUI converts host results for display.
template <class T>
__global__ void toBgra8(const unsigned char* src, std::size_t srcPitch, int channels, int width, int height, uchar4* dst) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= width || y >= height) return;
    const T* p = reinterpret_cast<const T*>(src + srcPitch * static_cast<std::size_t>(y)) + static_cast<std::size_t>(x) * channels;
    uchar4 out;
    if (channels == 1) {
        out.x = out.y = out.z = displayByte<T>(p[0]);
        out.w = 255;
    } else {
        out.x = displayByte<T>(p[0]);
        out.y = displayByte<T>(p[1]);
        out.z = displayByte<T>(p[2]);
        out.w = channels == 4 ? displayByte<T>(p[3]) : static_cast<std::uint8_t>(255);
    }
    dst[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)] = out;
}

std::atomic<bool> registrationsRefused{false};
const char* const kRefusedRegistration = "registration refused on request (refuseRegistrations)";

}  // namespace

struct GlPixelBufferInterop::State {
    unsigned buffer = 0;
    std::size_t bytes = 0;
    cudaGraphicsResource_t resource = nullptr;
    const void* pinned = nullptr;
    unsigned texture = 0;  // copy each frame into this texture (copyIntoTexture)
    unsigned registeredTexture = 0;
    int textureWidth = 0, textureHeight = 0;
    cudaGraphicsResource_t textureResource = nullptr;

    void unregisterTexture() {
        if (textureResource) cudaGraphicsUnregisterResource(textureResource);
        textureResource = nullptr;
        registeredTexture = 0;
    }
    // The filled buffer into the texture's CUDA array, device to device.
    std::string copyToTexture(const void* pixels, int width, int height) {
        if (registeredTexture != texture || textureWidth != width || textureHeight != height || !textureResource) {
            unregisterTexture();
            if (const cudaError_t e = cudaGraphicsGLRegisterImage(&textureResource, texture, GL_TEXTURE_2D,
                                                                 cudaGraphicsRegisterFlagsWriteDiscard);
                e != cudaSuccess) {
                textureResource = nullptr;
                return cudaMessage("cudaGraphicsGLRegisterImage", e);
            }
            registeredTexture = texture;
            textureWidth = width;
            textureHeight = height;
        }
        if (const cudaError_t e = cudaGraphicsMapResources(1, &textureResource, nullptr); e != cudaSuccess) {
            unregisterTexture();
            return cudaMessage("cudaGraphicsMapResources (texture)", e);
        }
        cudaArray_t array = nullptr;
        const std::size_t rowBytes = static_cast<std::size_t>(width) * 4;
        cudaError_t e = cudaGraphicsSubResourceGetMappedArray(&array, textureResource, 0, 0);
        if (e == cudaSuccess)
            e = cudaMemcpy2DToArray(array, 0, 0, pixels, rowBytes, rowBytes, static_cast<std::size_t>(height),
                                    cudaMemcpyDeviceToDevice);
        const cudaError_t unmapped = cudaGraphicsUnmapResources(1, &textureResource, nullptr);
        if (e != cudaSuccess) return cudaMessage("copying the frame into the texture", e);
        if (unmapped != cudaSuccess) return cudaMessage("cudaGraphicsUnmapResources (texture)", unmapped);
        return {};
    }

    void unregister() {
        if (resource) cudaGraphicsUnregisterResource(resource);
        resource = nullptr;
        buffer = 0;
        bytes = 0;
    }
    void unpin() {
        if (pinned) cudaHostUnregister(const_cast<void*>(pinned));
        pinned = nullptr;
    }
    ~State() {
        unregisterTexture();
        unregister();
        unpin();
    }
};

GlPixelBufferInterop::GlPixelBufferInterop() : state_(std::make_unique<State>()) {}
GlPixelBufferInterop::~GlPixelBufferInterop() = default;

std::string GlPixelBufferInterop::unavailableReason() { return Engine::instance().unavailableReason(); }

std::string GlPixelBufferInterop::backendId() {
    static const std::string id = makeCudaBackend()->id();
    return id;
}

std::string GlPixelBufferInterop::pinInput(ConstImageView input) {
    if (std::string why = unavailableReason(); !why.empty()) return why;
    if (input.empty()) return "empty image";
    if (state_->pinned == input.data) return {};
    state_->unpin();
    const std::size_t bytes = input.stride * static_cast<std::size_t>(input.height);
    const cudaError_t e = cudaHostRegister(const_cast<void*>(input.data), bytes, cudaHostRegisterDefault);
    if (e != cudaSuccess) {
        cudaGetLastError();  // not sticky: clear it so the next call starts clean
        return cudaMessage("cudaHostRegister", e);
    }
    state_->pinned = input.data;
    return {};
}

void GlPixelBufferInterop::unpinInput() { state_->unpin(); }

const void* GlPixelBufferInterop::pinnedInput() const { return state_->pinned; }

void GlPixelBufferInterop::copyIntoTexture(unsigned glTexture) {
    if (state_->texture == glTexture) return;
    state_->unregisterTexture();
    state_->texture = glTexture;
}

void GlPixelBufferInterop::refuseRegistrations(bool refuse) { registrationsRefused = refuse; }

void GlPixelBufferInterop::forget(unsigned glBuffer) {
    if (state_->buffer == glBuffer) state_->unregister();
}

std::string GlPixelBufferInterop::runIntoPixelBuffer(unsigned glBuffer, std::size_t bufferBytes, const FilterSpec& spec,
                                                     ConstImageView input, const std::string& mode, TimingRecord* timing) {
    const auto start = Clock::now();
    if (std::string why = unavailableReason(); !why.empty()) return why;
    if (std::string why = validateImage(input); !why.empty()) return why;
    const DeviceImageInfo shape{input.width, input.height, input.channels, input.depth};
    return runInto(glBuffer, bufferBytes, spec, shape, start, timing, [&](DeviceOutput out, TimingRecord& run) {
        return runToDevice(spec, input, mode, out, &run);
    });
}

std::string GlPixelBufferInterop::runIntoPixelBuffer(unsigned glBuffer, std::size_t bufferBytes, const FilterSpec& spec,
                                                     DeviceImageHandle image, const std::string& mode,
                                                     TimingRecord* timing, const LaunchConfig& launch) {
    const auto start = Clock::now();
    if (std::string why = unavailableReason(); !why.empty()) return why;
    const std::optional<DeviceImageInfo> shape = Engine::instance().info(image);
    if (!shape) return "no device image " + std::to_string(image.id) + " (released or never uploaded)";
    return runInto(glBuffer, bufferBytes, spec, *shape, start, timing, [&](DeviceOutput out, TimingRecord& run) {
        return Engine::instance().run(spec, image, mode, RunTarget::deviceMemory(out), run, launch);
    });
}

std::string GlPixelBufferInterop::runInto(unsigned glBuffer, std::size_t bufferBytes, const FilterSpec& spec,
                                          const DeviceImageInfo& input, std::chrono::steady_clock::time_point start,
                                          TimingRecord* timing, const DeviceRun& runFilter) {
    const std::size_t pixels = static_cast<std::size_t>(input.width) * static_cast<std::size_t>(input.height);
    if (bufferBytes != pixels * 4)
        return "pixel buffer holds " + std::to_string(bufferBytes) + " bytes, the image needs " + std::to_string(pixels * 4);

    State& s = *state_;
    double mapMs = 0.0;
    // Registration is costly (driver work): once per buffer and size.
    if (registrationsRefused) {
        s.unregister();
        return std::string("cudaGraphicsGLRegisterBuffer: ") + kRefusedRegistration;
    }
    DeviceSession session;
    if (!session.problem().empty()) return session.problem();
    if (s.buffer != glBuffer || s.bytes != bufferBytes || !s.resource) {
        s.unregister();
        const auto t = Clock::now();
        const cudaError_t e = cudaGraphicsGLRegisterBuffer(&s.resource, glBuffer, cudaGraphicsRegisterFlagsWriteDiscard);
        if (e != cudaSuccess) {
            s.resource = nullptr;
            return cudaMessage("cudaGraphicsGLRegisterBuffer", e);
        }
        s.buffer = glBuffer;
        s.bytes = bufferBytes;
        mapMs += msSince(t);
    }

    auto t = Clock::now();
    if (const cudaError_t e = cudaGraphicsMapResources(1, &s.resource, nullptr); e != cudaSuccess) {
        s.unregister();  // a stale registration (buffer re-specified) must not stick
        return cudaMessage("cudaGraphicsMapResources", e);
    }
    void* mapped = nullptr;
    std::size_t mappedBytes = 0;
    cudaError_t e = cudaGraphicsResourceGetMappedPointer(&mapped, &mappedBytes, s.resource);
    mapMs += msSince(t);

    std::string error;
    TimingRecord run;
    double convertMs = 0.0;
    const Depth outDepth = spec.outputDepth(input.depth);
    if (e != cudaSuccess) {
        error = cudaMessage("cudaGraphicsResourceGetMappedPointer", e);
    } else if (mappedBytes < bufferBytes) {
        error = "mapped pixel buffer is smaller than expected";
    } else if (input.channels == 4 && outDepth == Depth::U8) {
        // Already BGRA8: the mode writes the buffer itself.
        error = runFilter({mapped, static_cast<std::size_t>(input.width) * 4}, run);
    } else {
        const std::size_t pitch = static_cast<std::size_t>(input.width) * static_cast<std::size_t>(input.channels) * depthBytes(outDepth);
        DeviceBuffer& scratch = session.core().displayScratch;
        if ((e = session.reserve(scratch, pitch * static_cast<std::size_t>(input.height))) != cudaSuccess)
            error = cudaMessage("allocating the display scratch", e);
        // The run takes its own (nested) session and has drained its streams when it returns.
        if (error.empty()) error = runFilter({scratch.get(), pitch}, run);
        if (error.empty()) {
            const auto tc = Clock::now();
            const cudaStream_t stream = session.stream(0);
            const dim3 block(32, 8);
            const dim3 grid(ceilDiv(input.width, 32), ceilDiv(input.height, 8));
            auto* dst = static_cast<uchar4*>(mapped);
            const unsigned char* src = scratch.data();
            auto convert = [&](auto kernel) {
                return launchKernel(kernel, grid, block, 0, stream, src, pitch, input.channels, input.width,
                                    input.height, dst);
            };
            switch (outDepth) {
            case Depth::U8: e = convert(toBgra8<std::uint8_t>); break;
            case Depth::U16: e = convert(toBgra8<std::uint16_t>); break;
            case Depth::F32: e = convert(toBgra8<float>); break;
            }
            // Waited for here, not at unmap: the texture copy below and the timing need it done.
            if (e != cudaSuccess || (e = cudaStreamSynchronize(stream)) != cudaSuccess)
                error = cudaMessage("display conversion", e);
            convertMs = msSince(tc);
        }
    }
    double textureMs = 0.0;
    if (error.empty() && s.texture) {
        const auto tt = Clock::now();
        error = s.copyToTexture(mapped, input.width, input.height);
        textureMs = msSince(tt);
    }

    t = Clock::now();
    e = cudaGraphicsUnmapResources(1, &s.resource, nullptr);
    mapMs += msSince(t);
    if (error.empty() && e != cudaSuccess) error = cudaMessage("cudaGraphicsUnmapResources", e);
    if (!error.empty()) return error;

    if (timing) {
        timing->uploadMs = run.uploadMs;
        timing->hostPrepMs = run.hostPrepMs;
        // The display conversion is kernel work too, so it is counted there.
        if (run.kernelMs || convertMs > 0.0) timing->kernelMs = run.kernelMs.value_or(0.0) + convertMs;
        timing->downloadMs.reset();  // the point of interop: nothing comes back to the host
        timing->mapMs = mapMs;
        if (s.texture) timing->displayMs = textureMs;
        timing->totalMs = msSince(start);
    }
    return {};
}

}  // namespace fs::gpu
