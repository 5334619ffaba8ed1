#pragma once
// The window's live preview through CUDA-GL interop: the preview service that keeps the shown image
// on the GPU and filters it straight into the view's pixel buffer, the frame meter in the status bar,
// and the newest whole frame handed to the timing chart a few times a second. The window decides when
// a run takes this path and what a frame means for its document.
#include <QObject>
#include <QString>
#include <memory>
#include <optional>
#include <string>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"
#include "fs/launch.hpp"
#include "fs/timing.hpp"
#include "preview_frames.hpp"
#include "preview_service.hpp"

class QLabel;
class QStatusBar;
class QTimer;

namespace fs::widgets {
class ImageView;
}

namespace fs::ui {

// Writes a filter's result into `view`'s pixel buffer and texture: what PreviewService runs through.
services::PreviewService::BufferFill viewBufferFill(widgets::ImageView* view);
// Lets `preview` go of `view`'s GL registrations while the view's GL context still exists.
void shutdownPreview(services::PreviewService& preview, widgets::ImageView* view);

class LivePreview : public QObject {
    Q_OBJECT
public:
    // The frame meter joins `bar`'s permanent widgets.
    LivePreview(widgets::ImageView* view, QStatusBar* bar, QObject* parent = nullptr);
    // Lets go of the view's GL registrations; the owner calls it while the view still exists.
    void shutdown() { shutdownPreview(*service_, view_); }

    services::PreviewService* service() const { return service_; }
    // The image now shown: kept on the GPU where the preview runs there; the meter starts again.
    void setInput(std::shared_ptr<const Image> input);
    bool inputOnDevice() const { return service_->inputOnDevice(); }
    // `spec` in CUDA mode `mode` into the view, as PreviewService::run; a frame run starts the meter's
    // next frame.
    std::optional<services::PreviewService::Frame> run(const FilterSpec& spec, const std::string& mode,
                                                       const LaunchConfig& launch, QString* failure);
    const TimingRecord& lastFrame() const { return lastFrame_; }

signals:
    // The newest whole frame (kernel, map, texture and draw), at most every 250 ms.
    void frameToChart(const TimingRecord& frame);

private:
    void onFrameShown(double textureMs, double drawMs);

    widgets::ImageView* view_;
    services::PreviewService* service_;
    QLabel* meter_;
    QTimer* chartTimer_;
    PreviewFrameMeter frames_;
    TimingRecord lastFrame_;
};

}  // namespace fs::ui
