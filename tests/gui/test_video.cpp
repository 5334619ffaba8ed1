// Video in the studio, offscreen: a clip written here with OpenCV's VideoWriter (MJPEG in .avi) plays
// through the filter, and every frame shown equals the CPU reference of the decoded input frame; a paused
// video takes a designer edit; step, loop and the keys; the race view's two frame rates; a slow mode drops
// frames instead of queueing them (counted, not timed); a cut file, files with no video stream, a camera
// that goes away and a resolution change mid-stream each give a message and keep the last frame and a
// working window. FS_SCREENSHOTS=DIR keeps the race view at 1920x1080 (docs/screenshot-race-1920x1080.png).
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolBar>
#include <QtTest>
#include <condition_variable>
#include <mutex>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "backends.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/io/cv_image.hpp"
#include "fs/widgets/backend_chooser.hpp"
#include "fs/widgets/image_view.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "image_convert.hpp"
#include "main_window.hpp"
#include "mode_choices.hpp"
#include "race_view.hpp"
#include "video_controller.hpp"
#include "video_lane.hpp"
#include "video_source.hpp"

using fs::ui::MainWindow;

namespace {

// A backend whose one mode waits at a gate until the test opens it: a filter that cannot keep up,
// without any timing.
struct Gate {
    std::mutex mutex;
    std::condition_variable opened;
    bool open = true;
    int entered = 0;
    void close() {
        std::lock_guard lock(mutex);
        open = false;
    }
    void release() {
        {
            std::lock_guard lock(mutex);
            open = true;
        }
        opened.notify_all();
    }
};
Gate gate;

class GateBackend : public fs::Backend {
public:
    std::string id() const override { return "gate"; }
    std::string displayName() const override { return "Gate (test)"; }
    std::vector<fs::ModeInfo> modes() const override {
        fs::ModeInfo m;
        m.id = "wait";
        m.description = "copies the frame once the test opens the gate";
        return {m};
    }
    std::string unavailableReason() const override { return {}; }
    fs::RunResult run(const fs::FilterSpec&, fs::ConstImageView input, const std::string&) override {
        std::unique_lock lock(gate.mutex);
        ++gate.entered;
        gate.opened.wait(lock, [] { return gate.open; });
        fs::RunResult r;
        r.output = fs::Image::copyOf(input);
        r.timing.totalMs = 0.0;
        return r;
    }
};

std::vector<std::unique_ptr<fs::Backend>> backendsWithGate() {
    auto backends = fs::makeAllBackends();
    backends.push_back(std::make_unique<GateBackend>());
    return backends;
}

// Frames a test makes up: `changeAt` gives a frame of another size, `vanishAt` fails as a camera does.
class MadeUpReader : public fs::services::FrameReader {
public:
    MadeUpReader(int changeAt, int vanishAt, bool live) : changeAt_(changeAt), vanishAt_(vanishAt), live_(live) {}
    bool read(fs::Image& frame, std::string& why) override {
        if (index_ == vanishAt_) {
            why = "the camera stopped giving frames (unplugged?)";
            return false;
        }
        const int w = index_ >= changeAt_ ? 96 : 64;
        frame = fs::Image(w, 48, 3, fs::Depth::U8);
        cv::Mat m = fs::io::asMat(frame.view());
        m.setTo(cv::Scalar(20 * index_, 100, 200));
        ++index_;
        return true;
    }
    double framesPerSecond() const override { return 50; }
    bool live() const override { return live_; }

private:
    int index_ = 0, changeAt_, vanishAt_;
    bool live_;
};

// The view's shown result against the CPU reference of the frame it came from, within the mode's
// tolerance: none for the reference itself, one level for the other exact CPU modes (their documented
// rounding bound on 8-bit images).
bool shownIsReference(MainWindow& w, fs::widgets::ImageView* view, const fs::ui::VideoLane* lane, QString* why) {
    if (!lane->lastFrame()) {
        *why = QStringLiteral("no frame shown");
        return false;
    }
    const int tolerance = lane->choice() == fs::ui::referenceKey(w.backendChooser()->choices()) ? 0 : 1;
    const fs::Image reference = fs::cpu::referenceFilter(w.currentSpec(), lane->lastFrame()->image->cview());
    const QImage expected = fs::ui::toDisplayImage(reference.cview()).convertToFormat(QImage::Format_RGBA8888);
    const QImage shown = view->resultImage();
    int largest = shown.size() == expected.size() ? 0 : 256;
    for (int y = 0; largest <= 255 && y < expected.height(); ++y)
        for (int x = 0; x < expected.width() * 4; ++x)
            largest = std::max(largest, std::abs(shown.constScanLine(y)[x] - expected.constScanLine(y)[x]));
    if (largest > tolerance) {
        *why = QStringLiteral("frame %1 through %2 differs from the CPU reference by %3 (tolerance %4)")
                   .arg(lane->lastFrame()->index)
                   .arg(lane->choice())
                   .arg(largest > 255 ? QStringLiteral("its size") : QString::number(largest))
                   .arg(tolerance);
        return false;
    }
    return true;
}

}  // namespace

class VideoTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString clip_, photoClip_;
    QStringList errors_;
    static constexpr int kFrames = 12;

    std::unique_ptr<MainWindow> makeWindow(fs::ui::BackendFactory factory = &fs::makeAllBackends) {
        auto w = std::make_unique<MainWindow>(std::move(factory));
        w->setErrorReporter([this](const QString& t, const QString& m) { errors_ << t + ": " + m; });
        w->resize(1280, 800);
        w->show();
        return w;
    }

    // A clip: a bright square moving over seeded noise, MJPEG in .avi.
    QString writeClip(const QString& name, int frames, cv::Size size) {
        const QString path = dir_.filePath(name);
        cv::VideoWriter writer(path.toStdString(), cv::CAP_FFMPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 25, size, true);
        if (!writer.isOpened()) return {};
        cv::RNG rng(11);
        for (int i = 0; i < frames; ++i) {
            cv::Mat frame(size, CV_8UC3);
            rng.fill(frame, cv::RNG::UNIFORM, 0, 256);
            cv::rectangle(frame, cv::Rect(6 * i, size.height / 4, size.width / 5, size.height / 3), cv::Scalar(250, 240, 230), cv::FILLED);
            writer.write(frame);
        }
        return path;
    }

    // Every frame of the file decoded and either shown or dropped, the last one on screen.
    static bool allFramesAccounted(MainWindow& w, long long frames) {
        const fs::services::VideoSource* source = w.video()->source();
        const fs::ui::VideoLane* lane = w.video()->lane();
        return source->decoded() == frames && !source->playing() && !lane->busy() &&
               lane->shown() + lane->dropped() + source->dropped() == frames;
    }

    static void playThrough(MainWindow& w) {
        fs::services::VideoSource* source = w.video()->source();
        source->setPaced(false);
        w.video()->playAction()->trigger();
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_video"));
        QVERIFY(dir_.isValid());
        clip_ = writeClip(QStringLiteral("clip.avi"), kFrames, {160, 96});
        QVERIFY2(!clip_.isEmpty(), "this OpenCV cannot write MJPEG .avi");
        // A photograph panned across, for the race view's picture.
        const cv::Mat photo = cv::imread(FS_SAMPLES_DIR "/building.jpg", cv::IMREAD_COLOR);
        QVERIFY(!photo.empty());
        photoClip_ = dir_.filePath(QStringLiteral("building-pan.avi"));
        cv::VideoWriter writer(photoClip_.toStdString(), cv::CAP_FFMPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 25,
                               cv::Size(640, 360), true);
        QVERIFY(writer.isOpened());
        cv::Mat scaled;
        cv::resize(photo, scaled, cv::Size(), 720.0 / photo.rows, 720.0 / photo.rows, cv::INTER_AREA);
        for (int i = 0; i < 40; ++i) {
            cv::Mat crop = scaled(cv::Rect(std::min(6 * i, scaled.cols - 640), 120, 640, 360)).clone();
            writer.write(crop);
        }
    }

    void init() { errors_.clear(); }

    void everyShownFrameIsTheReferenceOfItsDecodedFrame() {
        auto w = makeWindow();
        QVERIFY(w->kernelEditor()->applyPresetText(QStringLiteral("gaussian:5")));
        const QString cpu = fs::ui::cpuDefaultKey(w->backendChooser()->choices());
        QVERIFY(w->selectMode(cpu));
        QVERIFY2(w->video()->openVideo(clip_), qPrintable(errors_.join('\n')));
        fs::ui::VideoLane* lane = w->video()->lane();
        QTRY_COMPARE_WITH_TIMEOUT(lane->shown(), 1LL, 10000);  // the first frame, shown while paused
        QVERIFY(w->video()->transport()->isVisible());
        int checked = 0;
        QString why;
        bool allEqual = true;
        connect(lane, &fs::ui::VideoLane::frameShown, this, [&] {
            ++checked;
            if (!shownIsReference(*w, w->imageView(), lane, &why)) allEqual = false;
        });
        w->video()->playAction()->trigger();  // at the file's rate: most frames are shown
        QTRY_VERIFY_WITH_TIMEOUT(allFramesAccounted(*w, kFrames), 20000);
        QVERIFY2(allEqual, qPrintable(why));
        QVERIFY(checked >= 1);
        QCOMPARE(lane->lastFrame()->index, static_cast<long long>(kFrames - 1));
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
        qInfo("%lld of %d frames shown through %s, each equal to the reference; %s", lane->shown(), kFrames, qPrintable(cpu),
              qPrintable(lane->describe()));
        // Play at the end starts the file again from its first frame.
        playThrough(*w);
        QTRY_VERIFY_WITH_TIMEOUT(allFramesAccounted(*w, 2 * kFrames), 20000);
        QVERIFY2(allEqual, qPrintable(why));
    }

    void pausedEditsStepAndLoopByKeyboard() {
        auto w = makeWindow();
        QVERIFY(w->selectMode(fs::ui::cpuDefaultKey(w->backendChooser()->choices())));
        QVERIFY(w->video()->openVideo(clip_));
        fs::ui::VideoLane* lane = w->video()->lane();
        QTRY_COMPARE_WITH_TIMEOUT(lane->shown(), 1LL, 10000);
        // An edit while paused filters the frame shown again.
        QVERIFY(w->kernelEditor()->applyPresetText(QStringLiteral("box:7")));
        QTRY_VERIFY_WITH_TIMEOUT(lane->shown() >= 2 && !lane->busy(), 10000);
        QString why;
        QVERIFY2(shownIsReference(*w, w->imageView(), lane, &why), qPrintable(why));
        // The keys: period steps one frame, L loops, Space plays and pauses.
        w->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(w.get()));
        w->imageView()->setFocus();
        QTest::keyClick(w.get(), Qt::Key_Period);
        QTRY_COMPARE_WITH_TIMEOUT(lane->lastFrame()->index, 1LL, 10000);
        QTest::keyClick(w.get(), Qt::Key_L);
        QVERIFY(w->video()->loopAction()->isChecked());
        QVERIFY(w->video()->source()->loop());
        w->video()->source()->setPaced(false);
        QTest::keyClick(w.get(), Qt::Key_Space);
        QVERIFY(w->video()->source()->playing());
        // Looping: more frames decoded than the file holds, until paused.
        QTRY_VERIFY_WITH_TIMEOUT(w->video()->source()->decoded() > 2 * kFrames, 20000);
        QTest::keyClick(w.get(), Qt::Key_Space);
        QTRY_VERIFY(!w->video()->source()->playing());
        QTRY_VERIFY_WITH_TIMEOUT(!lane->busy(), 10000);
        QVERIFY2(shownIsReference(*w, w->imageView(), lane, &why), qPrintable(why));
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
    }

    void aSlowModeDropsInsteadOfQueueing() {
        auto w = makeWindow(&backendsWithGate);
        QVERIFY(w->selectMode(QStringLiteral("gate/wait")));
        gate.close();
        // A failed check must not leave the window's runner waiting at the gate when it closes.
        const std::unique_ptr<Gate, void (*)(Gate*)> openAtEnd(&gate, [](Gate* g) { g->release(); });
        QVERIFY(w->video()->openVideo(clip_));
        fs::ui::VideoLane* lane = w->video()->lane();
        // Frame 1 waits at the gate; the rest of the file is decoded meanwhile.
        QTRY_VERIFY_WITH_TIMEOUT(lane->busy(), 10000);
        playThrough(*w);
        QTRY_VERIFY_WITH_TIMEOUT(w->video()->source()->decoded() == kFrames && !w->video()->source()->playing(), 20000);
        QCoreApplication::processEvents();  // the last frameReady
        QCOMPARE(lane->shown(), 0LL);
        gate.release();
        QTRY_VERIFY_WITH_TIMEOUT(!lane->busy() && lane->shown() == 2, 10000);
        // The frame in flight, then only the newest: the ten between were dropped, none queued.
        QCOMPARE(lane->lastFrame()->index, static_cast<long long>(kFrames - 1));
        QCOMPARE(lane->dropped() + w->video()->source()->dropped(), static_cast<long long>(kFrames - 2));
        QCOMPARE(gate.entered, 2);
        QVERIFY(w->video()->transport()->findChild<QLabel*>(QStringLiteral("videoPosition"))->text().contains(QStringLiteral("10 dropped")));
    }

    void raceViewShowsTwoFrameRates() {
        auto w = makeWindow();
        QVERIFY(w->kernelEditor()->applyPresetText(QStringLiteral("sobel-mag:3")));
        QVERIFY(w->video()->openVideo(photoClip_));
        QTRY_COMPARE_WITH_TIMEOUT(w->video()->lane()->shown(), 1LL, 10000);
        w->video()->showRace();
        fs::ui::RaceView* race = w->video()->race();
        QVERIFY(race && race->isVisible());
        race->resize(1920, 1080);
        const fs::ui::RaceView::Defaults defaults =
            fs::ui::RaceView::defaultsFor(w->backendChooser()->choices(), w->runner()->backends());
        QCOMPARE(race->lane(0)->choice(), defaults.left);
        QCOMPARE(race->lane(1)->choice(), defaults.right);
        QVERIFY(defaults.left != defaults.right);
        if (fs::ui::backendOf(defaults.right) == fs::ui::backendOf(defaults.left))
            QVERIFY2(race->note().contains(QStringLiteral("No GPU")), qPrintable(race->note()));
        w->video()->source()->setLoop(true);
        w->video()->playAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(race->lane(0)->shown() >= 5 && race->lane(1)->shown() >= 5, 60000);
        w->video()->playAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!race->lane(0)->busy() && !race->lane(1)->busy(), 20000);
        const QRegularExpression fps(QStringLiteral("^(\\d+) fps$"));
        for (int side = 0; side < 2; ++side) {
            const QString text = race->fpsLabel(side)->text();
            const QRegularExpressionMatch m = fps.match(text);
            QVERIFY2(m.hasMatch() && m.captured(1).toInt() > 0, qPrintable(text));
            QVERIFY2(race->splitLabel(side)->text().contains(QStringLiteral("kernel")), qPrintable(race->splitLabel(side)->text()));
            QString why;
            const auto* view = race->findChildren<fs::widgets::ImageView*>().at(side);
            QVERIFY2(shownIsReference(*w, const_cast<fs::widgets::ImageView*>(view), race->lane(side), &why), qPrintable(why));
        }
        // Large words in the Presentation layout.
        const qreal before = race->fpsLabel(0)->font().pointSizeF();
        w->setPresentation(true);
        QVERIFY(race->fpsLabel(0)->font().pointSizeF() > before);
        qInfo("race: %s | %s", qPrintable(race->lane(0)->describe()), qPrintable(race->lane(1)->describe()));
        if (const QString dir = qEnvironmentVariable("FS_SCREENSHOTS"); !dir.isEmpty()) {
            race->resize(1920, 1080);
            QTest::qWait(300);
            QVERIFY(race->grab().save(QDir(dir).filePath(QStringLiteral("screenshot-race-1920x1080.png"))));
        }
        w->setPresentation(false);
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
    }

    void badFilesAreRefusedAndTheWindowGoesOn() {
        auto w = makeWindow();
        QVERIFY(w->selectMode(fs::ui::cpuDefaultKey(w->backendChooser()->choices())));
        // No video stream: text named .mp4, and a sound file.
        QFile text(dir_.filePath(QStringLiteral("notes.mp4")));
        QVERIFY(text.open(QIODevice::WriteOnly));
        text.write("this is no video, only text\n");
        text.close();
        QVERIFY(!w->video()->openVideo(text.fileName()));
        QVERIFY2(errors_.join('\n').contains(QStringLiteral("notes.mp4")), qPrintable(errors_.join('\n')));
        QFile wav(dir_.filePath(QStringLiteral("tone.wav")));
        QVERIFY(wav.open(QIODevice::WriteOnly));
        const quint32 samples = 8000;
        QByteArray header("RIFF");
        const auto le32 = [](quint32 v) { return QByteArray(reinterpret_cast<const char*>(&v), 4); };
        const auto le16 = [](quint16 v) { return QByteArray(reinterpret_cast<const char*>(&v), 2); };
        header += le32(36 + samples * 2) + "WAVEfmt " + le32(16) + le16(1) + le16(1) + le32(8000) + le32(16000) + le16(2) +
                  le16(16) + "data" + le32(samples * 2);
        wav.write(header);
        wav.write(QByteArray(samples * 2, '\0'));
        wav.close();
        errors_.clear();
        QVERIFY(!w->video()->openVideo(wav.fileName()));
        QVERIFY2(errors_.join('\n').contains(QStringLiteral("tone.wav")), qPrintable(errors_.join('\n')));
        QVERIFY(!w->video()->active());

        // A cut file: what decodes plays, then the message; the last good frame stays.
        QFile whole(clip_);
        QVERIFY(whole.open(QIODevice::ReadOnly));
        const QByteArray bytes = whole.readAll();
        QFile cut(dir_.filePath(QStringLiteral("cut.avi")));
        QVERIFY(cut.open(QIODevice::WriteOnly));
        cut.write(bytes.left(bytes.size() / 2));
        cut.close();
        errors_.clear();
        if (w->video()->openVideo(cut.fileName())) {
            playThrough(*w);
            QTRY_VERIFY_WITH_TIMEOUT(!errors_.isEmpty(), 20000);
            QVERIFY2(errors_.join('\n').contains(QStringLiteral("truncated or corrupt")), qPrintable(errors_.join('\n')));
            QTRY_VERIFY_WITH_TIMEOUT(!w->video()->lane()->busy(), 10000);
            QVERIFY(w->imageView()->hasResult());
        } else {
            QVERIFY2(errors_.join('\n').contains(QStringLiteral("cut.avi")), qPrintable(errors_.join('\n')));
        }
        QVERIFY2(w->statusBar()->currentMessage().contains(QStringLiteral("cut.avi")), qPrintable(w->statusBar()->currentMessage()));

        // The window goes on: a good video plays afterwards.
        errors_.clear();
        QVERIFY(w->video()->openVideo(clip_));
        playThrough(*w);
        QTRY_VERIFY_WITH_TIMEOUT(allFramesAccounted(*w, kFrames), 20000);
        QString why;
        QVERIFY2(shownIsReference(*w, w->imageView(), w->video()->lane(), &why), qPrintable(why));
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
    }

    void aVanishingCameraAndAResolutionChangeStopWithAMessage() {
        auto w = makeWindow();
        QVERIFY(w->selectMode(fs::ui::cpuDefaultKey(w->backendChooser()->choices())));
        for (const bool camera : {true, false}) {
            errors_.clear();
            w->video()->start(std::make_unique<MadeUpReader>(camera ? 1000 : 5, camera ? 4 : 1000, camera), QStringLiteral("made-up"));
            fs::ui::VideoLane* lane = w->video()->lane();
            QTRY_COMPARE_WITH_TIMEOUT(lane->shown(), 1LL, 10000);
            playThrough(*w);
            QTRY_VERIFY_WITH_TIMEOUT(!errors_.isEmpty(), 20000);
            const QString said = errors_.join('\n');
            QVERIFY2(said.contains(camera ? QStringLiteral("unplugged") : QStringLiteral("resolution change")), qPrintable(said));
            QTRY_VERIFY_WITH_TIMEOUT(!lane->busy(), 10000);
            QVERIFY(!w->video()->source()->playing());
            // The last good frame stays: one of the first size, the last before the failure.
            QCOMPARE(w->imageView()->resultImage().width(), 64);
            QVERIFY(lane->lastFrame()->index <= (camera ? 3 : 4));
        }
        // Stills open again after a video: the still runs, the video's bar goes.
        QVERIFY(w->openImage(QStringLiteral(FS_SAMPLES_DIR "/building.jpg")));
        QVERIFY(!w->video()->active());
        QVERIFY(!w->video()->transport()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(w->lastOutcome() != nullptr, 20000);
    }

    // Save, Copy, Run every mode and Run pipeline work on the frame on screen, never on an image
    // opened before the video: the video closes at that frame and the frame becomes the image.
    void theStillToolsTakeTheFrameOnScreen() {
        auto w = makeWindow();
        QVERIFY(w->openImage(QStringLiteral(FS_SAMPLES_DIR "/building.jpg")));
        QVERIFY(w->kernelEditor()->applyPresetText(QStringLiteral("gaussian:5")));
        QVERIFY(w->selectMode(fs::ui::referenceKey(w->backendChooser()->choices())));
        const auto stepTo = [&](long long index) {
            QVERIFY(w->video()->openVideo(clip_));
            fs::ui::VideoLane* lane = w->video()->lane();
            QTRY_VERIFY_WITH_TIMEOUT(lane->lastFrame() && !lane->busy(), 10000);
            while (lane->lastFrame()->index < index) {
                const long long at = lane->lastFrame()->index;
                w->video()->stepAction()->trigger();
                QTRY_VERIFY_WITH_TIMEOUT(lane->lastFrame()->index > at && !lane->busy(), 10000);
            }
        };

        // Save: the file is the reference of the frame shown, and the window keeps that frame.
        stepTo(2);
        const std::shared_ptr<const fs::Image> frame = w->video()->lane()->lastFrame()->image;
        const QString saved = dir_.filePath(QStringLiteral("frame.png"));
        QVERIFY2(w->saveResult(saved, false), qPrintable(errors_.join('\n')));
        QVERIFY(!w->video()->active());
        QVERIFY(!w->video()->transport()->isVisible());
        QCOMPARE(w->input().get(), frame.get());
        QVERIFY2(w->windowTitle().contains(QStringLiteral("clip.avi, frame 3")), qPrintable(w->windowTitle()));
        const fs::Image reference = fs::cpu::referenceFilter(w->currentSpec(), frame->cview());
        const cv::Mat written = cv::imread(saved.toStdString(), cv::IMREAD_UNCHANGED);
        QCOMPARE(written.cols, reference.width());
        QCOMPARE(written.rows, reference.height());
        QCOMPARE(cv::norm(written, fs::io::asMat(reference.cview()), cv::NORM_INF), 0.0);

        // Copy, from another frame: the clipboard holds that frame's result.
        stepTo(4);
        const std::shared_ptr<const fs::Image> copied = w->video()->lane()->lastFrame()->image;
        w->copyResultToClipboard();
        QVERIFY(!w->video()->active());
        QCOMPARE(w->input().get(), copied.get());
        QCOMPARE(QGuiApplication::clipboard()->image().size(), QSize(copied->width(), copied->height()));

        // Run every mode and the Take frame action: both on the frame shown.
        stepTo(1);
        const std::shared_ptr<const fs::Image> swept = w->video()->lane()->lastFrame()->image;
        w->runEveryMode();
        QVERIFY(!w->video()->active());
        QCOMPARE(w->input().get(), swept.get());
        QTRY_VERIFY_WITH_TIMEOUT(!w->sweeping(), 60000);
        stepTo(3);
        const std::shared_ptr<const fs::Image> taken = w->video()->lane()->lastFrame()->image;
        w->video()->stillAction()->trigger();
        QVERIFY(!w->video()->active());
        QVERIFY(!w->video()->stillAction()->isEnabled());
        QCOMPARE(w->input().get(), taken.get());
        QTRY_VERIFY_WITH_TIMEOUT(w->lastOutcome() && w->lastOutcome()->result.ok(), 20000);
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
    }

    void theCameraMenuSaysWhatItFound() {
        auto w = makeWindow();
        QMenu* cameras = nullptr;
        for (QMenu* m : w->menuBar()->findChildren<QMenu*>())
            if (m->title() == QStringLiteral("&Camera")) cameras = m;
        QVERIFY(cameras);
        w->video()->fillCameraMenu(cameras);
        QVERIFY(!cameras->actions().isEmpty());
        const std::vector<fs::services::CameraInfo> found = fs::services::listCameras();
        if (found.empty()) QVERIFY2(cameras->actions().front()->text().startsWith(QStringLiteral("No camera")), qPrintable(cameras->actions().front()->text()));
        else QCOMPARE(cameras->actions().size(), static_cast<qsizetype>(found.size()));
    }
};

QTEST_MAIN(VideoTest)
#include "test_video.moc"
