// The widgets a lesson leans on: speed-ups taken apart into algorithm, CPU and GPU; bars that say how
// they were measured; a strip naming what this machine cannot run; charts whose text follows their size,
// whose history names each point's filter and whose stale pipeline can be cleared; a designer grid that
// stays under the mouse; and a Benchmark dialog that keeps its results, names its papers and its files.
#include <QDir>
#include <QHeaderView>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <qcustomplot.h>

#include "backends.hpp"
#include "bench_plots.hpp"
#include "benchmark_dialog.hpp"
#include "fs/presets.hpp"
#include "fs/widgets/backend_chooser.hpp"
#include "fs/widgets/comparison.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "fs/widgets/speed_strip.hpp"
#include "fs/widgets/timing_chart.hpp"
#include "main_window.hpp"

using namespace fs::widgets;

namespace {

const QString kFruits = QStringLiteral(FS_SAMPLES_DIR "/fruits.jpg");

fs::TimingRecord record(const char* backend, const char* mode, double ms) {
    fs::TimingRecord t;
    t.backend = backend;
    t.mode = mode;
    t.kernelMs = ms;
    t.totalMs = ms;
    return t;
}

ComparisonKey gaussianKey(int size) {
    fs::FilterSpec spec;
    if (!fs::makePreset("gaussian:" + std::to_string(size), spec)) qFatal("no gaussian preset");
    return ComparisonKey::of(spec, 512, 480, 3, fs::Depth::U8, QStringLiteral("fruits"), QStringLiteral("fruits.jpg"));
}

Measurement bar(const char* backend, const char* mode, double ms, bool reference, bool onCpu, int repeats = 5) {
    Measurement m;
    m.mode = QStringLiteral("%1/%2").arg(QLatin1String(backend), QLatin1String(mode));
    m.timing = record(backend, mode, ms);
    m.role.isReference = reference;
    m.role.onCpu = onCpu;
    m.repeats = repeats;
    m.warmups = repeats > 1 ? 1 : 0;
    return m;
}

}  // namespace

class TeachingWidgetsTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_teaching_widgets"));
    }

    // A Gaussian 15 is rank 1: 30 taps instead of 225, a ×7.5 no hardware earned.
    void speedUpIsTakenApart() {
        const ComparisonKey key = gaussianKey(15);
        QCOMPARE(key.denseTaps, 225);
        QCOMPARE(key.separableTaps, 30);
        ComparisonBoard board;
        board.add(key, bar("cpu", "reference", 1130.0, true, true));
        board.add(key, bar("cpu", "parallel", 10.0, false, true));
        board.add(key, bar("cuda", "auto", 0.5, false, false));
        const QVector<SpeedupStory> stories = ComparisonBoard::stories(*board.current());
        QCOMPARE(stories.size(), 2);
        QCOMPARE(stories[0].text(), QStringLiteral("cpu/parallel ×113 = ×7.5 separable (30 taps, not 225) × ×15 threads and SIMD"));
        QVERIFY(qFuzzyCompare(stories[0].algorithm * stories[0].cpu, stories[0].total));
        QVERIFY2(stories[1].text().endsWith(QStringLiteral("× ×20 cuda against cpu/parallel")), qPrintable(stories[1].text()));
        QCOMPARE(stories[1].text().section(QLatin1Char(' '), 0, 1), QStringLiteral("cuda/auto ×2260"));

        // A dense kernel: the CPU's whole gain is its threads and SIMD.
        fs::FilterSpec dense;
        QVERIFY(fs::makePreset("laplacian-8", dense));
        const ComparisonKey denseKey = ComparisonKey::of(dense, 64, 64, 1, fs::Depth::U8, QStringLiteral("x"), QString());
        QCOMPARE(denseKey.separableTaps, denseKey.denseTaps);
        ComparisonBoard denseBoard;
        denseBoard.add(denseKey, bar("cpu", "reference", 40.0, true, true));
        denseBoard.add(denseKey, bar("cpu", "parallel", 4.0, false, true));
        QCOMPARE(ComparisonBoard::stories(*denseBoard.current()).front().text(),
                 QStringLiteral("cpu/parallel ×10 = ×10 threads and SIMD (same 9 taps)"));
    }

    void barsSayHowTheyWereMeasured() {
        const ComparisonKey key = gaussianKey(5);
        TimingChart chart;
        chart.resize(900, 400);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.addRun(record("cpu", "reference", 30.0), key, ModeRole{true, false, true}, 1, 0);
        QVERIFY(chart.valueLabels().front().contains(QStringLiteral("1 cold run")));
        QVERIFY(chart.notes().isEmpty());
        chart.addRun(record("cpu", "parallel", 1.0), key, ModeRole{false, true, true}, 5, 1);
        QVERIFY(chart.valueLabels().back().contains(QStringLiteral("median of 5")));
        // Side by side, a cold run and a median say so.
        QVERIFY2(chart.notes().join('\n').contains(QStringLiteral("measured differently (1 cold run, median of 5)")),
                 qPrintable(chart.notes().join('\n')));
        // 30x apart: the log scale is suggested.
        QVERIFY(chart.logScaleSuggested());

        SpeedStrip strip;
        strip.resize(1000, 300);
        strip.show();
        QVERIFY(QTest::qWaitForWindowExposed(&strip));
        strip.setGroup(chart.board().current());
        QVERIFY(strip.rows().front().text().contains(QStringLiteral("1 cold run")));
        QVERIFY(strip.notes().join('\n').contains(QStringLiteral("measured differently")));
        QVERIFY(strip.notes().join('\n').contains(QStringLiteral("×12 threads and SIMD")));  // ×30 = ×2.5 separable × ×12
        QVERIFY(strip.logScaleOffered());
        QVERIFY(strip.findChild<QCheckBox*>(QStringLiteral("stripLogScale"))->isVisible());
    }

    // One line for what this machine cannot run, from the backends' own reasons.
    void stripNamesUnavailableBackends() {
        BackendChooser chooser;
        fs::ModeInfo missing;
        missing.id = "shared";
        missing.available = false;
        missing.unavailableReason = "no NVIDIA driver found (the CUDA backend needs the NVIDIA driver and a CUDA GPU)";
        fs::ModeInfo cpu;
        cpu.id = "parallel";
        chooser.setChoices({{QStringLiteral("cpu"), QStringLiteral("CPU"), cpu}, {QStringLiteral("cuda"), QStringLiteral("CUDA"), missing}});
        QCOMPARE(chooser.unavailableBackends(), QStringList{QStringLiteral("CUDA: no NVIDIA driver found")});
        SpeedStrip strip;
        strip.setUnavailableBackends(chooser.unavailableBackends());
        QCOMPARE(strip.notes(), QStringList{QStringLiteral("Not on this machine: CUDA: no NVIDIA driver found")});
    }

    void chartTextFollowsItsSizeAndHistoryNamesFilters() {
        TimingChart chart;
        chart.resize(700, 200);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        const double small = chart.labelFont().pointSizeF();
        chart.resize(1400, 640);
        QTest::qWait(20);
        const double large = chart.labelFont().pointSizeF();
        QVERIFY2(large > small, qPrintable(QStringLiteral("%1 -> %2").arg(small).arg(large)));
        chart.setLargeText(true);
        QVERIFY(chart.labelFont().pointSizeF() >= large + 2.0);

        chart.addRun(record("cpu", "parallel", 2.0), gaussianKey(5), ModeRole{false, true, true});
        chart.addRun(record("cpu", "parallel", 9.0), gaussianKey(15), ModeRole{false, true, true});
        chart.addRun(record("cpu", "reference", 90.0), gaussianKey(15), ModeRole{true, false, true});
        QVERIFY(chart.setCurrentTab(QStringLiteral("History")));
        auto* history = qobject_cast<QCustomPlot*>(chart.findChild<QTabWidget*>()->currentWidget());
        QVERIFY(history);
        QCOMPARE(history->graphCount(), 2);  // a line per filter, named in the legend
        QVERIFY2(history->graph(0)->name().startsWith(gaussianKey(5).filterName), qPrintable(history->graph(0)->name()));
        QVERIFY(history->graph(1)->name().startsWith(gaussianKey(15).filterName));
        QCOMPARE(history->graph(1)->dataCount(), 2);
        QVERIFY(history->legend->visible());

        chart.addPipelineRun(QStringLiteral("edges"), record("cpu", "parallel", 3.0),
                             {{QStringLiteral("convolve sobel-x"), record("cpu", "parallel", 3.0)}}, QStringLiteral("512x480 3ch u8"));
        QCOMPARE(chart.pipelineSteps().size(), 1);
        chart.clearPipeline();
        QVERIFY(chart.pipelineSteps().isEmpty());
        QVERIFY(!chart.emptyMessage(QStringLiteral("Steps")).isEmpty());
        QCOMPARE(chart.historyCount(), 4);  // the run stays in the history
    }

    // The first cell edit turns the preset "custom": its rows stay (disabled), so the grid does not move.
    void designerGridStaysPutAtAProjectorsSize() {
        fs::ui::MainWindow window([] { return fs::makeAllBackends(); });
        window.setErrorReporter([](const QString&, const QString&) {});
        window.resize(1024, 708);
        window.applyDefaultLayout();
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTest::qWait(20);
        KernelEditor* editor = window.kernelEditor();
        QVERIFY(editor->applyPresetText(QStringLiteral("gaussian:5:1.2")));
        QTest::qWait(20);
        auto* grid = editor->findChild<QTableWidget*>();
        const QPoint before = grid->mapTo(&window, QPoint(0, 0));
        grid->item(1, 1)->setText(QStringLiteral("0.5"));
        QTest::qWait(20);
        QCOMPARE(editor->presetBoxText(), QStringLiteral("custom"));
        QCOMPARE(grid->mapTo(&window, QPoint(0, 0)), before);
        // Normalize, Undo and Save are on screen without scrolling.
        auto* scroll = qobject_cast<QScrollArea*>(editor->parentWidget()->parentWidget());
        QVERIFY(scroll);
        const QRect viewport = scroll->viewport()->rect();
        QList<QWidget*> buttons;
        for (QAbstractButton* b : editor->findChildren<QAbstractButton*>())
            if (b->text() == QStringLiteral("Normalize") || b->text() == QStringLiteral("Undo") || b->text() == QStringLiteral("Save..."))
                buttons << b;
        QCOMPARE(buttons.size(), 3);
        for (QWidget* b : buttons) {
            const QRect shown(b->mapTo(scroll->viewport(), QPoint(0, 0)), b->size());
            QVERIFY2(viewport.contains(shown), qPrintable(QStringLiteral("%1 at %2,%3 %4x%5, viewport %6x%7")
                                                               .arg(static_cast<QAbstractButton*>(b)->text())
                                                               .arg(shown.x()).arg(shown.y()).arg(shown.width()).arg(shown.height())
                                                               .arg(viewport.width()).arg(viewport.height())));
        }
    }

    void benchmarkKeepsResultsNamesPapersAndFiles() {
        QTemporaryDir dir;
        {
            fs::ui::BenchmarkDialog dialog([] { return fs::makeAllBackends(); });
            dialog.choosePreset(QStringLiteral("course-table1"), true);
            QVERIFY2(dialog.statusText().contains(QStringLiteral("Convolución paralela con GPU")), qPrintable(dialog.statusText()));
            QVERIFY(!dialog.statusText().contains(QStringLiteral(".txt")));
            dialog.configure(QStringLiteral("64x48"), QStringLiteral("3"), {QStringLiteral("cpu/reference"), QStringLiteral("cpu/parallel")}, 1);
            QSignalSpy finished(&dialog, &fs::ui::BenchmarkDialog::finished);
            dialog.start();
            QVERIFY(finished.wait(60000));
            QCOMPARE(dialog.records().size(), 2u);
        }
        // Ctrl+B makes a new dialog: it shows the last run until the next.
        fs::ui::BenchmarkDialog again([] { return fs::makeAllBackends(); });
        again.resize(1000, 760);
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QCOMPARE(again.records().size(), 2u);
        QCOMPARE(again.resultsTable()->rowCount(), 2);
        // The table grows with the dialog and shows at least six rows.
        const int tableBefore = again.resultsTable()->height();
        QVERIFY(tableBefore >= 6 * again.resultsTable()->verticalHeader()->defaultSectionSize());
        again.resize(1000, 1000);
        QTest::qWait(20);
        QVERIFY(again.resultsTable()->height() > tableBefore);

        QSignalSpy exported(&again, &fs::ui::BenchmarkDialog::exported);
        QString why;
        QStringList written;
        QVERIFY2(again.exportPlots(dir.path(), &why, &written), qPrintable(why));
        QCOMPARE(written.size(), 2);
        for (const QString& path : written) QVERIFY2(QFileInfo::exists(path), qPrintable(path));
        const QString heading = fs::ui::benchPlotHeading(again.records(), "benchmark", "custom sweep");
        QVERIFY(heading.contains(QDate::currentDate().toString(Qt::ISODate)));
        QVERIFY(heading.startsWith(QStringLiteral("benchmark: custom sweep\n")));
        if (qEnvironmentVariableIsSet("FS_SCREENSHOTS")) {
            // FS_SCREEN_SIZE=WxH: the dialog as large as on that screen, for the docs' screenshots.
            if (const QStringList size = qEnvironmentVariable("FS_SCREEN_SIZE").split('x'); size.size() == 2) {
                again.resize(std::min(size[0].toInt(), 1200), size[1].toInt() - 60);
                QTest::qWait(50);
            }
            again.grab().save(qEnvironmentVariable("FS_SCREENSHOTS") + QStringLiteral("/benchmark-dialog.png"));
            for (const QString& path : written) QFile::copy(path, qEnvironmentVariable("FS_SCREENSHOTS") + '/' + QFileInfo(path).fileName());
        }
    }

    // A speed-up axis from 30 to 1000 is labelled at 50, 100, 200, 500, 1000: not only at the powers of ten.
    void speedupAxisIsLabelledBelowFifty() {
        std::vector<fs::bench::BenchRecord> records;
        for (const auto& [contender, speedup] : {std::pair{"a", 60.0}, std::pair{"b", 500.0}, std::pair{"base", 1.0}}) {
            fs::bench::BenchRecord r;
            r.contender = contender;
            r.width = 256;
            r.height = 256;
            r.maskSize = 3;
            r.total.present = true;
            r.total.mean = 1.0 / speedup;
            r.speedup = speedup;
            records.push_back(r);
        }
        QCustomPlot plot;
        plot.resize(800, 450);
        fs::ui::drawSpeedupPlot(plot, records, "base");
        auto ticker = plot.yAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticker);
        QStringList labels;
        for (auto it = ticker->ticks().cbegin(); it != ticker->ticks().cend(); ++it) labels << it.value();
        QVERIFY2(labels.contains(QStringLiteral("50")) && labels.contains(QStringLiteral("100")), qPrintable(labels.join(' ')));
    }
};

QTEST_MAIN(TeachingWidgetsTest)
#include "test_teaching_widgets.moc"
