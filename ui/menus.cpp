#include "menus.hpp"

#include <QActionGroup>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QMenuBar>
#include <QUndoStack>

#include "help_menu.hpp"
#include "main_window.hpp"
#include "video_controller.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "fs/widgets/pipeline_editor.hpp"

namespace fs::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("Menus", text); }

// Bundled JSON examples under `dir`, each loaded by `load` (the designer or the pipeline editor).
template <typename Load>
void addExamples(MainWindow& window, QMenu* menu, const QString& dir, const QString& failure, Load load) {
    for (const QString& name : QDir(dir).entryList(QDir::Files, QDir::Name))
        menu->addAction(QFileInfo(name).completeBaseName(), &window, [&window, dir, name, failure, load] {
            QFile f(dir + QLatin1Char('/') + name);
            QString why;
            if (!f.open(QIODevice::ReadOnly)) why = f.errorString();
            else load(f.readAll(), &why);
            if (!why.isEmpty()) window.showError(failure, why);
        });
}

}  // namespace

QMenu* buildMenus(MainWindow& w, QActionGroup* displayModes, QAction* presentation) {
    widgets::KernelEditor* editor = w.kernelEditor();
    QMenu* file = w.menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open..."), QKeySequence::Open, &w, &MainWindow::openDialog);
    file->addAction(w.video()->openAction());
    QMenu* cameras = file->addMenu(tr("&Camera"));
    QObject::connect(cameras, &QMenu::aboutToShow, w.video(), [&w, cameras] { w.video()->fillCameraMenu(cameras); });
    file->addAction(w.video()->stillAction());
    QMenu* recent = file->addMenu(tr("Open &recent"));
    QMenu* samples = file->addMenu(tr("Open &sample"));
    for (const QString& name : QDir(QStringLiteral(":/samples")).entryList(QDir::Files, QDir::Name))
        samples->addAction(name, &w, [&w, name] { w.openSample(QStringLiteral(":/samples/") + name); });
    addExamples(w, file->addMenu(tr("Open &kernel example")), QStringLiteral(":/kernels"), tr("Cannot load kernel example"),
                [editor](const QByteArray& json, QString* why) { editor->loadJson(json, why); });
    file->addSeparator();
    file->addAction(tr("&Save result..."), QKeySequence::Save, &w, [&w] { w.saveDialog(false); });
    file->addAction(tr("Save result as &8-bit..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), &w, [&w] { w.saveDialog(true); });
    file->addAction(tr("&Copy result"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), &w, &MainWindow::copyResultToClipboard);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, &w, &QWidget::close);

    QMenu* edit = w.menuBar()->addMenu(tr("&Edit"));
    QAction* undo = editor->undoStack()->createUndoAction(&w, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = editor->undoStack()->createRedoAction(&w, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addAction(tr("&Normalize kernel"), QKeySequence(Qt::CTRL | Qt::Key_N), editor, &widgets::KernelEditor::normalize);

    QMenu* view = w.menuBar()->addMenu(tr("&View"));
    view->addActions(displayModes->actions());
    view->addSeparator();
    view->addAction(presentation);
    view->addAction(w.video()->raceAction());
    view->addAction(tr("&Default layout"), &w, [&w] {
        w.setPresentation(false);
        w.applyDefaultLayout();
    })->setToolTip(tr("Put every panel back where it starts, sized for this window"));
    view->addSeparator();
    for (QDockWidget* dock : w.findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());

    QMenu* tools = w.menuBar()->addMenu(tr("&Tools"));
    tools->addAction(tr("&Run now"), QKeySequence(Qt::Key_F5), &w, &MainWindow::runNow);
    tools->addAction(tr("Run &every mode"), QKeySequence(Qt::SHIFT | Qt::Key_F5), &w, &MainWindow::runEveryMode);
    tools->addAction(tr("Run &pipeline"), QKeySequence(Qt::CTRL | Qt::Key_R), &w, &MainWindow::runPipeline);
    widgets::PipelineEditor* pipelines = w.pipelineEditor();
    addExamples(w, tools->addMenu(tr("Open pipeline e&xample")), QStringLiteral(":/pipelines"), tr("Cannot load pipeline example"),
                [pipelines](const QByteArray& json, QString* why) { pipelines->loadJson(json, why); });
    tools->addAction(tr("&Autotune launch"), QKeySequence(Qt::CTRL | Qt::Key_T), &w, &MainWindow::autotune);
    tools->addSeparator();
    tools->addAction(tr("&Benchmark / compare..."), QKeySequence(Qt::CTRL | Qt::Key_B), &w, &MainWindow::showBenchmark);
    tools->addAction(tr("B&atch: images x kernels..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B), &w, &MainWindow::showBatch);

    fillHelpMenu(w, w.menuBar()->addMenu(tr("&Help")));
    return recent;
}

}  // namespace fs::ui
