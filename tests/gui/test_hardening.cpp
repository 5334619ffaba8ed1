// Inputs a student may try: nonsense in kernel cells, kernels that cannot be
// normalized or have no centre, saving over the input or into nowhere, a
// link where a temporary file once went, RGBA images (alpha kept unless asked),
// and a CUDA run that fails (the CPU is then offered instead).
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QStatusBar>
#include <QCryptographicHash>
#include <QFile>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "backends.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/widgets/backend_chooser.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "main_window.hpp"

using fs::ui::MainWindow;
using fs::widgets::KernelDesign;
using fs::widgets::KernelEditor;

namespace {

const QString kFruits = QStringLiteral(FS_SAMPLES_DIR "/fruits.jpg");

// Fails every run the way the CUDA backend does when device memory runs out.
class FailingCuda : public fs::Backend {
public:
    std::string id() const override { return "cuda"; }
    std::string displayName() const override { return "CUDA (failing test double)"; }
    std::vector<fs::ModeInfo> modes() const override { return {{"global", "always out of memory", true, {}}}; }
    std::string unavailableReason() const override { return {}; }
    fs::RunResult run(const fs::FilterSpec&, fs::ConstImageView, const std::string&) override {
        fs::RunResult r;
        r.error = "out of device memory: allocating device memory: cudaErrorMemoryAllocation (out of memory)";
        return r;
    }
};

// An approximate GPU mode (as fft and tensor are): the reference's result with one sample off by 2; and a
// mode this device lacks the hardware for (as tensor on a card before compute capability 8.0).
class ApproximateCuda : public fs::Backend {
public:
    std::string id() const override { return "cuda"; }
    std::string displayName() const override { return "CUDA (approximate test double)"; }
    std::vector<fs::ModeInfo> modes() const override {
        fs::ModeInfo mode{"tf32", "the reference, one sample off by 2", true, {}};
        mode.approximate = true;
        return {mode, {"newer-gpu", "needs newer hardware", false, "needs compute capability 8.0; this GPU is 7.5"}};
    }
    std::string unavailableReason() const override { return {}; }
    fs::RunResult run(const fs::FilterSpec& spec, fs::ConstImageView input, const std::string&) override {
        fs::RunResult r;
        r.output = fs::cpu::referenceFilter(spec, input);
        std::uint8_t& first = r.output.view().row<std::uint8_t>(0)[0];
        first = static_cast<std::uint8_t>(first > 127 ? first - 2 : first + 2);
        r.timing.backend = id();
        r.timing.mode = "tf32";
        r.timing.kernelMs = 1.0;
        r.timing.totalMs = 1.0;
        return r;
    }
};

QByteArray digest(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256) : QByteArray();
}

KernelDesign designOf(int width, int height, float value) {
    KernelDesign d;
    d.name = QStringLiteral("test");
    fs::Kernel k;
    k.width = width;
    k.height = height;
    k.weights.assign(static_cast<std::size_t>(width) * height, value);
    d.kernels = {k};
    return d;
}

}  // namespace

class HardeningTest : public QObject {
    Q_OBJECT

    struct Asked {
        QString title, question, acceptText;
    };
    QStringList errors_;
    QVector<Asked> asked_;
    bool answer_ = false;
    QTemporaryDir dir_;

    std::unique_ptr<MainWindow> makeWindow(bool withFailingCuda, bool withApproximateCuda = false) {
        auto window = std::make_unique<MainWindow>([withFailingCuda, withApproximateCuda] {
            std::vector<std::unique_ptr<fs::Backend>> v;
            v.push_back(fs::cpu::makeCpuBackend());
            if (withFailingCuda) v.push_back(std::make_unique<FailingCuda>());
            if (withApproximateCuda) v.push_back(std::make_unique<ApproximateCuda>());
            return v;
        });
        window->setErrorReporter([this](const QString& t, const QString& m) { errors_ << t + ": " + m; });
        window->setConfirmer([this](const QString& t, const QString& q, const QString& a) {
            asked_.push_back({t, q, a});
            return answer_;
        });
        window->show();
        return window;
    }

    // Opens `path` and waits for its first result.
    static bool openAndWait(MainWindow& window, const QString& path) {
        if (!window.openImage(path)) return false;
        for (int i = 0; i < 100 && !window.lastOutcome(); ++i) QTest::qWait(50);
        return window.lastOutcome() && window.lastOutcome()->result.ok();
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_hardening"));
        QVERIFY(dir_.isValid());
    }

    void init() {
        errors_.clear();
        asked_.clear();
        answer_ = false;
    }

    // A one-cell typo is marked beside the grid, not in a dialog; the kernel keeps its weight.
    void nonNumericCellIsRefusedWithAMessage() {
        KernelEditor editor;
        QSignalSpy errors(&editor, &KernelEditor::errorOccurred);
        auto* grid = editor.findChild<QTableWidget*>();
        QVERIFY(grid);
        const KernelDesign before = editor.design();
        const QString oldText = grid->item(1, 1)->text();
        for (const QString& typed : {QStringLiteral("abc"), QStringLiteral("1,5x"), QStringLiteral("inf"), QStringLiteral("nan")}) {
            grid->item(1, 1)->setText(typed);
            QCOMPARE(editor.design(), before);
            QCOMPARE(grid->item(1, 1)->text(), oldText);
            QVERIFY2(editor.cellNote().contains(QStringLiteral("'%1' is not a number").arg(typed)), qPrintable(editor.cellNote()));
        }
        QCOMPARE(errors.size(), 0);
        // A number is still taken, and the mark goes.
        grid->item(1, 1)->setText(QStringLiteral("-3.5"));
        QCOMPARE(editor.design().kernels.front().at(1, 1), -3.5f);
        QVERIFY(editor.cellNote().isEmpty());
        QCOMPARE(errors.size(), 0);
    }

    void normalizingAllZerosIsRefused() {
        KernelEditor editor;
        QSignalSpy errors(&editor, &KernelEditor::errorOccurred);
        editor.setDesign(designOf(3, 3, 0.0f));
        const KernelDesign zeros = editor.design();
        editor.normalize();
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors[0][0].toString(), QStringLiteral("Cannot normalize"));
        QCOMPARE(editor.design(), zeros);  // no NaN from 0/0
        const fs::FilterSpec zeroSpec = editor.spec();
        for (float w : zeroSpec.kernels.front().weights) QCOMPARE(w, 0.0f);
        // Zero-sum edge kernels still normalize (their positive lobe becomes 1), without a message.
        QVERIFY(editor.applyPresetText(QStringLiteral("sobel-x:3")));
        editor.normalize();
        QCOMPARE(errors.size(), 1);
        float positive = 0;
        const fs::FilterSpec normalized = editor.spec();
        for (float w : normalized.kernels.front().weights) positive += std::max(0.0f, w);
        QVERIFY(std::abs(positive - 1.0f) < 1e-6f);
    }

    void evenAndOversizedKernelsAreRefused() {
        KernelEditor editor;
        QSignalSpy errors(&editor, &KernelEditor::errorOccurred);
        const KernelDesign before = editor.design();
        editor.setDesign(designOf(4, 4, 1.0f));
        QCOMPARE(errors.size(), 1);
        QVERIFY(errors[0][1].toString().contains(QStringLiteral("even")));
        editor.setDesign(designOf(fs::kMaxKernelSize + 2, fs::kMaxKernelSize + 2, 1.0f));
        QCOMPARE(errors.size(), 2);
        QVERIFY(errors[1][1].toString().contains(QStringLiteral("outside")));
        editor.setDesign(designOf(3, 5, 1.0f));  // odd and rectangular is fine
        QCOMPARE(errors.size(), 2);
        QCOMPARE(editor.design().kernels.front().height, 5);
        editor.undoStack()->undo();
        QCOMPARE(editor.design(), before);  // the refused ones left no undo step
        // The size box only offers odd sizes up to the editor's limit.
        editor.setKernelSize(4);
        QCOMPARE(editor.design().kernels.front().width, 5);
        editor.setKernelSize(99);
        QCOMPARE(editor.design().kernels.front().width, KernelEditor::kMaxEditableSize);
        QCOMPARE(errors.size(), 2);
    }

    void savingOntoTheInputAsksFirst() {
        const QString input = dir_.filePath(QStringLiteral("input.png"));
        QFile::remove(input);
        QVERIFY(QFile::copy(kFruits, dir_.filePath(QStringLiteral("fruits.jpg"))) ||
                QFile::exists(dir_.filePath(QStringLiteral("fruits.jpg"))));
        auto window = makeWindow(false);
        // A PNG input (the saved result is a PNG too, so an overwrite would really replace it).
        QVERIFY(openAndWait(*window, dir_.filePath(QStringLiteral("fruits.jpg"))));
        QVERIFY(window->saveResult(input, false));
        QVERIFY(openAndWait(*window, input));
        QVERIFY(window->kernelEditor()->applyPresetText(QStringLiteral("sobel-x:3")));
        window->runNow();
        QTRY_VERIFY_WITH_TIMEOUT(window->lastOutcome() && window->lastOutcome()->request.spec.name.rfind("sobel", 0) == 0, 5000);
        const QByteArray original = digest(input);
        QVERIFY(!original.isEmpty());

        answer_ = false;  // declined: nothing written
        QVERIFY(!window->saveResult(input, false));
        QCOMPARE(asked_.size(), 1);
        QCOMPARE(asked_[0].acceptText, QStringLiteral("Overwrite"));
        QVERIFY(asked_[0].question.contains(QStringLiteral("input.png")));
        QCOMPARE(digest(input), original);
        // The same file spelled another way is still the input.
        QVERIFY(!window->saveResult(dir_.path() + QStringLiteral("/./input.png"), false));
        QCOMPARE(asked_.size(), 2);
        QCOMPARE(digest(input), original);
        // Another file: no question.
        QVERIFY(window->saveResult(dir_.filePath(QStringLiteral("other.png")), false));
        QCOMPARE(asked_.size(), 2);
        // Accepted: written.
        answer_ = true;
        QVERIFY(window->saveResult(input, false));
        QCOMPARE(asked_.size(), 3);
        QVERIFY(digest(input) != original);
        QVERIFY(errors_.isEmpty());
    }

    void unwritableOutputGivesAnErrorAndWritesNothing() {
        auto window = makeWindow(false);
        QVERIFY(openAndWait(*window, kFruits));
        // A regular file as the parent directory: unwritable even for root (CI runs as root).
        const QString notADir = dir_.filePath(QStringLiteral("plain-file"));
        QFile f(notADir);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("x");
        f.close();
        const QStringList targets = {notADir + QStringLiteral("/out.png"), dir_.filePath(QStringLiteral("missing/dir/out.png"))};
        for (const QString& target : targets) {
            errors_.clear();
            QVERIFY(!window->saveResult(target, false));
            QCOMPARE(errors_.size(), 1);
            QVERIFY2(errors_[0].startsWith(QStringLiteral("Cannot save result: ")), qPrintable(errors_[0]));
            QVERIFY(!QFile::exists(target));
        }
        QVERIFY(!QDir(dir_.filePath(QStringLiteral("missing"))).exists());
        QCOMPARE(asked_.size(), 0);
    }

    void kernelSaveNeverWritesThroughATemporaryName() {
        auto window = makeWindow(false);
        const QString victim = dir_.filePath(QStringLiteral("victim.txt"));
        QFile v(victim);
        QVERIFY(v.open(QIODevice::WriteOnly));
        v.write("data\n");
        v.close();
        const QString kernel = dir_.filePath(QStringLiteral("edge.json"));
        // The old save wrote to the fixed name path + ".tmp", following a link put there.
        QVERIFY(QFile::link(victim, kernel + QStringLiteral(".tmp")));
        QVERIFY(window->kernelEditor()->applyPresetText(QStringLiteral("sobel-x:3")));
        QString error;
        QVERIFY2(window->kernelEditor()->saveFile(kernel, &error), qPrintable(error));
        QFile back(victim);
        QVERIFY(back.open(QIODevice::ReadOnly));
        QCOMPARE(back.readAll(), QByteArray("data\n"));
        QVERIFY(QFileInfo(kernel + QStringLiteral(".tmp")).isSymLink());
        QVERIFY(QFileInfo(kernel).isFile() && !QFileInfo(kernel).isSymLink());
    }

    void alphaIsKeptUnlessTheStudioIsToldToFilterIt() {
        // An opaque RGBA image: a Sobel of its alpha would make the whole result transparent.
        QImage rgba(40, 30, QImage::Format_RGBA8888);
        for (int y = 0; y < rgba.height(); ++y)
            for (int x = 0; x < rgba.width(); ++x) rgba.setPixelColor(x, y, QColor((x * 37) % 256, (y * 53) % 256, (x * y) % 256, 255));
        const QString path = dir_.filePath(QStringLiteral("opaque-rgba.png"));
        QVERIFY(rgba.save(path));
        auto window = std::make_unique<MainWindow>([] {
            std::vector<std::unique_ptr<fs::Backend>> v;
            v.push_back(fs::keepingAlpha(fs::cpu::makeCpuBackend()));
            return v;
        });
        window->setErrorReporter([this](const QString& t, const QString& m) { errors_ << t + ": " + m; });
        window->show();
        QVERIFY(openAndWait(*window, path));
        QVERIFY(window->kernelEditor()->applyPresetText(QStringLiteral("sobel-x:3")));
        auto alphaRange = [&] {
            const fs::Image& out = window->lastOutcome()->result.output;
            int lo = 255, hi = 0;
            for (int y = 0; y < out.height(); ++y)
                for (int x = 0; x < out.width(); ++x) {
                    const int a = out.cview().row<std::uint8_t>(y)[4 * x + 3];
                    lo = std::min(lo, a), hi = std::max(hi, a);
                }
            return std::make_pair(lo, hi);
        };
        auto sobelDone = [&](bool filterAlpha) {
            return window->lastOutcome() && window->lastOutcome()->request.spec.name.rfind("sobel", 0) == 0 &&
                   window->lastOutcome()->request.spec.filterAlpha == filterAlpha;
        };
        window->runNow();
        QTRY_VERIFY_WITH_TIMEOUT(sobelDone(false), 5000);
        QCOMPARE(window->lastOutcome()->result.output.channels(), 4);
        QCOMPARE(alphaRange(), std::make_pair(255, 255));
        auto* check = window->findChild<QCheckBox*>(QStringLiteral("filterAlphaCheck"));
        QVERIFY(check);
        QVERIFY(!check->isChecked());
        check->setChecked(true);
        window->runNow();
        QTRY_VERIFY_WITH_TIMEOUT(sobelDone(true), 5000);
        QCOMPARE(alphaRange(), std::make_pair(0, 0));
        QVERIFY(errors_.isEmpty());
    }

    void failedCudaRunOffersTheCpu() {
        auto window = makeWindow(true);
        QVERIFY(window->selectMode(QStringLiteral("cuda/global")));
        QSignalSpy failed(window.get(), &MainWindow::runFailed);
        answer_ = true;
        QVERIFY(window->openImage(kFruits));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        QCOMPARE(asked_.size(), 1);
        QCOMPARE(asked_[0].acceptText, QStringLiteral("Run on CPU instead"));
        QVERIFY(asked_[0].question.contains(QStringLiteral("out of device memory")));
        QCOMPARE(window->backendChooser()->currentKey(), QStringLiteral("cpu/parallel"));
        QTRY_VERIFY_WITH_TIMEOUT(window->lastOutcome() && window->lastOutcome()->result.ok(), 5000);
        QCOMPARE(window->lastOutcome()->request.backend, QStringLiteral("cpu"));
        QVERIFY(errors_.isEmpty());  // the question replaced the error dialog
    }

    void declinedCpuFallbackStaysOnCuda() {
        auto window = makeWindow(true);
        QVERIFY(window->selectMode(QStringLiteral("cuda/global")));
        QSignalSpy failed(window.get(), &MainWindow::runFailed);
        answer_ = false;
        QVERIFY(window->openImage(kFruits));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        QCOMPARE(asked_.size(), 1);
        QCOMPARE(window->backendChooser()->currentKey(), QStringLiteral("cuda/global"));
        // The same failure on the next edit is not asked again.
        window->runNow();
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 2, 5000);
        QCOMPARE(asked_.size(), 1);
        QVERIFY(!window->lastOutcome());
    }

    // An approximate mode is always run beside the compare mode (the CPU reference by default), and its
    // measured error stands next to its time; an exact mode in the normal view runs alone.
    void approximateModeShowsItsMeasuredErrorBesideItsTime() {
        auto window = makeWindow(false, true);
        QVERIFY(openAndWait(*window, kFruits));
        QVERIFY(!window->lastOutcome()->compare);
        // The mode the device cannot run is named with its reason, not the whole backend.
        QVERIFY2(window->backendChooser()->unavailableText().contains(
                     QStringLiteral("CUDA (approximate test double) · newer-gpu unavailable: needs compute capability")),
                 qPrintable(window->backendChooser()->unavailableText()));
        // The mode list labels the approximate one.
        auto* modes = window->backendChooser()->findChild<QComboBox*>();
        QVERIFY(modes);
        for (int i = 0; i < modes->count(); ++i) {
            const bool approximate = modes->itemData(i, Qt::UserRole).toString() == QStringLiteral("cuda/tf32");
            QCOMPARE(modes->itemText(i).endsWith(QStringLiteral(" (approximate)")), approximate);
        }
        QVERIFY(window->selectMode(QStringLiteral("cuda/tf32")));
        QVERIFY2(window->backendChooser()->explanation().contains(QStringLiteral("(approximate")),
                 qPrintable(window->backendChooser()->explanation()));
        window->runNow();
        QTRY_VERIFY_WITH_TIMEOUT(window->lastOutcome() && window->lastOutcome()->request.mode == QStringLiteral("tf32"),
                                 5000);
        const auto outcome = window->lastOutcome();
        QVERIFY(outcome->compare && outcome->compare->ok());
        QCOMPARE(outcome->request.compareMode, QStringLiteral("reference"));
        QCOMPARE(outcome->difference.maxAbs, 2.0);
        QCOMPARE(outcome->difference.differingValues, 1LL);
        QString shown;
        for (const QLabel* label : window->statusBar()->findChildren<QLabel*>()) shown += label->text() + '\n';
        QVERIFY2(shown.contains(QStringLiteral("cuda/tf32: ")) && shown.contains(QStringLiteral("max abs error 2,")),
                 qPrintable(shown));
        QVERIFY(errors_.isEmpty());
    }
};

QTEST_MAIN(HardeningTest)
#include "test_hardening.moc"
