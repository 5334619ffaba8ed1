// The studio end to end, offscreen: open, filter, compare what is shown with
// the backend's output and an independent reference, save and reload, errors.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QSpinBox>
#include <QElapsedTimer>
#include <QDoubleSpinBox>
#include <QDropEvent>
#include <QMimeData>
#include <QSettings>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>
#include <cstring>

#include "backends.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/io/image_io.hpp"
#include "fs/presets.hpp"
#include "fs/widgets/backend_chooser.hpp"
#include "fs/widgets/image_view.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "fs/widgets/pixel_inspector.hpp"
#include "fs/widgets/timing_chart.hpp"
#include "benchmark_dialog.hpp"
#include "image_convert.hpp"
#include "main_window.hpp"

using fs::ui::MainWindow;

namespace {

bool sameBytes(const fs::Image& a, const fs::Image& b) {
    if (a.width() != b.width() || a.height() != b.height() || a.channels() != b.channels() || a.depth() != b.depth())
        return false;
    for (int y = 0; y < a.height(); ++y)
        if (std::memcmp(a.cview().row<std::uint8_t>(y), b.cview().row<std::uint8_t>(y), a.cview().rowBytes()) != 0) return false;
    return true;
}

const QString kFruits = QStringLiteral(FS_SAMPLES_DIR "/fruits.jpg");

}  // namespace

class MainWindowTest : public QObject {
    Q_OBJECT

    struct Reported {
        QString title, message;
    };
    QVector<Reported> errors_;
    std::unique_ptr<MainWindow> window_;
    QTemporaryDir dir_;

    // Runs the current settings now and waits for that exact result.
    bool runAndWait() {
        QSignalSpy shown(window_.get(), &MainWindow::resultShown);
        window_->runNow();
        const quint64 wanted = window_->runner()->latestGeneration();
        for (int i = 0; i < 200; ++i) {
            if (window_->lastOutcome() && window_->lastOutcome()->generation >= wanted) return true;
            shown.wait(100);
        }
        return false;
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // keep QSettings away from the user's
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui"));
        QVERIFY(dir_.isValid());
    }

    void init() {
        errors_.clear();
        window_ = std::make_unique<MainWindow>([] { return fs::makeAllBackends(); });
        window_->setErrorReporter([this](const QString& t, const QString& m) { errors_.push_back({t, m}); });
        window_->resize(1200, 800);
        window_->show();
    }

    void cleanup() { window_.reset(); }

    void sobelOnCpuShowsTheBackendOutput() {
        QVERIFY(window_->openImage(kFruits));
        QVERIFY(window_->selectMode(QStringLiteral("cpu/reference")));
        QVERIFY(window_->kernelEditor()->applyPresetText(QStringLiteral("sobel-x:3")));
        const int barsBefore = window_->timingChart()->historyCount();
        QVERIFY(runAndWait());
        const auto outcome = window_->lastOutcome();
        QVERIFY2(outcome->result.ok(), outcome->result.error.c_str());
        QCOMPARE(outcome->request.backend, QStringLiteral("cpu"));
        QCOMPARE(outcome->request.mode, QStringLiteral("reference"));
        QCOMPARE(QString::fromStdString(outcome->request.spec.name).left(5), QStringLiteral("sobel"));

        // What the view holds is the backend's output converted for display...
        const QImage shown = window_->imageView()->resultImage();
        QVERIFY(!shown.isNull());
        QCOMPARE(shown, fs::ui::toDisplayImage(outcome->result.output.cview()));
        // ...and that output matches a reference run made here, outside the window.
        fs::io::LoadResult loaded = fs::io::loadImage(kFruits.toStdString());
        QVERIFY(loaded.ok());
        fs::FilterSpec sobel;
        QVERIFY(fs::makePreset("sobel-x:3", sobel));
        // A zero-sum preset comes with |v| and a scale fitted to the image, so its edges show.
        QVERIFY(outcome->request.spec.output.absolute);
        QCOMPARE(outcome->request.spec.output.scale, static_cast<float>(window_->displayMapping().scale));
        sobel.output = outcome->request.spec.output;
        QVERIFY(sameBytes(outcome->result.output, fs::cpu::referenceFilter(sobel, loaded.image.cview())));
        // A Sobel response on a photo is not flat: the comparison above can fail.
        QVERIFY(shown.pixel(100, 100) != shown.pixel(300, 200) || shown.pixel(10, 10) != shown.pixel(400, 400));

        QVERIFY(window_->timingChart()->historyCount() > barsBefore);
        QVERIFY(window_->timingChart()->categories().contains(QStringLiteral("cpu/reference")));
        QVERIFY(window_->timingChart()->barCount() >= 1);
        QVERIFY(errors_.isEmpty());

        // The chart exports every run as CSV and the visible plot as PNG.
        QString why;
        const QString csv = dir_.filePath(QStringLiteral("timings.csv"));
        QVERIFY2(window_->timingChart()->exportCsv(csv, &why), qPrintable(why));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = f.readAll().split('\n');
        QCOMPARE(lines.size() - 1, window_->timingChart()->historyCount() + 1);  // header, runs, final newline
        QVERIFY(lines.back().isEmpty());
        QVERIFY(lines[lines.size() - 2].contains(",cpu,reference,"));
        const QString png = dir_.filePath(QStringLiteral("timings.png"));
        QVERIFY2(window_->timingChart()->exportPng(png, &why), qPrintable(why));
        QVERIFY(!QImage(png).isNull());
        QVERIFY(!window_->timingChart()->exportCsv(dir_.filePath(QStringLiteral("no/such/dir/t.csv")), &why));
    }

    void parallelModeMatchesReferenceInDifferenceView() {
        QVERIFY(window_->openImage(kFruits));
        QVERIFY(window_->selectMode(QStringLiteral("cpu/parallel")));
        QVERIFY(window_->backendChooser()->selectCompare(QStringLiteral("cpu/reference")));
        // Integer weights on integer pixels: every summation order is exact.
        QVERIFY(window_->kernelEditor()->applyPresetText(QStringLiteral("emboss")));
        window_->imageView()->setDisplayMode(fs::widgets::ImageView::DisplayMode::Difference);
        QVERIFY(runAndWait());
        auto outcome = window_->lastOutcome();
        QVERIFY(outcome->compare.has_value());
        QVERIFY(outcome->compare->ok());
        QVERIFY(outcome->difference.error.isEmpty());
        QCOMPARE(outcome->difference.maxAbs, 0.0);
        QCOMPARE(outcome->difference.differingValues, 0LL);
        // Float weights summed in another order (separable passes) may round the other way, by 1 at most.
        QVERIFY(window_->kernelEditor()->applyPresetText(QStringLiteral("gaussian:7:1.5")));
        QVERIFY(runAndWait());
        outcome = window_->lastOutcome();
        QVERIFY(outcome->difference.error.isEmpty());
        QVERIFY(outcome->difference.maxAbs <= 1.0);
        QCOMPARE(window_->imageView()->differenceImage().size(), QSize(512, 480));
        QVERIFY(window_->timingChart()->barCount() >= 1);
    }

    void savingWritesAFileThatReloadsIdentically() {
        QVERIFY(window_->openImage(kFruits));
        QVERIFY(window_->kernelEditor()->applyPresetText(QStringLiteral("box:5")));
        QVERIFY(runAndWait());
        const QString path = dir_.filePath(QStringLiteral("saved.png"));
        QVERIFY(window_->saveResult(path, false));
        fs::io::LoadResult reloaded = fs::io::loadImage(path.toStdString());
        QVERIFY2(reloaded.ok(), reloaded.error.c_str());
        QVERIFY(sameBytes(reloaded.image, window_->lastOutcome()->result.output));
        QVERIFY(errors_.isEmpty());

        // A 16-bit image keeps its depth when saved as is and becomes 8-bit on request.
        fs::Image wide(37, 23, 3, fs::Depth::U16);
        for (int y = 0; y < wide.height(); ++y)
            for (int x = 0; x < wide.width() * 3; ++x)
                wide.view().row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>((x * 977 + y * 12345) % 65536);
        const QString widePath = dir_.filePath(QStringLiteral("wide.png"));
        std::string why;
        QVERIFY2(fs::io::saveImage(widePath.toStdString(), wide.cview(), &why), why.c_str());
        QVERIFY(window_->openImage(widePath));
        QVERIFY(runAndWait());
        QCOMPARE(window_->lastOutcome()->result.output.depth(), fs::Depth::U16);
        const QString path16 = dir_.filePath(QStringLiteral("saved16.png"));
        const QString path8 = dir_.filePath(QStringLiteral("saved8.png"));
        QVERIFY(window_->saveResult(path16, false));
        QVERIFY(window_->saveResult(path8, true));
        fs::io::LoadResult reloaded16 = fs::io::loadImage(path16.toStdString());
        fs::io::LoadResult reloaded8 = fs::io::loadImage(path8.toStdString());
        QVERIFY(reloaded16.ok() && reloaded8.ok());
        QVERIFY(sameBytes(reloaded16.image, window_->lastOutcome()->result.output));
        QCOMPARE(reloaded8.image.depth(), fs::Depth::U8);
        QVERIFY(sameBytes(reloaded8.image, fs::ui::toEightBit(window_->lastOutcome()->result.output.cview())));
        QVERIFY(errors_.isEmpty());
    }

    void badFileGivesAnErrorDialog() {
        const QString bad = dir_.filePath(QStringLiteral("not-an-image.png"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not a PNG file at all");
        f.close();
        QVERIFY(!window_->openImage(bad));
        QCOMPARE(errors_.size(), 1);
        QVERIFY2(errors_.front().message.contains(QStringLiteral("not-an-image.png")), qPrintable(errors_.front().message));
        QVERIFY(!window_->openImage(dir_.filePath(QStringLiteral("missing.png"))));
        QCOMPARE(errors_.size(), 2);
        // Saving with nothing loaded is an error too, not a crash.
        QVERIFY(!window_->saveResult(dir_.filePath(QStringLiteral("x.png")), false));
        QCOMPARE(errors_.size(), 3);
    }

    void unavailableModesAreDisabledWithAReason() {
        for (const fs::widgets::ModeChoice& c : window_->backendChooser()->choices()) {
            if (c.mode.available) continue;
            QVERIFY(!c.mode.unavailableReason.empty());
            QVERIFY(!window_->backendChooser()->select(c.key()));
            QVERIFY(window_->backendChooser()->currentKey() != c.key());
        }
        QVERIFY(!window_->backendChooser()->explanation().isEmpty());
    }

    void latestChangeWins() {
        QVERIFY(window_->openImage(kFruits));
        QVERIFY(window_->selectMode(QStringLiteral("cpu/reference")));
        // Many changes without returning to the event loop: only the last one matters.
        for (int size = 3; size <= 15; size += 2)
            QVERIFY(window_->kernelEditor()->applyPresetText(QStringLiteral("box:%1").arg(size)));
        QVERIFY(runAndWait());
        QCOMPARE(window_->lastOutcome()->request.spec.kernels.front().width, 15);
    }

    void longRunsLeaveTheGuiThreadFree() {
        // A big gray image and a wide kernel on the one-thread reference: long enough to notice.
        fs::Image big(1536, 1536, 1, fs::Depth::U8);
        for (int y = 0; y < big.height(); ++y)
            for (int x = 0; x < big.width(); ++x) big.view().row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>((x * 7 + y * 13) & 255);
        const QString path = dir_.filePath(QStringLiteral("big.png"));
        std::string why;
        QVERIFY2(fs::io::saveImage(path.toStdString(), big.cview(), &why), why.c_str());
        QVERIFY(window_->openImage(path));
        QVERIFY(runAndWait());
        QVERIFY(window_->selectMode(QStringLiteral("cpu/reference")));
        QVERIFY(window_->kernelEditor()->applyPresetText(QStringLiteral("box:21")));
        QElapsedTimer clock;
        clock.start();
        window_->runNow();
        const qint64 submitMs = clock.elapsed();
        // The event loop keeps turning while the run goes on.
        qint64 longestStallMs = 0;
        const quint64 wanted = window_->runner()->latestGeneration();
        while (!(window_->lastOutcome() && window_->lastOutcome()->generation >= wanted) && clock.elapsed() < 120000) {
            QElapsedTimer tick;
            tick.start();
            QTest::qWait(10);
            longestStallMs = std::max(longestStallMs, tick.elapsed());
        }
        const qint64 runMs = clock.elapsed();
        QVERIFY(window_->lastOutcome()->generation >= wanted);
        qInfo("run %lld ms, runNow() %lld ms, longest event-loop stall %lld ms", runMs, submitMs, longestStallMs);
        if (runMs < 400) QSKIP("the run finished too fast to tell a blocked GUI thread from a free one");
        QVERIFY2(submitMs < runMs / 4, qPrintable(QStringLiteral("runNow took %1 ms of a %2 ms run").arg(submitMs).arg(runMs)));
        QVERIFY2(longestStallMs < runMs / 2,
                 qPrintable(QStringLiteral("event loop stalled %1 ms during a %2 ms run").arg(longestStallMs).arg(runMs)));
    }

    void digitKeysSwitchTheViewOnlyFromTheView() {
        QVERIFY(window_->openImage(kFruits));
        window_->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(window_.get()));
        fs::widgets::ImageView* view = window_->imageView();
        view->setFocus();
        QTest::keyClick(view, Qt::Key_3);
        QCOMPARE(view->displayMode(), fs::widgets::ImageView::DisplayMode::Split);
        QTest::keyClick(view, Qt::Key_1);
        QCOMPARE(view->displayMode(), fs::widgets::ImageView::DisplayMode::Original);
        // Typing a weight into the kernel designer must not switch the view.
        auto* size = window_->kernelEditor()->findChild<QSpinBox*>();
        QVERIFY(size);
        size->setFocus();
        QTest::keyClick(size, Qt::Key_4);
        QCOMPARE(view->displayMode(), fs::widgets::ImageView::DisplayMode::Original);
    }

    void kernelEditorUndoRedo() {
        fs::widgets::KernelEditor* editor = window_->kernelEditor();
        QVERIFY(editor->applyPresetText(QStringLiteral("sobel-y:5")));
        const fs::widgets::KernelDesign before = editor->design();
        editor->setKernelSize(9);
        QCOMPARE(editor->design().kernels.front().width, 9);
        editor->undoStack()->undo();
        QVERIFY(editor->design() == before);
        editor->undoStack()->redo();
        QCOMPARE(editor->design().kernels.front().width, 9);
        QString why;
        QVERIFY(!editor->applyPresetText(QStringLiteral("gaussian:4"), &why));  // even size
        QVERIFY(!why.isEmpty());
    }

    void pixelInspectorExplainsTheShownValue() {
        QVERIFY(window_->openImage(kFruits));
        QVERIFY(window_->selectMode(QStringLiteral("cpu/parallel")));
        QVERIFY(window_->kernelEditor()->applyPresetText(QStringLiteral("laplacian-4")));
        QVERIFY(runAndWait());
        // Corners exercise the border, the centre the plain sum.
        for (const QPoint p : {QPoint(0, 0), QPoint(511, 479), QPoint(250, 240)}) {
            emit window_->imageView()->pixelClicked(p);
            const fs::widgets::PixelProbe& probe = window_->pixelInspector()->probe();
            QCOMPARE(probe.pixel, p);
            QCOMPARE(probe.kernelWidth, 3);
            QCOMPARE(probe.inputs.size(), 9);
            QVERIFY(probe.hasShown);
            QCOMPARE(probe.shown, probe.expected);
            QCOMPARE(probe.shown, fs::ui::sampleValue(window_->lastOutcome()->result.output.cview(), p.x(), p.y(), probe.channel));
        }
    }

    void kernelFilesRoundTrip() {
        fs::widgets::KernelEditor* editor = window_->kernelEditor();
        QVERIFY(editor->applyPresetText(QStringLiteral("unsharp:5:1.2:0.7")));
        const fs::FilterSpec saved = editor->spec();
        const QString path = dir_.filePath(QStringLiteral("unsharp.json"));
        QString why;
        QVERIFY2(editor->saveFile(path, &why), qPrintable(why));
        QVERIFY(editor->applyPresetText(QStringLiteral("box:3")));
        QSignalSpy loaded(editor, &fs::widgets::KernelEditor::fileLoaded);
        QVERIFY2(editor->loadFile(path, &why), qPrintable(why));
        QCOMPARE(loaded.size(), 1);
        QVERIFY(editor->spec().kernels == saved.kernels);
        QVERIFY(!editor->loadFile(dir_.filePath(QStringLiteral("missing.json")), &why));
        QVERIFY(!why.isEmpty());
    }

    void dropOpensAndRemembersTheFile() {
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(kFruits)});
        QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(window_.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(window_.get(), &drop);
        QVERIFY(drop.isAccepted());
        QVERIFY(window_->input());
        QCOMPARE(window_->input()->width(), 512);
        QVERIFY(QSettings().value(QStringLiteral("files/recent")).toStringList().contains(kFruits));
        QVERIFY(runAndWait());
        QCOMPARE(window_->imageView()->originalImage().size(), QSize(512, 480));
    }

    void outputControlsReachTheSpec() {
        QVERIFY(window_->openImage(kFruits));
        QVERIFY(window_->selectMode(QStringLiteral("cpu/reference")));
        QVERIFY(window_->kernelEditor()->applyPresetText(QStringLiteral("sobel-y:3")));
        auto* channels = window_->findChild<QComboBox*>(QStringLiteral("channelsCombo"));
        auto* floatOut = window_->findChild<QCheckBox*>(QStringLiteral("floatOutputCheck"));
        auto* border = window_->findChild<QComboBox*>(QStringLiteral("borderCombo"));
        auto* borderValue = window_->findChild<QDoubleSpinBox*>(QStringLiteral("borderValue"));
        auto* scale = window_->findChild<QDoubleSpinBox*>(QStringLiteral("scaleSpin"));
        auto* absolute = window_->findChild<QCheckBox*>(QStringLiteral("absoluteCheck"));
        QVERIFY(channels && floatOut && border && borderValue && scale && absolute);
        channels->setCurrentIndex(1);  // luminance only
        QCOMPARE(window_->input()->channels(), 1);
        floatOut->setChecked(true);
        absolute->setChecked(true);
        scale->setValue(0.5);
        border->setCurrentIndex(static_cast<int>(fs::BorderMode::Constant));
        QVERIFY(borderValue->isEnabled());
        borderValue->setValue(7.0);
        QVERIFY(runAndWait());
        const auto outcome = window_->lastOutcome();
        QVERIFY2(outcome->result.ok(), outcome->result.error.c_str());
        const fs::FilterSpec& spec = outcome->request.spec;
        QVERIFY(spec.output.floatOutput && spec.output.absolute);
        QCOMPARE(spec.output.scale, 0.5f);
        QCOMPARE(spec.border.mode, fs::BorderMode::Constant);
        QCOMPARE(spec.border.value, 7.0f);
        QCOMPARE(outcome->result.output.depth(), fs::Depth::F32);
        QCOMPARE(outcome->result.output.channels(), 1);
        // The result is the reference on the gray input with exactly these settings.
        QVERIFY(sameBytes(outcome->result.output, fs::cpu::referenceFilter(spec, window_->input()->cview())));
    }

    // Draws each mode with solid images and reads the screen back: whichever
    // path the platform gives (OpenGL under xvfb, QPainter offscreen).
    void imageViewDrawsEveryMode() {
        fs::widgets::ImageView view;
        view.resize(400, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QImage original(200, 100, QImage::Format_RGBA8888), result(200, 100, QImage::Format_RGBA8888),
            diff(200, 100, QImage::Format_RGBA8888);
        original.fill(QColor(200, 0, 0));
        result.fill(QColor(0, 0, 200));
        diff.fill(QColor(0, 180, 0));
        view.setOriginal(original);
        view.setResult(result);
        view.setDifference(diff, QStringLiteral("test"));
        view.zoomToFit();
        auto colourAt = [&](double u, double v) {  // u, v: fraction of the image
            const QImage shot = view.grab().toImage();
            const QPointF inImage(u * 200.0, v * 100.0);
            // widgetToImage is affine: invert it from two points.
            const QPointF o = view.widgetToImage(QPointF(0, 0)), x1 = view.widgetToImage(QPointF(1, 0)), y1 = view.widgetToImage(QPointF(0, 1));
            const QPoint w(static_cast<int>((inImage.x() - o.x()) / (x1.x() - o.x())), static_cast<int>((inImage.y() - o.y()) / (y1.y() - o.y())));
            const qreal dpr = shot.devicePixelRatio();
            return QColor(shot.pixel(static_cast<int>(w.x() * dpr), static_cast<int>(w.y() * dpr)));
        };
        const QString path = view.usesOpenGL() ? QStringLiteral("OpenGL") : QStringLiteral("QPainter");
        view.setDisplayMode(fs::widgets::ImageView::DisplayMode::Original);
        QCOMPARE(colourAt(0.5, 0.7), QColor(200, 0, 0));
        view.setDisplayMode(fs::widgets::ImageView::DisplayMode::Result);
        QCOMPARE(colourAt(0.5, 0.7), QColor(0, 0, 200));
        view.setDisplayMode(fs::widgets::ImageView::DisplayMode::Difference);
        QCOMPARE(colourAt(0.5, 0.7), QColor(0, 180, 0));
        view.setDisplayMode(fs::widgets::ImageView::DisplayMode::Split);
        view.setSplitPosition(0.5);
        QCOMPARE(colourAt(0.25, 0.7), QColor(200, 0, 0));
        QCOMPARE(colourAt(0.75, 0.7), QColor(0, 0, 200));
        qInfo("image view drew every mode through %s", qPrintable(path));
    }

    void bundledSamplesAndKernelExamplesLoad() {
        const QStringList kernels = QDir(QStringLiteral(":/kernels")).entryList(QDir::Files);
        QVERIFY(kernels.size() >= 3);
        for (const QString& name : kernels) {
            QFile f(QStringLiteral(":/kernels/") + name);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QString why;
            QVERIFY2(window_->kernelEditor()->loadJson(f.readAll(), &why), qPrintable(name + ": " + why));
        }
        QString why;
        QVERIFY(!window_->kernelEditor()->loadJson("{\"format\": \"nope\"}", &why));
        QVERIFY(!why.isEmpty());
        const QStringList samples = QDir(QStringLiteral(":/samples")).entryList(QDir::Files);
        QCOMPARE(samples.size(), 3);
    }

    void benchmarkSweepsAndExports() {
        fs::ui::BenchmarkDialog dialog([] { return fs::makeAllBackends(); });
        dialog.configure(QStringLiteral("64, 96"), QStringLiteral("3, 5"),
                         {QStringLiteral("cpu/reference"), QStringLiteral("cpu/parallel")}, 1);
        QSignalSpy finished(&dialog, &fs::ui::BenchmarkDialog::finished);
        dialog.start();
        QVERIFY(finished.wait(60000));
        QCOMPARE(dialog.records().size(), 8u);  // 2 sizes x 2 kernels x 2 modes
        for (const auto& row : dialog.records()) {
            QVERIFY2(row.ok(), row.error.c_str());
            QVERIFY(row.total.mean > 0.0);
        }
        const QString csv = dir_.filePath(QStringLiteral("bench.csv"));
        QString why;
        QVERIFY(dialog.exportCsv(csv, &why));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll().count('\n'), 9);  // header + 8 rows
    }
};

QTEST_MAIN(MainWindowTest)
#include "test_main_window.moc"
