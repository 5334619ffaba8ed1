// The Benchmark dialog's paper presets: a quick preset runs with progress and
// gives every row (skipped backends named), speed-ups against the preset's
// baseline, CSV and both PNG plots; Cancel stops mid-way; and the plots stay
// readable at the dialog's default size (legend outside the data, one colour
// per contender, ticks at the tested sizes). FS_SCREENSHOT_DIR=DIR keeps a
// screenshot of the dialog for looking at.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>
#include <set>

#include "backends.hpp"
#include "benchmark_dialog.hpp"

using fs::ui::BenchmarkDialog;

class BenchmarkPresetsTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    static void checkReadable(QCustomPlot* plot, int expectedTicks) {
        // Every contender entry in the legend has its own colour.
        std::set<QRgb> colours;
        int contenderEntries = 0;
        for (int i = 0; i < plot->graphCount(); ++i) {
            QCPGraph* g = plot->graph(i);
            if (!plot->legend->hasItemWithPlottable(g) || g->pen().color() == QColor(Qt::darkGray)) continue;
            ++contenderEntries;
            colours.insert(g->pen().color().rgb());
        }
        QVERIFY(contenderEntries > 0);
        QCOMPARE(static_cast<int>(colours.size()), contenderEntries);
        // The legend sits beside the axes, never over the data.
        QVERIFY(!plot->legend->outerRect().intersects(plot->axisRect()->outerRect()));
        auto ticker = plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticker);
        QCOMPARE(ticker->ticks().size(), expectedTicks);
    }

private slots:
    void quickPresetGivesEveryRowCsvAndPlots() {
        BenchmarkDialog dialog([] { return fs::makeAllBackends(); });
        dialog.show();
        dialog.choosePreset(QStringLiteral("course-table1"), true);
        QSignalSpy finished(&dialog, &BenchmarkDialog::finished);
        dialog.start();
        QVERIFY(dialog.running());
        QVERIFY(finished.wait(110000));
        // 3 sizes x 3 masks x 5 contenders, run or skipped with the reason.
        QCOMPARE(dialog.records().size(), 45u);
        int timed = 0;
        for (const auto& r : dialog.records()) {
            if (!r.ok()) {
                QVERIFY2(r.skipped, r.error.c_str());
                continue;
            }
            ++timed;
            QVERIFY(r.total.present && r.total.mean > 0);
            QVERIFY(r.gflops && *r.gflops > 0);
            QCOMPARE(r.channels, 3);
            if (r.contender == "sequential") QCOMPARE(*r.speedup, 1.0);
            else if (r.backend == "cpu") QVERIFY(r.speedup.has_value());
        }
        QVERIFY(timed >= 18);  // the two CPU contenders at least
        checkReadable(dialog.timePlot(), 3);
        checkReadable(dialog.speedupPlot(), 3);

        const QString csv = dir_.filePath(QStringLiteral("course.csv"));
        QString why;
        QVERIFY2(dialog.exportCsv(csv, &why), qPrintable(why));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QCOMPARE(text.count('\n'), 46);
        QVERIFY(text.startsWith("preset,contender,backend,mode"));
        QVERIFY(text.contains("upload_mean_ms") && text.contains("device,driver,error"));
        QVERIFY(dialog.exportPlots(dir_.path(), &why));
        for (const char* name : {"course-table1-time.png", "course-table1-speedup.png"}) {
            const QImage png(dir_.filePath(QString::fromLatin1(name)));
            QVERIFY2(!png.isNull(), name);
            QVERIFY(png.width() >= 800);
        }
        if (const QByteArray shots = qgetenv("FS_SCREENSHOT_DIR"); !shots.isEmpty())
            dialog.grab().save(QDir(QString::fromLocal8Bit(shots)).filePath(QStringLiteral("benchmark-dialog.png")));
    }

    void cancelStopsAPresetMidway() {
        BenchmarkDialog dialog([] { return fs::makeAllBackends(); });
        dialog.choosePreset(QStringLiteral("thesis-widths"), true);
        QSignalSpy finished(&dialog, &BenchmarkDialog::finished);
        dialog.start();
        dialog.cancel();
        QVERIFY(finished.wait(60000));
        QVERIFY(!dialog.running());
        QVERIFY(dialog.records().size() < 56u);  // 8 widths x 7 contenders when run to the end
    }

    void customSweepTakesNonSquareSizesAndABaseline() {
        BenchmarkDialog dialog([] { return fs::makeAllBackends(); });
        dialog.configure(QStringLiteral("96x40, 128x60"), QStringLiteral("3"),
                         {QStringLiteral("cpu/reference"), QStringLiteral("cpu/parallel")}, 2);
        QSignalSpy finished(&dialog, &BenchmarkDialog::finished);
        dialog.start();
        QVERIFY(finished.wait(60000));
        QCOMPARE(dialog.records().size(), 4u);
        QCOMPARE(dialog.records()[0].width, 96);
        QCOMPARE(dialog.records()[0].height, 40);
        for (const auto& r : dialog.records()) QVERIFY2(r.speedup.has_value(), r.contender.c_str());
    }
};

QTEST_MAIN(BenchmarkPresetsTest)
#include "test_benchmark_presets.moc"
