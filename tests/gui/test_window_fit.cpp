// The studio's window on the screen it starts on (run on screens of 1024x768, 1366x768 and 1920x1080,
// offscreen and under Xvfb): a first start fits the screen, title bar and frame included; a layout saved
// on a screen of another size is not restored, nor one that no longer fits; this screen's own is.
#include <QDockWidget>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

#include "backends.hpp"
#include "main_window.hpp"
#include "window_layout.hpp"

using fs::ui::MainWindow;
using fs::ui::WindowLayout;

namespace {

QRect room() { return QGuiApplication::primaryScreen()->availableGeometry(); }

QString describe(const QRect& r) { return QStringLiteral("%1x%2+%3+%4").arg(r.width()).arg(r.height()).arg(r.x()).arg(r.y()); }

}  // namespace

class WindowFitTest : public QObject {
    Q_OBJECT

    std::unique_ptr<MainWindow> start() {
        auto window = std::make_unique<MainWindow>([] { return fs::makeAllBackends(); });
        window->setErrorReporter([](const QString& t, const QString& m) { qWarning("%s: %s", qPrintable(t), qPrintable(m)); });
        window->show();
        if (!QTest::qWaitForWindowExposed(window.get())) return nullptr;
        QTest::qWait(200);  // the frame is known and the window fitted to it
        return window;
    }

    static void verifyFits(MainWindow& window) {
        QVERIFY2(room().contains(window.frameGeometry()),
                 qPrintable(QStringLiteral("frame %1 on a screen of %2").arg(describe(window.frameGeometry()), describe(room()))));
    }

    // The timings sit where the default layout puts them for this window's height.
    static void verifyDefaultTimings(MainWindow& window) {
        auto* chart = window.findChild<QDockWidget*>(QStringLiteral("chartDock"));
        QVERIFY(chart);
        const bool compact = window.height() < WindowLayout::kTimingsBelowMinHeight;
        QCOMPARE(window.dockWidgetArea(chart), compact ? Qt::RightDockWidgetArea : Qt::BottomDockWidgetArea);
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_window_fit"));
        if (room().width() < 1024 || room().height() < 700)
            QSKIP("a virtual screen smaller than any projector (the offscreen platform's default): nothing to fit");
        qInfo("screen %s", qPrintable(describe(room())));
    }

    void init() { QSettings().clear(); }

    void aFirstStartFitsTheScreen() {
        auto window = start();
        QVERIFY(window);
        verifyFits(*window);
        verifyDefaultTimings(*window);
        QVERIFY(window->width() >= std::min(1024, room().width()) - 40);  // and uses it
    }

    void aLayoutSavedOnAnotherScreenIsNotRestored() {
        {
            // As saved on a large monitor: a big window with the timings docked left.
            MainWindow other([] { return fs::makeAllBackends(); });
            other.resize(room().width() + 600, room().height() + 400);
            other.addDockWidget(Qt::LeftDockWidgetArea, other.findChild<QDockWidget*>(QStringLiteral("chartDock")));
            QSettings settings;
            const QString group = WindowLayout::settingsGroup(QSize(room().width() + 640, room().height() + 480));
            settings.setValue(group + QStringLiteral("/geometry"), other.saveGeometry());
            settings.setValue(group + QStringLiteral("/state"), other.saveState(2));
            // The unkeyed layout older versions saved: it cannot say for which screen it was made.
            settings.setValue(QStringLiteral("window/geometry"), other.saveGeometry());
            settings.setValue(QStringLiteral("window/state"), other.saveState(2));
        }
        auto window = start();
        QVERIFY(window);
        verifyFits(*window);
        verifyDefaultTimings(*window);
    }

    void aLayoutThatNoLongerFitsIsDropped() {
        {
            MainWindow other([] { return fs::makeAllBackends(); });
            other.setGeometry(QRect(room().topLeft() + QPoint(100, 80), room().size() + QSize(500, 300)));
            QSettings settings;
            settings.setValue(WindowLayout::settingsGroup(room().size()) + QStringLiteral("/geometry"), other.saveGeometry());
        }
        auto window = start();
        QVERIFY(window);
        verifyFits(*window);
    }

    void thisScreensLayoutIsRestored() {
        {
            auto first = start();
            QVERIFY(first);
            first->addDockWidget(Qt::LeftDockWidgetArea, first->findChild<QDockWidget*>(QStringLiteral("chartDock")));
            first->close();  // saves the layout for this screen
        }
        auto window = start();
        QVERIFY(window);
        verifyFits(*window);
        QCOMPARE(window->dockWidgetArea(window->findChild<QDockWidget*>(QStringLiteral("chartDock"))), Qt::LeftDockWidgetArea);
    }
};

QTEST_MAIN(WindowFitTest)
#include "test_window_fit.moc"
