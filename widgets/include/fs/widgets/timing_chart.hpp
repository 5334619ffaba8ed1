#pragma once
#include <QFont>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include "fs/timing.hpp"
#include "fs/widgets/comparison.hpp"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QGridLayout;
class QToolButton;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace fs::widgets {

// Where runs spent their time. Runs are grouped by what they computed (ComparisonBoard: same filter,
// border and image); the Breakdown and Speed-up tabs show one group, so every bar and ratio compares
// like with like. Breakdown: a stacked bar per backend/mode (prep / upload / kernel / download /
// interop), its total and transfer share written on it. Speed-up: each mode against the single-thread
// reference and against the fastest CPU mode of the same group. History: every run's total.
// Pipeline steps: the last pipeline run. Log scale (suggested where bars span more than 20x), PNG and CSV
// export. Text follows the widget's size, one step larger in the Presentation layout (setLargeText).
class TimingChart : public QWidget {
    Q_OBJECT
public:
    struct Entry {
        int run = 0;
        QString imageLabel;  // "868x600 3ch u8"
        TimingRecord timing;
        QString step;  // pipeline runs: "pipeline NAME", then one entry per step; empty for single filters
        QString filter;  // "gaussian:5 (5x5)"; empty for pipeline runs
        QString border;
        int repeats = 1;
        int warmups = 0;
    };
    struct Step {
        QString label;  // "convolve gaussian:5:1.2"
        TimingRecord timing;
    };

    explicit TimingChart(QWidget* parent = nullptr);

    // A filter run of `key` (a median of `repeats` runs after `warmups` untimed ones): joins the key's
    // comparison group, which is then shown.
    void addRun(const TimingRecord& timing, const ComparisonKey& key, const ModeRole& role, int repeats = 1,
                int warmups = 0);
    // A pipeline run: its total (backend/mode as asked, the steps' sum) joins the history,
    // its steps fill the Pipeline steps tab, which is shown.
    void addPipelineRun(const QString& name, const TimingRecord& total, const QVector<Step>& steps, const QString& imageLabel);
    void clear();

    const ComparisonBoard& board() const { return board_; }
    int shownGroupId() const { return shownGroup_; }
    bool showGroup(int id);  // false when there is no such group
    // The shown group, as drawn:
    int barCount() const { return static_cast<int>(categories().size()); }
    QStringList categories() const;   // "cpu/reference", ... one per bar
    QStringList barLabels() const;    // the axis label under each bar: mode, filter, image size, border
    QStringList valueLabels() const;  // the text on each bar: "12.34 ms, median of 5", transfer share
    QVector<Speedup> shownSpeedups() const;
    QFont labelFont() const;  // of the texts above: smaller when the bars are narrow
    QStringList speedupLabels() const;  // the text on each speed-up bar: "12.3x"

    int historyCount() const { return static_cast<int>(history_.size()); }
    QVector<Step> pipelineSteps() const { return pipelineSteps_; }
    QString currentTab() const;
    bool setCurrentTab(const QString& title);
    bool logScale() const;
    int repeats() const;  // runs per mode for "Run every mode"
    void setRepeats(int n);
    // While a sweep runs its button says how far it is and cannot start another.
    void setSweepProgress(int done, int total);  // total 0: no sweep running

    // The message a tab shows while it has nothing to draw; empty once it has data.
    QString emptyMessage(const QString& tabTitle) const;

    bool exportPng(const QString& path, QString* error) const;  // the visible tab
    bool exportCsv(const QString& path, QString* error) const;  // every run

    static QString barLabel(const Measurement& m, bool compact = false);
    static QString valueLabel(const Measurement& m, bool compact = false);

    // Bars of the shown tab spanning more than 20x: the chart then suggests the log scale.
    bool logScaleSuggested() const;
    // The notes on the Breakdown and Speed-up tabs: mixed measurements, the speed-up taken apart.
    QStringList notes() const;
    bool largeText() const { return largeText_; }
    // The controls under the chart in one row (a wide dock) or three (a side column).
    bool controlsInOneRow() const { return oneRow_; }
    QSize minimumSizeHint() const override;

public slots:
    void setLogScale(bool on);
    // Forgets the last pipeline run's steps (the image they ran on is gone); the history keeps its total.
    void clearPipeline();
    // One step larger text, for a projector.
    void setLargeText(bool on);

signals:
    void errorOccurred(const QString& title, const QString& message);
    void runEveryModeRequested();
    // A run was added, the chart cleared or another comparison group shown.
    void measurementsChanged();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    const ComparisonGroup* shown() const { return board_.group(shownGroup_); }
    bool compactLabels() const;
    int oneRowWidth() const;
    void arrangeControls(bool oneRow);
    void rebuildGroupList();
    void replot();
    void drawBreakdown();
    void drawSpeedup();
    void drawStackedBars(QCustomPlot* plot, const QStringList& names, const QVector<TimingRecord>& records,
                         const QString& axisLabel);
    void browseExportPng();
    void browseExportCsv();

    ComparisonBoard board_;
    int shownGroup_ = 0;
    QVector<Entry> history_;
    QVector<Entry> pipelineEntries_;  // every step of every pipeline run (CSV)
    QVector<Step> pipelineSteps_;     // the last pipeline run
    QString pipelineTitle_;
    QTabWidget* tabs_;
    QCustomPlot* breakdown_;
    QCustomPlot* historyPlot_;
    QCustomPlot* speedup_;
    QCustomPlot* pipelinePlot_;
    QCheckBox* logCheck_;
    QComboBox* groupCombo_;
    QSpinBox* repeatsSpin_;
    QPushButton* runAllButton_;
    QToolButton* moreButton_;
    QWidget* groupRow_;
    QGridLayout* controls_;
    bool oneRow_ = true;
    bool relayoutPending_ = false;
    bool largeText_ = false;
};

}  // namespace fs::widgets
