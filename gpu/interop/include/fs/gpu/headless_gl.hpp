#pragma once
// A desktop OpenGL context with no window and no display server: the first
// EGL device that initialises (EGL_EXT_device_enumeration), a small pbuffer
// and an OpenGL (not GLES) context made current on the constructing thread.
// For the interop tests and the frame benchmark on a GPU machine without X.
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

}  // namespace fs::gpu
