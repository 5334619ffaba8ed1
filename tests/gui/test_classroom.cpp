// The studio on a classroom projector, offscreen: the image first at 1024x768, the Presentation layout and
// its speed strip, re-fitting on resize, a preset box that follows the kernel, the size box, zero-sum
// kernels that show something without manual settings, and empty states that say what will come.
#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QToolBar>
#include <QUndoStack>
#include <QtTest>

#include <qcustomplot.h>

#include "backends.hpp"
#include "batch_dialog.hpp"
#include "display_mapping.hpp"
#include "fs/io/image_io.hpp"
#include "fs/presets.hpp"
#include "fs/widgets/comparison.hpp"
#include "fs/widgets/image_view.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "fs/widgets/pipeline_editor.hpp"
#include "fs/widgets/pixel_inspector.hpp"
#include "fs/widgets/preset_names.hpp"
#include "fs/widgets/speed_strip.hpp"
#include "fs/widgets/timing_chart.hpp"
#include "main_window.hpp"

using fs::ui::MainWindow;
using fs::widgets::KernelEditor;

namespace {

const QString kFruits = QStringLiteral(FS_SAMPLES_DIR "/fruits.jpg");  // 512x480, 3 channels

// Mean of the display image's gray levels: 0 is black.
double meanLevel(const QImage& image) {
    const QImage gray = image.convertToFormat(QImage::Format_Grayscale8);
    double sum = 0.0;
    for (int y = 0; y < gray.height(); ++y)
        for (int x = 0; x < gray.width(); ++x) sum += gray.constScanLine(y)[x];
    return sum / (static_cast<double>(gray.width()) * gray.height());
}

double areaShare(const QWidget* part, const QWidget* whole) {
    return static_cast<double>(part->width()) * part->height() / (static_cast<double>(whole->width()) * whole->height());
}

fs::TimingRecord record(const char* backend, const char* mode, double ms) {
    fs::TimingRecord t;
    t.backend = backend;
    t.mode = mode;
    t.kernelMs = ms;
    t.totalMs = ms;
    return t;
}

}  // namespace

class ClassroomTest : public QObject {
    Q_OBJECT

    QStringList errors_;

    std::unique_ptr<MainWindow> makeWindow(QSize size) {
        auto window = std::make_unique<MainWindow>([] { return fs::makeAllBackends(); });
        window->setErrorReporter([this](const QString& t, const QString& m) { errors_ << t + ": " + m; });
        window->resize(size);
        window->applyDefaultLayout();
        window->show();
        if (!QTest::qWaitForWindowExposed(window.get())) return nullptr;
        QTest::qWait(20);  // docks settle after the first show
        return window;
    }

    static bool runAndWait(MainWindow& window) {
        QSignalSpy shown(&window, &MainWindow::resultShown);
        window.runNow();
        const quint64 wanted = window.runner()->latestGeneration();
        for (int i = 0; i < 300; ++i) {
            if (window.lastOutcome() && window.lastOutcome()->generation >= wanted && !window.runner()->busy()) return true;
            shown.wait(50);
        }
        return false;
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_classroom"));
    }

    void init() { errors_.clear(); }

    // Item 1 and 2 of the classroom report: the image is the largest thing on screen, the window fits a
    // 1024x768 projector, and the view bar never hides 1:1 or Difference.
    void imageTakesHalfTheWindowAndFitsAProjector_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1024x768") << QSize(1024, 768);
        QTest::newRow("1400x900") << QSize(1400, 900);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void imageTakesHalfTheWindowAndFitsAProjector() {
        QFETCH(QSize, size);
        auto window = makeWindow(size);
        QVERIFY(window);
        QCOMPARE(window->size(), size);
        QVERIFY2(window->minimumSizeHint().width() <= 1024 && window->minimumSizeHint().height() <= 768,
                 qPrintable(QStringLiteral("minimum %1x%2").arg(window->minimumSizeHint().width()).arg(window->minimumSizeHint().height())));
        const double share = areaShare(window->imageView(), window.get());
        QVERIFY2(share >= 0.5, qPrintable(QStringLiteral("the image has %1 % of the window").arg(share * 100.0, 0, 'f', 1)));
        for (const QString& name : {QStringLiteral("1:1"), QStringLiteral("Difference"), QStringLiteral("Fit"), QStringLiteral("Presentation")}) {
            QAction* action = nullptr;
            for (QAction* a : window->viewBar()->actions())
                if (a->text() == name) action = a;
            QVERIFY2(action, qPrintable(name));
            QWidget* button = window->viewBar()->widgetForAction(action);
            QVERIFY2(button && button->isVisible(), qPrintable(name + QStringLiteral(" is hidden behind the toolbar's extension")));
        }
        // Every dock can be reached: shown, or a tab of a shown group.
        for (QDockWidget* dock : window->findChildren<QDockWidget*>()) QVERIFY2(!dock->isHidden(), qPrintable(dock->objectName()));
    }

    void presentationShowsTheImageAndALargeStrip() {
        auto window = makeWindow({1024, 768});
        QVERIFY(window);
        QVERIFY(window->openImage(kFruits));
        QVERIFY(runAndWait(*window));
        auto* action = window->findChild<QAction*>(QStringLiteral("presentationAction"));
        QVERIFY(action);
        QCOMPARE(action->shortcut(), QKeySequence(Qt::Key_F11));
        action->trigger();
        QVERIFY(window->presentation());
        QTest::qWait(20);
        for (QDockWidget* dock : window->findChildren<QDockWidget*>()) QVERIFY2(dock->isHidden(), qPrintable(dock->objectName()));
        QVERIFY(window->speedStrip()->isVisible());
        const double share = areaShare(window->imageView(), window.get());
        QVERIFY2(share >= 0.55, qPrintable(QStringLiteral("the image has %1 % of the window").arg(share * 100.0, 0, 'f', 1)));
        // The image fills the view's width or height.
        const QSize shown = window->imageView()->originalImage().size() * window->imageView()->zoom();
        QVERIFY(std::abs(shown.width() - window->imageView()->width()) <= 1 || std::abs(shown.height() - window->imageView()->height()) <= 1);
        // The strip shows the run of the current comparison, in large type.
        QCOMPARE(window->speedStrip()->rows().size(), 1);
        QVERIFY(window->speedStrip()->title().contains(QStringLiteral("fruits.jpg")));
        action->trigger();
        QVERIFY(!window->presentation());
        QTest::qWait(20);
        QVERIFY(!window->speedStrip()->isVisible());
        for (const char* name : {"kernelDock", "backendDock", "chartDock"})
            QVERIFY2(!window->findChild<QDockWidget*>(QString::fromLatin1(name))->isHidden(), name);
        QVERIFY(errors_.isEmpty());
    }

    // "×N faster" only within one comparison: another filter's times never enter the strip.
    void speedStripComparesOnlyWithinItsGroup() {
        fs::widgets::ComparisonBoard board;
        fs::FilterSpec gaussian, laplacian;
        QVERIFY(fs::makePreset("gaussian:5", gaussian));
        QVERIFY(fs::makePreset("laplacian-4", laplacian));
        const auto keyG = fs::widgets::ComparisonKey::of(gaussian, 512, 480, 3, fs::Depth::U8, QStringLiteral("1"), QStringLiteral("a.png"));
        const auto keyL = fs::widgets::ComparisonKey::of(laplacian, 512, 480, 3, fs::Depth::U8, QStringLiteral("1"), QStringLiteral("a.png"));
        const auto add = [&board](const fs::widgets::ComparisonKey& key, const fs::TimingRecord& t, bool reference) {
            fs::widgets::Measurement m;
            m.mode = QString::fromStdString(t.backend + "/" + t.mode);
            m.timing = t;
            m.role = {reference, false, t.backend == "cpu"};
            return board.add(key, m);
        };
        const int g = add(keyG, record("cpu", "reference", 100.0), true);
        add(keyG, record("cpu", "parallel", 25.0), false);
        add(keyL, record("cpu", "reference", 1000.0), true);  // another filter: must not be the baseline of g
        add(keyG, record("opencl", "auto", 200.0), false);
        fs::widgets::SpeedStrip strip;
        strip.resize(900, 260);
        strip.setGroup(board.group(g));
        const QVector<fs::widgets::SpeedStrip::Row> rows = strip.rows();
        QCOMPARE(rows.size(), 3);
        QCOMPARE(rows[0].mode, QStringLiteral("opencl/auto"));  // slowest first
        QVERIFY2(rows[0].text().contains(QStringLiteral("×2.00 slower")), qPrintable(rows[0].text()));
        QVERIFY(rows[1].isBaseline);
        QVERIFY2(rows[2].text().contains(QStringLiteral("×4.00 faster")), qPrintable(rows[2].text()));
        strip.setGroup(nullptr);
        QVERIFY(strip.rows().isEmpty());
        QVERIFY(!strip.emptyMessage().isEmpty());
    }

    void fitFollowsResizeUntilTheUserZooms() {
        fs::widgets::ImageView view;
        view.resize(400, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QImage image(800, 600, QImage::Format_RGBA8888);
        image.fill(Qt::gray);
        view.setOriginal(image);
        QCOMPARE(view.zoom(), 0.5);
        view.resize(800, 600);  // a maximised window
        QTest::qWait(10);
        QVERIFY(view.fitsToWindow());
        QCOMPARE(view.zoom(), 1.0);
        view.setZoom(2.0);  // the user zooms: the view no longer follows its size
        QVERIFY(!view.fitsToWindow());
        view.resize(400, 300);
        QTest::qWait(10);
        QCOMPARE(view.zoom(), 2.0);
        view.zoomToFit();
        QCOMPARE(view.zoom(), 0.5);
        view.resize(1600, 1200);
        QTest::qWait(10);
        QCOMPARE(view.zoom(), 2.0);
    }

    void presetBoxFollowsTheKernel() {
        KernelEditor editor;
        // At start the box names the kernel that is there, with its parameters.
        QCOMPARE(editor.shownPresetText(), QStringLiteral("gaussian:3:0"));
        QCOMPARE(editor.presetBoxText(), fs::widgets::presetDisplayName(QStringLiteral("gaussian")));
        QCOMPARE(editor.spec().kernels.front().width, 3);
        QVERIFY(editor.applyPresetText(QStringLiteral("log")));  // defaults 9:1.4
        QCOMPARE(editor.shownPresetText(), QStringLiteral("log:9:1.4"));
        QCOMPARE(editor.presetBoxText(), QStringLiteral("Laplacian of Gaussian"));
        // A hand edit makes it custom; undo brings the preset back, box included.
        auto* grid = editor.findChild<QTableWidget*>();
        QVERIFY(grid);
        grid->item(4, 4)->setText(QStringLiteral("7"));
        QCOMPARE(editor.presetBoxText(), QStringLiteral("custom"));
        QVERIFY(editor.shownPresetText().isEmpty());
        editor.undoStack()->undo();
        QCOMPARE(editor.shownPresetText(), QStringLiteral("log:9:1.4"));
        // Choosing "custom" in the box changes nothing.
        const fs::widgets::KernelDesign before = editor.design();
        auto* box = editor.findChild<QComboBox*>(QStringLiteral("presetCombo"));
        QVERIFY(box);
        box->setCurrentIndex(0);
        QCOMPARE(editor.design(), before);
        // Friendly names, with the id as the hint.
        for (int i = 1; i < box->count(); ++i) {
            QVERIFY(!box->itemText(i).contains(QLatin1Char(':')));
            QVERIFY(box->itemData(i, Qt::ToolTipRole).toString().contains(QStringLiteral("preset id")));
        }
    }

    void sizeBoxTakesEverySizeWithoutNaggingWhileTyping() {
        KernelEditor editor;
        QSignalSpy errors(&editor, &KernelEditor::errorOccurred);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        auto* size = editor.findChild<fs::widgets::OddSizeSpinBox*>(QStringLiteral("kernelSize"));
        QVERIFY(size);
        QCOMPARE(size->maximum(), fs::kMaxKernelSize);
        size->setFocus();
        size->selectAll();
        QTest::keyClicks(size, QStringLiteral("4"));  // on the way to 41: nothing happens yet
        QCOMPARE(editor.design().kernels.front().width, 3);
        QTest::keyClicks(size, QStringLiteral("1"));
        QTest::keyClick(size, Qt::Key_Return);
        QCOMPARE(editor.design().kernels.front().width, 41);
        // An even size left there becomes the next odd one.
        size->selectAll();
        QTest::keyClicks(size, QStringLiteral("8"));
        QTest::keyClick(size, Qt::Key_Return);
        QCOMPARE(editor.design().kernels.front().width, 9);
        QCOMPARE(errors.size(), 0);
    }

    void aMistypedCellIsMarkedInPlace() {
        KernelEditor editor;
        QSignalSpy errors(&editor, &KernelEditor::errorOccurred);
        auto* grid = editor.findChild<QTableWidget*>();
        const fs::widgets::KernelDesign before = editor.design();
        grid->item(0, 1)->setText(QStringLiteral("0.1.2"));
        QCOMPARE(errors.size(), 0);  // no dialog
        QCOMPARE(editor.design(), before);
        QVERIFY2(editor.cellNote().contains(QStringLiteral("'0.1.2'")), qPrintable(editor.cellNote()));
        QVERIFY(grid->item(0, 1)->toolTip().contains(QStringLiteral("not a number")));
        grid->item(0, 1)->setText(QStringLiteral("0.5"));
        QVERIFY(editor.cellNote().isEmpty());
    }

    void zeroSumPresetsShowEdgesAndTheMappingCanBeUndone() {
        auto window = makeWindow({1400, 900});
        QVERIFY(window);
        QVERIFY(window->openImage(kFruits));
        QVERIFY(window->selectMode(QStringLiteral("cpu/parallel")));
        QVERIFY(window->kernelEditor()->applyPresetText(QStringLiteral("laplacian-4")));
        const fs::ui::DisplayMapping chosen = window->displayMapping();
        QVERIFY(chosen.absolute);
        QVERIFY2(chosen.scale > 1.0, qPrintable(QString::number(chosen.scale)));
        QVERIFY(window->imageView()->caption().contains(QStringLiteral("|v|")));
        QVERIFY(runAndWait(*window));
        const double shown = meanLevel(window->imageView()->resultImage());
        // The chart on screen at the default dock height: its value axis's title fits beside the axis.
        QTest::qWait(20);
        int checked = 0;
        for (QCustomPlot* plot : window->timingChart()->findChildren<QCustomPlot*>()) {
            if (!plot->isVisible() || !plot->yAxis->visible()) continue;
            const int needed = QFontMetrics(plot->yAxis->labelFont()).horizontalAdvance(plot->yAxis->label());
            QVERIFY2(needed <= plot->axisRect()->height(),
                     qPrintable(QStringLiteral("'%1' needs %2 px, the axis has %3").arg(plot->yAxis->label()).arg(needed).arg(plot->axisRect()->height())));
            ++checked;
        }
        QCOMPARE(checked, 1);
        // One undo step takes the mapping back and keeps the kernel: the raw result is nearly black.
        window->kernelEditor()->undoStack()->undo();
        QCOMPARE(window->displayMapping(), fs::ui::DisplayMapping{});
        QCOMPARE(window->kernelEditor()->shownPresetText(), QStringLiteral("laplacian-4"));
        QVERIFY(runAndWait(*window));
        const double raw = meanLevel(window->imageView()->resultImage());
        QVERIFY2(shown > 2.0 * raw && shown > 12.0, qPrintable(QStringLiteral("mapped %1, raw %2").arg(shown).arg(raw)));
        window->kernelEditor()->undoStack()->redo();
        QCOMPARE(window->displayMapping(), chosen);
        // A blur after it goes back to the raw values; LoG gets a larger scale than the Laplacian.
        QVERIFY(window->kernelEditor()->applyPresetText(QStringLiteral("gaussian:5:0")));
        QCOMPARE(window->displayMapping(), fs::ui::DisplayMapping{});
        QVERIFY(window->kernelEditor()->applyPresetText(QStringLiteral("log:9:1.4")));
        QVERIFY(window->displayMapping().absolute);
        QVERIFY2(window->displayMapping().scale >= 4.0, qPrintable(QString::number(window->displayMapping().scale)));
        QVERIFY(errors_.isEmpty());
    }

    void zeroSumMappingIsOnlyForZeroSumKernels() {
        const fs::io::LoadResult loaded = fs::io::loadImage(kFruits.toStdString());
        QVERIFY(loaded.ok());
        for (const char* name : {"laplacian-8", "log:9:1.4", "sobel-x", "sobel-mag", "prewitt-y"}) {
            fs::FilterSpec spec;
            QVERIFY(fs::makePreset(name, spec));
            QVERIFY2(fs::ui::isZeroSum(spec), name);
            const auto mapping = fs::ui::zeroSumMapping(spec, &loaded.image);
            QVERIFY2(mapping && mapping->absolute && mapping->scale > 0.0, name);
        }
        for (const char* name : {"gaussian:5", "emboss", "sharpen", "box:3", "identity"}) {
            fs::FilterSpec spec;
            QVERIFY(fs::makePreset(name, spec));
            QVERIFY2(!fs::ui::zeroSumMapping(spec, &loaded.image), name);
        }
        fs::FilterSpec laplacian;
        QVERIFY(fs::makePreset("laplacian-4", laplacian));
        QCOMPARE(fs::ui::zeroSumMapping(laplacian, nullptr)->scale, 1.0);  // nothing to fit without an image
    }

    void emptyStatesSayWhatWillCome() {
        fs::widgets::TimingChart chart;
        for (const QString& tab : {QStringLiteral("Breakdown"), QStringLiteral("Speed-up"), QStringLiteral("History"),
                                   QStringLiteral("Steps")})
            QVERIFY2(!chart.emptyMessage(tab).isEmpty(), qPrintable(tab));
        fs::FilterSpec spec;
        QVERIFY(fs::makePreset("box:3", spec));
        chart.addRun(record("cpu", "reference", 3.0), fs::widgets::ComparisonKey::of(spec, 8, 8, 1, fs::Depth::U8, QStringLiteral("1"), {}),
                     {true, false, true});
        QVERIFY(chart.emptyMessage(QStringLiteral("Breakdown")).isEmpty());
        QVERIFY(chart.emptyMessage(QStringLiteral("History")).isEmpty());
        QVERIFY(!chart.emptyMessage(QStringLiteral("Steps")).isEmpty());

        fs::widgets::PipelineEditor pipeline;
        auto* hint = pipeline.findChild<QLabel*>(QStringLiteral("pipelineProblem"));
        QVERIFY(hint);
        QVERIFY(hint->text().startsWith(QStringLiteral("No steps yet")));
        QVERIFY(!hint->styleSheet().contains(QStringLiteral("#c0392b")));  // not the error red
        QVERIFY(pipeline.addPreset(QStringLiteral("gaussian:3")));
        QVERIFY(pipeline.problem().isEmpty());

        fs::ui::BatchDialog batch([] { return fs::makeAllBackends(); });
        auto* progress = batch.findChild<QProgressBar*>();
        QVERIFY(progress);
        QVERIFY(!progress->text().contains(QStringLiteral("of")));
        // Its preset box starts empty and never keeps what was typed as a new entry.
        auto* presets = batch.findChild<QComboBox*>(QStringLiteral("batchPreset"));
        QVERIFY(presets && presets->isEditable());
        QVERIFY(presets->currentText().isEmpty());
        const int entries = presets->count();
        presets->lineEdit()->setText(QStringLiteral("gaussian:7:2"));
        QTest::keyClick(presets->lineEdit(), Qt::Key_Return);
        QCOMPARE(presets->count(), entries);
    }

    void unknownPresetsAreListedNotSentToTheCommandLine() {
        fs::FilterSpec spec;
        std::string why;
        QVERIFY(!fs::makePreset("sobel-q", spec, &why));
        QVERIFY2(why.find("filterstudio-cli") == std::string::npos, why.c_str());
        QVERIFY2(why.find("laplacian-8") != std::string::npos, why.c_str());
    }

    void inspectorNamesChannelsInMemoryOrder() {
        using fs::widgets::PixelInspector;
        QCOMPARE(PixelInspector::channelName(0, 3), QStringLiteral("blue"));
        QCOMPARE(PixelInspector::channelName(2, 3), QStringLiteral("red"));
        QCOMPARE(PixelInspector::channelName(3, 4), QStringLiteral("alpha"));
        QCOMPARE(PixelInspector::channelName(0, 1), QStringLiteral("gray"));
        PixelInspector inspector;
        inspector.setChannelCount(3);
        auto* channels = inspector.findChild<QComboBox*>(QStringLiteral("inspectorChannel"));
        QVERIFY(channels);
        QCOMPARE(channels->count(), 3);
        QCOMPARE(channels->itemText(1), QStringLiteral("green"));
    }
};

QTEST_MAIN(ClassroomTest)
#include "test_classroom.moc"
