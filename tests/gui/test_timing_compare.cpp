// The timing chart through the real window: a change of filter or border starts a new comparison,
// no speed-up divides one filter's time by another's, and "Run every mode" warms up, takes a median
// and leaves the GUI responsive.
#include <QComboBox>
#include <QElapsedTimer>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QtTest>
#include <functional>

#include "backends.hpp"
#include "fs/presets.hpp"
#include "fs/widgets/backend_chooser.hpp"
#include "fs/widgets/comparison.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "fs/widgets/timing_chart.hpp"
#include "main_window.hpp"

using fs::ui::MainWindow;
using fs::widgets::ComparisonBoard;
using fs::widgets::ComparisonGroup;
using fs::widgets::Speedup;
using fs::widgets::TimingChart;

namespace {
const QString kFruits = QStringLiteral(FS_SAMPLES_DIR "/fruits.jpg");  // 512x480, 3 channels, u8
}

class TimingCompareTest : public QObject {
    Q_OBJECT

    QStringList errors_;
    std::unique_ptr<MainWindow> window_;

    bool runAndWait() {
        QSignalSpy shown(window_.get(), &MainWindow::resultShown);
        window_->runNow();
        const quint64 wanted = window_->runner()->latestGeneration();
        for (int i = 0; i < 300; ++i) {
            if (window_->lastOutcome() && window_->lastOutcome()->generation >= wanted) return true;
            shown.wait(100);
        }
        return false;
    }

    bool waitFor(const std::function<bool()>& done, int ms) {
        for (int waited = 0; waited < ms && !done(); waited += 20) QTest::qWait(20);
        return done();
    }

    // The mode marked isReference, found by its flag.
    QString referenceKey() const {
        for (const fs::widgets::ModeChoice& c : window_->backendChooser()->choices())
            if (c.mode.isReference) return c.key();
        return {};
    }

    // Every ratio anywhere on the board has numerator and denominator from one group.
    static void verifyNoRatioMixesGroups(const ComparisonBoard& board) {
        for (const ComparisonGroup& g : board.groups())
            for (const Speedup& s : ComparisonBoard::speedups(g)) {
                QVERIFY2(s.key == g.key && s.baselineKey == g.key,
                         qPrintable(QStringLiteral("%1 (%2) over %3 (%4)")
                                        .arg(s.baselineMode, s.baselineKey.title(), s.mode, s.key.title())));
                QVERIFY(g.indexOf(s.mode) >= 0 && g.indexOf(s.baselineMode) >= 0);
                QCOMPARE(s.ms, g.bars[g.indexOf(s.mode)].totalMs());
                QCOMPARE(s.baselineMs, g.bars[g.indexOf(s.baselineMode)].totalMs());
            }
    }

    static bool namesWhatRan(const QString& label, const QString& mode, const QString& kernel) {
        return label.contains(mode) && label.contains(kernel) && label.contains(QStringLiteral("512x480")) &&
               label.contains(QStringLiteral("reflect101"));
    }

    static void saveShot(QWidget* w, const QString& name) {
        const QString path = QDir::temp().filePath(QStringLiteral("filterstudio-%1.png").arg(name));
        QVERIFY(w->grab().save(path));
        qInfo("screenshot: %s", qPrintable(path));
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_timing_compare"));
    }

    void init() {
        errors_.clear();
        window_ = std::make_unique<MainWindow>([] { return fs::makeAllBackends(); });
        window_->setErrorReporter([this](const QString& t, const QString& m) { errors_ << t + ": " + m; });
        window_->show();  // the default size, as a first start shows it
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    }

    void cleanup() { window_.reset(); }

    void aNewKernelStartsANewComparison() {
        TimingChart* chart = window_->timingChart();
        const QString reference = referenceKey();
        QVERIFY(!reference.isEmpty());
        QVERIFY(window_->openImage(kFruits));
        QVERIFY(window_->selectMode(reference));
        QVERIFY(window_->kernelEditor()->applyPresetText(QStringLiteral("gaussian:3")));
        QVERIFY(runAndWait());
        const int g3 = chart->shownGroupId();
        QVERIFY(chart->categories().contains(reference));

        // Another mode, same filter: the same comparison. (The kernel the designer opens with,
        // gaussian:3:0, has the same weights: its run on opening is in this comparison too.)
        QVERIFY(window_->selectMode(QStringLiteral("cpu/parallel")));
        QVERIFY(runAndWait());
        QCOMPARE(chart->shownGroupId(), g3);
        QCOMPARE(chart->barCount(), 2);
        QVERIFY(chart->categories().contains(reference) && chart->categories().contains(QStringLiteral("cpu/parallel")));

        // Another kernel: a new comparison that holds only what ran on it.
        QVERIFY(window_->kernelEditor()->applyPresetText(QStringLiteral("gaussian:15")));
        QVERIFY(runAndWait());
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
        const int g15 = chart->shownGroupId();
        QVERIFY(g15 != g3);
        QCOMPARE(chart->categories(), QStringList{QStringLiteral("cpu/parallel")});
        QVERIFY(chart->board().current()->key.filterName.startsWith(QStringLiteral("gaussian:15")));
        QCOMPARE(chart->board().group(g3)->bars.size(), 2);
        // Gaussian 3's reference time is nowhere beside Gaussian 15's: no reference ratio here.
        for (const Speedup& s : chart->shownSpeedups()) {
            QVERIFY(s.baseline != Speedup::Baseline::Reference);
            QCOMPARE(s.baselineMode, QStringLiteral("cpu/parallel"));
        }
        verifyNoRatioMixesGroups(chart->board());
        const QStringList labels = chart->barLabels();
        QCOMPARE(labels.size(), 1);
        QVERIFY2(namesWhatRan(labels[0], QStringLiteral("cpu/parallel"), QStringLiteral("gaussian:15 (15x15)")),
                 qPrintable(labels[0]));
        QVERIFY2(chart->valueLabels()[0].contains(QStringLiteral(" ms, 1 cold run")), qPrintable(chart->valueLabels()[0]));

        // The earlier comparison can still be looked at, as it was.
        QVERIFY(chart->showGroup(g3));
        QCOMPARE(chart->barCount(), 2);
        for (const QString& label : chart->barLabels())
            QVERIFY2(label.contains(QStringLiteral("gaussian:3")) && label.contains(QStringLiteral("(3x3)")), qPrintable(label));
        QCOMPARE(chart->shownSpeedups().size(), 4);  // two bars against two baselines, all Gaussian 3
        verifyNoRatioMixesGroups(chart->board());

        // Another border: another comparison too.
        auto* border = window_->findChild<QComboBox*>(QStringLiteral("borderCombo"));
        QVERIFY(border);
        border->setCurrentText(QStringLiteral("replicate"));
        QVERIFY(runAndWait());
        QVERIFY(chart->shownGroupId() != g15 && chart->shownGroupId() != g3);
        QVERIFY(chart->barLabels()[0].contains(QStringLiteral("replicate")));
        QCOMPARE(chart->board().groups().size(), 3);  // Gaussian 3, Gaussian 15, Gaussian 15 with replicate
    }

    void runEveryModeWarmsUpTakesTheMedianAndKeepsTheGuiResponsive() {
        TimingChart* chart = window_->timingChart();
        QVERIFY(window_->openImage(kFruits));
        QVERIFY(window_->selectMode(referenceKey()));
        QVERIFY(window_->kernelEditor()->applyPresetText(QStringLiteral("gaussian:3")));
        QVERIFY(runAndWait());
        QVERIFY(window_->selectMode(QStringLiteral("cpu/parallel")));

        auto* repeats = chart->findChild<QSpinBox*>(QStringLiteral("repeatsSpin"));
        auto* button = chart->findChild<QPushButton*>(QStringLiteral("runEveryMode"));
        QVERIFY(repeats && button);
        QCOMPARE(repeats->value(), 5);  // the default, shown beside the button
        QVERIFY(repeats->text().contains(QStringLiteral("median of 5")));
        repeats->setValue(3);

        // The event loop keeps turning while the modes run on the runner's thread.
        QElapsedTimer sinceTick;
        qint64 longestGap = 0;
        QTimer ticker;
        ticker.setInterval(10);
        connect(&ticker, &QTimer::timeout, this, [&] {
            longestGap = std::max(longestGap, sinceTick.restart());
        });
        // Gaussian 15 is still running live when the sweep starts: its result must not skip a mode of the sweep.
        QVERIFY(window_->kernelEditor()->applyPresetText(QStringLiteral("gaussian:15")));
        window_->runNow();
        const int historyBefore = chart->historyCount();
        button->click();
        QVERIFY(window_->sweeping());
        QCOMPARE(chart->historyCount(), historyBefore);  // the click returned before any run was recorded
        QVERIFY(!button->isEnabled());
        QVERIFY2(button->text().startsWith(QStringLiteral("Running 1 of ")), qPrintable(button->text()));
        sinceTick.start();
        ticker.start();
        QElapsedTimer sweep;
        sweep.start();
        QVERIFY(waitFor([&] { return !window_->sweeping(); }, 150000));
        ticker.stop();
        qInfo("sweep %lld ms, longest pause of the GUI thread %lld ms", sweep.elapsed(), longestGap);
        QVERIFY2(longestGap < 1500, qPrintable(QStringLiteral("GUI thread blocked for %1 ms").arg(longestGap)));
        QVERIFY(button->isEnabled());
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));

        // Every available mode, in the Gaussian 15 comparison, each a median of 3 after a warm-up.
        const ComparisonGroup* g = chart->board().current();
        QVERIFY(g->key.filterName.startsWith(QStringLiteral("gaussian:15")));
        int available = 0;
        for (const fs::widgets::ModeChoice& c : window_->backendChooser()->choices()) available += c.mode.available ? 1 : 0;
        QCOMPARE(chart->barCount(), available);
        QVERIFY(available >= 2);
        for (const auto& m : g->bars) {
            QCOMPARE(m.repeats, 3);
            QCOMPARE(m.warmups, 1);
        }
        const QStringList labels = chart->barLabels(), values = chart->valueLabels();
        for (int i = 0; i < labels.size(); ++i) {
            QVERIFY2(namesWhatRan(labels[i], g->bars[i].mode, QStringLiteral("gaussian:15 (15x15)")), qPrintable(labels[i]));
            QVERIFY2(values[i].contains(QStringLiteral(" ms, median of 3")), qPrintable(values[i]));
            // A run with a transfer says how much of the bar it is.
            if (g->bars[i].timing.uploadMs) QVERIFY2(values[i].contains(QRegularExpression(QStringLiteral("transfers .* ms = [0-9.]+%"))), qPrintable(values[i]));
        }

        // Both baselines, each from this comparison: the reference by its flag, the fastest CPU mode by time.
        const QVector<Speedup> ratios = chart->shownSpeedups();
        QCOMPARE(ratios.size(), 2 * available);
        const fs::widgets::Measurement* fastest = ComparisonBoard::fastestCpu(*g);
        QVERIFY(fastest);
        for (const auto& m : g->bars)
            if (m.role.onCpu) QVERIFY(m.totalMs() >= fastest->totalMs());
        for (const Speedup& s : ratios) {
            QCOMPARE(s.baselineMode, s.baseline == Speedup::Baseline::Reference ? referenceKey() : fastest->mode);
            QCOMPARE(s.value, s.baselineMs / s.ms);
        }
        QCOMPARE(chart->speedupLabels().size(), ratios.size());
        verifyNoRatioMixesGroups(chart->board());

        // What a person sees after this scenario, at the default window size.
        saveShot(window_.get(), QStringLiteral("compare-window"));
        saveShot(chart, QStringLiteral("compare-breakdown"));
        QVERIFY(chart->setCurrentTab(QStringLiteral("Speed-up")));
        saveShot(chart, QStringLiteral("compare-speedup"));
        chart->setLogScale(true);
        saveShot(chart, QStringLiteral("compare-speedup-log"));
        QVERIFY(chart->setCurrentTab(QStringLiteral("Breakdown")));
        saveShot(chart, QStringLiteral("compare-breakdown-log"));
        chart->setLogScale(false);
    }

    // No GPU here: a GPU-shaped record, as the CUDA modes report one, drawn by the chart alone.
    void aSmallTransferIsWrittenOnItsBar() {
        TimingChart chart;
        chart.resize(1400, 280);  // the Timings dock at the default window size
        chart.show();
        fs::FilterSpec spec;
        QVERIFY(fs::makePreset("gaussian:15", spec));
        const auto key = fs::widgets::ComparisonKey::of(spec, 4096, 4096, 1, fs::Depth::U8, QStringLiteral("1"),
                                                        QStringLiteral("big.png"));
        fs::TimingRecord reference;
        reference.backend = "cpu";
        reference.mode = "reference";
        reference.kernelMs = 4000.0;
        reference.totalMs = 4001.0;
        fs::TimingRecord parallel = reference;
        parallel.mode = "parallel";
        parallel.kernelMs = 180.0;
        parallel.totalMs = 181.0;
        fs::TimingRecord gpu;
        gpu.backend = "cuda";
        gpu.mode = "shared";
        gpu.uploadMs = 0.02;
        gpu.kernelMs = 9.95;
        gpu.downloadMs = 0.03;
        gpu.totalMs = 10.0;
        chart.addRun(reference, key, {true, false, true}, 5, 1);
        chart.addRun(parallel, key, {false, true, true}, 5, 1);
        chart.addRun(gpu, key, {false, true, false}, 5, 1);
        const QStringList values = chart.valueLabels();
        QCOMPARE(values.size(), 3);
        QVERIFY2(values[2].contains(QStringLiteral("10.00 ms, median of 5\ntransfers 0.050 ms = 0.50%")), qPrintable(values[2]));
        QVERIFY(!values[0].contains(QStringLiteral("transfers")));
        QCOMPARE(ComparisonBoard::fastestCpu(*chart.board().current())->mode, QStringLiteral("cpu/parallel"));
        QCOMPARE(chart.speedupLabels(), (QStringList{QStringLiteral("1.00x"), QStringLiteral("22.1x"), QStringLiteral("400.1x"),
                                                      QStringLiteral("0.045x"), QStringLiteral("1.00x"), QStringLiteral("18.1x")}));
        saveShot(&chart, QStringLiteral("transfer-breakdown"));
        chart.setLogScale(true);
        saveShot(&chart, QStringLiteral("transfer-breakdown-log"));
        QVERIFY(chart.setCurrentTab(QStringLiteral("Speed-up")));
        saveShot(&chart, QStringLiteral("transfer-speedup-log"));
        chart.setLogScale(false);
        saveShot(&chart, QStringLiteral("transfer-speedup"));
    }

    // A machine with a GPU lists a dozen modes: the text of neighbouring bars must still not overlap.
    void manyModesGetShorterLines() {
        TimingChart chart;
        chart.resize(1400, 280);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        fs::FilterSpec spec;
        QVERIFY(fs::makePreset("gaussian:15", spec));
        spec.border.mode = fs::BorderMode::Constant;
        spec.border.value = 12.5f;
        const auto key = fs::widgets::ComparisonKey::of(spec, 4096, 4096, 1, fs::Depth::U8, QStringLiteral("1"),
                                                        QStringLiteral("big.png"));
        const QStringList modes = {QStringLiteral("cpu/reference"), QStringLiteral("cpu/parallel"), QStringLiteral("cpu/opencv-exact"),
                                   QStringLiteral("opencl/filter2d"), QStringLiteral("opencl/auto"), QStringLiteral("cuda/global"),
                                   QStringLiteral("cuda/constant"), QStringLiteral("cuda/shared"), QStringLiteral("cuda/texture"),
                                   QStringLiteral("cuda/separable"), QStringLiteral("cuda/registers"), QStringLiteral("cuda/auto")};
        for (int i = 0; i < modes.size(); ++i) {
            fs::TimingRecord t;
            t.backend = modes[i].section('/', 0, 0).toStdString();
            t.mode = modes[i].section('/', 1).toStdString();
            const bool onCpu = t.backend == "cpu";
            t.kernelMs = onCpu ? 4000.0 / (i + 1) : 10.0 + i;
            if (!onCpu) {
                t.uploadMs = 2.5;
                t.downloadMs = 2.5;
            }
            t.totalMs = *t.kernelMs + (onCpu ? 0.5 : 5.0);
            chart.addRun(t, key, {i == 0, false, onCpu}, 5, 1);
        }
        QTest::qWait(50);  // the relayout after the first show
        const QFont small = chart.labelFont();
        QCOMPARE(chart.barLabels()[0].count('\n'), 4);  // mode, filter name, size, image, border
        const int perBar = (chart.width() - 80) / static_cast<int>(modes.size());
        for (const QString& text : chart.barLabels() + chart.valueLabels())
            for (const QString& line : text.split('\n'))
                QVERIFY2(QFontMetrics(small).horizontalAdvance(line) < perBar,
                         qPrintable(QStringLiteral("'%1' is wider than a bar's %2 px").arg(line).arg(perBar)));
        saveShot(&chart, QStringLiteral("many-breakdown"));
        QVERIFY(chart.setCurrentTab(QStringLiteral("Speed-up")));
        saveShot(&chart, QStringLiteral("many-speedup"));
    }
};

QTEST_MAIN(TimingCompareTest)
#include "test_timing_compare.moc"
