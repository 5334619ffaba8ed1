// The studio's first start and its GPU feedback, offscreen: fresh settings run the fastest exact mode and
// compare it with the CPU reference; a mode asked for that cannot run here is named in the window; Ctrl+T
// without a GPU to tune says why.
#include <QLabel>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QtTest>

#include "backends.hpp"
#include "fs/widgets/backend_chooser.hpp"
#include "fs/widgets/image_view.hpp"
#include "main_window.hpp"

using fs::ui::MainWindow;

namespace {

const QString kFruits = QStringLiteral(FS_SAMPLES_DIR "/fruits.jpg");

struct Expected {
    QString fastest, reference;
};

// Read from the backends themselves: a usable GPU backend's default mode, else the CPU's default (the
// default of the backend that holds the reference mode).
Expected expectedModes() {
    Expected e;
    QString cpuDefault;
    for (const auto& b : fs::makeAllBackends()) {
        const QString id = QString::fromStdString(b->id());
        const bool usable = b->unavailableReason().empty();
        for (const fs::ModeInfo& m : b->modes()) {
            const QString key = id + '/' + QString::fromStdString(m.id);
            if (m.isReference) e.reference = key;
            if (m.isDefault && usable && m.available && !m.approximate && b->hasLaunchConfig() && e.fastest.isEmpty()) e.fastest = key;
        }
    }
    for (const auto& b : fs::makeAllBackends())
        for (const fs::ModeInfo& m : b->modes())
            if (m.isDefault && QString::fromStdString(b->id()) == e.reference.section('/', 0, 0))
                cpuDefault = QString::fromStdString(b->id()) + '/' + QString::fromStdString(m.id);
    if (e.fastest.isEmpty()) e.fastest = cpuDefault;
    return e;
}

QString statusText(MainWindow& window) {
    QString shown = window.statusBar()->currentMessage() + '\n';
    for (const QLabel* label : window.statusBar()->findChildren<QLabel*>()) shown += label->text() + '\n';
    return shown;
}

}  // namespace

class StartFastTest : public QObject {
    Q_OBJECT

    QStringList errors_;

    std::unique_ptr<MainWindow> makeWindow() {
        auto window = std::make_unique<MainWindow>([] { return fs::makeAllBackends(); });
        window->setErrorReporter([this](const QString& t, const QString& m) { errors_ << t + ": " + m; });
        window->resize(1024, 768);
        window->show();
        return QTest::qWaitForWindowExposed(window.get()) ? std::move(window) : nullptr;
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_start_fast"));
    }

    void init() {
        QSettings().clear();
        errors_.clear();
    }

    void freshSettingsRunTheFastestExactModeAgainstTheReference() {
        const Expected expected = expectedModes();
        QVERIFY(!expected.fastest.isEmpty() && !expected.reference.isEmpty());
        QVERIFY(expected.fastest != expected.reference);
        auto window = makeWindow();
        QVERIFY(window);
        QCOMPARE(window->backendChooser()->currentKey(), expected.fastest);
        QCOMPARE(window->backendChooser()->compareKey(), expected.reference);
        QVERIFY(window->openImage(kFruits));
        QTRY_VERIFY_WITH_TIMEOUT(window->lastOutcome() && window->lastOutcome()->result.ok(), 10000);
        QCOMPARE(window->lastOutcome()->request.backend + '/' + window->lastOutcome()->request.mode, expected.fastest);
        // Difference shows something from the start: the run is compared with the reference.
        window->imageView()->setDisplayMode(fs::widgets::ImageView::DisplayMode::Difference);
        const quint64 before = window->lastOutcome()->generation;
        window->runNow();
        QTRY_VERIFY_WITH_TIMEOUT(window->lastOutcome()->generation > before && window->lastOutcome()->compare, 10000);
        QVERIFY(window->lastOutcome()->compare->ok());
        QCOMPARE(window->lastOutcome()->request.compareBackend + '/' + window->lastOutcome()->request.compareMode,
                 expected.reference);
        QVERIFY(errors_.isEmpty());
    }

    void aSavedModeIsKept() {
        QSettings().setValue(QStringLiteral("run/mode"), expectedModes().reference);
        auto window = makeWindow();
        QVERIFY(window);
        QCOMPARE(window->backendChooser()->currentKey(), expectedModes().reference);
    }

    void anUnavailableModeIsNamedInTheWindow() {
        auto window = makeWindow();
        QVERIFY(window);
        const QString asked = QStringLiteral("cuda/no-such-mode");
        QVERIFY(!window->selectMode(asked));
        window->noteUnavailableMode(asked);
        QString tips;
        for (const QLabel* label : window->statusBar()->findChildren<QLabel*>()) tips += label->toolTip() + '\n';
        QVERIFY2(statusText(*window).contains(asked), qPrintable(statusText(*window)));
        QVERIFY2(tips.contains(asked) && tips.contains(window->backendChooser()->currentKey()), qPrintable(tips));
        // One notice, which does not block.
        QTRY_COMPARE(window->findChildren<QMessageBox*>().size(), 1);
        QVERIFY(window->findChildren<QMessageBox*>().front()->text().contains(asked));
    }

    void autotuneWithoutAGpuSaysWhy() {
        auto window = makeWindow();
        QVERIFY(window);
        QVERIFY(window->selectMode(expectedModes().reference));  // a CPU mode: nothing to tune
        window->autotune();
        const QString shown = statusText(*window);
        QVERIFY2(shown.contains(QStringLiteral("Autotune cannot run: ")), qPrintable(shown));
    }
};

QTEST_MAIN(StartFastTest)
#include "test_start_fast.moc"
