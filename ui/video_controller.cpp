#include "video_controller.hpp"

#include <QAction>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QStatusBar>
#include <QToolBar>
#include <utility>

#include "fs/widgets/backend_chooser.hpp"
#include "fs/widgets/image_view.hpp"
#include "image_convert.hpp"
#include "main_window.hpp"
#include "race_view.hpp"
#include "video_lane.hpp"
#include "video_source.hpp"

namespace fs::ui {

namespace {
const QStringList kVideoSuffixes = {QStringLiteral("mp4"), QStringLiteral("mkv"), QStringLiteral("avi"), QStringLiteral("webm"),
                                    QStringLiteral("mov"), QStringLiteral("m4v"), QStringLiteral("mpg"), QStringLiteral("mpeg"),
                                    QStringLiteral("ogv")};
}  // namespace

VideoController::VideoController(Parts parts, QObject* parent) : QObject(parent), parts_(std::move(parts)) {
    source_ = new services::VideoSource(this);
    lane_ = new VideoLane(parts_.makeBackends(), parts_.view, parts_.preview, this);
    lane_->setSpecSource(parts_.spec);
    MainWindow* w = parts_.window;
    open_ = new QAction(tr("Open &video..."), this);
    open_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    open_->setToolTip(tr("A video file (mp4, mkv, avi, webm) played through the current filter and mode"));
    connect(open_, &QAction::triggered, this, &VideoController::openDialog);
    // Space, period and L as in video players; a text field that has the focus keeps its own keys.
    play_ = new QAction(tr("Play"), this);
    play_->setCheckable(true);
    play_->setShortcut(QKeySequence(Qt::Key_Space));
    play_->setToolTip(tr("Play or pause the video (Space)"));
    step_ = new QAction(tr("Step"), this);
    step_->setShortcut(QKeySequence(Qt::Key_Period));
    step_->setToolTip(tr("One frame forward while paused (.)"));
    loop_ = new QAction(tr("Loop"), this);
    loop_->setCheckable(true);
    loop_->setShortcut(QKeySequence(Qt::Key_L));
    loop_->setToolTip(tr("Start again from the first frame at the end (L)"));
    raceAction_ = new QAction(tr("&Race two modes"), this);
    raceAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    raceAction_->setToolTip(tr("The same frames through two modes side by side, each with its frames per second"));
    still_ = new QAction(tr("&Take frame as still"), this);
    still_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    still_->setToolTip(tr("Close the video at the frame shown and keep that frame as the image, for Save, Copy, Run "
                          "every mode and Run pipeline (Ctrl+Shift+T)"));
    connect(still_, &QAction::triggered, w, &MainWindow::stillFromVideo);
    for (QAction* a : {play_, step_, loop_, still_}) a->setEnabled(false);
    // By the source's state, not the button's: the button hears of an end of file a moment later.
    connect(play_, &QAction::triggered, this, [this] {
        source_->playing() ? source_->pause() : source_->play();
        play_->setChecked(source_->playing());
    });
    connect(step_, &QAction::triggered, source_, &services::VideoSource::step);
    connect(loop_, &QAction::toggled, source_, &services::VideoSource::setLoop);
    connect(raceAction_, &QAction::triggered, this, &VideoController::showRace);
    w->addActions({play_, step_, loop_, still_});
    transport_ = makeTransport();
    transport_->setParent(w);
    position_ = new QLabel;
    position_->setObjectName(QStringLiteral("videoPosition"));
    transport_->addWidget(position_);
    transport_->hide();  // joins the window's toolbars with the first video, so a saved layout never shows it empty

    connect(source_, &services::VideoSource::frameReady, this, &VideoController::onFrameReady);
    connect(source_, &services::VideoSource::playingChanged, this, [this](bool playing) {
        play_->setChecked(playing);
        play_->setText(playing ? tr("Pause") : tr("Play"));
        step_->setEnabled(active() && !playing);
        updateStatus();
    });
    connect(source_, &services::VideoSource::ended, this, [this] {
        parts_.window->statusBar()->showMessage(tr("End of %1 (%2 frames); Play starts it again").arg(source_->name()).arg(source_->decoded()),
                                                8000);
    });
    connect(source_, &services::VideoSource::failed, this, &VideoController::onFailed);
    connect(lane_, &VideoLane::frameShown, this, [this] {
        updateStatus();
        emit frameShown();
    });
    connect(lane_, &VideoLane::failed, this, &VideoController::onFailed);
}

VideoController::~VideoController() { source_->close(); }

QToolBar* VideoController::makeTransport() {
    auto* bar = new QToolBar(tr("Video"));
    bar->setObjectName(QStringLiteral("videoTransport"));
    bar->addActions({play_, step_, loop_});
    bar->addSeparator();
    bar->addAction(raceAction_);
    bar->addAction(still_);
    return bar;
}

bool VideoController::isVideoFile(const QString& path) {
    return kVideoSuffixes.contains(QFileInfo(path).suffix().toLower());
}

bool VideoController::openVideo(const QString& path) {
    QString why;
    std::unique_ptr<services::FrameReader> reader = services::openVideoFile(path, why);
    if (!reader) {
        parts_.window->showError(tr("Cannot open video"), tr("%1: %2").arg(QFileInfo(path).fileName(), why));
        return false;
    }
    start(std::move(reader), QFileInfo(path).fileName());
    return true;
}

bool VideoController::openCamera(const QString& device) {
    QString why;
    std::unique_ptr<services::FrameReader> reader = services::openCamera(device, why);
    if (!reader) {
        parts_.window->showError(tr("Cannot open camera"), tr("%1: %2").arg(device, why));
        return false;
    }
    start(std::move(reader), device);
    source_->play();  // a camera shows what it sees at once
    return true;
}

void VideoController::start(std::unique_ptr<services::FrameReader> reader, const QString& name) {
    parts_.window->runner()->cancel();  // a still's run in flight would draw over the first frame
    firstFrame_ = true;
    lane_->reset();
    if (race_) race_->reset();
    source_->start(std::move(reader), name);
    source_->setLoop(loop_->isChecked());
    for (QAction* a : {play_, loop_, still_}) a->setEnabled(true);
    step_->setEnabled(true);
    loop_->setEnabled(!source_->live());
    if (!std::exchange(transportAdded_, true)) parts_.window->addToolBar(Qt::TopToolBarArea, transport_);
    transport_->show();
    parts_.window->setWindowTitle(tr("FilterStudio - %1").arg(name));
    updateStatus();
}

void VideoController::openDialog() {
    const QString filter = tr("Videos (%1);;All files (*)").arg(QStringLiteral("*.") + kVideoSuffixes.join(QStringLiteral(" *.")));
    if (const QString path = QFileDialog::getOpenFileName(parts_.window, tr("Open video"), QString(), filter); !path.isEmpty())
        openVideo(path);
}

void VideoController::fillCameraMenu(QMenu* menu) {
    menu->clear();
    if (const QString why = services::videoUnsupportedReason(); !why.isEmpty()) {
        menu->addAction(tr("No cameras: %1").arg(why))->setEnabled(false);
        return;
    }
    const std::vector<services::CameraInfo> cameras = services::listCameras();
    if (cameras.empty()) menu->addAction(tr("No camera found (no V4L2 capture device in /dev/video*)"))->setEnabled(false);
    for (const services::CameraInfo& c : cameras)
        menu->addAction(c.name.isEmpty() ? c.device : tr("%1 (%2)").arg(c.name, c.device), this,
                        [this, device = c.device] { openCamera(device); });
}

void VideoController::close() {
    if (!active()) return;
    source_->close();
    lane_->reset();
    if (race_) race_->reset();
    for (QAction* a : {play_, step_, loop_, still_}) a->setEnabled(false);
    transport_->hide();
    if (race_) race_->hide();
}

std::optional<VideoController::Still> VideoController::takeFrame() {
    if (!active()) return std::nullopt;
    source_->pause();
    const bool racing = race_ && race_->isVisible();
    const std::optional<services::VideoFrame>& shown = racing ? race_->lane(0)->lastFrame() : lane_->lastFrame();
    if (!shown) return std::nullopt;
    Still still{shown->image, tr("%1, frame %2").arg(source_->name()).arg(shown->index + 1)};
    close();
    return still;
}

bool VideoController::active() const { return source_->isOpen() || lane_->lastFrame().has_value(); }

void VideoController::filterChanged() {
    if (source_->playing()) return;  // the next frame takes the change
    if (race_ && race_->isVisible()) race_->rerun();
    else lane_->rerun();
}

void VideoController::showRace() {
    if (!active()) {
        parts_.window->showError(tr("No video"), tr("open a video or a camera first (File > Open video, File > Camera)"));
        return;
    }
    if (!race_) {
        race_ = new RaceView(parts_.makeBackends, parts_.spec, makeTransport(), parts_.window);
        race_->addActions({play_, step_, loop_});
        race_->setLargeText(largeText_);
        race_->setGeometry(parts_.window->rect());
        parts_.window->installEventFilter(this);
        connect(race_, &RaceView::failed, this, &VideoController::onFailed);
        connect(race_->lane(0), &VideoLane::frameShown, this, &VideoController::frameShown);
        connect(race_->lane(1), &VideoLane::frameShown, this, &VideoController::frameShown);
        connect(race_, &RaceView::hidden, this, [this] { lane_->rerun(); });  // the window's view takes over again
    }
    race_->show();
    race_->raise();
    race_->activateWindow();
    if (lane_->lastFrame()) race_->offer(*lane_->lastFrame(), source_->dropped());
}

bool VideoController::eventFilter(QObject* watched, QEvent* event) {
    if (race_ && watched == parts_.window && event->type() == QEvent::Resize) race_->setGeometry(parts_.window->rect());
    return QObject::eventFilter(watched, event);
}

void VideoController::setLargeText(bool on) {
    largeText_ = on;
    // As the Presentation layout enlarges the view's bar, for the back of the room.
    QFont font;
    if (on) font.setPointSizeF(font.pointSizeF() * 1.35);
    transport_->setFont(font);
    transport_->setAttribute(Qt::WA_SetFont, on);
    if (race_) race_->setLargeText(on);
}

void VideoController::onFrameReady() {
    std::optional<services::VideoFrame> frame = source_->take();
    if (!frame) return;
    if (firstFrame_) {
        // The first frame sets the view's picture and fits it; later ones only replace it.
        firstFrame_ = false;
        parts_.view->setOriginal(toDisplayImage(frame->image->cview()));
        parts_.window->setImageInfo(tr("%1  %2, %3 fps%4")
                                        .arg(source_->name(), describe(frame->image->cview()))
                                        .arg(source_->framesPerSecond(), 0, 'g', 4)
                                        .arg(source_->live() ? tr(", camera") : QString()));
    }
    if (race_ && race_->isVisible()) {
        race_->offer(*frame, source_->dropped());
        return;
    }
    lane_->setChoice(parts_.chooser->currentKey());
    lane_->setShowsOriginal(parts_.view->displayMode() != widgets::ImageView::DisplayMode::Result);
    lane_->offer(*frame);
}

void VideoController::onFailed(const QString& message) {
    // The last good frame stays in the view; the bar says the video stopped.
    parts_.window->showError(tr("Video"), message);
    updateStatus();
}

void VideoController::updateStatus() {
    if (!lane_->lastFrame() && !source_->isOpen()) {
        position_->clear();
        return;
    }
    QString text = lane_->lastFrame() ? tr("frame %1").arg(lane_->lastFrame()->index + 1) : QString();
    text += tr(", %1 fps, %2 dropped").arg(lane_->framesPerSecond()).arg(lane_->dropped() + source_->dropped());
    if (!source_->isOpen()) text += tr(" - stopped");
    position_->setText(text);
    position_->setToolTip(lane_->describe());
}

}  // namespace fs::ui
