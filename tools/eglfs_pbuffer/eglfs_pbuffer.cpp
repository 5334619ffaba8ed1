// eglfs device integration "eglfs_pbuffer": the one eglfs window is an EGL
// pbuffer on an EGL device (EGL_EXT_platform_device), so Qt draws with the
// GPU's own OpenGL where there is no display to show a window on.
// FS_EGL_DEVICE picks the device by index (default 0);
// QT_QPA_EGLFS_WIDTH/HEIGHT set the screen (default 1920x1080).
#include <QtEglFSDeviceIntegration/private/qeglfsdeviceintegration_p.h>
#include <QtEglFSDeviceIntegration/private/qeglfshooks_p.h>
#include <QtEglFSDeviceIntegration/private/qeglfsscreen_p.h>
#include <QtEglFSDeviceIntegration/private/qeglfswindow_p.h>
#include <QtGui/private/qeglconvenience_p.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <vector>

namespace {

QSize screenSizeFromEnvironment() {
  const int width = qEnvironmentVariableIntValue("QT_QPA_EGLFS_WIDTH");
  const int height = qEnvironmentVariableIntValue("QT_QPA_EGLFS_HEIGHT");
  return width > 0 && height > 0 ? QSize(width, height) : QSize(1920, 1080);
}

class PbufferWindow final : public QEglFSWindow {
 public:
  using QEglFSWindow::QEglFSWindow;

  // QEglFSWindow makes a window surface from a native window; a device
  // display has no windows, so the surface is a pbuffer of the screen's size.
  void resetSurface() override {
    const EGLDisplay display = screen()->display();
    const QSurfaceFormat wanted = qt_egl_device_integration()->surfaceFormatFor(window()->requestedFormat());
    m_config = QEglFSDeviceIntegration::chooseConfig(display, wanted);
    m_format = q_glFormatFromConfig(display, m_config, wanted);
    const QSize size = screen()->rawGeometry().size();
    const EGLint attributes[] = {EGL_WIDTH, size.width(), EGL_HEIGHT, size.height(), EGL_NONE};
    m_surface = eglCreatePbufferSurface(display, m_config, attributes);
  }
};

class PbufferIntegration final : public QEglFSDeviceIntegration {
 public:
  // The default opens /dev/fb0 and stops without it.
  void platformInit() override {}
  void platformDestroy() override {}

  EGLDisplay createDisplay(EGLNativeDisplayType) override {
    const auto queryDevices =
        reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    const auto platformDisplay =
        reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (!queryDevices || !platformDisplay)
      qFatal("eglfs_pbuffer: EGL has no device enumeration (EGL_EXT_device_enumeration, EGL_EXT_platform_device)");
    EGLint count = 0;
    if (!queryDevices(0, nullptr, &count) || count == 0) qFatal("eglfs_pbuffer: EGL lists no devices");
    std::vector<EGLDeviceEXT> devices(static_cast<size_t>(count));
    queryDevices(count, devices.data(), &count);
    const int index = qEnvironmentVariableIntValue("FS_EGL_DEVICE");
    if (index < 0 || index >= count) qFatal("eglfs_pbuffer: FS_EGL_DEVICE=%d, but EGL lists %d devices", index, count);
    return platformDisplay(EGL_PLATFORM_DEVICE_EXT, devices[static_cast<size_t>(index)], nullptr);
  }

  QSize screenSize() const override { return screenSizeFromEnvironment(); }
  QSizeF physicalScreenSize() const override {
    const QSize pixels = screenSize();
    constexpr double millimetresPerPixelAt96Dpi = 25.4 / 96.0;
    return {pixels.width() * millimetresPerPixelAt96Dpi, pixels.height() * millimetresPerPixelAt96Dpi};
  }
  int screenDepth() const override { return 32; }
  QImage::Format screenFormat() const override { return QImage::Format_RGB32; }
  EGLint surfaceType() const override { return EGL_PBUFFER_BIT; }
  QEglFSWindow *createWindow(QWindow *window) const override { return new PbufferWindow(window); }
  bool supportsPBuffers() const override { return true; }
};

}  // namespace

class PbufferIntegrationPlugin final : public QEglFSDeviceIntegrationPlugin {
  Q_OBJECT
  Q_PLUGIN_METADATA(IID QEglFSDeviceIntegrationFactoryInterface_iid FILE "eglfs_pbuffer.json")

 public:
  QEglFSDeviceIntegration *create() override { return new PbufferIntegration; }
};

#include "eglfs_pbuffer.moc"
