#pragma once
// A desktop OpenGL context with no window and no display server: the first
// EGL device that initialises (EGL_EXT_device_enumeration), a small pbuffer
// and an OpenGL (not GLES) context made current on the constructing thread.
// For the interop tests and the frame benchmark on a GPU machine without X.
#include <cstddef>
#include <string>

namespace fs::gpu {

class HeadlessGl {
public:
    HeadlessGl();
    ~HeadlessGl();
    HeadlessGl(const HeadlessGl&) = delete;
    HeadlessGl& operator=(const HeadlessGl&) = delete;

    // Empty when the context is current, else why there is none.
    const std::string& unavailableReason() const { return reason_; }
    std::string renderer() const;  // "NVIDIA H100 80GB HBM3/PCIe/SSE2, 4.6.0 NVIDIA 580.159.04"

private:
    std::string reason_;
    void* display_ = nullptr;
    void* context_ = nullptr;
    void* surface_ = nullptr;
};

// What the studio's view holds for an image shown through interop: a pixel
// buffer of width x height BGRA8 pixels for CUDA to write, an RGBA8 texture
// of the same size, and a framebuffer that reads the texture. Needs a
// current GL context for its whole life.
class GlImageTarget {
public:
    GlImageTarget(int width, int height);
    ~GlImageTarget();
    GlImageTarget(const GlImageTarget&) = delete;
    GlImageTarget& operator=(const GlImageTarget&) = delete;

    unsigned buffer() const { return buffer_; }
    unsigned texture() const { return texture_; }
    unsigned framebuffer() const { return framebuffer_; }
    int width() const { return width_; }
    int height() const { return height_; }
    std::size_t bytes() const { return static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_) * 4; }

    void textureFromBuffer() const;                // GL's unpack of the pixel buffer, as the view's fallback does
    void textureFrom(const void* bgraPixels) const;  // from host memory (the readback path)
    void readTexture(void* bgraPixels) const;      // width x height x 4 bytes
    void readTexels(void* rgbaTexels) const;       // the same in storage order: red, green, blue, alpha

private:
    unsigned buffer_ = 0, texture_ = 0, framebuffer_ = 0;
    int width_, height_;
};

}  // namespace fs::gpu
