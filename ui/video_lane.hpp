#pragma once
// One picture of a playing video: each frame through one backend mode into one view. A frame that
// arrives while the previous one is still being filtered waits as the only one; a newer frame replaces
// it and the older is counted as dropped, so a slow mode shows fewer frames and never falls behind.
// On the CUDA backend, where the view draws with OpenGL, a frame goes up once and is filtered into the
// view's texture through the preview service (CUDA-GL interop); otherwise it runs on the filter runner's
// thread and the view gets the host result.
#include <QObject>
#include <QString>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "filter_runner.hpp"
#include "fs/backend.hpp"
#include "fs/filter_spec.hpp"
#include "video_source.hpp"

class QTimer;

namespace fs::widgets {
class ImageView;
}
namespace fs::services {
class PreviewService;
}

namespace fs::ui {

// Where a lane's frames spent their time, averaged over the frames of the last second or so.
struct LaneSplit {
    double decodeMs = 0, uploadMs = 0, kernelMs = 0, downloadMs = 0, drawMs = 0;
    bool interop = false;  // through CUDA-GL interop: "download" is the map and texture copy
};
// "decode 3.1 ms · kernel 40.2 ms · draw 1.0 ms": the parts a frame had.
QString describeSplit(const LaneSplit& split);

class VideoLane : public QObject {
    Q_OBJECT
public:
    // `preview`: the view's own live-preview service (one per view, since it registers the view's buffer).
    VideoLane(std::vector<std::unique_ptr<Backend>> backends, widgets::ImageView* view, services::PreviewService* preview,
              QObject* parent = nullptr);
    ~VideoLane() override;

    void setChoice(const QString& key) { key_ = key; }  // "cpu/parallel"
    QString choice() const { return key_; }
    // The filter each frame gets, asked when the frame starts: edits apply to the next frame.
    void setSpecSource(std::function<FilterSpec()> source) { specSource_ = std::move(source); }
    // Shows the original beside the result too (the main view's split and original modes).
    void setShowsOriginal(bool on) { showsOriginal_ = on; }

    // A new frame: filtered now when the lane is idle, else kept as the one waiting (replacing, and
    // dropping, an older one).
    void offer(const services::VideoFrame& frame);
    // The frame last shown again, with the current filter and mode (an edit while paused).
    void rerun();
    void reset();  // counts and meters back to zero (a new video)

    bool busy() const { return inFlight_; }
    long long shown() const { return shown_; }
    long long dropped() const { return dropped_; }
    const std::optional<services::VideoFrame>& lastFrame() const { return last_; }
    int framesPerSecond() const;  // frames shown in the last second
    LaneSplit split() const;
    // "cpu/parallel: 24 fps, decode 3.1 + kernel 40.2 + draw 1.0 ms, 12 dropped"
    QString describe() const;
    FilterRunner* runner() const { return runner_; }

signals:
    void frameShown();
    void failed(const QString& message);

private:
    void start(const services::VideoFrame& frame);
    bool runThroughInterop(const services::VideoFrame& frame, const FilterSpec& spec, const QString& mode);
    void onOutcome(const std::shared_ptr<const RunOutcome>& outcome);
    void finish(LaneSplit frameSplit);

    using Clock = std::chrono::steady_clock;
    FilterRunner* runner_;
    widgets::ImageView* view_;
    services::PreviewService* preview_;
    QString key_;
    std::function<FilterSpec()> specSource_;
    bool showsOriginal_ = false;
    bool inFlight_ = false;
    quint64 generation_ = 0;                          // the runner's request for the frame in flight
    std::optional<services::VideoFrame> waiting_;     // the newest frame not started yet
    std::optional<services::VideoFrame> inFlightFrame_, last_;
    Clock::time_point submitted_;
    double originalMs_ = 0.0;  // showing the frame itself beside the result: part of its draw
    std::optional<LaneSplit> drawPending_;  // an interop frame filled, waiting for the view to draw it
    QTimer* drawTimeout_;
    long long shown_ = 0, dropped_ = 0;
    std::deque<std::pair<Clock::time_point, LaneSplit>> recent_;
    QString lastError_;
};

}  // namespace fs::ui
