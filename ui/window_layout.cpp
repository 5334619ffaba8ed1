#include "window_layout.hpp"

#include <QDockWidget>
#include <QGuiApplication>
#include <QMainWindow>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QVBoxLayout>
#include <QWindow>
#include <algorithm>

namespace fs::ui {

namespace {
const QString kGeometry = QStringLiteral("/geometry");
const QString kState = QStringLiteral("/state");
}  // namespace

WindowLayout::WindowLayout(Parts parts, QObject* parent) : QObject(parent), parts_(parts) {}

QString WindowLayout::settingsGroup(QSize available) {
    return QStringLiteral("layout/%1x%2").arg(available.width()).arg(available.height());
}

QSize WindowLayout::room() const {
    const QScreen* screen = parts_.window->screen() ? parts_.window->screen() : QGuiApplication::primaryScreen();
    return screen ? screen->availableGeometry().size() : QSize();
}

void WindowLayout::addDock(const QString& title, const char* name, QWidget* content) {
    auto* scroll = new QScrollArea;
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* dock = new QDockWidget(title, parts_.window);
    dock->setObjectName(QString::fromLatin1(name));
    dock->setWidget(scroll);
}

void WindowLayout::addDocks(const Docks& docks) {
    auto* backend = new QWidget;
    auto* column = new QVBoxLayout(backend);
    for (QWidget* part : docks.backendParts) column->addWidget(part);
    column->addStretch(1);
    addDock(tr("Kernel designer"), "kernelDock", docks.designer);
    addDock(tr("Pipeline"), "pipelineDock", docks.pipeline);
    addDock(tr("Backend"), "backendDock", backend);  // short titles: four tabs share a narrow column
    addDock(tr("Inspector"), "inspectorDock", docks.inspector);
    addDock(tr("Timings"), "chartDock", docks.timings);
    addDock(tr("Launch"), "launchDock", docks.launch);  // a short dock scrolls instead of squeezing the chart
}

void WindowLayout::applyDefault() {
    QMainWindow* w = parts_.window;
    const auto dock = [w](const char* name) { return w->findChild<QDockWidget*>(QString::fromLatin1(name)); };
    QDockWidget* kernelDock = dock("kernelDock");
    QDockWidget* pipelineDock = dock("pipelineDock");
    QDockWidget* backendDock = dock("backendDock");
    QDockWidget* inspectorDock = dock("inspectorDock");
    QDockWidget* chartDock = dock("chartDock");
    QDockWidget* launchDock = dock("launchDock");
    // The right column stops above the timings, which take the full width: wide bars carry shorter labels.
    w->setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    w->setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
    // From scratch: a split beside a dock that is already tabbed would only add another tab.
    for (QDockWidget* d : w->findChildren<QDockWidget*>()) {
        w->removeDockWidget(d);
        d->setFloating(false);
    }
    w->addDockWidget(Qt::RightDockWidgetArea, kernelDock);
    w->splitDockWidget(kernelDock, backendDock, Qt::Vertical);
    w->tabifyDockWidget(kernelDock, pipelineDock);
    w->tabifyDockWidget(backendDock, inspectorDock);
    w->tabifyDockWidget(backendDock, launchDock);  // GPU only, and wide: it scrolls there rather than take height
    // A short window has no room for a chart under the image: the timings join the right column's tabs
    // (and the Presentation layout shows them large).
    const bool compact = w->height() < kTimingsBelowMinHeight;
    if (compact) w->tabifyDockWidget(backendDock, chartDock);
    else w->addDockWidget(Qt::BottomDockWidgetArea, chartDock);
    for (QDockWidget* d : w->findChildren<QDockWidget*>()) d->show();
    kernelDock->raise();
    backendDock->raise();
    // The column's controls need about 350 pixels; a wide window gives it a share, up to 440.
    const int width = w->width(), height = w->height();
    w->resizeDocks({kernelDock}, {std::clamp(width * 23 / 100, width < 1200 ? 350 : 320, 440)}, Qt::Horizontal);
    w->resizeDocks({kernelDock, backendDock}, {height * 55 / 100, height * 45 / 100}, Qt::Vertical);
    if (!compact) w->resizeDocks({chartDock}, {std::clamp(height * 25 / 100, 210, 320)}, Qt::Vertical);
}

void WindowLayout::setPresentation(bool on) {
    if (on == presentation_) return;
    presentation_ = on;
    QMainWindow* w = parts_.window;
    if (on) {
        workingState_ = w->saveState(kLayoutVersion);
        for (QDockWidget* d : w->findChildren<QDockWidget*>()) d->hide();
        w->statusBar()->hide();
        parts_.strip->show();
        // Larger words on the view's bar and caption, for the back of the room.
        QFont large = w->font();
        large.setPointSizeF(large.pointSizeF() * 1.35);
        parts_.viewBar->setFont(large);
        parts_.view->setFont(large);
        const int h = parts_.centreSplit->height();
        parts_.centreSplit->setSizes({h * 7 / 10, h * 3 / 10});
    } else {
        parts_.strip->hide();
        for (QWidget* widget : {static_cast<QWidget*>(parts_.viewBar), parts_.view}) {
            widget->setFont(QFont());
            widget->setAttribute(Qt::WA_SetFont, false);
        }
        w->statusBar()->show();
        w->restoreState(workingState_, kLayoutVersion);
    }
}

void WindowLayout::restore(const QSettings& settings) {
    QMainWindow* w = parts_.window;
    const QSize available = room();
    const QString group = settingsGroup(available);
    // A layout saved on a screen of another size is not this screen's: each size keeps its own.
    if (available.isValid() && w->restoreGeometry(settings.value(group + kGeometry).toByteArray())) {
        const QRect screen = w->screen() ? w->screen()->availableGeometry() : QRect(QPoint(), available);
        if (screen.contains(w->frameGeometry())) {
            applyDefault();
            w->restoreState(settings.value(group + kState).toByteArray(), kLayoutVersion);
            return;
        }
    }
    // A smaller real screen gets the window at its size, less an estimate of its frame (the real one is
    // known once shown: fitShownWindow). A virtual one smaller than any projector (the offscreen
    // platform's 800x600) does not.
    const bool realScreen = available.width() >= 1024 && available.height() >= 700;
    if (realScreen) {
        const int title = w->style()->pixelMetric(QStyle::PM_TitleBarHeight), edge = 2 * w->style()->pixelMetric(QStyle::PM_DefaultFrameWidth);
        w->resize(std::min(1400, available.width() - edge), std::min(900, available.height() - title - edge));
        if (const QScreen* s = w->screen()) w->move(s->availableGeometry().topLeft());
        chosenSize_ = w->size();
    } else {
        w->resize(1400, 900);
    }
    applyDefault();
}

void WindowLayout::fitShownWindow() {
    QMainWindow* w = parts_.window;
    if (!chosenSize_.isValid() || w->size() != chosenSize_ || !w->screen()) return;
    const QRect screen = w->screen()->availableGeometry();
    const QRect frame = w->frameGeometry();
    if (screen.contains(frame)) return;
    const QSize extra = frame.size() - w->size();
    const QSize fitted(std::min(w->width(), screen.width() - extra.width()), std::min(w->height(), screen.height() - extra.height()));
    w->resize(fitted.expandedTo(w->minimumSize()));
    w->move(screen.topLeft());
    chosenSize_ = w->size();
    applyDefault();
}

void WindowLayout::save(QSettings& settings) const {
    const QString group = settingsGroup(room());
    settings.setValue(group + kGeometry, parts_.window->saveGeometry());
    // The next start opens in the working layout, not in the presentation.
    settings.setValue(group + kState, presentation_ ? workingState_ : parts_.window->saveState(kLayoutVersion));
    // Layouts saved before they were kept per screen cannot say for which screen they were made.
    settings.remove(QStringLiteral("window/geometry"));
    settings.remove(QStringLiteral("window/state"));
}

}  // namespace fs::ui
