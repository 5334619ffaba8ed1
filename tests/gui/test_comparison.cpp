// The timing chart's grouping model: which runs may be compared, and the speed-ups it allows.
#include <QtTest>

#include "fs/presets.hpp"
#include "fs/widgets/comparison.hpp"

using fs::widgets::ComparisonBoard;
using fs::widgets::ComparisonKey;
using fs::widgets::Measurement;
using fs::widgets::ModeRole;
using fs::widgets::Speedup;

namespace {

fs::FilterSpec preset(const char* text) {
    fs::FilterSpec spec;
    std::string why;
    if (!fs::makePreset(text, spec, &why)) qFatal("preset %s: %s", text, why.c_str());
    return spec;
}

ComparisonKey keyOf(const fs::FilterSpec& spec, int w = 512, int h = 480, int channels = 3, fs::Depth depth = fs::Depth::U8,
                    const QString& image = QStringLiteral("1")) {
    return ComparisonKey::of(spec, w, h, channels, depth, image, QStringLiteral("fruits.jpg"));
}

Measurement bar(const QString& mode, double totalMs, ModeRole role = {}) {
    Measurement m;
    m.mode = mode;
    m.timing.backend = mode.section('/', 0, 0).toStdString();
    m.timing.mode = mode.section('/', 1).toStdString();
    m.timing.kernelMs = totalMs * 0.9;
    m.timing.totalMs = totalMs;
    m.role = role;
    return m;
}

ModeRole reference() { return {true, false, true}; }
ModeRole cpu(bool isDefault = false) { return {false, isDefault, true}; }
ModeRole gpu() { return {false, true, false}; }

}  // namespace

class ComparisonTest : public QObject {
    Q_OBJECT

private slots:
    void sameFilterAndImageShareAGroupAndAModeKeepsOneBar() {
        ComparisonBoard board;
        const ComparisonKey g3 = keyOf(preset("gaussian:3"));
        const int id = board.add(g3, bar("cpu/reference", 10.0, reference()));
        QCOMPARE(board.add(g3, bar("cpu/parallel", 2.0, cpu(true))), id);
        QCOMPARE(board.add(g3, bar("cpu/parallel", 1.5, cpu(true))), id);  // measured again: replaces its bar
        QCOMPARE(board.groups().size(), 1);
        QCOMPARE(board.current()->bars.size(), 2);
        QCOMPARE(board.current()->bars[1].totalMs(), 1.5);
        QVERIFY(board.current()->bars[1].key == g3);
    }

    void everyChangeOfWhatRanStartsAGroup_data() {
        QTest::addColumn<int>("change");
        QTest::newRow("kernel size") << 0;
        QTest::newRow("kernel weights") << 1;
        QTest::newRow("border mode") << 2;
        QTest::newRow("constant border value") << 3;
        QTest::newRow("input depth") << 4;
        QTest::newRow("float output") << 5;
        QTest::newRow("image size") << 6;
        QTest::newRow("channels") << 7;
        QTest::newRow("another image of the same shape") << 8;
        QTest::newRow("output scale") << 9;
    }

    void everyChangeOfWhatRanStartsAGroup() {
        QFETCH(int, change);
        fs::FilterSpec spec = preset("gaussian:3");
        spec.border.mode = fs::BorderMode::Constant;
        spec.border.value = 0.0f;
        const ComparisonKey before = keyOf(spec);
        fs::FilterSpec changed = spec;
        int w = 512, h = 480, channels = 3;
        fs::Depth depth = fs::Depth::U8;
        QString image = QStringLiteral("1");
        switch (change) {
        case 0:
            changed = preset("gaussian:15");
            changed.border = spec.border;
            break;
        case 1: changed.kernels[0].weights[4] += 0.001f; break;
        case 2: changed.border.mode = fs::BorderMode::Replicate; break;
        case 3: changed.border.value = 255.0f; break;
        case 4: depth = fs::Depth::F32; break;
        case 5: changed.output.floatOutput = true; break;
        case 6: w = 511; break;
        case 7: channels = 1; break;
        case 8: image = QStringLiteral("2"); break;
        case 9: changed.output.scale = 2.0f; break;
        }
        const ComparisonKey after = keyOf(changed, w, h, channels, depth, image);
        QVERIFY(before != after);

        ComparisonBoard board;
        const int first = board.add(before, bar("cpu/reference", 10.0, reference()));
        board.add(before, bar("cpu/parallel", 2.0, cpu(true)));
        const int second = board.add(after, bar("cpu/parallel", 3.0, cpu(true)));
        QVERIFY(second != first);
        QCOMPARE(board.groups().size(), 2);
        QCOMPARE(board.currentId(), second);
        QCOMPARE(board.current()->bars.size(), 1);  // the earlier group's bars stay there
        QCOMPARE(board.group(first)->bars.size(), 2);
        // Nothing of the first group is divided by the second's time, or the other way round.
        for (const auto& g : board.groups())
            for (const Speedup& s : ComparisonBoard::speedups(g)) {
                QVERIFY(s.key == g.key);
                QVERIFY(s.baselineKey == g.key);
            }
        QVERIFY(ComparisonBoard::reference(*board.current()) == nullptr);
    }

    void aNameIsNotWhatRanButTheWeightsAre() {
        fs::FilterSpec a = preset("gaussian:5");
        fs::FilterSpec b = a;
        b.name = "custom";
        QVERIFY(keyOf(a) == keyOf(b));
        // A non-constant border ignores its unused value.
        b.border.value = 7.0f;
        QVERIFY(keyOf(a) == keyOf(b));
    }

    void goingBackJoinsTheEarlierGroup() {
        ComparisonBoard board;
        const ComparisonKey g3 = keyOf(preset("gaussian:3")), g15 = keyOf(preset("gaussian:15"));
        const int first = board.add(g3, bar("cpu/reference", 10.0, reference()));
        board.add(g15, bar("cpu/reference", 90.0, reference()));
        QCOMPARE(board.add(g3, bar("cpu/parallel", 2.0, cpu())), first);
        QCOMPARE(board.groups().size(), 2);
        QCOMPARE(board.current()->bars.size(), 2);
    }

    void labelsSayWhatRan() {
        fs::FilterSpec spec = preset("gaussian:15");
        spec.border.mode = fs::BorderMode::Constant;
        spec.border.value = 12.5f;
        const ComparisonKey key = keyOf(spec);
        QCOMPARE(key.filterName, QStringLiteral("gaussian:15 (15x15)"));
        QCOMPARE(key.borderName, QStringLiteral("constant 12.5"));
        QCOMPARE(key.imageLabel(), QStringLiteral("512x480 3ch u8"));
        QCOMPARE(key.title(), QStringLiteral("gaussian:15 (15x15) on fruits.jpg 512x480 3ch u8, border constant 12.5"));
        QCOMPARE(keyOf(preset("sobel-mag:3")).filterName, QStringLiteral("sobel-mag:3 (2 x 3x3)"));
    }

    void speedupsUseBothBaselinesOfTheGroup() {
        ComparisonBoard board;
        const ComparisonKey key = keyOf(preset("gaussian:15"));
        board.add(key, bar("cpu/reference", 100.0, reference()));
        board.add(key, bar("cpu/parallel", 10.0, cpu(true)));
        board.add(key, bar("cpu/other", 8.0, cpu()));
        board.add(key, bar("cuda/auto", 0.5, gpu()));  // fastest overall, but no CPU mode
        const auto& g = *board.current();
        QCOMPARE(ComparisonBoard::reference(g)->mode, QStringLiteral("cpu/reference"));
        QCOMPARE(ComparisonBoard::fastestCpu(g)->mode, QStringLiteral("cpu/other"));
        const QVector<Speedup> all = ComparisonBoard::speedups(g);
        QCOMPARE(all.size(), 8);  // four bars, two baselines
        for (const Speedup& s : all) {
            const bool vsReference = s.baseline == Speedup::Baseline::Reference;
            QCOMPARE(s.baselineMode, vsReference ? QStringLiteral("cpu/reference") : QStringLiteral("cpu/other"));
            QCOMPARE(s.value, s.baselineMs / s.ms);
            if (s.mode == QStringLiteral("cuda/auto")) QCOMPARE(s.value, vsReference ? 200.0 : 16.0);
            if (s.mode == s.baselineMode) QCOMPARE(s.value, 1.0);
        }
    }

    void noReferenceMeansNoReferenceRatio() {
        ComparisonBoard board;
        const ComparisonKey key = keyOf(preset("box:5"));
        board.add(key, bar("cuda/auto", 0.5, gpu()));
        QVERIFY(ComparisonBoard::speedups(*board.current()).isEmpty());
        board.add(key, bar("cpu/parallel", 4.0, cpu(true)));
        const QVector<Speedup> s = ComparisonBoard::speedups(*board.current());
        QCOMPARE(s.size(), 2);
        for (const Speedup& r : s) QVERIFY(r.baseline == Speedup::Baseline::FastestCpu);
    }

    void transferShareAndOldestGroupsGoFirst() {
        Measurement m = bar("cuda/tiled", 10.0, gpu());
        m.timing.uploadMs = 0.012;
        m.timing.downloadMs = 0.008;
        QCOMPARE(m.transferMs(), 0.02);

        ComparisonBoard board(2);
        const int a = board.add(keyOf(preset("box:3")), bar("cpu/parallel", 1.0, cpu()));
        board.add(keyOf(preset("box:5")), bar("cpu/parallel", 1.0, cpu()));
        board.add(keyOf(preset("box:7")), bar("cpu/parallel", 1.0, cpu()));
        QCOMPARE(board.groups().size(), 2);
        QVERIFY(board.group(a) == nullptr);
        board.clear();
        QVERIFY(board.groups().isEmpty() && !board.current());
    }
};

QTEST_GUILESS_MAIN(ComparisonTest)
#include "test_comparison.moc"
