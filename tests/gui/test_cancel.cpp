// Cancel and supersede in the studio, offscreen: a long CPU-reference run on a large image stops within
// half a second of Escape, shows progress while it runs, and the next edit's result appears; a new edit
// or a new image stops a long run whose result nobody would see.
#include <QElapsedTimer>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>
#include <random>

#include "backends.hpp"
#include "fs/io/image_io.hpp"
#include "fs/widgets/backend_chooser.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "main_window.hpp"

using fs::ui::MainWindow;

namespace {

const QString kFruits = QStringLiteral(FS_SAMPLES_DIR "/fruits.jpg");

// A 6000x4000 RGB image of noise, written once as a binary PPM (quick to write and to read).
QString largeImage(const QTemporaryDir& dir) {
    const QString path = dir.filePath(QStringLiteral("noise-6000x4000.ppm"));
    fs::Image image(6000, 4000, 3, fs::Depth::U8);
    std::mt19937 random(7);
    for (int y = 0; y < image.height(); ++y) {
        auto* row = image.view().row<std::uint8_t>(y);
        for (int x = 0; x < image.width() * 3; ++x) row[x] = static_cast<std::uint8_t>(random());
    }
    std::string why;
    return fs::io::saveImage(path.toStdString(), image.cview(), &why) ? path : QString();
}

}  // namespace

class CancelTest : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString large_;
    QStringList errors_;

    std::unique_ptr<MainWindow> makeWindow() {
        auto window = std::make_unique<MainWindow>([] { return fs::makeAllBackends(); });
        window->setErrorReporter([this](const QString& t, const QString& m) { errors_ << t + ": " + m; });
        window->resize(1024, 768);
        window->show();
        window->activateWindow();  // Escape is a shortcut of the active window
        return QTest::qWaitForWindowActive(window.get()) ? std::move(window) : nullptr;
    }

    // Opens the large image with a 15x15 kernel on the CPU reference: a run of many seconds.
    bool startLongRun(MainWindow& window) {
        if (!window.kernelEditor()->applyPresetText(QStringLiteral("unsharp:15:0:1")) ||
            !window.selectMode(QStringLiteral("cpu/reference")) || !window.openImage(large_))
            return false;
        QTest::qWait(300);
        return window.runner()->busy();
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_cancel"));
        large_ = largeImage(dir_);
        QVERIFY(!large_.isEmpty());
    }

    void init() { errors_.clear(); }

    void escapeStopsALongRunAndTheNextEditShows() {
        auto window = makeWindow();
        QVERIFY(window);
        QVERIFY(startLongRun(*window));
        // Longer than a second: the status bar shows progress and Cancel.
        QTest::qWait(1200);
        auto* progress = window->statusBar()->findChild<QProgressBar*>(QStringLiteral("runProgress"));
        auto* cancel = window->statusBar()->findChild<QPushButton*>(QStringLiteral("cancelRun"));
        QVERIFY(progress && cancel);
        QTRY_VERIFY_WITH_TIMEOUT(progress->isVisible() && cancel->isVisible(), 5000);
        if (const QString dir = qEnvironmentVariable("FS_SCREENSHOTS"); !dir.isEmpty())
            window->grab().save(dir + QStringLiteral("/cancel-long-run.png"));
        QElapsedTimer clock;
        clock.start();
        QTest::keyClick(window.get(), Qt::Key_Escape);
        // Control returns within half a second (the CPU tests count how much work a cancelled run did).
        QTRY_VERIFY_WITH_TIMEOUT(!window->runner()->busy(), 500);
        qInfo("cancelled after %lld ms", static_cast<long long>(clock.elapsed()));
        QVERIFY(!window->lastOutcome());  // nothing half done is shown
        QTRY_VERIFY_WITH_TIMEOUT(!cancel->isVisible() && !progress->isVisible(), 5000);
        // The next edit runs at once and its result appears.
        QVERIFY(window->selectMode(QStringLiteral("cpu/parallel")));
        QVERIFY(window->kernelEditor()->applyPresetText(QStringLiteral("box:3")));
        QTRY_VERIFY_WITH_TIMEOUT(window->lastOutcome() && window->lastOutcome()->result.ok(), 20000);
        QCOMPARE(window->lastOutcome()->request.mode, QStringLiteral("parallel"));
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
    }

    void anotherModeSupersedesTheLongRun() {
        auto window = makeWindow();
        QVERIFY(window);
        QVERIFY(startLongRun(*window));
        QElapsedTimer clock;
        clock.start();
        // Switching back to a fast mode: the reference run's result would never be seen.
        QVERIFY(window->selectMode(QStringLiteral("cpu/parallel")));
        QVERIFY(window->kernelEditor()->applyPresetText(QStringLiteral("box:3")));
        QTRY_VERIFY_WITH_TIMEOUT(window->lastOutcome() && window->lastOutcome()->result.ok(), 20000);
        QCOMPARE(window->lastOutcome()->request.mode, QStringLiteral("parallel"));
        qInfo("the new edit's result after %lld ms", static_cast<long long>(clock.elapsed()));
        QVERIFY(errors_.isEmpty());
    }

    void aNewImageSupersedesTheLongRun() {
        auto window = makeWindow();
        QVERIFY(window);
        QVERIFY(startLongRun(*window));
        QElapsedTimer clock;
        clock.start();
        QVERIFY(window->openImage(kFruits));  // 512x480: its reference run takes a moment
        QTRY_VERIFY_WITH_TIMEOUT(window->lastOutcome() && window->lastOutcome()->result.ok(), 15000);
        QCOMPARE(window->lastOutcome()->request.input->width(), 512);
        qInfo("the new image's result after %lld ms", static_cast<long long>(clock.elapsed()));
        QVERIFY(errors_.isEmpty());
    }
};

QTEST_MAIN(CancelTest)
#include "test_cancel.moc"
