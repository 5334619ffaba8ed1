// The batch dialog: small images x kernels into a temporary folder,
// outputs checked against the CPU reference; an unreadable input listed while
// the others finish; Cancel mid-way; options refused before anything is written;
// an N:M:M layer against the CPU layer runner. FS_SCREENSHOT_DIR=DIR keeps a
// screenshot of the dialog after the layer ran.
#include <QDir>
#include <QFile>
#include <QProgressBar>
#include <QPushButton>
#include <QSemaphore>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <cstring>
#include <random>

#include "backends.hpp"
#include "batch_dialog.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/cpu/layer.hpp"
#include "fs/layer.hpp"
#include "fs/io/image_io.hpp"
#include "fs/presets.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "main_window.hpp"

using fs::ui::BatchDialog;

namespace {

fs::Image randomImage(int w, int h, std::mt19937& rng) {
    fs::Image image(w, h, 3, fs::Depth::U8);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int y = 0; y < h; ++y)
        for (int i = 0; i < w * 3; ++i) image.view().row<std::uint8_t>(y)[i] = static_cast<std::uint8_t>(byte(rng));
    return image;
}

bool sameBytes(const fs::Image& a, const fs::Image& b) {
    if (a.width() != b.width() || a.height() != b.height() || a.channels() != b.channels() || a.depth() != b.depth())
        return false;
    for (int y = 0; y < a.height(); ++y)
        if (std::memcmp(a.cview().row<std::uint8_t>(y), b.cview().row<std::uint8_t>(y), a.cview().rowBytes()) != 0) return false;
    return true;
}

std::unique_ptr<BatchDialog> makeDialog() {
    auto dialog = std::make_unique<BatchDialog>([] {
        std::vector<std::unique_ptr<fs::Backend>> v;
        v.push_back(fs::cpu::makeCpuBackend());
        return v;
    });
    dialog->show();
    return dialog;
}

bool waitFor(const std::function<bool()>& done, int ms = 20000) {
    for (int waited = 0; waited < ms && !done(); waited += 20) QTest::qWait(20);
    return done();
}

QPushButton* button(BatchDialog& d, const char* name) { return d.findChild<QPushButton*>(QString::fromLatin1(name)); }

}  // namespace

class BatchDialogTest : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString inDir_;
    QStringList good_;  // three readable images of odd sizes
    std::mt19937 rng_;

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_batch"));
        QVERIFY(dir_.isValid());
        const unsigned seed = std::random_device{}();
        qInfo("seed %u", seed);
        rng_.seed(seed);
        inDir_ = dir_.filePath(QStringLiteral("in"));
        QVERIFY(QDir().mkpath(inDir_));
        const int sizes[][2] = {{41, 29}, {64, 33}, {17, 50}};
        for (int i = 0; i < 3; ++i) {
            const QString path = QDir(inDir_).filePath(QStringLiteral("img%1.png").arg(i));
            std::string why;
            QVERIFY2(fs::io::saveImage(path.toStdString(), randomImage(sizes[i][0], sizes[i][1], rng_).cview(), &why), why.c_str());
            good_ << path;
        }
        // Looks like a PNG by name only.
        QFile broken(QDir(inDir_).filePath(QStringLiteral("img1b-broken.png")));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write("this is not an image");
    }

    void everyImageWithEveryKernelAndTheUnreadableOneListed() {
        auto dialog = makeDialog();
        const QString out = dir_.filePath(QStringLiteral("out1"));
        dialog->setInputs({inDir_});
        QVERIFY(dialog->addPreset(QStringLiteral("sobel-x")));
        QVERIFY(dialog->addPreset(QStringLiteral("box:3")));
        QString why;
        QVERIFY(!dialog->addPreset(QStringLiteral("box:4"), &why));
        QVERIFY(!why.isEmpty());
        QCOMPARE(dialog->kernelCount(), 2);
        dialog->setOutputDir(out);
        QVERIFY(dialog->selectMode(QStringLiteral("cpu/parallel")));
        QSignalSpy finished(dialog.get(), &BatchDialog::finished);
        QVERIFY2(dialog->start(), qPrintable(dialog->statusText()));
        QVERIFY(waitFor([&] { return !finished.isEmpty(); }));

        const fs::batch::Summary& s = dialog->summary();
        QCOMPARE(s.images, std::size_t{4});
        QCOMPARE(s.imagesDone, std::size_t{3});
        QCOMPARE(s.outputsWritten, std::size_t{6});
        QCOMPARE(s.failures, std::size_t{1});
        QVERIFY(!s.cancelled);
        const QStringList problems = dialog->problems();
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems[0].startsWith(QStringLiteral("img1b-broken.png: ")), qPrintable(problems[0]));
        QVERIFY2(!problems[0].contains(inDir_), qPrintable(problems[0]));  // the file is named once
        QCOMPARE(dialog->findChild<QProgressBar*>()->value(), 4);
        const QString summary = dialog->summaryText();
        QVERIFY2(summary.contains(QStringLiteral("3 of 4 images x 2 kernels -> 6 files written, 1 input file(s) failed")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("images/s")) && summary.contains(QStringLiteral("MPix/s")), qPrintable(summary));

        // Every output is the reference filter of its input.
        for (const QString& input : good_) {
            fs::io::LoadResult in = fs::io::loadImage(input.toStdString());
            QVERIFY(in.ok());
            for (const char* kernel : {"sobel-x", "box:3"}) {
                fs::FilterSpec spec;
                QVERIFY(fs::makePreset(kernel, spec));
                const QString name = QFileInfo(input).completeBaseName() + QStringLiteral("__") +
                                     QString::fromStdString(fs::batch::fileSafeKernelName(kernel)) + QStringLiteral(".png");
                fs::io::LoadResult written = fs::io::loadImage(QDir(out).filePath(name).toStdString());
                QVERIFY2(written.ok(), qPrintable(name));
                QVERIFY2(sameBytes(written.image, fs::cpu::referenceFilter(spec, in.image.cview())), qPrintable(name));
            }
        }
        QCOMPARE(QDir(out).entryList(QDir::Files).size(), 6);

        const QString shot = QDir::temp().filePath(QStringLiteral("filterstudio-batch.png"));
        dialog->grab().save(shot);
        qInfo("screenshot: %s", qPrintable(shot));

        // Again: the outputs exist, so it is refused until overwrite is on.
        QVERIFY(!dialog->start());
        QVERIFY2(dialog->statusText().contains(QStringLiteral("exist already")) &&
                     dialog->statusText().contains(QStringLiteral("overwrite")),
                 qPrintable(dialog->statusText()));
        dialog->setOverwrite(true);
        finished.clear();
        QVERIFY2(dialog->start(), qPrintable(dialog->statusText()));
        QVERIFY(waitFor([&] { return !finished.isEmpty(); }));
        QCOMPARE(dialog->summary().outputsWritten, std::size_t{6});
    }

    void cancelStopsAfterTheImageInFlight() {
        auto dialog = makeDialog();
        const QString out = dir_.filePath(QStringLiteral("out2"));
        dialog->setInputs(good_);
        QVERIFY(dialog->addPreset(QStringLiteral("laplacian-4")));
        QVERIFY(dialog->addPreset(QStringLiteral("gaussian:5:1.2")));
        dialog->setOutputDir(out);
        // The worker waits after the first image until Cancel has been clicked: a cancel mid-way, every time.
        std::atomic<bool> reached{false};
        QSemaphore gate;
        dialog->setWorkerProgressHookForTesting([&](const fs::batch::Progress& p) {
            if (p.finished && !reached.exchange(true)) gate.acquire();
        });
        QSignalSpy finished(dialog.get(), &BatchDialog::finished);
        QVERIFY(dialog->start());
        QVERIFY(!button(*dialog, "batchRun")->isEnabled());
        QVERIFY(waitFor([&] { return reached.load(); }));
        QVERIFY(button(*dialog, "batchCancel")->isEnabled());
        button(*dialog, "batchCancel")->click();
        gate.release();
        QVERIFY(waitFor([&] { return !finished.isEmpty(); }));

        const fs::batch::Summary& s = dialog->summary();
        QVERIFY(s.cancelled);
        QCOMPARE(s.imagesDone, std::size_t{1});
        QCOMPARE(s.outputsWritten, std::size_t{2});
        QCOMPARE(QDir(out).entryList(QDir::Files).size(), 2);  // the first image's outputs stay, nothing else
        QVERIFY2(dialog->statusText().contains(QStringLiteral("cancelled after 1 of 3 images")), qPrintable(dialog->statusText()));
        QVERIFY(button(*dialog, "batchRun")->isEnabled());
        QVERIFY(!button(*dialog, "batchCancel")->isEnabled());
    }

    void badOptionsAreRefusedBeforeAnythingIsWritten() {
        auto dialog = makeDialog();
        const QString out = dir_.filePath(QStringLiteral("out3"));
        dialog->setOutputDir(out);
        dialog->setInputs(good_);
        QVERIFY(!dialog->start());  // no kernels
        QVERIFY2(dialog->statusText().contains(QStringLiteral("KERNEL")), qPrintable(dialog->statusText()));
        QVERIFY(dialog->addPreset(QStringLiteral("sobel-y")));
        dialog->setInputs({QDir(inDir_).filePath(QStringLiteral("*.nothing"))});
        QVERIFY(!dialog->start());
        QVERIFY2(dialog->statusText().contains(QStringLiteral("matches no files")), qPrintable(dialog->statusText()));
        // Float output into PNG cannot hold it.
        fs::FilterSpec f32;
        QVERIFY(fs::makePreset("sobel-x", f32));
        f32.output.floatOutput = true;
        dialog->addKernel(QStringLiteral("sobel-x-f32"), f32);
        dialog->setInputs(good_);
        dialog->setExtension(QStringLiteral("png"));
        QVERIFY(!dialog->start());
        QVERIFY2(dialog->statusText().contains(QStringLiteral("tif")), qPrintable(dialog->statusText()));
        QVERIFY(!QDir(out).exists());
        // A missing kernel file is refused when added, naming the file.
        QString why;
        QVERIFY(!dialog->addKernelFile(dir_.filePath(QStringLiteral("missing.json")), &why));
        QVERIFY2(why.contains(QStringLiteral("missing.json")), qPrintable(why));
    }

    void layerSumsTheInputsAndRefusesAWrongCount() {
        auto dialog = makeDialog();
        const QString out = dir_.filePath(QStringLiteral("layer"));
        const QString bank = dir_.filePath(QStringLiteral("bank.json"));
        QFile file(bank);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format": "filterstudio-kernel-bank", "version": 1, "name": "pair", "inputs": 2, "outputs": 1,
          "kernels": [[{"weights": [[0.5, 0, 0.5]]}], [{"weights": [[0.25], [0.5], [0.25]]}]]})");
        file.close();
        // Two inputs of one size: the first image and a copy of it.
        const QString copy = dir_.filePath(QStringLiteral("copy0.png"));
        QVERIFY(QFile::copy(good_[0], copy));
        dialog->setOutputDir(out);
        QVERIFY(dialog->selectMode(QStringLiteral("cpu/parallel")));
        dialog->setInputs({good_[0]});
        QVERIFY(!dialog->startLayer(bank));
        QVERIFY2(dialog->statusText().contains(QStringLiteral("2 input(s)")), qPrintable(dialog->statusText()));
        QVERIFY(!QDir(out).exists());

        dialog->setInputs({good_[0], copy});
        QSignalSpy finished(dialog.get(), &BatchDialog::finished);
        QVERIFY2(dialog->startLayer(bank), qPrintable(dialog->statusText()));
        QVERIFY(waitFor([&] { return !finished.isEmpty(); }));
        const QString written = QDir(out).filePath(QStringLiteral("pair-0.png"));
        fs::io::LoadResult got = fs::io::loadImage(written.toStdString());
        QVERIFY2(got.ok(), got.error.c_str());
        // The same sum through the CPU layer runner.
        fs::KernelBank parsed;
        std::string why;
        QVERIFY(fs::loadBankFile(bank.toStdString(), parsed, &why));
        const fs::io::LoadResult in = fs::io::loadImage(good_[0].toStdString());
        const fs::LayerResult want = fs::cpu::makeCpuLayerRunner(false)->run(parsed, {in.image.cview(), in.image.cview()});
        QVERIFY2(want.ok(), want.error.c_str());
        QVERIFY(sameBytes(got.image, want.outputs[0]));
        if (const QByteArray shots = qgetenv("FS_SCREENSHOT_DIR"); !shots.isEmpty())
            dialog->grab().save(QDir(QString::fromLocal8Bit(shots)).filePath(QStringLiteral("batch-dialog-layer.png")));
    }

    void studioOpensItWithTheDesignerKernel() {
        fs::ui::MainWindow window([] { return fs::makeAllBackends(); });
        window.show();
        QVERIFY(window.kernelEditor()->applyPresetText(QStringLiteral("emboss")));
        window.showBatch();
        auto* dialog = window.findChild<BatchDialog*>();
        QVERIFY(dialog);
        QPushButton* designer = nullptr;
        for (QPushButton* b : dialog->findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Designer kernel")) designer = b;
        QVERIFY(designer && designer->isEnabled());
        designer->click();
        QCOMPARE(dialog->kernelCount(), 1);
        dialog->close();
    }
};

QTEST_MAIN(BatchDialogTest)
#include "test_batch_dialog.moc"
