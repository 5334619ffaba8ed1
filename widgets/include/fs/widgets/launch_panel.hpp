#pragma once
#include <QString>
#include <QWidget>

#include "fs/launch.hpp"

class QCheckBox;
class QComboBox;
class QBoxLayout;
class QCustomPlot;
class QGroupBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace fs::widgets {

// The GPU launch configuration as a teaching knob: block shape, outputs per
// thread, halo loading and radius path; what the device makes of it (grid,
// occupancy and its limiter, registers, shared memory, or why it is refused);
// autotuning with progress and cancel, and a chart of every candidate's
// kernel time. Signals and setters only: the owner asks the backend.
class LaunchPanel : public QWidget {
    Q_OBJECT
public:
    explicit LaunchPanel(QWidget* parent = nullptr);

    LaunchConfig config() const;
    // Selects the knobs (shapes not listed are added); no configChanged signal.
    void setConfig(const LaunchConfig& config);

    // Non-empty: the panel is disabled and says why (a CPU backend, no device).
    void setDisabledReason(const QString& reason);
    QString disabledReason() const { return disabledReason_; }
    void setReport(const LaunchReport& report);
    QString reportText() const;  // what the report area shows, plain text
    bool reportRefused() const { return refused_; }

    void setTuning(bool running);
    void setTuneProgress(int done, int total);
    void setTuneResult(const TuneResult& result);
    const TuneResult& tuneResult() const { return tune_; }
    // The CUDA transfer lessons, process-wide: serial (whole image, then filter,
    // then download) or overlapped pieces, a device-memory budget in MB (0: the
    // engine's own) that sends larger images through strips, and pinned
    // (page-locked) host memory for the image instead of pageable.
    bool serialTransfers() const;
    bool pinnedHostMemory() const;
    int deviceBudgetMB() const;
    void setMessage(const QString& message);  // one line under the tuning buttons
    QString message() const;

    // For tests: the candidates charted, the best and the default among them.
    int chartedCandidates() const { return charted_; }
    QString bestCandidate() const { return bestLabel_; }
    QString defaultCandidate() const { return defaultLabel_; }
    QCustomPlot* tuneChart() const { return plot_; }
    // Side by side where the width allows (a bottom dock), else one above the other (the side column).
    bool columnsSideBySide() const;
    QSize minimumSizeHint() const override;

public slots:
    void useBest();  // the tuned best becomes the configuration (configChanged)

signals:
    void configChanged(const fs::LaunchConfig& config);
    void autotuneRequested();
    void cancelTuneRequested();
    void resetTuningRequested();
    void transfersChanged(bool serial, int deviceBudgetMB, bool pinned);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    int sideBySideWidth() const;
    void refreshEnabled();
    void replot();

    QString disabledReason_;
    TuneResult tune_;
    bool tuning_ = false;
    bool refused_ = false;
    int charted_ = 0;
    QString bestLabel_, defaultLabel_;

    QBoxLayout* columns_;
    QWidget* left_;
    QLabel* disabledLabel_;
    QGroupBox* knobs_;
    QComboBox* blockCombo_;
    QComboBox* perThreadCombo_;
    QComboBox* haloCombo_;
    QComboBox* radiusCombo_;
    QComboBox* layoutCombo_;
    QCheckBox* serialCheck_;
    QCheckBox* pinnedCheck_;
    QSpinBox* budgetSpin_;
    QPushButton* defaultsButton_;
    QLabel* report_;
    QPushButton* tuneButton_;
    QPushButton* cancelButton_;
    QPushButton* useBestButton_;
    QPushButton* resetButton_;
    QProgressBar* progress_;
    QLabel* message_;
    QCustomPlot* plot_;
};

}  // namespace fs::widgets

Q_DECLARE_METATYPE(fs::LaunchConfig)
