#include "help_menu.hpp"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QHeaderView>
#include <QMenu>
#include <QMessageBox>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "lessons.hpp"
#include "main_window.hpp"

// The README lives in fs_ui, a static library: register it explicitly.
static void initHelpResources() { Q_INIT_RESOURCE(help); }

namespace fs::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("Help", text); }

// The README's "## Use" section, up to the next section; the whole README if it has none.
QString userGuide() {
    initHelpResources();
    QFile file(QStringLiteral(":/help/README.md"));
    if (!file.open(QIODevice::ReadOnly)) return tr("The README is not part of this build.");
    const QString readme = QString::fromUtf8(file.readAll());
    const qsizetype start = readme.indexOf(QStringLiteral("\n## Use"));
    if (start < 0) return readme;
    const qsizetype end = readme.indexOf(QStringLiteral("\n## "), start + 1);
    return readme.mid(start + 1, end < 0 ? -1 : end - start - 1);
}

QDialog* textDialog(MainWindow& window, const QString& title, const char* name, QWidget* content) {
    auto* dialog = new QDialog(&window);
    dialog->setObjectName(QString::fromLatin1(name));
    dialog->setWindowTitle(title);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(content);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    layout->addWidget(buttons);
    dialog->resize(720, 560);
    dialog->show();
    return dialog;
}

void showUserGuide(MainWindow& window) {
    auto* text = new QTextBrowser;
    text->setOpenExternalLinks(true);
    text->setMarkdown(userGuide());
    textDialog(window, tr("User guide"), "userGuide", text);
}

// Every action of the window with a shortcut: menus, the view bar, Escape.
void showShortcuts(MainWindow& window) {
    auto* table = new QTableWidget(0, 2);
    table->setObjectName(QStringLiteral("shortcutTable"));
    table->setHorizontalHeaderLabels({tr("Keys"), tr("Does")});
    table->horizontalHeader()->setStretchLastSection(true);
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    QStringList seen;
    for (QAction* action : window.findChildren<QAction*>()) {
        const QString keys = action->shortcut().toString(QKeySequence::NativeText);
        const QString what = action->text().remove(QLatin1Char('&'));
        if (keys.isEmpty() || what.isEmpty() || seen.contains(keys + what)) continue;
        seen << keys + what;
        const int row = table->rowCount();
        table->insertRow(row);
        table->setItem(row, 0, new QTableWidgetItem(keys));
        table->setItem(row, 1, new QTableWidgetItem(what));
    }
    table->sortItems(1);
    table->resizeColumnToContents(0);
    textDialog(window, tr("Keyboard shortcuts"), "shortcuts", table);
}

}  // namespace

LessonPlayer* lessonPlayer(MainWindow& window) {
    auto* player = window.findChild<LessonPlayer*>();
    return player ? player : new LessonPlayer(&window);
}

void fillHelpMenu(MainWindow& w, QMenu* help) {
    QMenu* lessonsMenu = help->addMenu(tr("&Lessons"));
    for (int i = 0; i < lessons().size(); ++i)
        lessonsMenu->addAction(tr("%1. %2").arg(i + 1).arg(lessons()[i].title), &w, [&w, i] { lessonPlayer(w)->start(i); });
    help->addAction(tr("&User guide"), &w, [&w] { showUserGuide(w); });
    help->addAction(tr("&Keyboard shortcuts"), &w, [&w] { showShortcuts(w); });
    help->addSeparator();
    help->addAction(tr("&About"), &w, [&w] {
        QMessageBox::about(&w, tr("About FilterStudio"),
                           tr("<b>FilterStudio %1</b><br>Convolution filters on CPU and CUDA, side by side.<br>"
                              "Qt %2, QCustomPlot, OpenCV.")
                               .arg(QApplication::applicationVersion(), QString::fromLatin1(qVersion())));
    });
}

}  // namespace fs::ui
