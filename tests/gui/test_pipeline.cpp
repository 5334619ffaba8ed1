// The pipeline list: editing steps, JSON round trips, and a run in
// the studio whose output, object count and per-step times are checked against
// the CPU reference pipeline run here, outside the window.
#include <QDockWidget>
#include <QFile>
#include <QTableWidget>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>

#include "fs/cpu/cpu_backend.hpp"
#include "fs/cpu/pipeline.hpp"
#include "fs/io/image_io.hpp"
#include "fs/presets.hpp"
#include "fs/widgets/image_view.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "fs/widgets/pipeline_editor.hpp"
#include "fs/widgets/timing_chart.hpp"
#include "image_convert.hpp"
#include "main_window.hpp"

using fs::StepOp;
using fs::ui::MainWindow;
using fs::widgets::PipelineEditor;

namespace {

const QString kFruits = QStringLiteral(FS_SAMPLES_DIR "/fruits.jpg");

bool sameBytes(const fs::Image& a, const fs::Image& b) {
    if (a.width() != b.width() || a.height() != b.height() || a.channels() != b.channels() || a.depth() != b.depth())
        return false;
    for (int y = 0; y < a.height(); ++y)
        if (std::memcmp(a.cview().row<std::uint8_t>(y), b.cview().row<std::uint8_t>(y), a.cview().rowBytes()) != 0) return false;
    return true;
}

std::vector<StepOp> opsOf(const fs::Pipeline& p) {
    std::vector<StepOp> ops;
    for (const fs::PipelineStep& s : p.steps) ops.push_back(s.op);
    return ops;
}

}  // namespace

class PipelineTest : public QObject {
    Q_OBJECT

    QStringList errors_;
    QTemporaryDir dir_;

    std::unique_ptr<MainWindow> makeWindow() {
        auto window = std::make_unique<MainWindow>([] {
            std::vector<std::unique_ptr<fs::Backend>> v;
            v.push_back(fs::cpu::makeCpuBackend());
            return v;
        });
        window->setErrorReporter([this](const QString& t, const QString& m) { errors_ << t + ": " + m; });
        window->resize(1400, 900);
        window->show();
        return window;
    }

    // Runs the editor's pipeline and waits for its outcome (shown or failed).
    static bool runPipelineAndWait(MainWindow& window) {
        QSignalSpy shown(&window, &MainWindow::resultShown);
        QSignalSpy failed(&window, &MainWindow::runFailed);
        window.runPipeline();
        for (int i = 0; i < 300 && shown.isEmpty() && failed.isEmpty(); ++i) QTest::qWait(50);
        return !shown.isEmpty() || !failed.isEmpty();
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_pipeline"));
        QVERIFY(dir_.isValid());
    }

    void init() { errors_.clear(); }

    void editingAddsRemovesAndReordersSteps() {
        PipelineEditor editor;
        QSignalSpy changed(&editor, &PipelineEditor::pipelineChanged);
        QCOMPARE(editor.problem(), QStringLiteral("the pipeline has no steps"));
        auto* run = editor.findChild<QPushButton*>(QStringLiteral("pipelineRun"));
        QVERIFY(run);
        QVERIFY(!run->isEnabled());

        editor.addPointOperation(StepOp::Grayscale);
        QVERIFY(editor.addPreset(QStringLiteral("gaussian:5:1.2")));
        QString why;
        QVERIFY(!editor.addPreset(QStringLiteral("gaussian:4:1"), &why));  // even size: refused with makePreset's reason
        QVERIFY2(!why.isEmpty(), "a refused preset says why");
        QVERIFY(editor.addPreset(QStringLiteral("sobel-x")));
        QVERIFY(editor.addPreset(QStringLiteral("sobel-y")));
        QCOMPARE(editor.stepCount(), 4);
        QVERIFY(editor.problem().isEmpty());
        QVERIFY(run->isEnabled());
        QCOMPARE(editor.pipeline().steps[1].filter.name, std::string("gaussian:5:1.2"));

        // Magnitude reads the two latest convolutions, which get ids for it.
        editor.addPointOperation(StepOp::Magnitude);
        fs::Pipeline p = editor.pipeline();
        QCOMPARE(p.steps.size(), std::size_t{5});
        QCOMPARE(p.steps[4].op, StepOp::Magnitude);
        QCOMPARE(p.steps[4].inputs.size(), std::size_t{2});
        QVERIFY(!p.steps[2].id.empty());
        QCOMPARE(p.steps[4].inputs[0], p.steps[2].id);
        QCOMPARE(p.steps[4].inputs[1], p.steps[3].id);
        QVERIFY(editor.problem().isEmpty());

        // New steps go after the selected one.
        editor.selectStep(0);
        editor.addPointOperation(StepOp::Abs);
        QCOMPARE(opsOf(editor.pipeline()),
                 (std::vector<StepOp>{StepOp::Grayscale, StepOp::Abs, StepOp::Convolve, StepOp::Convolve, StepOp::Convolve,
                                      StepOp::Magnitude}));
        QCOMPARE(editor.currentStep(), 1);

        // Up, down and remove; the list shows every step in order.
        QVERIFY(editor.moveStep(1, 0));
        QCOMPARE(editor.pipeline().steps[0].op, StepOp::Abs);
        QVERIFY(!editor.moveStep(0, -1));
        editor.removeStep(0);
        QCOMPARE(editor.pipeline().steps[0].op, StepOp::Grayscale);
        auto* list = editor.findChild<QListWidget*>(QStringLiteral("pipelineSteps"));
        QVERIFY(list);
        QCOMPARE(list->count(), editor.stepCount());
        QVERIFY(list->item(4)->text().startsWith(QStringLiteral("5. magnitude")));

        // Removing a convolution the magnitude reads makes the pipeline invalid, said in red, run disabled.
        editor.removeStep(3);
        QVERIFY(!editor.problem().isEmpty());
        auto* problem = editor.findChild<QLabel*>(QStringLiteral("pipelineProblem"));
        QVERIFY(problem);
        QCOMPARE(problem->text(), editor.problem());
        QVERIFY(!run->isEnabled());
        QVERIFY(changed.count() >= 8);

        // Moving a step below one that reads it is refused by validation too.
        editor.removeStep(3);  // the magnitude
        editor.addPointOperation(StepOp::Threshold);
        QCOMPARE(editor.pipeline().steps.back().threshold, 128.0f);
        editor.addPointOperation(StepOp::Label);
        QVERIFY(editor.problem().isEmpty());
    }

    void keysActOnlyInTheList() {
        auto window = makeWindow();
        PipelineEditor* editor = window->pipelineEditor();
        window->findChild<QDockWidget*>(QStringLiteral("pipelineDock"))->raise();
        editor->addPointOperation(StepOp::Grayscale);
        editor->addPointOperation(StepOp::Normalize);
        editor->addPointOperation(StepOp::Abs);
        QVERIFY(QTest::qWaitForWindowActive(window.get()));
        // Del in the kernel grid edits the kernel, never the pipeline.
        auto* grid = window->kernelEditor()->findChild<QTableWidget*>();
        QVERIFY(grid);
        window->findChild<QDockWidget*>(QStringLiteral("kernelDock"))->raise();
        grid->setFocus();
        QTest::keyClick(grid, Qt::Key_Delete);
        QCOMPARE(editor->stepCount(), 3);
        // In the list: Alt+Up moves the selected step, Del removes it.
        window->findChild<QDockWidget*>(QStringLiteral("pipelineDock"))->raise();
        auto* list = editor->findChild<QListWidget*>(QStringLiteral("pipelineSteps"));
        list->setFocus();
        editor->selectStep(2);
        QTest::keyClick(list, Qt::Key_Up, Qt::AltModifier);
        QCOMPARE(opsOf(editor->pipeline()), (std::vector<StepOp>{StepOp::Grayscale, StepOp::Abs, StepOp::Normalize}));
        QCOMPARE(editor->currentStep(), 1);
        QTest::keyClick(list, Qt::Key_Delete);
        QCOMPARE(opsOf(editor->pipeline()), (std::vector<StepOp>{StepOp::Grayscale, StepOp::Normalize}));
    }

    void saveAndLoadRoundTrip() {
        PipelineEditor editor;
        editor.addPointOperation(StepOp::Grayscale);
        QVERIFY(editor.addPreset(QStringLiteral("sobel-x")));
        QVERIFY(editor.addPreset(QStringLiteral("sobel-y")));
        editor.addPointOperation(StepOp::Magnitude);
        editor.addPointOperation(StepOp::Normalize);
        editor.addPointOperation(StepOp::Threshold);
        fs::PipelineStep threshold = editor.pipeline().steps.back();
        threshold.threshold = 42.5f;
        editor.setStep(editor.stepCount() - 1, threshold);
        editor.addPointOperation(StepOp::Label);
        fs::Pipeline p = editor.pipeline();
        p.name = "edges";
        editor.setPipeline(p);

        const QString path = dir_.filePath(QStringLiteral("edges.json"));
        QString why;
        QVERIFY2(editor.saveFile(path, &why), qPrintable(why));
        PipelineEditor loaded;
        QVERIFY2(loaded.loadFile(path, &why), qPrintable(why));
        QCOMPARE(fs::pipelineToJson(loaded.pipeline()), fs::pipelineToJson(p));
        QCOMPARE(loaded.pipeline().steps[5].threshold, 42.5f);
        QCOMPARE(loaded.stepCount(), 7);

        // A broken file names the field; the editor keeps what it had.
        const QString bad = dir_.filePath(QStringLiteral("bad.json"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format": "filterstudio-pipeline", "version": 1, "steps": [{"op": "threshold", "threshold": "high"}]})");
        f.close();
        QVERIFY(!loaded.loadFile(bad, &why));
        QVERIFY2(why.contains(QStringLiteral("steps[0].threshold")), qPrintable(why));
        QCOMPARE(loaded.stepCount(), 7);
        // An invalid pipeline is not saved.
        PipelineEditor empty;
        QVERIFY(!empty.saveFile(dir_.filePath(QStringLiteral("empty.json")), &why));
        QVERIFY(!QFile::exists(dir_.filePath(QStringLiteral("empty.json"))));
    }

    void runShowsOutputObjectCountAndStepTimes() {
        auto window = makeWindow();
        QVERIFY(window->openImage(kFruits));
        QVERIFY(window->selectMode(QStringLiteral("cpu/parallel")));
        QTest::qWait(200);  // let the single-filter run of openImage finish first
        PipelineEditor* editor = window->pipelineEditor();
        editor->addPointOperation(StepOp::Grayscale);
        QVERIFY(editor->addPreset(QStringLiteral("gaussian:3:0")));
        editor->addPointOperation(StepOp::Threshold);
        fs::PipelineStep threshold = editor->pipeline().steps.back();
        threshold.threshold = 90.0f;
        editor->setStep(2, threshold);
        editor->addPointOperation(StepOp::Label);
        const int historyBefore = window->timingChart()->historyCount();

        QVERIFY(runPipelineAndWait(*window));
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
        const auto outcome = window->lastOutcome();
        QVERIFY(outcome && outcome->request.pipeline);
        QVERIFY2(outcome->result.ok(), outcome->result.error.c_str());

        // The same pipeline run here on the CPU reference: same labels, same count.
        fs::io::LoadResult photo = fs::io::loadImage(kFruits.toStdString());
        QVERIFY(photo.ok());
        const fs::PipelineResult reference = fs::cpu::runPipelineReference(editor->pipeline(), photo.image.cview());
        QVERIFY2(reference.ok(), reference.error.c_str());
        QVERIFY(reference.objectCount && *reference.objectCount > 1);  // a photo has several bright objects
        QCOMPARE(outcome->objectCount.value_or(-1), *reference.objectCount);
        QVERIFY(sameBytes(outcome->result.output, reference.output));
        QVERIFY2(editor->resultText().contains(QStringLiteral("Objects: %1").arg(*reference.objectCount)),
                 qPrintable(editor->resultText()));

        // The view shows labels as colours: background black, objects not.
        const QImage shown = window->imageView()->resultImage();
        QCOMPARE(shown.size(), QSize(photo.image.width(), photo.image.height()));
        bool black = false, coloured = false;
        const fs::ConstImageView labels = outcome->result.output.cview();
        for (int y = 0; y < labels.height; y += 7)
            for (int x = 0; x < labels.width; x += 7) {
                const QRgb px = shown.pixel(x, y);
                if (labels.row<float>(y)[x] == 0.0f) black |= qRed(px) == 0 && qGreen(px) == 0 && qBlue(px) == 0;
                else coloured |= qRed(px) + qGreen(px) + qBlue(px) > 0;
            }
        QVERIFY(black && coloured);
        // Saved as 8-bit, the labels are the coloured picture on screen, not object ids as dark grey levels.
        const QString saved = dir_.filePath(QStringLiteral("labels-8bit.png"));
        QVERIFY(window->saveResult(saved, true));
        const fs::io::LoadResult picture = fs::io::loadImage(saved.toStdString());
        QVERIFY2(picture.ok(), picture.error.c_str());
        QCOMPARE(picture.image.channels(), 3);
        QCOMPARE(fs::ui::toDisplayImage(picture.image.cview()), shown.convertToFormat(QImage::Format_RGBA8888));

        // Each step's time is in the chart, on the Pipeline tab, and the list.
        fs::widgets::TimingChart* chart = window->timingChart();
        QCOMPARE(chart->historyCount(), historyBefore + 1);
        const auto steps = chart->pipelineSteps();
        QCOMPARE(steps.size(), 4);
        QCOMPARE(steps[1].label, QStringLiteral("convolve gaussian:3:0"));
        for (const auto& s : steps) {
            QVERIFY(s.timing.totalMs && *s.timing.totalMs >= 0.0);
            QCOMPARE(s.timing.backend, std::string("cpu"));
        }
        QCOMPARE(chart->currentTab(), QStringLiteral("Steps"));
        auto* list = editor->findChild<QListWidget*>(QStringLiteral("pipelineSteps"));
        QVERIFY(list->item(1)->text().endsWith(QStringLiteral(" ms")));
        QString why;
        const QString csv = dir_.filePath(QStringLiteral("pipeline.csv"));
        QVERIFY2(chart->exportCsv(csv, &why), qPrintable(why));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY2(text.contains(",\"convolve gaussian:3:0\"\n") && text.contains(",\"label\"\n"), text.constData());
        // The run's own line names the backend and mode asked for (its first step, grayscale, is a CPU loop).
        bool totalLine = false;
        for (const QByteArray& line : text.split('\n'))
            totalLine |= line.endsWith(",\"pipeline\"") && line.contains(",cpu,parallel,");
        QVERIFY2(totalLine, text.constData());

        const QString shot = QDir::temp().filePath(QStringLiteral("filterstudio-pipeline.png"));
        window->grab().save(shot);
        qInfo("screenshot: %s", qPrintable(shot));

        // An edit clears the step times of the pipeline that ran.
        editor->addPointOperation(StepOp::Abs);
        QVERIFY(!list->item(1)->text().endsWith(QStringLiteral(" ms")));

    }

    void designerKernelBecomesAStep() {
        auto window = makeWindow();
        QVERIFY(window->kernelEditor()->applyPresetText(QStringLiteral("laplacian-8")));
        const auto buttons = window->pipelineEditor()->findChildren<QPushButton*>();
        QPushButton* fromDesigner = nullptr;
        for (QPushButton* b : buttons)
            if (b->text() == QStringLiteral("Add designer kernel")) fromDesigner = b;
        QVERIFY(fromDesigner);
        fromDesigner->click();
        const fs::Pipeline p = window->pipelineEditor()->pipeline();
        QCOMPARE(p.steps.size(), std::size_t{1});
        QCOMPARE(p.steps[0].op, StepOp::Convolve);
        QVERIFY(p.steps[0].filter.kernels == window->kernelEditor()->spec().kernels);
        fs::FilterSpec laplacian;
        QVERIFY(fs::makePreset("laplacian-8", laplacian));
        QVERIFY(p.steps[0].filter.kernels == laplacian.kernels);
    }

    void aFailingStepIsReported() {
        auto window = makeWindow();
        QVERIFY(window->openImage(kFruits));  // 3 channels: labelling needs one
        QTest::qWait(200);
        window->pipelineEditor()->addPointOperation(StepOp::Threshold);
        window->pipelineEditor()->addPointOperation(StepOp::Label);
        QVERIFY(window->pipelineEditor()->problem().isEmpty());  // only the image shows the problem
        errors_.clear();
        QVERIFY(runPipelineAndWait(*window));
        QCOMPARE(errors_.size(), 1);
        QVERIFY2(errors_[0].startsWith(QStringLiteral("Pipeline failed: ")), qPrintable(errors_[0]));
        QVERIFY(window->pipelineEditor()->resultText().contains(QStringLiteral("failed")));
        QVERIFY(!window->pipelineEditor()->findChild<QPushButton*>(QStringLiteral("pipelineRun"))->text().contains(
            QStringLiteral("Running")));
    }

    void bundledExamplesLoadAndRun() {
        auto window = makeWindow();
        QVERIFY(window->openImage(kFruits));
        QTest::qWait(200);
        for (const QString& name : {QStringLiteral("edges-and-objects.json"), QStringLiteral("count-bright-objects.json")}) {
            QFile f(QStringLiteral(":/pipelines/") + name);
            QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(name));
            QString why;
            QVERIFY2(window->pipelineEditor()->loadJson(f.readAll(), &why), qPrintable(why));
            QVERIFY(runPipelineAndWait(*window));
            QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
            QVERIFY(window->lastOutcome()->objectCount.value_or(0) > 0);
        }
    }
};

QTEST_MAIN(PipelineTest)
#include "test_pipeline.moc"
