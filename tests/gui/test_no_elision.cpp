// No text cut short on a classroom screen: the main window at 1024x768, 1366x768 and 1920x1080 (less a
// title bar and a task bar), in the working layout with each dock raised in turn and in Presentation.
// Every visible label, button and tab must have the width its text needs; a word-wrapped label the
// height its lines need and the width of its longest word.
#include <QAbstractButton>
#include <QCheckBox>
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStyle>
#include <QStyleOptionButton>
#include <QTabBar>
#include <QTextDocument>
#include <QToolButton>
#include <QtTest>

#include "backends.hpp"
#include "main_window.hpp"

using fs::ui::MainWindow;

namespace {

const QString kFruits = QStringLiteral(FS_SAMPLES_DIR "/fruits.jpg");

// A screen less a title bar (about 30 pixels) and a task bar (about 30).
QSize windowFor(QSize screen) { return {screen.width(), screen.height() - 60}; }

QString shownText(QString text) {
    text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QLatin1Char('\x01'), QLatin1Char('&'));
    return text;
}

QString where(const QWidget* w) {
    QStringList path;
    for (const QWidget* p = w; p; p = p->parentWidget()) {
        if (const auto* dock = qobject_cast<const QDockWidget*>(p)) {
            path.prepend(QStringLiteral("dock '%1'").arg(dock->windowTitle()));
            break;
        }
        if (!p->objectName().isEmpty()) path.prepend(p->objectName());
    }
    return path.join(QStringLiteral(" > "));
}

int widestLine(const QFontMetrics& fm, const QString& text) {
    int widest = 0;
    for (const QString& line : text.split(QLatin1Char('\n'))) widest = std::max(widest, fm.horizontalAdvance(line));
    return widest;
}

// Width the label's text needs on one line, and its longest word (for wrapped labels).
void labelNeeds(const QLabel* label, int& line, int& word) {
    const QFontMetrics fm(label->font());
    QString plain = label->text();
    const bool rich = label->textFormat() == Qt::RichText ||
                      (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(label->text()));
    if (rich) {
        QTextDocument doc;
        doc.setDefaultFont(label->font());
        doc.setDocumentMargin(0);
        doc.setHtml(label->text());
        line = static_cast<int>(std::ceil(doc.idealWidth()));
        plain = doc.toPlainText();
    } else {
        line = widestLine(fm, plain);
    }
    word = 0;
    for (const QString& w : plain.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts))
        word = std::max(word, fm.horizontalAdvance(w));
}

QStringList cutTexts(QWidget* root) {
    QStringList out;
    for (QWidget* w : root->findChildren<QWidget*>()) {
        // A tabbed dock that is not raised stays "visible", parked outside the window: nothing of it shows.
        if (!w->isVisible() || w->width() <= 0 || w->height() <= 0 || w->visibleRegion().isEmpty()) continue;
        if (auto* label = qobject_cast<QLabel*>(w)) {
            if (label->text().isEmpty()) continue;
            int line = 0, word = 0;
            labelNeeds(label, line, word);
            const int indent = label->indent() > 0 ? label->indent()
                               : label->frameWidth() > 0 ? QFontMetrics(label->font()).horizontalAdvance(QLatin1Char('x')) / 2
                                                         : 0;
            const int room = label->contentsRect().width() - 2 * label->margin() - indent;
            if (!label->wordWrap()) {
                if (line > room + 1)
                    out << QStringLiteral("label '%1' needs %2 px, has %3 (%4)").arg(label->text().left(60)).arg(line).arg(room).arg(where(label));
            } else {
                const int height = label->heightForWidth(label->width());
                if (word > room + 1)
                    out << QStringLiteral("wrapped label '%1': a word needs %2 px, has %3 (%4)")
                               .arg(label->text().left(60)).arg(word).arg(room).arg(where(label));
                else if (height > label->height() + 2)
                    out << QStringLiteral("wrapped label '%1' needs %2 px of height, has %3 (%4)")
                               .arg(label->text().left(60)).arg(height).arg(label->height()).arg(where(label));
            }
        } else if (auto* button = qobject_cast<QAbstractButton*>(w)) {
            const QString text = shownText(button->text());
            if (text.isEmpty()) continue;
            if (auto* tool = qobject_cast<QToolButton*>(button)) {
                if (tool->toolButtonStyle() == Qt::ToolButtonIconOnly && !tool->icon().isNull()) continue;
                if (tool->width() + 1 < tool->sizeHint().width())
                    out << QStringLiteral("tool button '%1' needs %2 px, has %3 (%4)")
                               .arg(text).arg(tool->sizeHint().width()).arg(tool->width()).arg(where(tool));
                continue;
            }
            QStyleOptionButton option;
            option.initFrom(button);
            option.text = button->text();
            const QStyle::SubElement contents = qobject_cast<QCheckBox*>(button)      ? QStyle::SE_CheckBoxContents
                                                : qobject_cast<QRadioButton*>(button) ? QStyle::SE_RadioButtonContents
                                                                                      : QStyle::SE_PushButtonContents;
            const QRect rect = button->style()->subElementRect(contents, &option, button);
            const int icon = button->icon().isNull() ? 0 : button->iconSize().width() + 4;
            const int needs = QFontMetrics(button->font()).horizontalAdvance(text) + icon;
            if (needs > rect.width() + 1)
                out << QStringLiteral("button '%1' needs %2 px, has %3 (%4)").arg(text).arg(needs).arg(rect.width()).arg(where(button));
        } else if (auto* bar = qobject_cast<QTabBar*>(w)) {
            const int space = bar->style()->pixelMetric(QStyle::PM_TabBarTabHSpace, nullptr, bar);
            for (int i = 0; i < bar->count(); ++i) {
                const QString text = shownText(bar->tabText(i));
                if (text.isEmpty()) continue;
                const QRect tab = bar->tabRect(i);
                const int icon = bar->tabIcon(i).isNull() ? 0 : bar->iconSize().width() + 4;
                const int needs = QFontMetrics(bar->font()).horizontalAdvance(text) + space + icon;
                const bool horizontal = bar->shape() == QTabBar::RoundedNorth || bar->shape() == QTabBar::RoundedSouth ||
                                        bar->shape() == QTabBar::TriangularNorth || bar->shape() == QTabBar::TriangularSouth;
                const int has = horizontal ? tab.width() : tab.height();
                const int extent = horizontal ? bar->width() : bar->height();
                if (needs > has + 1)
                    out << QStringLiteral("tab '%1' needs %2 px, has %3 (%4)").arg(text).arg(needs).arg(has).arg(where(bar));
                else if ((horizontal ? tab.right() : tab.bottom()) >= extent)
                    out << QStringLiteral("tab '%1' is behind the tab bar's scroll buttons (%2)").arg(text, where(bar));
            }
        }
    }
    return out;
}

}  // namespace

class NoElisionTest : public QObject {
    Q_OBJECT

    QStringList errors_;

    std::unique_ptr<MainWindow> makeWindow(QSize size) {
        auto window = std::make_unique<MainWindow>([] { return fs::makeAllBackends(); });
        window->setErrorReporter([this](const QString& t, const QString& m) { errors_ << t + ": " + m; });
        window->resize(size);
        window->applyDefaultLayout();
        window->show();
        if (!QTest::qWaitForWindowExposed(window.get())) return nullptr;
        QTest::qWait(20);
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

    // Every text of the window as it is now, then with each dock raised (a tabbed dock shows only then).
    static QStringList cutTextsOfEveryDock(MainWindow& window, const QString& shotSuffix) {
        QStringList cut = cutTexts(&window);
        for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
            if (dock->isHidden()) continue;
            dock->raise();
            // A dock shown for the first time lays its children out over the next few events.
            QTest::qWait(60);
            cut << cutTexts(dock);
            if (qEnvironmentVariableIsSet("FS_SCREENSHOTS"))
                dock->grab().save(QStringLiteral("%1/%2-%3.png").arg(qEnvironmentVariable("FS_SCREENSHOTS"), dock->objectName(), shotSuffix));
        }
        cut.removeDuplicates();
        return cut;
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_no_elision"));
    }

    void init() { errors_.clear(); }

    void nothingIsCut_data() {
        QTest::addColumn<QSize>("screen");
        QTest::addColumn<bool>("presentation");
        for (const QSize screen : {QSize(1024, 768), QSize(1366, 768), QSize(1920, 1080)})
            for (const bool presentation : {false, true})
                QTest::newRow(qPrintable(QStringLiteral("%1x%2%3").arg(screen.width()).arg(screen.height())
                                             .arg(presentation ? QStringLiteral(" presentation") : QString())))
                    << screen << presentation;
    }
    void nothingIsCut() {
        QFETCH(QSize, screen);
        QFETCH(bool, presentation);
        auto window = makeWindow(windowFor(screen));
        QVERIFY(window);
        QVERIFY(window->openImage(kFruits));
        QVERIFY(runAndWait(*window));
        if (presentation) window->setPresentation(true);
        QTest::qWait(100);  // the result's charts and labels settle their layouts
        const QString suffix = QStringLiteral("%1x%2").arg(screen.width()).arg(screen.height());
        const QStringList cut = presentation ? cutTexts(window.get()) : cutTextsOfEveryDock(*window, suffix);
        if (qEnvironmentVariableIsSet("FS_SCREENSHOTS"))
            window->grab().save(QStringLiteral("%1/window-%2x%3%4.png")
                                    .arg(qEnvironmentVariable("FS_SCREENSHOTS"))
                                    .arg(screen.width())
                                    .arg(screen.height())
                                    .arg(presentation ? QStringLiteral("-presentation") : QString()));
        QVERIFY2(cut.isEmpty(), qPrintable(QStringLiteral("\n  ") + cut.join(QStringLiteral("\n  "))));
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
    }
};

QTEST_MAIN(NoElisionTest)
#include "test_no_elision.moc"
