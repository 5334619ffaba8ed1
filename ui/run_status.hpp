#pragma once
// The status bar's part for work in flight: a Cancel button (and Escape) for any run, shown once a run
// takes longer than a blink, and a progress bar once it takes longer than a second.
#include <QObject>
#include <functional>

class QAction;
class QProgressBar;
class QPushButton;
class QStatusBar;
class QTimer;
class QWidget;

namespace fs::ui {

class RunStatus : public QObject {
    Q_OBJECT
public:
    struct Now {
        bool running = false;
        double seconds = 0.0;    // since the work started
        double progress = -1.0;  // 0..1, or below 0 when the work cannot tell
        bool mayStart = false;   // work can start unannounced (a dialog's own Start): keep looking
    };
    static constexpr double kCancelAfterSeconds = 0.3;
    static constexpr double kProgressAfterSeconds = 1.0;

    // `now` is asked a few times a second; `window` gets the Escape shortcut.
    RunStatus(QStatusBar* bar, QWidget* window, std::function<Now()> now, QObject* parent = nullptr);

    QPushButton* cancelButton() const { return cancel_; }
    QProgressBar* progressBar() const { return progress_; }
    QAction* cancelAction() const { return escape_; }
    void refresh();  // reads `now` at once (the timer does so while work runs)
    void watch();    // work has started: follow it until it ends

signals:
    void cancelRequested();

private:
    std::function<Now()> now_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    QAction* escape_;
    QTimer* timer_;
};

}  // namespace fs::ui
