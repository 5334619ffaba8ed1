#pragma once
// The studio's video: File > Open video, File > Camera, a video file on the command line, the transport
// bar (play/pause, step, loop, race) and the race view. Frames are decoded on the source's thread and
// shown in the window's view through the current filter and mode (a VideoLane), or in both halves of
// the race. Bad input (a cut file, no video stream, a vanished camera, a changed resolution) is said in
// the status bar and the warning box; the last good frame stays.
#include <QObject>
#include <QPointer>
#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "fs/backend.hpp"
#include "fs/filter_spec.hpp"
#include "race_view.hpp"

class QAction;
class QLabel;
class QMenu;
class QToolBar;

namespace fs::widgets {
class BackendChooser;
class ImageView;
}  // namespace fs::widgets
namespace fs::services {
class FrameReader;
class PreviewService;
class VideoSource;
}  // namespace fs::services

namespace fs::ui {

class MainWindow;
class VideoLane;

class VideoController : public QObject {
    Q_OBJECT
public:
    struct Parts {
        MainWindow* window;
        widgets::ImageView* view;
        widgets::BackendChooser* chooser;
        services::PreviewService* preview;  // the view's live-preview service
        std::function<std::vector<std::unique_ptr<Backend>>()> makeBackends;
        std::function<FilterSpec()> spec;  // the filter as the window runs it
    };
    explicit VideoController(Parts parts, QObject* parent = nullptr);
    ~VideoController() override;

    // By extension: what `filterstudio FILE` opens as a video rather than an image.
    static bool isVideoFile(const QString& path);

    bool openVideo(const QString& path);
    bool openCamera(const QString& device);
    // Starts on any reader (a test's, say); `name` is for the title and messages.
    void start(std::unique_ptr<services::FrameReader> reader, const QString& name);
    void openDialog();
    void fillCameraMenu(QMenu* menu);  // the cameras present when the menu opens, or a line saying none
    void close();                      // back to stills: the video stops and its bar hides
    bool active() const;               // a video or camera is open
    // The filter or the mode changed: a paused video filters its frame again; a playing one takes the
    // change with its next frame.
    void filterChanged();

    void showRace();
    void setLargeText(bool on);  // the Presentation layout

    // The frame on screen (in the race, its left half's), for the tools that work on a still image:
    // the video closes at that frame. Empty when no frame has been shown.
    struct Still {
        std::shared_ptr<const Image> image;
        QString name;  // "clip.mp4, frame 42"
    };
    std::optional<Still> takeFrame();

    services::VideoSource* source() const { return source_; }
    VideoLane* lane() const { return lane_; }
    RaceView* race() const { return race_; }
    QToolBar* transport() const { return transport_; }
    QAction* playAction() const { return play_; }
    QAction* stepAction() const { return step_; }
    QAction* loopAction() const { return loop_; }
    QAction* raceAction() const { return raceAction_; }
    QAction* openAction() const { return open_; }
    QAction* stillAction() const { return still_; }

signals:
    void frameShown();  // in the window's view or in the race

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;  // the race covers the window as it resizes

private:
    void onFrameReady();
    void onFailed(const QString& message);
    void updateStatus();
    QToolBar* makeTransport();

    Parts parts_;
    services::VideoSource* source_;
    VideoLane* lane_;
    QPointer<RaceView> race_;
    QToolBar* transport_;
    QAction *open_, *play_, *step_, *loop_, *raceAction_, *still_;
    QLabel* position_;
    bool firstFrame_ = true;
    bool transportAdded_ = false;
    bool largeText_ = false;
};

}  // namespace fs::ui
