#pragma once
// CUDA-GL interop behind plain C++: OpenGL objects are passed by their ids, so
// the GUI includes neither CUDA nor GL headers through this file.
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "fs/filter_spec.hpp"
#include "fs/gpu/engine.hpp"
#include "fs/gpu/module.hpp"
#include "fs/image.hpp"
#include "fs/timing.hpp"

namespace fs::gpu {

// Filters an image straight into an OpenGL pixel buffer object registered
// with CUDA: no device-to-host copy. The buffer holds width x height BGRA8
// pixels, tightly packed (fs's channel order: upload it with GL_BGRA). Any
// input depth and channel count is converted the way the GUI displays host
// results: u16 / 257, f32 clamped to 0..255 and rounded, gray replicated,
// alpha 255 unless the result has its own.
//
// Every call needs the GL context that owns the buffer current on the
// calling thread. Registrations are cached per buffer and size.
class GlPixelBufferInterop final : public PixelBufferFill {
public:
    GlPixelBufferInterop();
    ~GlPixelBufferInterop() override;  // unregisters (the GL context must still exist)
    GlPixelBufferInterop(const GlPixelBufferInterop&) = delete;
    GlPixelBufferInterop& operator=(const GlPixelBufferInterop&) = delete;

    // Empty when CUDA-GL interop can be tried, otherwise why not.
    static std::string unavailableReason();
    // The id of the backend whose modes this runs (Backend::id() of makeCudaBackend()).
    static std::string backendId();

    // Runs `mode` of the CUDA backend into `glBuffer` (bufferBytes must be
    // width*height*4). Empty on success, otherwise why not; the caller then
    // falls back to the host path. `timing` gets upload/kernel from the run,
    // mapMs (register + map + unmap) and totalMs.
    std::string runIntoPixelBuffer(unsigned glBuffer, std::size_t bufferBytes, const FilterSpec& spec,
                                   ConstImageView input, const std::string& mode, TimingRecord* timing) override;
    // The same from an image kept on the device (fs::gpu::Engine::upload):
    // nothing crosses PCIe per frame.
    std::string runIntoPixelBuffer(unsigned glBuffer, std::size_t bufferBytes, const FilterSpec& spec,
                                   DeviceImageHandle image, const std::string& mode, TimingRecord* timing,
                                   const LaunchConfig& launch = {}) override;

    // Makes every later registration fail as a driver's refusal would, or
    // stops doing so: shows (and tests) the callers' fallback on a GPU where
    // interop works. Drops the cached registrations of live instances lazily.
    static void refuseRegistrations(bool refuse);

    // Drops the cached registration (call before deleting the GL buffer).
    void forget(unsigned glBuffer) override;

    // From now on each run also copies the filled buffer into `glTexture`
    // (GL_TEXTURE_2D, RGBA8 storage of the image's size) on the CUDA side,
    // device to device, so the caller skips glTexSubImage2D: GL's own unpack
    // from a pixel buffer is far slower (docs/performance.md). The copy's
    // time goes into TimingRecord::displayMs. 0 stops it; call with 0 before
    // deleting the texture or changing its size. The texels then hold
    // the buffer's bytes as they are (blue in the red texel, red in the blue):
    // sample them through a red/blue swizzle, as the studio's view does.
    void copyIntoTexture(unsigned glTexture) override;

    // Page-locks the input's pixels so later runs upload them straight from
    // there instead of staging each frame through a pinned copy. The caller
    // keeps the memory alive until unpinInput() (or destruction). Empty on
    // success, else why not (runs still work, only slower).
    std::string pinInput(ConstImageView input) override;
    void unpinInput() override;
    const void* pinnedInput() const override;

private:
    using DeviceRun = std::function<std::string(DeviceOutput, TimingRecord&)>;
    std::string runInto(unsigned glBuffer, std::size_t bufferBytes, const FilterSpec& spec, const DeviceImageInfo& input,
                        std::chrono::steady_clock::time_point start, TimingRecord* timing, const DeviceRun& runFilter);

    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace fs::gpu
