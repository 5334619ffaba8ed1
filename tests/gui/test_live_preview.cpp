// The live preview off the GPU: the frame meter that joins a frame's halves
// and counts frames per second, and opening a large photograph without
// freezing the window, with Cancel keeping the image already open.
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <random>

#include "fs/cpu/cpu_backend.hpp"
#include "fs/io/image_io.hpp"
#include "main_window.hpp"
#include "preview_frames.hpp"

using fs::ui::MainWindow;
using fs::ui::PreviewFrameMeter;

namespace {

const QString kFruits = QStringLiteral(FS_SAMPLES_DIR "/fruits.jpg");

std::unique_ptr<MainWindow> makeWindow(QStringList* errors) {
    auto window = std::make_unique<MainWindow>([] {
        std::vector<std::unique_ptr<fs::Backend>> v;
        v.push_back(fs::cpu::makeCpuBackend());
        return v;
    });
    window->setErrorReporter([errors](const QString& t, const QString& m) { *errors << t + ": " + m; });
    window->show();
    return window;
}

}  // namespace

class LivePreviewTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString large_;  // an 8000x6000 photograph-sized PNG, decoded in about a second or more

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_live_preview"));
        QVERIFY(dir_.isValid());
        // Smooth gradients with noise: compresses like a photograph, so decoding costs what a real one does.
        fs::Image big(8000, 6000, 3, fs::Depth::U8);
        std::mt19937 rng(5);
        for (int y = 0; y < big.height(); ++y) {
            std::uint8_t* row = big.view().row<std::uint8_t>(y);
            for (int x = 0; x < big.width(); ++x) {
                row[3 * x] = static_cast<std::uint8_t>(x / 32 + (rng() & 7));
                row[3 * x + 1] = static_cast<std::uint8_t>(y / 24 + (rng() & 7));
                row[3 * x + 2] = static_cast<std::uint8_t>((x + y) / 56);
            }
        }
        large_ = dir_.filePath(QStringLiteral("large.png"));
        std::string why;
        QVERIFY2(fs::io::saveImage(large_.toStdString(), big.cview(), &why), why.c_str());
    }

    void meterJoinsTheTwoHalvesOfAFrame() {
        PreviewFrameMeter meter;
        const auto t0 = PreviewFrameMeter::Clock::now();
        QVERIFY(!meter.shown(0.1, 0.2, t0).has_value());  // a repaint with no new result is no frame
        fs::TimingRecord run;
        run.kernelMs = 0.11;
        run.mapMs = 0.04;
        meter.filled(run, 0.35);
        const auto frame = meter.shown(0.12, 0.08, t0);
        QVERIFY(frame.has_value());
        QCOMPARE(*frame->kernelMs, 0.11);
        QCOMPARE(*frame->mapMs, 0.04);
        QVERIFY(qFuzzyCompare(*frame->displayMs, 0.20));
        QVERIFY(qFuzzyCompare(*frame->totalMs, 0.43));  // the fill (with its texture copy) plus the draw
        QVERIFY(!meter.shown(0.1, 0.1, t0).has_value());  // each fill is one frame
    }

    void meterCountsTheFramesOfTheLastSecond() {
        PreviewFrameMeter meter;
        const auto t0 = PreviewFrameMeter::Clock::now();
        for (int i = 0; i < 90; ++i) {  // 60 fps for 1.5 s
            meter.filled(fs::TimingRecord{}, 1.0);
            QVERIFY(meter.shown(0.1, 0.1, t0 + std::chrono::microseconds(16667 * i)).has_value());
        }
        const auto last = t0 + std::chrono::microseconds(16667 * 89);
        QVERIFY(std::abs(meter.framesPerSecond(last) - 60) <= 1);
        QCOMPARE(meter.framesPerSecond(last + std::chrono::seconds(2)), 0);
        meter.reset();
        QCOMPARE(meter.framesPerSecond(last), 0);
    }

    void openingALargeImageKeepsTheWindowResponsive() {
        QStringList errors;
        auto window = makeWindow(&errors);
        QElapsedTimer clock;
        qint64 lastTick = 0, longestGap = 0;
        int ticks = 0;
        QTimer ticker;
        ticker.setInterval(10);
        clock.start();
        connect(&ticker, &QTimer::timeout, [&] {
            const qint64 now = clock.elapsed();
            longestGap = std::max(longestGap, now - lastTick);
            lastTick = now;
            ++ticks;
        });
        ticker.start();
        QVERIFY2(window->openImage(large_), qPrintable(errors.join('\n')));
        const qint64 openMs = clock.elapsed();
        ticker.stop();
        QCOMPARE(window->input()->width(), 8000);
        QCOMPARE(window->input()->height(), 6000);
        // The GUI thread kept handling events while the file was decoded.
        QVERIFY2(ticks > 3, qPrintable(QStringLiteral("%1 timer ticks in a %2 ms open").arg(ticks).arg(openMs)));
        QVERIFY2(longestGap < 1000, qPrintable(QStringLiteral("the window stalled %1 ms").arg(longestGap)));
    }

    void cancellingAnOpenKeepsTheCurrentImage() {
        QStringList errors;
        auto window = makeWindow(&errors);
        QVERIFY(window->openImage(kFruits));
        const auto before = window->input();
        const QString title = window->windowTitle();
        QTimer::singleShot(20, window.get(), &MainWindow::cancelOpening);
        QVERIFY(!window->openImage(large_));
        QCOMPARE(window->input(), before);
        QCOMPARE(window->windowTitle(), title);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
        // A second open while one is in progress is refused, not nested.
        QTimer::singleShot(20, window.get(), [&] { QVERIFY(!window->openImage(kFruits)); });
        QTimer::singleShot(40, window.get(), &MainWindow::cancelOpening);
        QVERIFY(!window->openImage(large_));
        QCOMPARE(window->input(), before);
    }
};

QTEST_MAIN(LivePreviewTest)
#include "test_live_preview.moc"
