#pragma once
// The race: the same video frames through two backend modes side by side, each half with its own frames
// per second, its per-frame split (decode, upload, kernel, download or draw) and its dropped frames.
// By default the fastest CPU mode races the fastest GPU mode; without a GPU, two CPU modes race and the
// view says why the GPU is missing. Large enough to read from the back of a classroom.
#include <QString>
#include <QVector>
#include <QWidget>
#include <array>
#include <functional>

#include "filter_runner.hpp"
#include "fs/widgets/backend_chooser.hpp"
#include "video_source.hpp"

class QComboBox;
class QLabel;
class QToolBar;

namespace fs::widgets {
class ImageView;
}
namespace fs::services {
class PreviewService;
}

namespace fs::ui {

class VideoLane;

using BackendList = std::vector<std::unique_ptr<Backend>>;

class RaceView : public QWidget {
    Q_OBJECT
public:
    // The two modes a race starts with, and a note when the GPU is missing (why), else empty.
    struct Defaults {
        QString left, right, note;
    };
    static Defaults defaultsFor(const QVector<widgets::ModeChoice>& choices, const BackendList& backends);

    // `makeBackends` gives each half backends of its own; `transport` is the video's play/step/loop bar.
    RaceView(const std::function<BackendList()>& makeBackends, std::function<FilterSpec()> specSource,
             QWidget* transport, QWidget* parent = nullptr);
    ~RaceView() override;

    // A frame for both halves; `sourceDropped`: frames the decoder replaced before anyone took them.
    void offer(const services::VideoFrame& frame, long long sourceDropped);
    void rerun();  // the last frame again in both halves (an edit while paused)
    void reset();  // a new video
    void setLargeText(bool on);  // the Presentation layout's size of words

    VideoLane* lane(int side) const { return lanes_[side]; }
    QComboBox* chooser(int side) const { return choosers_[side]; }
    QLabel* fpsLabel(int side) const { return fps_[side]; }
    QLabel* splitLabel(int side) const { return splits_[side]; }
    QString note() const;
    bool selectMode(int side, const QString& key);

signals:
    void hidden();
    void failed(const QString& message);

protected:
    void hideEvent(QHideEvent* e) override;

private:
    void updateLabels(int side);
    void applyFonts();

    std::array<VideoLane*, 2> lanes_{};
    std::array<widgets::ImageView*, 2> views_{};
    std::array<services::PreviewService*, 2> previews_{};
    std::array<QComboBox*, 2> choosers_{};
    std::array<QLabel*, 2> fps_{}, splits_{}, titles_{};
    QLabel* note_;
    long long sourceDropped_ = 0;
    bool largeText_ = false;
};

}  // namespace fs::ui
