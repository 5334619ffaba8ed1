#pragma once
#include <QDialog>
#include <QFuture>
#include <QString>
#include <QVector>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "fs/backend.hpp"

class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace fs::ui {

// Sweeps image sizes x kernel sizes x chosen modes on random images (seed
// shown), off the GUI thread, with progress and cancel; results as a table and
// a log-log chart, exportable as CSV.
class BenchmarkDialog : public QDialog {
    Q_OBJECT
public:
    using BackendFactory = std::function<std::vector<std::unique_ptr<Backend>>()>;
    struct Row {
        int size = 0;
        int kernel = 0;
        QString mode;  // "cpu/parallel"
        double medianMs = 0.0;
        double kernelMs = -1.0;  // -1: not reported
        QString error;
    };

    explicit BenchmarkDialog(BackendFactory factory, QWidget* parent = nullptr);
    ~BenchmarkDialog() override;

    // For tests and scripted use: configure, start and read back.
    void configure(const QString& sizes, const QString& kernels, const QStringList& modes, int repeats);
    void start();
    void cancel();
    bool running() const { return running_; }
    QVector<Row> rows() const { return rows_; }
    bool exportCsv(const QString& path, QString* error) const;

signals:
    void finished();
    void errorOccurred(const QString& title, const QString& message);

private:
    void addRow(const Row& row);
    void replot();
    void done(const QString& message);

    BackendFactory factory_;
    std::vector<std::unique_ptr<Backend>> backends_;  // used by the worker only while running
    QLineEdit* sizesEdit_;
    QLineEdit* kernelsEdit_;
    QComboBox* kernelType_;
    QComboBox* channelsCombo_;
    QComboBox* depthCombo_;
    QSpinBox* repeatsSpin_;
    QListWidget* modeList_;
    QPushButton* runButton_;
    QPushButton* cancelButton_;
    QProgressBar* progress_;
    QLabel* statusLabel_;
    QTableWidget* table_;
    QCustomPlot* plot_;
    QVector<Row> rows_;
    QFuture<void> future_;
    std::atomic<bool> cancel_{false};
    bool running_ = false;
};

}  // namespace fs::ui
