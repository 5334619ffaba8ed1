#include "run_status.hpp"

#include <QAction>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QTimer>

namespace fs::ui {

RunStatus::RunStatus(QStatusBar* bar, QWidget* window, std::function<Now()> now, QObject* parent)
    : QObject(parent), now_(std::move(now)) {
    progress_ = new QProgressBar;
    progress_->setObjectName(QStringLiteral("runProgress"));
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(180);
    progress_->setTextVisible(true);
    progress_->hide();
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setObjectName(QStringLiteral("cancelRun"));
    cancel_->setToolTip(tr("Stop the run in progress (Esc)"));
    cancel_->hide();
    bar->addPermanentWidget(progress_);
    bar->addPermanentWidget(cancel_);
    // Enabled only while something runs, so Escape keeps its other uses when nothing does.
    escape_ = new QAction(tr("Cancel run"), this);
    escape_->setShortcut(QKeySequence(Qt::Key_Escape));
    escape_->setShortcutContext(Qt::WindowShortcut);
    escape_->setEnabled(false);
    window->addAction(escape_);
    timer_ = new QTimer(this);
    timer_->setInterval(100);
    connect(timer_, &QTimer::timeout, this, &RunStatus::refresh);
    connect(cancel_, &QPushButton::clicked, this, &RunStatus::cancelRequested);
    connect(escape_, &QAction::triggered, this, &RunStatus::cancelRequested);
}

void RunStatus::watch() {
    escape_->setEnabled(true);
    if (!timer_->isActive()) timer_->start();
}

void RunStatus::refresh() {
    const Now now = now_();
    escape_->setEnabled(now.running);
    cancel_->setVisible(now.running && now.seconds >= kCancelAfterSeconds);
    const bool showProgress = now.running && now.seconds >= kProgressAfterSeconds;
    if (showProgress) {
        // A run that cannot tell how far it is gets a busy bar.
        if (now.progress < 0.0) progress_->setRange(0, 0);
        else {
            progress_->setRange(0, 1000);
            progress_->setValue(static_cast<int>(now.progress * 1000.0));
        }
    }
    progress_->setVisible(showProgress);
    if (!now.running && !now.mayStart) timer_->stop();
}

}  // namespace fs::ui
