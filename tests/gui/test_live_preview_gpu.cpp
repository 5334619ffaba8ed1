// The live preview in the studio's real window on a GPU. An 8K photograph is
// opened and kept on the device; 200 kernel edits through the designer (cell
// values, preset sizes and sigmas, the border) are each shown through CUDA-GL
// interop. The pixels read back from the shown texture must match the CPU
// reference, and the frame times' median and 95th percentile are printed.
// Then CUDA is made to refuse the GL registration: the window falls back to the
// upload path, says so in the status bar, and still shows the right pixels.
// Skips, with the reason, without a CUDA device, without interop in this build
// or without an OpenGL view (the offscreen platform); scripts/device/
// window_on_gpu.sh runs it on the GPU machine under Xvfb.
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <chrono>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "backends.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/gpu/gl_interop.hpp"
#include "fs/widgets/backend_chooser.hpp"
#include "fs/widgets/image_view.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "image_convert.hpp"
#include "main_window.hpp"

using fs::ui::MainWindow;

namespace {

constexpr int kEdits = 200;

double quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

// The largest per-channel difference of the RGB channels, and how many pixels differ by more than 1.
struct Mismatch {
    int largest = 0;
    long long pixelsOff = 0;
};
Mismatch compareRgb(const QImage& shown, const QImage& expected) {
    Mismatch m;
    for (int y = 0; y < expected.height(); ++y) {
        const uchar* a = shown.constScanLine(y);
        const uchar* b = expected.constScanLine(y);
        for (int x = 0; x < expected.width(); ++x) {
            int worst = 0;
            for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(a[4 * x + c] - b[4 * x + c]));
            m.largest = std::max(m.largest, worst);
            if (worst > 1) ++m.pixelsOff;
        }
    }
    return m;
}

}  // namespace

class LivePreviewGpuTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString photo_;
    std::unique_ptr<MainWindow> window_;
    QStringList errors_;

    // The shown result against the CPU reference of the filter the window runs.
    void expectShownMatchesReference(const char* what) {
        const QImage shown = window_->imageView()->readResultTexture();
        QVERIFY2(!shown.isNull(), "the result texture could not be read back");
        const fs::Image reference = fs::cpu::referenceFilter(window_->currentSpec(), window_->input()->cview());
        const QImage expected = fs::ui::toDisplayImage(reference.cview());
        QCOMPARE(shown.size(), expected.size());
        const Mismatch m = compareRgb(shown, expected);
        qInfo("%s: largest difference to the CPU reference %d, %lld pixels off by more than 1", what, m.largest, m.pixelsOff);
        QVERIFY2(m.pixelsOff == 0, what);
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_live_preview_gpu"));
        if (const std::string why = fs::gpu::GlPixelBufferInterop::unavailableReason(); !why.empty())
            QSKIP(qPrintable(QStringLiteral("no CUDA-GL interop here: %1").arg(QString::fromStdString(why))));
        QVERIFY(dir_.isValid());
        // A photograph at 8K (7680x4320): the sample scaled up, so it keeps a photograph's detail and noise.
        const cv::Mat sample = cv::imread(FS_SAMPLES_DIR "/building.jpg", cv::IMREAD_COLOR);
        QVERIFY(!sample.empty());
        cv::Mat big;
        cv::resize(sample, big, cv::Size(7680, 4320), 0, 0, cv::INTER_CUBIC);
        photo_ = dir_.filePath(QStringLiteral("building-8k.jpg"));
        QVERIFY(cv::imwrite(photo_.toStdString(), big, {cv::IMWRITE_JPEG_QUALITY, 95}));

        window_ = std::make_unique<MainWindow>(&fs::makeAllBackends);
        window_->setErrorReporter([this](const QString& t, const QString& m) { errors_ << t + ": " + m; });
        window_->resize(1600, 1000);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        if (!window_->imageView()->glReady()) QSKIP("the image view has no OpenGL on this platform (run under an X server)");
    }

    void twoHundredEditsRunOnlyTheKernel() {
        QVERIFY2(window_->openImage(photo_), qPrintable(errors_.join('\n')));
        QCOMPARE(window_->input()->width(), 7680);
        QVERIFY(window_->selectMode(QStringLiteral("cuda/auto")));
        QTRY_VERIFY2_WITH_TIMEOUT(window_->inputOnDevice(), "the image was not kept on the GPU", 30000);

        fs::widgets::KernelEditor* designer = window_->kernelEditor();
        auto* grid = designer->findChild<QTableWidget*>();
        auto* border = window_->findChild<QComboBox*>(QStringLiteral("borderCombo"));
        QVERIFY(grid && border);
        QSignalSpy frames(window_->imageView(), &fs::widgets::ImageView::pixelBufferFrameShown);
        std::vector<double> frameMs, kernelMs, mapMs, textureDrawMs, editToScreenMs;
        for (int edit = 0; edit < kEdits; ++edit) {
            const auto start = std::chrono::steady_clock::now();
            const int step = edit % 8;
            if (step == 0) {  // a size drag: 3, 5, ... 15
                QVERIFY(designer->applyPresetText(QStringLiteral("gaussian:%1:0").arg(3 + 2 * (edit / 8 % 7))));
            } else if (step == 4) {  // a sigma drag
                QVERIFY(designer->applyPresetText(QStringLiteral("gaussian:7:%1").arg(0.6 + 0.1 * (edit / 8 % 20))));
            } else if (step == 6) {
                border->setCurrentIndex((border->currentIndex() + 1) % border->count());
            } else {  // one cell of the kernel, as typed into the grid
                const int n = grid->rowCount();
                QTableWidgetItem* cell = grid->item((edit * 7) % n, (edit * 3) % n);
                QVERIFY(cell);
                cell->setText(QString::number(0.02 * (edit % 13) + 0.01));
            }
            const qsizetype before = frames.size();
            // wait() returns as the frame is shown (QTRY_* would poll in 50 ms steps).
            if (frames.size() == before) QVERIFY(frames.wait(5000));
            editToScreenMs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
            QVERIFY2(window_->imageView()->resultFromPixelBuffer(),
                     qPrintable(QStringLiteral("edit %1 was shown through the readback path; status bar: %2")
                                    .arg(edit)
                                    .arg(window_->statusBar()->currentMessage())));
            QVERIFY2(window_->inputOnDevice(), "the image left the GPU");
            const fs::TimingRecord& frame = window_->lastPreviewFrame();
            QVERIFY(!frame.uploadMs.has_value());  // nothing crossed PCIe
            frameMs.push_back(frame.totalMs.value_or(0.0));
            kernelMs.push_back(frame.kernelMs.value_or(0.0));
            mapMs.push_back(frame.mapMs.value_or(0.0));
            textureDrawMs.push_back(frame.displayMs.value_or(0.0));
        }
        // The status bar's live meter: frames shown in the last second while the edits came.
        const auto* meter = window_->statusBar()->findChild<QLabel*>(QStringLiteral("liveFrameMeter"));
        QVERIFY(meter);
        QVERIFY2(meter->text().startsWith(QStringLiteral("live ")), qPrintable(meter->text()));
        qInfo("status bar: %s", meter->text().toUtf8().constData());
        qInfo("%d edits of a 7680x4320 photograph through cuda/auto in the window:", kEdits);
        qInfo("  frame (kernel, map, texture, draw to glFinish): median %.3f ms, p95 %.3f ms", quantile(frameMs, 0.5),
              quantile(frameMs, 0.95));
        qInfo("  kernel median %.3f ms, map+unmap median %.3f ms, texture+draw median %.3f ms", quantile(kernelMs, 0.5),
              quantile(mapMs, 0.5), quantile(textureDrawMs, 0.5));
        qInfo("  edit to frame shown (event loop included): median %.3f ms, p95 %.3f ms", quantile(editToScreenMs, 0.5),
              quantile(editToScreenMs, 0.95));
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
        expectShownMatchesReference("after 200 edits");
    }

    void refusedRegistrationFallsBackToTheUploadPath() {
        if (!window_->input()) QSKIP("the first test did not open the image");
        fs::gpu::GlPixelBufferInterop::refuseRegistrations(true);
        QSignalSpy shown(window_.get(), &MainWindow::resultShown);
        QVERIFY(window_->kernelEditor()->applyPresetText(QStringLiteral("sobel-mag:3")));
        QTRY_VERIFY_WITH_TIMEOUT(!window_->imageView()->resultFromPixelBuffer() && window_->imageView()->hasResult(), 30000);
        const QString message = window_->statusBar()->currentMessage();
        qInfo("status bar: %s", message.toUtf8().constData());
        QVERIFY2(message.contains(QStringLiteral("using the upload path")), qPrintable(message));
        QTRY_VERIFY_WITH_TIMEOUT(!window_->imageView()->resultImage().isNull(), 30000);
        expectShownMatchesReference("upload path after a refused registration");
        fs::gpu::GlPixelBufferInterop::refuseRegistrations(false);
        // The next edit is a live frame again.
        QSignalSpy frames(window_->imageView(), &fs::widgets::ImageView::pixelBufferFrameShown);
        QVERIFY(window_->kernelEditor()->applyPresetText(QStringLiteral("gaussian:5:0")));
        QTRY_VERIFY_WITH_TIMEOUT(frames.size() > 0, 5000);
        QVERIFY(window_->imageView()->resultFromPixelBuffer());
        expectShownMatchesReference("interop again");
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
    }

    // A smaller image after the 8K one: the buffer and texture CUDA holds
    // registered change size, and the first frame must still come through interop.
    void anImageOfAnotherSizeStaysOnInterop() {
        if (!window_->input()) QSKIP("the first test did not open the image");
        const cv::Mat sample = cv::imread(FS_SAMPLES_DIR "/fruits.jpg", cv::IMREAD_COLOR);
        QVERIFY(!sample.empty());
        const QString small = dir_.filePath(QStringLiteral("fruits.png"));
        QVERIFY(cv::imwrite(small.toStdString(), sample));
        QSignalSpy frames(window_->imageView(), &fs::widgets::ImageView::pixelBufferFrameShown);
        QVERIFY2(window_->openImage(small), qPrintable(errors_.join('\n')));
        QCOMPARE(window_->input()->width(), sample.cols);
        QTRY_VERIFY_WITH_TIMEOUT(frames.size() > 0, 10000);
        const QString message = window_->statusBar()->currentMessage();
        QVERIFY2(!message.contains(QStringLiteral("interop failed")), qPrintable(message));
        QVERIFY(window_->imageView()->resultFromPixelBuffer());
        expectShownMatchesReference("a smaller image after the 8K one");
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
    }

    void cleanupTestCase() {
        fs::gpu::GlPixelBufferInterop::refuseRegistrations(false);
        window_.reset();
    }
};

QTEST_MAIN(LivePreviewGpuTest)
#include "test_live_preview_gpu.moc"
