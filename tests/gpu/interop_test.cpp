// CUDA-GL interop end to end on a headless EGL context: each CUDA mode writes
// into a registered GL pixel buffer, GL copies it into a texture, the texture
// is read back through a framebuffer and compared with the CPU reference.
// Frame times are measured by filterstudio-frame-bench, not here.
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fs/gpu/cuda_options.hpp"
#include "fs/gpu/gl_interop.hpp"
#include "fs/gpu/headless_gl.hpp"
#include "fs/pixel_math.hpp"
#include "fs/presets.hpp"
#include "gpu_test_support.hpp"

namespace fs::test {
namespace {

// One headless OpenGL context for the whole run.
gpu::HeadlessGl& gl() {
    static gpu::HeadlessGl context;
    static const bool announced = [] {
        if (context.unavailableReason().empty()) std::printf("[ gl       ] %s\n", context.renderer().c_str());
        return true;
    }();
    (void)announced;
    return context;
}

#define FS_SKIP_WITHOUT_INTEROP()                                                                         \
    do {                                                                                                  \
        FS_SKIP_WITHOUT_CUDA();                                                                           \
        if (!gpu::GlPixelBufferInterop::unavailableReason().empty())                                     \
            GTEST_SKIP() << "interop unavailable: " << gpu::GlPixelBufferInterop::unavailableReason();  \
        if (!gl().unavailableReason().empty())                                                          \
            GTEST_SKIP() << "headless OpenGL unavailable: " << gl().unavailableReason(); \
    } while (0)

Image readTexture(const gpu::GlImageTarget& target) {
    Image out(target.width(), target.height(), 4, Depth::U8);
    target.readTexture(out.data());
    return out;
}

// The GUI's host display conversion (ui/image_convert.cpp) into BGRA8.
Image displayBgra(ConstImageView v) {
    Image out(v.width, v.height, 4, Depth::U8);
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x) {
            std::uint8_t* d = out.view().row<std::uint8_t>(y) + x * 4;
            auto byte = [&](int c) -> std::uint8_t {
                const double s = sampleAt(v, x, y, c);
                switch (v.depth) {
                case Depth::U8: return static_cast<std::uint8_t>(s);
                case Depth::U16: return static_cast<std::uint8_t>((static_cast<unsigned>(s) + 128u) / 257u);
                case Depth::F32: return saturateU8(static_cast<float>(s));
                }
                return 0;
            };
            if (v.channels == 1) {
                d[0] = d[1] = d[2] = byte(0);
                d[3] = 255;
            } else {
                d[0] = byte(0);
                d[1] = byte(1);
                d[2] = byte(2);
                d[3] = v.channels == 4 ? byte(3) : 255;
            }
        }
    return out;
}

// Exact for integer kernels on integer images (any summation order is exact
// there); otherwise +-1 in at most 1% of the values (rounding near .5 may
// differ between the FMA GPU sums and the reference), as the mode tests allow.
::testing::AssertionResult sameDisplay(const FilterSpec& spec, ConstImageView input, const Image& actual, const Image& expected) {
    const bool exactExpected = input.depth != Depth::F32 && integerSpec(spec);
    long long offByOne = 0, bad = 0;
    std::string first;
    for (int y = 0; y < actual.height(); ++y)
        for (int i = 0; i < actual.width() * 4; ++i) {
            const int a = actual.cview().row<std::uint8_t>(y)[i], e = expected.cview().row<std::uint8_t>(y)[i];
            if (a == e) continue;
            if (!exactExpected && std::abs(a - e) == 1) {
                ++offByOne;
                continue;
            }
            if (bad++ == 0)
                first = "first at (" + std::to_string(i / 4) + "," + std::to_string(y) + ") byte " + std::to_string(i % 4) +
                        ": got " + std::to_string(a) + ", expected " + std::to_string(e);
        }
    const long long values = static_cast<long long>(actual.width()) * actual.height() * 4;
    if (bad) return ::testing::AssertionFailure() << bad << " of " << values << " bytes differ; " << first;
    if (offByOne * 100 > values) return ::testing::AssertionFailure() << offByOne << " bytes off by one (over 1%)";
    return ::testing::AssertionSuccess();
}

FilterSpec preset(const std::string& text, float offset = 0.0f, bool absolute = false) {
    FilterSpec spec;
    std::string why;
    EXPECT_TRUE(makePreset(text, spec, &why)) << why;
    spec.output.offset = offset;
    spec.output.absolute = absolute;
    return spec;
}

void checkEveryMode(const FilterSpec& spec, ConstImageView input) {
    const Image expected = displayBgra(cpu::referenceFilter(spec, input).cview());
    gpu::GlPixelBufferInterop interop;
    gpu::GlImageTarget target(input.width, input.height);
    for (const ModeInfo& mode : gpu::makeCudaBackend()->modes()) {
        SCOPED_TRACE("mode " + mode.id + ", spec " + spec.name);
        // Poison the buffer so a mode that skips pixels cannot pass.
        std::vector<std::uint8_t> poison(target.bytes(), 0xA5);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, target.buffer());
        glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(poison.size()), poison.data());
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        TimingRecord timing;
        const std::string error = interop.runIntoPixelBuffer(target.buffer(), target.bytes(), spec, input, mode.id, &timing);
        bool rankOne = true;
        for (const Kernel& k : spec.kernels) rankOne = rankOne && separate(k).has_value();
        if (mode.id == "separable" && !rankOne) {  // that mode refuses such kernels; the GUI then shows why
            EXPECT_NE(error.find("separable"), std::string::npos) << error;
            continue;
        }
        ASSERT_TRUE(error.empty()) << error;
        EXPECT_TRUE(timing.mapMs.has_value());
        EXPECT_FALSE(timing.downloadMs.has_value());
        target.textureFromBuffer();
        ASSERT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
        if (mode.approximate) {
            // Its own tests hold it to its bound; here the interop path must show what the host path returns.
            const RunResult host = gpu::makeCudaBackend()->run(spec, input, mode.id);
            ASSERT_TRUE(host.ok()) << host.error;
            EXPECT_TRUE(imagesMatch(readTexture(target), displayBgra(host.output.cview()), exact()));
            continue;
        }
        EXPECT_TRUE(sameDisplay(spec, input, readTexture(target), expected));
    }
}

TEST(GlInterop, Rgba8WritesTheBufferDirectly) {
    FS_SKIP_WITHOUT_INTEROP();
    auto rng = testRng();
    const Image input = randomImage(257, 131, 4, Depth::U8, rng);
    checkEveryMode(preset("sobel-x:3", 128.0f), input.cview());
    checkEveryMode(preset("gaussian:5:1.3"), input.cview());
}

TEST(GlInterop, PhotosGoThroughTheDisplayConversion) {
    FS_SKIP_WITHOUT_INTEROP();
    const Image coffee = loadPnm(FS_GPU_TEST_DATA_DIR "/coffee.ppm");
    const Image camera = loadPnm(FS_GPU_TEST_DATA_DIR "/camera.pgm");
    ASSERT_FALSE(coffee.empty());
    ASSERT_FALSE(camera.empty());
    checkEveryMode(preset("laplacian-8", 0.0f, true), coffee.cview());
    checkEveryMode(preset("sobel-mag:3"), camera.cview());
}

TEST(GlInterop, WideAndFloatImages) {
    FS_SKIP_WITHOUT_INTEROP();
    auto rng = testRng();
    checkEveryMode(preset("sobel-y:5", 32768.0f), randomImage(131, 77, 1, Depth::U16, rng).cview());
    FilterSpec toFloat = preset("box:7");
    toFloat.output.scale = 255.0f;  // [-1, 1] inputs become visible bytes
    toFloat.output.offset = 128.0f;
    checkEveryMode(toFloat, randomImage(99, 61, 3, Depth::F32, rng).cview());
}

// The live preview's path: the image uploaded once, every frame filtered from the device.
TEST(GlInterop, ResidentImageFramesMatchTheReference) {
    FS_SKIP_WITHOUT_INTEROP();
    auto rng = testRng();
    const Image input = randomImage(257, 131, 4, Depth::U8, rng);
    std::string error;
    gpu::Engine& engine = gpu::Engine::instance();
    const gpu::DeviceImageHandle image = engine.upload(input.cview(), error);
    ASSERT_TRUE(image) << error;
    gpu::GlPixelBufferInterop interop;
    gpu::GlImageTarget target(input.width(), input.height());
    for (const FilterSpec& spec : {preset("gaussian:5:1.3"), preset("sobel-mag:3"), preset("laplacian-8", 0.0f, true)}) {
        const Image expected = displayBgra(cpu::referenceFilter(spec, input.cview()).cview());
        for (const char* mode : {"auto", "shared", "global"}) {
            SCOPED_TRACE(std::string("mode ") + mode + ", spec " + spec.name);
            TimingRecord timing;
            error = interop.runIntoPixelBuffer(target.buffer(), target.bytes(), spec, image, mode, &timing);
            ASSERT_TRUE(error.empty()) << error;
            EXPECT_FALSE(timing.uploadMs.has_value()) << "a resident frame uploads nothing";
            EXPECT_TRUE(timing.kernelMs.has_value());
            target.textureFromBuffer();
            EXPECT_TRUE(sameDisplay(spec, input.cview(), readTexture(target), expected));
        }
    }
    EXPECT_TRUE(engine.release(image));
    error = interop.runIntoPixelBuffer(target.buffer(), target.bytes(), preset("box:3"), image, "auto", nullptr);
    EXPECT_FALSE(error.empty()) << "a released image must be refused";
}

// The studio's frame: CUDA copies the buffer into the texture byte for byte
// (BGRA bytes in RGBA texels; the view swizzles red and blue when sampling).
TEST(GlInterop, TextureCopyHoldsTheBufferBytes) {
    FS_SKIP_WITHOUT_INTEROP();
    auto rng = testRng();
    const Image photo = loadPnm(FS_GPU_TEST_DATA_DIR "/coffee.ppm");
    ASSERT_FALSE(photo.empty());
    const Image rgba = randomImage(203, 97, 4, Depth::U8, rng);
    for (const Image* image : {&photo, &rgba}) {
        const Image& input = *image;
        gpu::GlImageTarget target(input.width(), input.height());
        gpu::GlPixelBufferInterop interop;
        interop.copyIntoTexture(target.texture());
        const FilterSpec spec = preset("gaussian:5:1.3");
        TimingRecord timing;
        const std::string error = interop.runIntoPixelBuffer(target.buffer(), target.bytes(), spec, input.cview(), "auto", &timing);
        ASSERT_TRUE(error.empty()) << error;
        EXPECT_TRUE(timing.displayMs.has_value());
        Image texels(input.width(), input.height(), 4, Depth::U8);
        target.readTexels(texels.data());
        ASSERT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
        const Image expected = displayBgra(cpu::referenceFilter(spec, input.cview()).cview());
        EXPECT_TRUE(sameDisplay(spec, input.cview(), texels, expected));
        interop.copyIntoTexture(0);
    }
}

// A refused registration is reported, and the next run after the refusal ends works again.
TEST(GlInterop, RefusedRegistrationIsReported) {
    FS_SKIP_WITHOUT_INTEROP();
    auto rng = testRng();
    const Image input = randomImage(64, 32, 4, Depth::U8, rng);
    gpu::GlImageTarget target(64, 32);
    gpu::GlPixelBufferInterop interop;
    gpu::GlPixelBufferInterop::refuseRegistrations(true);
    const std::string refused = interop.runIntoPixelBuffer(target.buffer(), target.bytes(), preset("box:3"), input.cview(), "auto", nullptr);
    gpu::GlPixelBufferInterop::refuseRegistrations(false);
    EXPECT_NE(refused.find("cudaGraphicsGLRegisterBuffer"), std::string::npos) << refused;
    const std::string error = interop.runIntoPixelBuffer(target.buffer(), target.bytes(), preset("box:3"), input.cview(), "auto", nullptr);
    EXPECT_TRUE(error.empty()) << error;
}

// A forced device allocation failure (fs::gpu::setAllocationFailureForTesting,
// as gpu_faults_test.cpp): a frame through the display conversion (its
// scratch is the engine's), a BGRA8 frame written directly and a resident
// frame each fail as out of device memory, and the next frames match the reference.
TEST(CudaFaults, InteropFramesFailClearlyAndTheNextFrameWorks) {
    FS_SKIP_WITHOUT_INTEROP();
    auto rng = testRng();
    const Image colour = randomImage(83, 47, 3, Depth::U8, rng), bgra = randomImage(83, 47, 4, Depth::U8, rng);
    std::string error;
    const gpu::DeviceImageHandle resident = gpu::Engine::instance().upload(colour.cview(), error);
    ASSERT_TRUE(resident) << error;
    gpu::GlPixelBufferInterop interop;
    gpu::GlImageTarget target(83, 47);
    const FilterSpec spec = preset("laplacian-8", 128.0f);
    auto frame = [&](const Image* host) {
        return host ? interop.runIntoPixelBuffer(target.buffer(), target.bytes(), spec, host->cview(), "auto", nullptr)
                    : interop.runIntoPixelBuffer(target.buffer(), target.bytes(), spec, resident, "auto", nullptr);
    };
    for (const Image* host : {&colour, &bgra, static_cast<const Image*>(nullptr)}) {
        SCOPED_TRACE(host ? std::to_string(host->channels()) + " channels from the host" : std::string("resident"));
        ASSERT_TRUE(frame(host).empty());  // warm: the scratch and the slots exist
        gpu::setAllocationFailureForTesting(true);
        const std::string failed = frame(host);
        gpu::setAllocationFailureForTesting(false);
        EXPECT_NE(failed.find("out of device memory"), std::string::npos) << failed;
        error = frame(host);
        ASSERT_TRUE(error.empty()) << error;
        target.textureFromBuffer();
        const Image& input = host ? *host : colour;
        const Image expected = displayBgra(cpu::referenceFilter(spec, input.cview()).cview());
        EXPECT_TRUE(sameDisplay(spec, input.cview(), readTexture(target), expected));
    }
    EXPECT_TRUE(gpu::Engine::instance().release(resident));
}

TEST(GlInterop, RejectsAWrongBufferSize) {
    FS_SKIP_WITHOUT_INTEROP();
    auto rng = testRng();
    const Image input = randomImage(64, 32, 4, Depth::U8, rng);
    gpu::GlImageTarget target(64, 31);
    gpu::GlPixelBufferInterop interop;
    const std::string error = interop.runIntoPixelBuffer(target.buffer(), target.bytes(), preset("box:3"), input.cview(), "global", nullptr);
    EXPECT_NE(error.find("bytes"), std::string::npos) << error;
}

}  // namespace
}  // namespace fs::test
