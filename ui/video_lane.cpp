#include "video_lane.hpp"

#include <QTimer>
#include <algorithm>

#include "fs/widgets/image_view.hpp"
#include "image_convert.hpp"
#include "live_preview.hpp"
#include "mode_choices.hpp"
#include "preview_service.hpp"

namespace fs::ui {

namespace {
double msBetween(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}
// Meters average the frames of this last stretch.
constexpr std::chrono::milliseconds kMeterWindow{1000};
// An interop frame the view never draws (hidden, minimised) must not stop the lane.
constexpr int kDrawTimeoutMs = 250;
}  // namespace

VideoLane::VideoLane(std::vector<std::unique_ptr<Backend>> backends, widgets::ImageView* view,
                     services::PreviewService* preview, QObject* parent)
    : QObject(parent), runner_(new FilterRunner(std::move(backends), this)), view_(view), preview_(preview) {
    drawTimeout_ = new QTimer(this);
    drawTimeout_->setSingleShot(true);
    drawTimeout_->setInterval(kDrawTimeoutMs);
    connect(drawTimeout_, &QTimer::timeout, this, [this] {
        if (drawPending_) finish(*std::exchange(drawPending_, std::nullopt));
    });
    connect(runner_, &FilterRunner::finished, this, &VideoLane::onOutcome);
    connect(view_, &widgets::ImageView::pixelBufferFrameShown, this, [this](double textureMs, double drawMs) {
        if (!drawPending_) return;
        LaneSplit split = *std::exchange(drawPending_, std::nullopt);
        drawTimeout_->stop();
        split.drawMs = textureMs + drawMs;
        finish(split);
    });
}

VideoLane::~VideoLane() {
    runner_->cancel();
    runner_->waitForIdle();
}

void VideoLane::offer(const services::VideoFrame& frame) {
    if (!inFlight_) {
        start(frame);
        return;
    }
    if (waiting_) ++dropped_;  // never filtered: the newer frame takes its place
    waiting_ = frame;
}

void VideoLane::rerun() {
    if (!last_) return;
    if (inFlight_) {
        if (!waiting_) waiting_ = last_;
        return;
    }
    start(*last_);
}

void VideoLane::reset() {
    waiting_.reset();
    last_.reset();
    recent_.clear();
    shown_ = dropped_ = 0;
    lastError_.clear();
}

void VideoLane::start(const services::VideoFrame& frame) {
    inFlight_ = true;
    inFlightFrame_ = frame;
    const FilterSpec spec = specSource_ ? specSource_() : FilterSpec{};
    const Clock::time_point originalStart = Clock::now();
    if (showsOriginal_) view_->setNextOriginal(toDisplayImage(frame.image->cview()));
    originalMs_ = msBetween(originalStart, Clock::now());
    const QString backend = backendOf(key_), mode = modeOf(key_);
    if (preview_ && backend == services::PreviewService::backendId() && view_->glReady() &&
        runThroughInterop(frame, spec, mode))
        return;
    RunRequest request;
    request.input = frame.image;
    request.spec = spec;
    request.backend = backend;
    request.mode = mode;
    submitted_ = Clock::now();
    generation_ = runner_->submit(std::move(request));
}

bool VideoLane::runThroughInterop(const services::VideoFrame& frame, const FilterSpec& spec, const QString& mode) {
    QString failure;
    const auto filled = preview_->runFrame(*frame.image, spec, mode.toStdString(), viewBufferFill(view_), &failure);
    if (!failure.isEmpty() && failure != lastError_) {
        lastError_ = failure;
        emit failed(tr("CUDA-GL interop failed (%1); frames take the upload path").arg(failure));
    }
    if (!filled) return false;
    LaneSplit split;
    split.interop = true;
    split.decodeMs = frame.decodeMs;
    split.uploadMs = filled->timing.uploadMs.value_or(0.0);
    split.kernelMs = filled->timing.kernelMs.value_or(0.0);
    // Into the view's texture on the GPU: the interop map and the device-to-device copy.
    split.downloadMs = filled->timing.mapMs.value_or(0.0) + filled->timing.displayMs.value_or(0.0);
    drawPending_ = split;
    drawTimeout_->start();
    return true;
}

void VideoLane::onOutcome(const std::shared_ptr<const RunOutcome>& outcome) {
    if (outcome->generation != generation_ || !inFlight_) return;
    const double elapsedMs = msBetween(submitted_, Clock::now());
    if (!outcome->result.ok()) {
        inFlight_ = false;
        if (const QString why = QString::fromStdString(outcome->result.error); why != lastError_) {
            lastError_ = why;
            emit failed(tr("%1 failed on frame %2: %3").arg(key_).arg(inFlightFrame_->index + 1).arg(why));
        }
        if (waiting_) start(*std::exchange(waiting_, std::nullopt));
        return;
    }
    const auto drawStart = Clock::now();
    view_->setResult(outcome->display);
    const TimingRecord& t = outcome->result.timing;
    LaneSplit split;
    split.decodeMs = inFlightFrame_->decodeMs;
    split.uploadMs = t.uploadMs.value_or(0.0);
    split.kernelMs = t.kernelMs.value_or(t.totalMs.value_or(0.0));
    split.downloadMs = t.downloadMs.value_or(0.0);
    // Everything around the filter: the result made into a picture, handed over and set into the view.
    split.drawMs = std::max(0.0, elapsedMs - t.totalMs.value_or(0.0)) + msBetween(drawStart, Clock::now());
    finish(split);
}

void VideoLane::finish(LaneSplit frameSplit) {
    frameSplit.drawMs += originalMs_;
    inFlight_ = false;
    last_ = inFlightFrame_;
    // The first frame fits a view that had no picture yet (the race's halves show results alone).
    if (++shown_ == 1 && view_->fitsToWindow()) view_->zoomToFit();
    const Clock::time_point now = Clock::now();
    recent_.emplace_back(now, frameSplit);
    while (recent_.size() > 1 && now - recent_.front().first > kMeterWindow) recent_.pop_front();
    emit frameShown();
    if (waiting_) start(*std::exchange(waiting_, std::nullopt));
}

int VideoLane::framesPerSecond() const {
    const Clock::time_point now = Clock::now();
    return static_cast<int>(std::count_if(recent_.begin(), recent_.end(),
                                          [&](const auto& r) { return now - r.first <= kMeterWindow; }));
}

LaneSplit VideoLane::split() const {
    LaneSplit mean;
    if (recent_.empty()) return mean;
    for (const auto& [when, s] : recent_) {
        mean.decodeMs += s.decodeMs;
        mean.uploadMs += s.uploadMs;
        mean.kernelMs += s.kernelMs;
        mean.downloadMs += s.downloadMs;
        mean.drawMs += s.drawMs;
        mean.interop = s.interop;
    }
    const double n = static_cast<double>(recent_.size());
    for (double* part : {&mean.decodeMs, &mean.uploadMs, &mean.kernelMs, &mean.downloadMs, &mean.drawMs}) *part /= n;
    return mean;
}

QString describeSplit(const LaneSplit& s) {
    const auto tr = [](const char* text) { return VideoLane::tr(text); };
    QString text = tr("decode %1 ms").arg(s.decodeMs, 0, 'f', 1);
    if (s.uploadMs > 0) text += tr(" · upload %1 ms").arg(s.uploadMs, 0, 'f', 1);
    text += tr(" · kernel %1 ms").arg(s.kernelMs, 0, 'f', 1);
    if (s.downloadMs > 0)
        text += (s.interop ? tr(" · map and copy to texture %1 ms") : tr(" · download %1 ms")).arg(s.downloadMs, 0, 'f', 1);
    return text + tr(" · draw %1 ms").arg(s.drawMs, 0, 'f', 1);
}

QString VideoLane::describe() const {
    return tr("%1: %2 fps, %3, %4 dropped").arg(key_).arg(framesPerSecond()).arg(describeSplit(split())).arg(dropped_);
}

}  // namespace fs::ui
