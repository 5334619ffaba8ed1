#pragma once
#include <QDialog>
#include <QFuture>
#include <QString>
#include <QStringList>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "bench_presets.hpp"
#include "fs/backend.hpp"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableWidget;

namespace fs::ui {

// Sweeps image sizes x mask sizes x chosen modes on seeded random images, or
// runs a preset that rebuilds a paper's table (services/bench_presets.hpp),
// off the GUI thread, with progress and cancel. Results as a table (upload,
// kernel, download, total with mean and standard deviation, speed-up, GB/s,
// GFLOP/s) and two plots (time and speed-up vs size), exportable as CSV and PNG.
// The last run's results outlive the dialog: a dialog opened again shows them until the next run.
class BenchmarkDialog : public QDialog {
    Q_OBJECT
public:
    using BackendFactory = std::function<std::vector<std::unique_ptr<Backend>>()>;

    explicit BenchmarkDialog(BackendFactory factory, QWidget* parent = nullptr);
    ~BenchmarkDialog() override;

    // For tests and scripted use: configure, start and read back.
    void configure(const QString& sizes, const QString& kernels, const QStringList& modes, int repeats);
    // Picks a preset ("" for the custom sweep); `quick` as `bench --preset NAME --quick`.
    void choosePreset(const QString& name, bool quick);
    void start();
    void cancel();
    bool running() const { return running_; }
    const std::vector<bench::BenchRecord>& records() const { return records_; }
    bool exportCsv(const QString& path, QString* error) const;
    // DIR/NAME-time.png and DIR/NAME-speedup.png (NAME: the preset, or "benchmark"), titled with the
    // preset, the machine and the date; `written` gets their paths.
    bool exportPlots(const QString& dir, QString* error, QStringList* written = nullptr) const;
    QString statusText() const;
    QTableWidget* resultsTable() const { return table_; }
    QCustomPlot* timePlot() const { return timePlot_; }
    QCustomPlot* speedupPlot() const { return speedupPlot_; }

signals:
    void finished();
    void errorOccurred(const QString& title, const QString& message);
    // A CSV or the plots were written: the paths, also shown under the buttons.
    void exported(const QStringList& paths);

private:
    // The preset picked, or the custom sweep built from the form; empty error when runnable.
    bool buildPreset(bench::BenchPreset& out, QString& why) const;
    void addRecord(const bench::BenchRecord& record);
    void replot();
    void done(const QString& message);
    void refreshBaselines();
    void confirmExport(const QStringList& paths);
    void keepResults() const;     // into the store the next dialog starts from
    void restoreResults();

    BackendFactory factory_;
    std::vector<std::unique_ptr<Backend>> backends_;  // used by the worker only while running
    QComboBox* presetCombo_;
    QCheckBox* quickCheck_;
    QLineEdit* sizesEdit_;
    QLineEdit* kernelsEdit_;
    QComboBox* kernelType_;
    QComboBox* channelsCombo_;
    QComboBox* depthCombo_;
    QComboBox* borderCombo_;
    QSpinBox* warmupSpin_;
    QSpinBox* repeatsSpin_;
    QComboBox* baselineCombo_;
    QCheckBox* pinnedCheck_;
    QComboBox* transfersCombo_;  // Transfers, by value
    QSpinBox* budgetSpin_;
    QListWidget* modeList_;
    QPushButton* runButton_;
    QPushButton* cancelButton_;
    QProgressBar* progress_;
    QLabel* statusLabel_;
    QTableWidget* table_;
    QTabWidget* plots_;
    QCustomPlot* timePlot_;
    QCustomPlot* speedupPlot_;
    std::vector<bench::BenchRecord> records_;
    std::string runName_ = "benchmark";
    std::string runTitle_ = "custom sweep";
    std::string baseline_;
    QFuture<void> future_;
    std::atomic<bool> cancel_{false};
    bool running_ = false;
};

}  // namespace fs::ui
