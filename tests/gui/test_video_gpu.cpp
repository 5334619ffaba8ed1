// Video through the filter in the studio's real window on a GPU: a 3840x2160 stream of JPEG frames (a
// photograph panned across), decoded one by one on the video source's thread as an MJPEG file is, runs
// through cuda/auto into the view's texture (CUDA-GL interop) and through the fastest CPU mode on the same
// frames, then both at once in the race view, for Sobel magnitude and Gaussian 15. Each prints the frames
// per second shown, the decoder's rate and the per-frame split; the shown texture is checked against the
// CPU reference of its frame. The frames are decoded with OpenCV's imdecode rather than read from a video
// file because the OpenCV carried to the GPU machine has no videoio.
// Skips, saying why, without CUDA-GL interop or an OpenGL view (scripts/device/window_on_gpu.sh VIDEO=1).
#include <QLabel>
#include <QStandardPaths>
#include <QtTest>
#include <chrono>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "backends.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/gpu/gl_interop.hpp"
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
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kWidth = 3840, kHeight = 2160, kDistinctFrames = 24, kWarmupFrames = 10;
constexpr double kSeconds = 4.0;  // of each measured stretch

// JPEG frames decoded on the source's thread, as FFmpeg decodes an MJPEG file; loops.
class JpegStream : public fs::services::FrameReader {
public:
    explicit JpegStream(const std::vector<std::vector<uchar>>* frames) : frames_(frames) {}
    bool read(fs::Image& frame, std::string& why) override {
        if (next_ >= frames_->size()) return false;
        cv::Mat decoded = frame.empty() ? cv::Mat() : fs::io::asMat(frame.view());
        cv::imdecode((*frames_)[next_++], cv::IMREAD_COLOR, &decoded);
        if (decoded.empty()) {
            why = "a JPEG frame did not decode";
            return false;
        }
        if (decoded.data != frame.data()) {
            frame = fs::Image(decoded.cols, decoded.rows, decoded.channels(), fs::Depth::U8);
            decoded.copyTo(fs::io::asMat(frame.view()));
        }
        return true;
    }
    double framesPerSecond() const override { return 60; }
    long long declaredFrames() const override { return static_cast<long long>(frames_->size()); }
    bool rewind() override {
        next_ = 0;
        return true;
    }

private:
    const std::vector<std::vector<uchar>>* frames_;
    std::size_t next_ = 0;
};

struct Stretch {
    double fps = 0, decoderFps = 0;
    long long shown = 0, dropped = 0;
};

}  // namespace

class VideoGpuTest : public QObject {
    Q_OBJECT
    std::vector<std::vector<uchar>> jpegs_;
    std::unique_ptr<MainWindow> window_;
    QStringList errors_;
    QString gpuKey_, cpuKey_;

    // Plays unpaced for kSeconds after a warm-up; the frames shown per second by `lanes` and the decoder's.
    // Empty when the warm-up frames never came or the lanes did not stop.
    std::vector<Stretch> measure(const std::vector<fs::ui::VideoLane*>& lanes) {
        fs::services::VideoSource* source = window_->video()->source();
        source->setPaced(false);
        source->setLoop(true);
        window_->video()->playAction()->trigger();
        const auto warm = [&] {
            for (const fs::ui::VideoLane* lane : lanes)
                if (lane->shown() < kWarmupFrames) return false;
            return true;
        };
        if (!QTest::qWaitFor(warm, 60000)) return {};
        std::vector<long long> shown0, dropped0;
        for (const fs::ui::VideoLane* lane : lanes) {
            shown0.push_back(lane->shown());
            dropped0.push_back(lane->dropped());
        }
        const long long decoded0 = source->decoded();
        const auto t0 = Clock::now();
        QTest::qWait(static_cast<int>(kSeconds * 1000));
        const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        std::vector<Stretch> out;
        for (std::size_t i = 0; i < lanes.size(); ++i)
            out.push_back({static_cast<double>(lanes[i]->shown() - shown0[i]) / seconds,
                           static_cast<double>(source->decoded() - decoded0) / seconds, lanes[i]->shown() - shown0[i],
                           lanes[i]->dropped() - dropped0[i]});
        window_->video()->playAction()->trigger();  // pause
        const bool stopped = QTest::qWaitFor([&] {
            for (const fs::ui::VideoLane* lane : lanes)
                if (lane->busy()) return false;
            return !source->playing();
        }, 30000);
        return stopped ? out : std::vector<Stretch>{};
    }

    static void report(const char* filter, const fs::ui::VideoLane* lane, const Stretch& s, const char* where) {
        const fs::ui::LaneSplit split = lane->split();
        qInfo("video %dx%d %s %s%s: %.1f fps shown (decoder %.1f fps), %lld dropped in %.0f s; per frame decode %.2f ms, "
              "upload %.2f ms, kernel %.2f ms, %s %.2f ms, draw %.2f ms",
              kWidth, kHeight, filter, qPrintable(lane->choice()), where, s.fps, s.decoderFps, s.dropped, kSeconds,
              split.decodeMs, split.uploadMs, split.kernelMs, split.interop ? "map+texture copy" : "download",
              split.downloadMs, split.drawMs);
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_video_gpu"));
        if (const std::string why = fs::gpu::GlPixelBufferInterop::unavailableReason(); !why.empty())
            QSKIP(qPrintable(QStringLiteral("no CUDA-GL interop here: %1").arg(QString::fromStdString(why))));
        const cv::Mat photo = cv::imread(FS_SAMPLES_DIR "/building.jpg", cv::IMREAD_COLOR);
        QVERIFY(!photo.empty());
        // Larger than the frame, so the window can pan across it.
        cv::Mat big;
        const double scale = std::max((kWidth + 8.0 * kDistinctFrames) / photo.cols, (kHeight + 4.0 * kDistinctFrames) / photo.rows);
        cv::resize(photo, big, cv::Size(), scale, scale, cv::INTER_CUBIC);
        for (int i = 0; i < kDistinctFrames; ++i) {
            std::vector<uchar> jpeg;
            QVERIFY(cv::imencode(".jpg", big(cv::Rect(8 * i, 4 * i, kWidth, kHeight)), jpeg, {cv::IMWRITE_JPEG_QUALITY, 90}));
            jpegs_.push_back(std::move(jpeg));
        }
        window_ = std::make_unique<MainWindow>(&fs::makeAllBackends);
        window_->setErrorReporter([this](const QString& t, const QString& m) { errors_ << t + ": " + m; });
        window_->resize(1920, 1080);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        if (!window_->imageView()->glReady()) QSKIP("the image view has no OpenGL on this platform");
        const auto& choices = window_->backendChooser()->choices();
        gpuKey_ = fs::ui::fastestExactKey(choices, window_->runner()->backends());
        cpuKey_ = fs::ui::cpuDefaultKey(choices);
        if (fs::ui::backendOf(gpuKey_) != QStringLiteral("cuda")) QSKIP("no CUDA mode can run here");
        gpuKey_ = QStringLiteral("cuda/auto");
    }

    void theFilterOnTheSameFramesGpuThenCpuThenRacing_data() {
        QTest::addColumn<QString>("filter");
        QTest::newRow("sobel-mag:3") << QStringLiteral("sobel-mag:3");
        QTest::newRow("gaussian:15") << QStringLiteral("gaussian:15:0");
    }

    void theFilterOnTheSameFramesGpuThenCpuThenRacing() {
        QFETCH(QString, filter);
        const QByteArray name = filter.toUtf8();
        QVERIFY(window_->kernelEditor()->applyPresetText(filter));
        fs::ui::VideoController* video = window_->video();
        video->start(std::make_unique<JpegStream>(&jpegs_), QStringLiteral("building-4k.mjpeg"));
        fs::ui::VideoLane* lane = video->lane();

        // The GPU alone, through CUDA-GL interop into the window's view.
        QVERIFY(window_->selectMode(gpuKey_));
        const std::vector<Stretch> gpuRun = measure({lane});
        QVERIFY2(gpuRun.size() == 1, "cuda/auto showed no frames");
        const Stretch gpu = gpuRun.front();
        report(name.constData(), lane, gpu, " (window, interop)");
        QVERIFY2(window_->imageView()->resultFromPixelBuffer(), "the frames did not go through CUDA-GL interop");
        QVERIFY(lane->split().interop);
        // The texture shown is the CPU reference of its frame.
        const QImage shown = window_->imageView()->readResultTexture();
        const fs::Image reference = fs::cpu::referenceFilter(window_->currentSpec(), lane->lastFrame()->image->cview());
        const QImage expected = fs::ui::toDisplayImage(reference.cview()).convertToFormat(QImage::Format_RGBA8888);
        QCOMPARE(shown.size(), expected.size());
        long long off = 0;
        for (int y = 0; y < expected.height(); ++y)
            for (int x = 0; x < expected.width() * 4; ++x)
                if ((x & 3) != 3 && std::abs(shown.constScanLine(y)[x] - expected.constScanLine(y)[x]) > 1) ++off;
        QVERIFY2(off == 0, qPrintable(QStringLiteral("%1 values differ from the CPU reference by more than 1").arg(off)));

        // The CPU alone on the same frames.
        QVERIFY(window_->selectMode(cpuKey_));
        const std::vector<Stretch> cpuRun = measure({lane});
        QVERIFY2(cpuRun.size() == 1, "the CPU mode showed no frames");
        const Stretch cpu = cpuRun.front();
        report(name.constData(), lane, cpu, " (window)");

        // Both at once: the race view, as a class sees it.
        video->showRace();
        fs::ui::RaceView* race = video->race();
        QVERIFY(race->selectMode(0, cpuKey_) && race->selectMode(1, gpuKey_));
        race->resize(1920, 1080);
        const std::vector<Stretch> raced = measure({race->lane(0), race->lane(1)});
        QVERIFY2(raced.size() == 2, "a half of the race showed no frames");
        report(name.constData(), race->lane(0), raced[0], " (race, left)");
        report(name.constData(), race->lane(1), raced[1], " (race, right)");
        qInfo("race labels: %s | %s", qPrintable(race->fpsLabel(0)->text()), qPrintable(race->fpsLabel(1)->text()));
        // The race for the eye (one picture: what comes back from the machine is counted).
        if (const QString out = qEnvironmentVariable("FS_VIDEO_SCREENSHOT"); !out.isEmpty() && filter.startsWith(QStringLiteral("sobel")))
            race->grab().save(out);
        race->hide();
        video->close();
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
        QVERIFY(gpu.fps > 0 && cpu.fps > 0);
    }

    void cleanupTestCase() { window_.reset(); }
};

QTEST_MAIN(VideoGpuTest)
#include "test_video_gpu.moc"
