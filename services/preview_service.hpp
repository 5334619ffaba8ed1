#pragma once
// The studio's live preview on the GPU: the one user of fs::gpu on the studio's side. It keeps the shown
// image on the device (uploaded once, off the GUI thread) and runs a CUDA mode straight into the view's
// OpenGL pixel buffer (CUDA-GL interop). A build without interop has the same class, never available.
#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"
#include "fs/launch.hpp"
#include "fs/timing.hpp"

namespace fs::services {

class PreviewService : public QObject {
    Q_OBJECT
public:
    // What the view calls back with to be filled: its GL pixel buffer and texture (ImageView::PixelBufferWriter).
    using BufferWriter = std::function<QString(unsigned buffer, unsigned texture, int width, int height, bool* textureFilled)>;
    // How the caller lets a writer fill its view: ImageView::fillResultThroughPixelBuffer.
    using BufferFill = std::function<QString(int width, int height, const BufferWriter& writer)>;

    struct Frame {
        TimingRecord timing;             // kernel, map and total; backend and mode set
        bool resident = false;           // read the image kept on the GPU
        bool releasedForMemory = false;  // device memory was short: the kept image was let go
        double fillMs = 0.0;             // wall clock of the filter and the texture copy
    };

    explicit PreviewService(QObject* parent = nullptr);
    ~PreviewService() override;

    // The backend whose modes the preview runs (empty in builds without interop).
    static QString backendId();
    // Empty when interop can be tried here, otherwise why not.
    static QString unavailableReason();

    // The image now shown: releases the one kept before and uploads this one in the background.
    void setInput(std::shared_ptr<const Image> image);
    bool inputOnDevice() const;  // the image given last is on the GPU

    // Runs `mode` on the current image into the view through `fill`. Nothing when the preview cannot take
    // this run (no interop, or a launch configuration before the image is on the GPU); `failure` then says
    // why when interop was tried and failed. Either way the caller takes the host path.
    std::optional<Frame> run(const FilterSpec& spec, const std::string& mode, const LaunchConfig& launch,
                             const BufferFill& fill, QString* failure);

    // One frame of a moving picture (a video, a camera) into the view through `fill`: `frame` goes up once,
    // through the engine's pinned staging, and is filtered into the view's pixel buffer and texture. The
    // image kept on the GPU for stills is left alone. Nothing when interop is unavailable; `failure` then
    // says why when it was tried and failed, and the caller takes the host path.
    std::optional<Frame> runFrame(const Image& frame, const FilterSpec& spec, const std::string& mode,
                                  const BufferFill& fill, QString* failure);

    // Lets go of the GL registrations while the view's GL context still exists (window closing).
    void shutdown(const BufferFill& fill);

signals:
    void message(const QString& text, int timeoutMs);
    void inputResident();  // the current image just reached the GPU: a re-run reads it from there

private:
    struct State;
    std::unique_ptr<State> state_;
    std::shared_ptr<const Image> input_;
};

}  // namespace fs::services
