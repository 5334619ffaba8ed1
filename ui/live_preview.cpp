#include "live_preview.hpp"

#include <QLabel>
#include <QStatusBar>
#include <QTimer>

#include "fs/widgets/image_view.hpp"

namespace fs::ui {

services::PreviewService::BufferFill viewBufferFill(widgets::ImageView* view) {
    return [view](int w, int h, const services::PreviewService::BufferWriter& writer) {
        return view->fillResultThroughPixelBuffer(w, h, writer);
    };
}

void shutdownPreview(services::PreviewService& preview, widgets::ImageView* view) {
    preview.shutdown(view->glReady() ? viewBufferFill(view) : services::PreviewService::BufferFill());
}

LivePreview::LivePreview(widgets::ImageView* view, QStatusBar* bar, QObject* parent)
    : QObject(parent), view_(view), service_(new services::PreviewService(this)), meter_(new QLabel) {
    meter_->setObjectName(QStringLiteral("liveFrameMeter"));
    meter_->setToolTip(tr("Live preview through CUDA-GL interop: frames shown in the last second, and the last "
                          "frame from the filter's start to the end of its draw (glFinish)"));
    bar->addPermanentWidget(meter_);
    chartTimer_ = new QTimer(this);
    chartTimer_->setSingleShot(true);
    chartTimer_->setInterval(250);  // a chart replot per frame would cost more than the frame
    connect(chartTimer_, &QTimer::timeout, this, [this] { emit frameToChart(lastFrame_); });
    connect(view_, &widgets::ImageView::pixelBufferFrameShown, this, &LivePreview::onFrameShown);
}

void LivePreview::setInput(std::shared_ptr<const Image> input) {
    frames_.reset();
    service_->setInput(std::move(input));
}

std::optional<services::PreviewService::Frame> LivePreview::run(const FilterSpec& spec, const std::string& mode,
                                                                const LaunchConfig& launch, QString* failure) {
    std::optional<services::PreviewService::Frame> frame = service_->run(spec, mode, launch, viewBufferFill(view_), failure);
    if (frame) frames_.filled(frame->timing, frame->fillMs);
    return frame;
}

void LivePreview::onFrameShown(double textureMs, double drawMs) {
    const std::optional<TimingRecord> frame = frames_.shown(textureMs, drawMs);
    if (!frame) return;
    lastFrame_ = *frame;
    meter_->setText(QString::fromStdString(frames_.describe(*frame)));
    if (!chartTimer_->isActive()) chartTimer_->start();
}

}  // namespace fs::ui
