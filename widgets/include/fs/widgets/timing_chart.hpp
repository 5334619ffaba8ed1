#pragma once
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include "fs/timing.hpp"

class QCheckBox;
class QCustomPlot;
class QTabWidget;

namespace fs::widgets {

// Where runs spent their time: a stacked bar per backend/mode for the current
// image (prep / upload / kernel / download / interop), the history of run
// totals, the speedup over the CPU reference, and a stacked bar per step of
// the last pipeline run. Log scale, PNG and CSV export.
class TimingChart : public QWidget {
    Q_OBJECT
public:
    struct Entry {
        int run = 0;
        QString imageLabel;  // "868x600 3ch u8", groups the bars
        TimingRecord timing;
        QString step;  // pipeline runs: "pipeline NAME", then one entry per step; empty for single filters
    };
    struct Step {
        QString label;  // "convolve gaussian:5:1.2"
        TimingRecord timing;
    };

    explicit TimingChart(QWidget* parent = nullptr);

    // A record for another image label starts a fresh set of bars; history stays.
    void addRecord(const TimingRecord& timing, const QString& imageLabel);
    // A pipeline run: its total (backend/mode as asked, the steps' sum) joins the history,
    // its steps fill the Pipeline steps tab, which is shown.
    void addPipelineRun(const QString& name, const TimingRecord& total, const QVector<Step>& steps, const QString& imageLabel);
    void clear();

    int barCount() const { return static_cast<int>(categories_.size()); }  // backend/mode bars shown now
    QStringList categories() const { return categories_; }
    int historyCount() const { return static_cast<int>(history_.size()); }
    QVector<Step> pipelineSteps() const { return pipelineSteps_; }
    QString currentTab() const;
    bool logScale() const;

    bool exportPng(const QString& path, QString* error) const;  // the visible tab
    bool exportCsv(const QString& path, QString* error) const;  // every run

public slots:
    void setLogScale(bool on);

signals:
    void errorOccurred(const QString& title, const QString& message);

private:
    void replot();
    void drawStackedBars(QCustomPlot* plot, const QStringList& names, const QVector<TimingRecord>& records,
                         const QString& axisLabel);
    void browseExportPng();
    void browseExportCsv();

    QVector<Entry> history_;
    QString currentImage_;
    QStringList categories_;           // "cpu/reference", ...
    QVector<TimingRecord> latest_;     // per category, same order
    QVector<Entry> pipelineEntries_;   // every step of every pipeline run (CSV)
    QVector<Step> pipelineSteps_;      // the last pipeline run
    QString pipelineTitle_;
    QTabWidget* tabs_;
    QCustomPlot* breakdown_;
    QCustomPlot* historyPlot_;
    QCustomPlot* speedup_;
    QCustomPlot* pipelinePlot_;
    QCheckBox* logCheck_;
};

}  // namespace fs::widgets
