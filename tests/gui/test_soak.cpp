// Soak: 2000 kernel edits as fast as the event loop takes them while the
// worker runs filters, then the shown image must be the reference result of
// the final kernel and memory must not have grown past a bound; and closing
// the window while a long run is in flight must neither crash nor hang.
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QThread>
#include <QtTest>
#include <atomic>
#include <unistd.h>

#include "fs/cpu/cpu_backend.hpp"
#include "fs/io/image_io.hpp"
#include "fs/widgets/image_view.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "image_convert.hpp"
#include "main_window.hpp"

using fs::ui::MainWindow;

namespace {

const QString kFruits = QStringLiteral(FS_SAMPLES_DIR "/fruits.jpg");

std::vector<std::unique_ptr<fs::Backend>> cpuOnly() {
    std::vector<std::unique_ptr<fs::Backend>> v;
    v.push_back(fs::cpu::makeCpuBackend());
    return v;
}

// Resident set size in bytes (second field of /proc/self/statm, in pages).
qint64 residentBytes() {
    QFile f(QStringLiteral("/proc/self/statm"));
    if (!f.open(QIODevice::ReadOnly)) return -1;
    const QList<QByteArray> fields = f.readAll().split(' ');
    return fields.size() > 1 ? fields[1].toLongLong() * sysconf(_SC_PAGESIZE) : -1;
}

// A CPU reference that takes `delay` per run and counts the runs it started.
class SlowBackend : public fs::Backend {
public:
    SlowBackend(std::atomic<int>* started, int delayMs) : started_(started), delayMs_(delayMs) {}
    std::string id() const override { return "cpu"; }
    std::string displayName() const override { return "CPU (slow test double)"; }
    std::vector<fs::ModeInfo> modes() const override { return {{"reference", "sleeps, then the reference", true, {}}}; }
    std::string unavailableReason() const override { return {}; }
    fs::RunResult run(const fs::FilterSpec& spec, fs::ConstImageView input, const std::string&) override {
        ++*started_;
        QThread::msleep(static_cast<unsigned long>(delayMs_));
        fs::RunResult r;
        r.output = fs::cpu::referenceFilter(spec, input);
        return r;
    }

private:
    std::atomic<int>* started_;
    int delayMs_;
};

}  // namespace

class SoakTest : public QObject {
    Q_OBJECT

    QStringList errors_;

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_soak"));
    }

    void init() { errors_.clear(); }

    void thousandsOfKernelEditsEndOnTheFinalKernel() {
        MainWindow window([] { return cpuOnly(); });
        window.setErrorReporter([this](const QString& t, const QString& m) { errors_ << t + ": " + m; });
        window.setConfirmer([](const QString&, const QString&, const QString&) { return false; });
        window.resize(1000, 700);
        window.show();
        QVERIFY(window.openImage(kFruits));
        QVERIFY(window.selectMode(QStringLiteral("cpu/parallel")));
        auto* grid = window.kernelEditor()->findChild<QTableWidget*>();
        QVERIFY(grid);
        QCOMPARE(grid->rowCount(), 3);
        QCOMPARE(grid->columnCount(), 3);

        QSignalSpy shown(&window, &MainWindow::resultShown);
        std::vector<float> expected = window.kernelEditor()->spec().kernels.front().weights;
        // Integer weights -2..2: exact in every summation order, so parallel equals reference bit for bit.
        auto batch = [&](int edits, int salt) {
            QElapsedTimer clock;
            clock.start();
            for (int i = 0; i < edits; ++i) {
                const int cell = i % 9;
                const int value = (i * 37 + salt * 11 + i / 9) % 5 - 2;
                grid->item(cell / 3, cell % 3)->setText(QString::number(value));
                expected[static_cast<std::size_t>(cell)] = static_cast<float>(value);
                QCoreApplication::processEvents();  // the run timer fires; the worker keeps going
            }
            for (int k = 0; k < 5; ++k) QCoreApplication::processEvents();  // the last edit's run timer
            window.runner()->waitForIdle();
            // Deliver the queued results, up to the one for the last edit.
            for (int i = 0; i < 100 && (!window.lastOutcome() ||
                                        window.lastOutcome()->generation < window.runner()->latestGeneration());
                 ++i)
                shown.wait(50);
            qInfo("%d edits in %lld ms", edits, static_cast<long long>(clock.elapsed()));
        };

        batch(1000, 1);  // warm-up: caches, undo stack, chart history reach their working size
        const qint64 rssWarm = residentBytes();
        shown.clear();
        batch(1000, 2);
        const qint64 rssAfter = residentBytes();
        const qsizetype runsShown = shown.size();
        QVERIFY(rssWarm > 0 && rssAfter > 0);
        const auto mb = [](qint64 bytes) { return static_cast<double>(bytes) / 1048576.0; };
        qInfo("RSS after warm-up %.1f MB, after 1000 more edits %.1f MB (%+.1f MB), %lld results shown in the second batch",
              mb(rssWarm), mb(rssAfter), mb(rssAfter - rssWarm), static_cast<long long>(runsShown));
        // Bound: one fruits.jpg result kept per run (image + display copy, about 1.7 MB) would pass 64 MB within
        // 40 runs, while the undo stack and chart history of 1000 edits stay well under 1 MB.
        QVERIFY2(runsShown >= 40, qPrintable(QStringLiteral("only %1 runs: the bound would prove little").arg(runsShown)));
        QVERIFY2(rssAfter - rssWarm < 64LL * 1024 * 1024,
                 qPrintable(QStringLiteral("RSS grew by %1 MB").arg(mb(rssAfter - rssWarm))));

        // The view shows the final kernel's result, computed here independently with the reference.
        QVERIFY(window.lastOutcome());
        QCOMPARE(window.lastOutcome()->generation, window.runner()->latestGeneration());
        QVERIFY2(window.lastOutcome()->result.ok(), window.lastOutcome()->result.error.c_str());
        QCOMPARE(window.kernelEditor()->spec().kernels.front().weights, expected);
        QCOMPARE(window.lastOutcome()->request.spec.kernels.front().weights, expected);
        fs::io::LoadResult loaded = fs::io::loadImage(kFruits.toStdString());
        QVERIFY(loaded.ok());
        fs::FilterSpec finalSpec;
        finalSpec.kernels = {fs::Kernel(3, 3, expected)};
        finalSpec.border.mode = fs::BorderMode::Reflect101;  // the window's default
        const QImage want = fs::ui::toDisplayImage(fs::cpu::referenceFilter(finalSpec, loaded.image.cview()).cview());
        QCOMPARE(window.imageView()->resultImage(), want);
        QVERIFY(errors_.isEmpty());
    }

    void closingMidRunJoinsTheWorker() {
        std::atomic<int> started{0};
        auto window = std::make_unique<MainWindow>([&started] {
            std::vector<std::unique_ptr<fs::Backend>> v;
            v.push_back(std::make_unique<SlowBackend>(&started, 3000));
            return v;
        });
        window->setErrorReporter([this](const QString& t, const QString& m) { errors_ << t + ": " + m; });
        window->show();
        QVERIFY(window->openImage(kFruits));  // starts the first long run
        QTRY_COMPARE_WITH_TIMEOUT(started.load(), 1, 5000);
        QVERIFY(window->runner()->busy());
        // A second run waits behind it; closing must drop it, not run it.
        QVERIFY(window->kernelEditor()->applyPresetText(QStringLiteral("sobel-x:3")));
        QCoreApplication::processEvents();
        QVERIFY(window->runner()->busy());

        QElapsedTimer clock;
        clock.start();
        QVERIFY(window->close());
        window.reset();  // joins the worker: the backend still runs on the window's data
        const qint64 closeMs = clock.elapsed();
        // Let any queued signal of the finished run reach the (gone) window: must be dropped, not crash.
        for (int i = 0; i < 20; ++i) {
            QCoreApplication::processEvents();
            QThread::msleep(10);
        }
        QCOMPARE(started.load(), 1);
        QVERIFY2(closeMs < 10000, qPrintable(QStringLiteral("closing took %1 ms").arg(closeMs)));
        QVERIFY(errors_.isEmpty());
    }
};

QTEST_MAIN(SoakTest)
#include "test_soak.moc"
