#define EGL_EGLEXT_PROTOTYPES 1
#define GL_GLEXT_PROTOTYPES 1
#include "fs/gpu/headless_gl.hpp"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>

namespace fs::gpu {

HeadlessGl::HeadlessGl() {
    auto queryDevices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    auto platformDisplay = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (!queryDevices || !platformDisplay) {
        reason_ = "EGL has no device enumeration (EGL_EXT_device_enumeration)";
        return;
    }
    EGLDeviceEXT devices[8];
    EGLint count = 0;
    if (!queryDevices(8, devices, &count) || count == 0) {
        reason_ = "no EGL device";
        return;
    }
    EGLDisplay display = EGL_NO_DISPLAY;
    for (EGLint i = 0; i < count && display == EGL_NO_DISPLAY; ++i) {
        EGLDisplay d = platformDisplay(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
        EGLint major = 0, minor = 0;
        if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) display = d;
    }
    if (display == EGL_NO_DISPLAY) {
        reason_ = "no EGL device display initialises";
        return;
    }
    display_ = display;
    const EGLint configAttribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                    EGL_RED_SIZE,     8,               EGL_GREEN_SIZE,      8,
                                    EGL_BLUE_SIZE,    8,               EGL_NONE};
    EGLConfig config;
    EGLint configs = 0;
    if (!eglChooseConfig(display, configAttribs, &config, 1, &configs) || configs == 0) {
        reason_ = "no EGL config for a desktop OpenGL pbuffer";
        return;
    }
    const EGLint pbufferAttribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    surface_ = eglCreatePbufferSurface(display, config, pbufferAttribs);
    eglBindAPI(EGL_OPENGL_API);
    context_ = eglCreateContext(display, config, EGL_NO_CONTEXT, nullptr);
    if (surface_ == EGL_NO_SURFACE || context_ == EGL_NO_CONTEXT ||
        !eglMakeCurrent(display, static_cast<EGLSurface>(surface_), static_cast<EGLSurface>(surface_),
                        static_cast<EGLContext>(context_)))
        reason_ = "cannot make an EGL OpenGL context current";
}

HeadlessGl::~HeadlessGl() {
    if (!display_) return;
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (context_ != EGL_NO_CONTEXT) eglDestroyContext(display_, static_cast<EGLContext>(context_));
    if (surface_ != EGL_NO_SURFACE) eglDestroySurface(display_, static_cast<EGLSurface>(surface_));
    eglTerminate(display_);
}

std::string HeadlessGl::renderer() const {
    if (!reason_.empty()) return {};
    return std::string(reinterpret_cast<const char*>(glGetString(GL_RENDERER))) + ", " +
           reinterpret_cast<const char*>(glGetString(GL_VERSION));
}

GlImageTarget::GlImageTarget(int width, int height) : width_(width), height_(height) {
    glGenBuffers(1, &buffer_);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer_);
    glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes()), nullptr, GL_STREAM_DRAW);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glGenTextures(1, &texture_);
    glBindTexture(GL_TEXTURE_2D, texture_);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_BGRA, GL_UNSIGNED_BYTE, nullptr);
    glGenFramebuffers(1, &framebuffer_);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture_, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

GlImageTarget::~GlImageTarget() {
    glDeleteFramebuffers(1, &framebuffer_);
    glDeleteTextures(1, &texture_);
    glDeleteBuffers(1, &buffer_);
}

void GlImageTarget::textureFromBuffer() const {
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer_);
    textureFrom(nullptr);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}

void GlImageTarget::textureFrom(const void* bgraPixels) const {
    glBindTexture(GL_TEXTURE_2D, texture_);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_BGRA, GL_UNSIGNED_BYTE, bgraPixels);
}

namespace {
void readFramebuffer(unsigned framebuffer, int width, int height, GLenum format, void* out) {
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, width, height, format, GL_UNSIGNED_BYTE, out);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}
}  // namespace

void GlImageTarget::readTexture(void* bgraPixels) const { readFramebuffer(framebuffer_, width_, height_, GL_BGRA, bgraPixels); }

void GlImageTarget::readTexels(void* rgbaTexels) const { readFramebuffer(framebuffer_, width_, height_, GL_RGBA, rgbaTexels); }

}  // namespace fs::gpu
