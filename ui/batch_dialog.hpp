#pragma once
#include <QDialog>
#include <QFuture>
#include <QString>
#include <QStringList>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "batch_job.hpp"
#include "fs/backend.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;

namespace fs::ui {

// `filterstudio-cli batch` as a dialog: input folders, patterns and files x
// presets and kernel files, into an output folder with a backend and mode,
// an extension and overwrite. Runs fs::batch (services/) off the GUI
// thread with progress and Cancel, lists every file that failed, and sums up
// images/s and MPix/s. Its backends are its own, as the benchmark dialog's.
class BatchDialog : public QDialog {
    Q_OBJECT
public:
    using BackendFactory = std::function<std::vector<std::unique_ptr<Backend>>()>;

    explicit BatchDialog(BackendFactory factory, QWidget* parent = nullptr);
    ~BatchDialog() override;

    // Scripted use and tests; the widgets show the same.
    void setInputs(const QStringList& inputs);
    QStringList inputs() const;
    bool addPreset(const QString& text, QString* error = nullptr);
    bool addKernelFile(const QString& path, QString* error = nullptr);
    void addKernel(const QString& name, const FilterSpec& spec);
    int kernelCount() const { return static_cast<int>(kernels_.size()); }
    void setOutputDir(const QString& dir);
    bool selectMode(const QString& key);  // "cpu/parallel"
    void setExtension(const QString& extension);  // "png"; empty: each input's own
    void setOverwrite(bool on);
    // Where "Add designer kernel" takes its kernel from (the studio's current filter).
    void setDesignerKernelSource(std::function<FilterSpec()> source);

    // False when the options are refused (statusText() says why); nothing is written then.
    bool start();
    // N:M:M: the inputs (files, one per bank input, in order) through the kernel
    // bank at `bankPath` with the chosen backend's layer runner; with the
    // one-at-a-time box ticked, also timed as N x M separate runs. Same refusals as start().
    bool startLayer(const QString& bankPath);
    void cancel();
    bool running() const { return running_; }
    const batch::Summary& summary() const { return summary_; }
    QStringList problems() const;  // the failed-files list, one line each
    QString summaryText() const;
    QString statusText() const;

    // Tests: called on the worker inside the progress callback, before Cancel is looked at.
    void setWorkerProgressHookForTesting(std::function<void(const batch::Progress&)> hook) { hook_ = std::move(hook); }

signals:
    void progressed(int done, int total);
    void finished();

protected:
    void closeEvent(QCloseEvent* e) override;

private:
    batch::Options options() const;
    void showProgress(int done, int total, const QString& file);
    void addFailure(const batch::FileResult& file);
    void done(const batch::Summary& summary);
    void setStatus(const QString& text, bool problem);
    void refreshButtons();

    BackendFactory factory_;
    std::vector<std::unique_ptr<Backend>> backends_;  // used by the worker only while running
    std::vector<batch::Kernel> kernels_;
    std::function<FilterSpec()> designerKernel_;
    std::function<void(const batch::Progress&)> hook_;
    batch::Summary summary_;
    QFuture<void> future_;
    std::atomic<bool> cancel_{false};
    bool running_ = false;

    QListWidget* inputList_;
    QLineEdit* patternEdit_;
    QListWidget* kernelList_;
    QComboBox* presetCombo_;
    QPushButton* designerButton_;
    QLineEdit* outDirEdit_;
    QComboBox* modeCombo_;
    QComboBox* extensionCombo_;
    QCheckBox* overwriteCheck_;
    QCheckBox* oneAtATimeCheck_;
    QPushButton* runButton_;
    QPushButton* layerButton_;
    QPushButton* cancelButton_;
    QProgressBar* progress_;
    QLabel* currentLabel_;
    QLabel* statusLabel_;
    QListWidget* failureList_;
    QLabel* summaryLabel_;
};

}  // namespace fs::ui
