#pragma once
#include <QString>
#include <QWidget>
#include <functional>
#include <optional>
#include <vector>

#include "fs/pipeline.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace fs::widgets {

// A Pipeline as an ordered list the user edits: convolutions (presets or the
// kernel designer's current kernel) and point operations, each step's inputs,
// id and parameters, JSON load/save. Knows nothing of backends: the owner runs
// what pipeline() returns (runRequested) and hands the step reports back.
class PipelineEditor : public QWidget {
    Q_OBJECT
public:
    explicit PipelineEditor(QWidget* parent = nullptr);

    Pipeline pipeline() const { return pipeline_; }
    void setPipeline(const Pipeline& pipeline);
    int stepCount() const { return static_cast<int>(pipeline_.steps.size()); }
    int currentStep() const;
    void selectStep(int index);
    // Why the pipeline cannot run as it stands (validatePipeline), empty when it can.
    QString problem() const;

    // New steps go after the selected one (at the end when none is selected).
    void addStep(const PipelineStep& step);
    void addConvolution(const FilterSpec& spec);
    bool addPreset(const QString& text, QString* error = nullptr);
    // Magnitude reads the two latest convolutions (ids given to them when missing).
    void addPointOperation(StepOp op);
    void removeStep(int index);
    bool moveStep(int from, int to);
    void setStep(int index, const PipelineStep& step);

    bool loadFile(const QString& path, QString* error);
    bool loadJson(const QByteArray& text, QString* error);  // pipeline file contents
    bool saveFile(const QString& path, QString* error) const;

    // The outcome of the last run: per-step times in the list, the object count and total below it.
    void showResult(const std::vector<StepReport>& steps, std::optional<long long> objectCount, const QString& error);
    void setRunning(bool running);
    QString resultText() const;

signals:
    void pipelineChanged();
    void runRequested();
    // "From kernel designer" was pressed: the owner answers with addConvolution(its spec).
    void currentKernelRequested();
    void errorOccurred(const QString& title, const QString& message);

private:
    void changed(int select);
    void refreshList();
    void refreshDetails();
    void refreshButtons();
    void editCurrent(const std::function<void(PipelineStep&)>& edit);
    QStringList namesBefore(int index) const;
    QString uniqueId(const QString& stem) const;
    void browseLoad();
    void browseSave();

    Pipeline pipeline_;
    std::vector<StepReport> reports_;  // of the pipeline as last run; cleared by any edit
    bool updating_ = false;
    bool running_ = false;

    QLineEdit* nameEdit_;
    QComboBox* presetCombo_;
    QPushButton* addPresetButton_;
    QPushButton* addKernelButton_;
    QComboBox* pointOpCombo_;
    QPushButton* addPointButton_;
    QListWidget* list_;
    QPushButton* removeButton_;
    QPushButton* upButton_;
    QPushButton* downButton_;
    QGroupBox* details_;
    QLineEdit* idEdit_;
    QComboBox* firstInput_;
    QComboBox* secondInput_;
    QLabel* secondInputLabel_;
    QDoubleSpinBox* thresholdSpin_;
    QLabel* thresholdLabel_;
    QLabel* filterLabel_;
    QCheckBox* floatCheck_;
    QCheckBox* absCheck_;
    QLabel* problemLabel_;
    QPushButton* runButton_;
    QLabel* resultLabel_;
};

}  // namespace fs::widgets
