// Help > Lessons, User guide and Keyboard shortcuts, offscreen: each lesson of docs/teaching.md runs end
// to end here (its CPU part runs; GPU modes this machine lacks are named with what they would show).
#include <QAction>
#include <QDialog>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTextBrowser>
#include <QtTest>

#include <algorithm>

#include "backends.hpp"
#include "fs/widgets/backend_chooser.hpp"
#include "fs/widgets/timing_chart.hpp"
#include "help_menu.hpp"
#include "lessons.hpp"
#include "main_window.hpp"

using fs::ui::LessonPlayer;

namespace {
// FS_SCREENSHOTS=DIR keeps what the lessons drew.
void keep(QWidget* widget, const QString& name) {
    if (const QString dir = qEnvironmentVariable("FS_SCREENSHOTS"); !dir.isEmpty()) widget->grab().save(dir + '/' + name + ".png");
}
}  // namespace
using fs::ui::MainWindow;

class LessonsTest : public QObject {
    Q_OBJECT

    QStringList errors_;
    std::unique_ptr<MainWindow> window_;

    QAction* helpAction(const QString& text) {
        for (QAction* menu : window_->menuBar()->actions())
            if (menu->text() == QStringLiteral("&Help"))
                for (QAction* a : menu->menu()->actions())
                    if (a->text() == text) return a;
        return nullptr;
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_lessons"));
        QSettings().clear();
        window_ = std::make_unique<MainWindow>([] { return fs::makeAllBackends(); });
        window_->setErrorReporter([this](const QString& t, const QString& m) { errors_ << t + ": " + m; });
        // FS_SCREEN_SIZE=WxH: the window of that screen for the docs' screenshots (default 1366x768).
        const QStringList size = qEnvironmentVariable("FS_SCREEN_SIZE", QStringLiteral("1366x768")).split('x');
        window_->resize(size.value(0).toInt(), size.value(1).toInt());
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    }

    void cleanupTestCase() { window_.reset(); }

    void eachLessonRunsEndToEnd_data() {
        QTest::addColumn<int>("index");
        for (int i = 0; i < fs::ui::lessons().size(); ++i)
            QTest::newRow(qPrintable(fs::ui::lessons()[i].title)) << i;
    }
    void eachLessonRunsEndToEnd() {
        QFETCH(int, index);
        errors_.clear();
        const fs::ui::Lesson& lesson = fs::ui::lessons()[index];
        LessonPlayer* player = fs::ui::lessonPlayer(*window_);
        QSignalSpy finished(player, &LessonPlayer::stepFinished);
        player->start(index);
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60000);
        QCOMPARE(finished.front().front().toInt(), index);
        QVERIFY(player->isVisible());
        // Every mode ran or is named as missing here; a pipeline lesson ran its pipeline.
        QCOMPARE(player->ran().size() + player->skipped().size(), lesson.modes.size() + (lesson.pipeline.isEmpty() ? 0 : 1));
        QVERIFY2(!player->ran().isEmpty(), "the CPU part runs everywhere");
        for (const QString& key : player->skipped()) {
            QVERIFY(!window_->backendChooser()->isAvailable(key));
            QVERIFY2(player->text().contains(key) && player->text().contains(lesson.gpu), qPrintable(player->text()));
        }
        // Each mode ran on the host path (a live GPU frame keeps no outcome and draws no bar),
        // so its bar is in Timings beside the others.
        const auto outcome = window_->lastOutcome();
        QVERIFY(outcome);
        QVERIFY2(outcome->result.ok(), qPrintable(QString::fromStdString(outcome->result.error)));
        if (lesson.pipeline.isEmpty())
            QCOMPARE(outcome->request.backend + '/' + outcome->request.mode, player->ran().back());
        else
            QVERIFY(outcome->request.pipeline);
        // A bar is named by its mode, then the launch where it took one: "cuda/global [32x8 / 1x1]".
        const QStringList bars = window_->timingChart()->categories();
        for (const QString& key : player->ran()) {
            if (key == QStringLiteral("pipeline")) continue;
            const bool charted = std::any_of(bars.begin(), bars.end(), [&](const QString& bar) {
                return bar == key || bar.startsWith(key + QStringLiteral(" ["));
            });
            QVERIFY2(charted, qPrintable(key + " has no bar: " + bars.join(", ")));
        }
        QVERIFY(player->text().contains(lesson.look));
        QTest::qWait(100);  // the chart and the view repaint
        keep(window_.get(), QStringLiteral("lesson-%1-window").arg(index + 1));
        keep(player, QStringLiteral("lesson-%1-step").arg(index + 1));
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
    }

    void userGuideShowsTheReadmesUseSection() {
        QAction* guide = helpAction(QStringLiteral("&User guide"));
        QVERIFY(guide);
        guide->trigger();
        auto* dialog = window_->findChild<QDialog*>(QStringLiteral("userGuide"));
        QVERIFY(dialog && dialog->isVisible());
        const QString text = dialog->findChild<QTextBrowser*>()->toPlainText();
        QVERIFY2(text.startsWith(QStringLiteral("Use")) && text.contains(QStringLiteral("filterstudio")), qPrintable(text.left(200)));
        dialog->close();
    }

    void shortcutsListTheWindowsActions() {
        QAction* keys = helpAction(QStringLiteral("&Keyboard shortcuts"));
        QVERIFY(keys);
        keys->trigger();
        auto* dialog = window_->findChild<QDialog*>(QStringLiteral("shortcuts"));
        QVERIFY(dialog);
        auto* table = dialog->findChild<QTableWidget*>(QStringLiteral("shortcutTable"));
        QVERIFY(table && table->rowCount() > 10);
        QStringList rows;
        for (int r = 0; r < table->rowCount(); ++r) rows << table->item(r, 0)->text() + ' ' + table->item(r, 1)->text();
        for (const QString& expected : {QStringLiteral("F5 Run now"), QStringLiteral("Esc Cancel run"), QStringLiteral("F11 Presentation")})
            QVERIFY2(rows.contains(expected), qPrintable(rows.join('\n')));
        dialog->close();
    }
};

QTEST_MAIN(LessonsTest)
#include "test_lessons.moc"
