#include "fs/widgets/pipeline_editor.hpp"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>
#include <algorithm>

#include "fs/presets.hpp"
#include "fs/widgets/preset_names.hpp"

namespace fs::widgets {

namespace {

// What the preset box offers; any makePreset text may be typed instead.
const char* const kPresetExamples[] = {"gaussian:5:1.2", "gaussian:3:0", "box:5",       "sobel-x",     "sobel-y",
                                       "sobel-mag",      "scharr-x",     "scharr-y",    "laplacian-4", "laplacian-8",
                                       "log:9:1.4",      "sharpen",      "unsharp:5:0:1"};

struct PointOp {
    StepOp op;
    const char* text;
};
const PointOp kPointOps[] = {
    {StepOp::Grayscale, QT_TRANSLATE_NOOP("fs::widgets::PipelineEditor", "grayscale")},
    {StepOp::Abs, QT_TRANSLATE_NOOP("fs::widgets::PipelineEditor", "absolute value |v|")},
    {StepOp::Magnitude, QT_TRANSLATE_NOOP("fs::widgets::PipelineEditor", "magnitude of two results")},
    {StepOp::Threshold, QT_TRANSLATE_NOOP("fs::widgets::PipelineEditor", "threshold (u8 mask)")},
    {StepOp::Normalize, QT_TRANSLATE_NOOP("fs::widgets::PipelineEditor", "normalize to 0..255")},
    {StepOp::Label, QT_TRANSLATE_NOOP("fs::widgets::PipelineEditor", "label objects (count)")},
};

QString explanation(StepOp op) {
    switch (op) {
    case StepOp::Convolve: break;
    case StepOp::Abs: return PipelineEditor::tr("|v| per sample (nothing changes on u8/u16)");
    case StepOp::Magnitude: return PipelineEditor::tr("sqrt(a² + b²) of two results of equal shape");
    case StepOp::Threshold: return PipelineEditor::tr("u8 mask: 255 above the threshold, else 0");
    case StepOp::Normalize: return PipelineEditor::tr("u8: min..max of all samples stretched to 0..255");
    case StepOp::Grayscale: return PipelineEditor::tr("one channel: 0.114 B + 0.587 G + 0.299 R");
    case StepOp::Label: return PipelineEditor::tr("4-connected objects of a 1-channel image, numbered 1..count (f32)");
    }
    return {};
}

// The first input combo's entry for "no explicit input".
const QString kPrevious = QStringLiteral("");

}  // namespace

PipelineEditor::PipelineEditor(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);

    auto* adders = new QGridLayout;
    nameEdit_ = new QLineEdit;
    nameEdit_->setPlaceholderText(tr("pipeline name"));
    nameEdit_->setObjectName(QStringLiteral("pipelineName"));
    presetCombo_ = new QComboBox;
    QStringList examples;
    for (const char* p : kPresetExamples) examples << QString::fromLatin1(p);
    setUpPresetTextBox(presetCombo_, examples, tr("pick or type a preset"));
    QStringList presetHelp;
    for (const PresetInfo& p : listPresets())
        presetHelp << QStringLiteral("%1: %2").arg(QString::fromStdString(p.name), QString::fromStdString(p.summary));
    presetCombo_->setToolTip(tr("A preset, with parameters:\n%1").arg(presetHelp.join('\n')));
    addPresetButton_ = new QPushButton(tr("Add"));
    addPresetButton_->setToolTip(tr("Add a convolution with this preset after the selected step"));
    addKernelButton_ = new QPushButton(tr("Add designer kernel"));
    addKernelButton_->setToolTip(tr("Add the kernel designer's current kernel (with its border and output) as a step"));
    pointOpCombo_ = new QComboBox;
    for (const PointOp& p : kPointOps) pointOpCombo_->addItem(tr(p.text), static_cast<int>(p.op));
    addPointButton_ = new QPushButton(tr("Add"));
    addPointButton_->setToolTip(tr("Add this point operation after the selected step"));
    auto* loadButton = new QPushButton(tr("Load..."));
    auto* saveButton = new QPushButton(tr("Save..."));
    // Three narrow columns, so the whole editor fits the side column (about 350 pixels) with no scrolling:
    // the name with its file buttons, then each adder with its button, the designer's kernel on a row of its own.
    auto* nameRow = new QHBoxLayout;
    nameRow->addWidget(nameEdit_, 1);
    nameRow->addWidget(loadButton);
    nameRow->addWidget(saveButton);
    adders->addWidget(new QLabel(tr("Name")), 0, 0);
    adders->addLayout(nameRow, 0, 1, 1, 2);
    adders->addWidget(new QLabel(tr("Convolution")), 1, 0);
    adders->addWidget(presetCombo_, 1, 1);
    adders->addWidget(addPresetButton_, 1, 2);
    adders->addWidget(addKernelButton_, 2, 1, 1, 2);
    adders->addWidget(new QLabel(tr("Point op")), 3, 0);
    adders->addWidget(pointOpCombo_, 3, 1);
    adders->addWidget(addPointButton_, 3, 2);
    adders->setColumnStretch(1, 1);
    for (QComboBox* combo : {presetCombo_, pointOpCombo_}) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(10);
    }
    layout->addLayout(adders);

    list_ = new QListWidget;
    list_->setObjectName(QStringLiteral("pipelineSteps"));
    list_->setMinimumHeight(120);
    layout->addWidget(list_, 1);

    auto* order = new QHBoxLayout;
    removeButton_ = new QPushButton(tr("Remove"));
    upButton_ = new QPushButton(tr("Up"));
    downButton_ = new QPushButton(tr("Down"));
    removeButton_->setToolTip(tr("Remove the selected step (Del in the list)"));
    upButton_->setToolTip(tr("Move the selected step up (Alt+Up in the list)"));
    downButton_->setToolTip(tr("Move the selected step down (Alt+Down in the list)"));
    // Keys only while the list has focus: Del in the kernel grid must never remove a step.
    const auto listKey = [this](const QKeySequence& key, QPushButton* button) {
        auto* action = new QAction(list_);
        action->setShortcut(key);
        action->setShortcutContext(Qt::WidgetShortcut);
        connect(action, &QAction::triggered, button, [button] {
            if (button->isEnabled()) button->click();
        });
        list_->addAction(action);
    };
    listKey(QKeySequence::Delete, removeButton_);
    listKey(QKeySequence(Qt::ALT | Qt::Key_Up), upButton_);
    listKey(QKeySequence(Qt::ALT | Qt::Key_Down), downButton_);
    order->addWidget(removeButton_);
    order->addWidget(upButton_);
    order->addWidget(downButton_);
    order->addStretch(1);
    layout->addLayout(order);

    details_ = new QGroupBox(tr("Selected step"));
    auto* form = new QFormLayout(details_);
    idEdit_ = new QLineEdit;
    idEdit_->setPlaceholderText(tr("optional: lets later steps read this result"));
    firstInput_ = new QComboBox;
    firstInput_->setToolTip(tr("The result this step reads"));
    secondInput_ = new QComboBox;
    secondInputLabel_ = new QLabel(tr("Second input"));
    thresholdSpin_ = new QDoubleSpinBox;
    thresholdSpin_->setRange(-1e9, 1e9);
    thresholdSpin_->setDecimals(3);
    thresholdSpin_->setToolTip(tr("255 where the sample is above this value (in the input's units), else 0"));
    thresholdLabel_ = new QLabel(tr("Threshold"));
    filterLabel_ = new QLabel;
    filterLabel_->setWordWrap(true);
    floatCheck_ = new QCheckBox(tr("float output (keeps negative responses)"));
    absCheck_ = new QCheckBox(tr("absolute value |v|"));
    form->addRow(tr("Id"), idEdit_);
    form->addRow(tr("Input"), firstInput_);
    form->addRow(secondInputLabel_, secondInput_);
    form->addRow(thresholdLabel_, thresholdSpin_);
    form->addRow(tr("Filter"), filterLabel_);
    form->addRow(QString(), floatCheck_);
    form->addRow(QString(), absCheck_);
    layout->addWidget(details_);

    problemLabel_ = new QLabel;
    problemLabel_->setWordWrap(true);
    layout->addWidget(problemLabel_);

    auto* runRow = new QHBoxLayout;
    runButton_ = new QPushButton(tr("Run pipeline"));
    runButton_->setToolTip(tr("Run every step on the current image with the chosen backend (Ctrl+R)"));
    resultLabel_ = new QLabel;
    resultLabel_->setWordWrap(true);
    resultLabel_->setObjectName(QStringLiteral("pipelineResult"));
    runRow->addWidget(runButton_);
    runRow->addWidget(resultLabel_, 1);
    layout->addLayout(runRow);

    // Names for tests and style sheets.
    presetCombo_->setObjectName(QStringLiteral("pipelinePreset"));
    pointOpCombo_->setObjectName(QStringLiteral("pipelinePointOp"));
    runButton_->setObjectName(QStringLiteral("pipelineRun"));
    problemLabel_->setObjectName(QStringLiteral("pipelineProblem"));

    connect(addPresetButton_, &QPushButton::clicked, this, [this] {
        QString why;
        if (!addPreset(presetCombo_->currentText().trimmed(), &why)) emit errorOccurred(tr("Cannot add preset"), why);
    });
    connect(addKernelButton_, &QPushButton::clicked, this, &PipelineEditor::currentKernelRequested);
    connect(addPointButton_, &QPushButton::clicked, this,
            [this] { addPointOperation(static_cast<StepOp>(pointOpCombo_->currentData().toInt())); });
    connect(removeButton_, &QPushButton::clicked, this, [this] { removeStep(currentStep()); });
    connect(upButton_, &QPushButton::clicked, this, [this] { moveStep(currentStep(), currentStep() - 1); });
    connect(downButton_, &QPushButton::clicked, this, [this] { moveStep(currentStep(), currentStep() + 1); });
    connect(loadButton, &QPushButton::clicked, this, &PipelineEditor::browseLoad);
    connect(saveButton, &QPushButton::clicked, this, &PipelineEditor::browseSave);
    connect(runButton_, &QPushButton::clicked, this, &PipelineEditor::runRequested);
    connect(list_, &QListWidget::currentRowChanged, this, [this] {
        if (updating_) return;
        refreshDetails();
        refreshButtons();
    });
    connect(nameEdit_, &QLineEdit::textEdited, this, [this](const QString& text) {
        pipeline_.name = text.toStdString();
        emit pipelineChanged();
    });
    connect(idEdit_, &QLineEdit::editingFinished, this, [this] {
        const std::string id = idEdit_->text().trimmed().toStdString();
        const int i = currentStep();
        if (i < 0 || pipeline_.steps[static_cast<std::size_t>(i)].id == id) return;  // focus left, nothing typed
        editCurrent([&](PipelineStep& s) {
            // Steps that read the old id follow the rename.
            for (PipelineStep& other : pipeline_.steps)
                for (std::string& in : other.inputs)
                    if (!s.id.empty() && in == s.id) in = id;
            s.id = id;
        });
    });
    const auto inputsEdited = [this] {
        editCurrent([this](PipelineStep& s) {
            s.inputs.clear();
            const QString first = firstInput_->currentData().toString();
            if (s.op == StepOp::Magnitude) {
                s.inputs = {first.toStdString(), secondInput_->currentData().toString().toStdString()};
            } else if (!first.isEmpty()) {
                s.inputs = {first.toStdString()};
            }
        });
    };
    connect(firstInput_, &QComboBox::activated, this, inputsEdited);
    connect(secondInput_, &QComboBox::activated, this, inputsEdited);
    connect(thresholdSpin_, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { editCurrent([v](PipelineStep& s) { s.threshold = static_cast<float>(v); }); });
    connect(floatCheck_, &QCheckBox::toggled, this,
            [this](bool on) { editCurrent([on](PipelineStep& s) { s.filter.output.floatOutput = on; }); });
    connect(absCheck_, &QCheckBox::toggled, this,
            [this](bool on) { editCurrent([on](PipelineStep& s) { s.filter.output.absolute = on; }); });
    changed(-1);
}

int PipelineEditor::currentStep() const {
    const int row = list_->currentRow();
    return row >= 0 && row < stepCount() ? row : -1;
}

void PipelineEditor::selectStep(int index) { list_->setCurrentRow(index); }

QString PipelineEditor::problem() const { return QString::fromStdString(validatePipeline(pipeline_)); }

void PipelineEditor::setPipeline(const Pipeline& pipeline) {
    pipeline_ = pipeline;
    {
        const QSignalBlocker block(nameEdit_);
        nameEdit_->setText(QString::fromStdString(pipeline_.name));
    }
    changed(pipeline_.steps.empty() ? -1 : 0);
}

void PipelineEditor::addStep(const PipelineStep& step) {
    const int at = currentStep() < 0 ? stepCount() : currentStep() + 1;
    pipeline_.steps.insert(pipeline_.steps.begin() + at, step);
    changed(at);
}

void PipelineEditor::addConvolution(const FilterSpec& spec) {
    PipelineStep step;
    step.op = StepOp::Convolve;
    step.filter = spec;
    addStep(step);
}

bool PipelineEditor::addPreset(const QString& text, QString* error) {
    FilterSpec spec;
    std::string why;
    if (text.isEmpty() || !makePreset(text.toStdString(), spec, &why)) {
        if (error) *error = text.isEmpty() ? tr("type a preset such as gaussian:5:1.2") : QString::fromStdString(why);
        return false;
    }
    spec.name = text.toStdString();  // the file keeps the preset text, parameters included
    addConvolution(spec);
    return true;
}

QString PipelineEditor::uniqueId(const QString& stem) const {
    for (int n = 1;; ++n) {
        const QString id = stem + QString::number(n);
        const bool taken = std::any_of(pipeline_.steps.begin(), pipeline_.steps.end(),
                                       [&](const PipelineStep& s) { return s.id == id.toStdString(); });
        if (!taken) return id;
    }
}

void PipelineEditor::addPointOperation(StepOp op) {
    PipelineStep step;
    step.op = op;
    if (op == StepOp::Threshold) step.threshold = 128.0f;
    if (op == StepOp::Magnitude) {
        // The two latest convolutions before the insertion point, named so the magnitude can read them.
        const int at = currentStep() < 0 ? stepCount() : currentStep() + 1;
        std::vector<int> sources;
        for (int i = at - 1; i >= 0 && sources.size() < 2; --i)
            if (pipeline_.steps[static_cast<std::size_t>(i)].op == StepOp::Convolve) sources.insert(sources.begin(), i);
        for (int i : sources) {
            PipelineStep& s = pipeline_.steps[static_cast<std::size_t>(i)];
            if (s.id.empty()) s.id = uniqueId(QStringLiteral("g")).toStdString();
            step.inputs.push_back(s.id);
        }
        while (step.inputs.size() < 2) step.inputs.push_back(kPipelineSource);
    }
    addStep(step);
}

void PipelineEditor::removeStep(int index) {
    if (index < 0 || index >= stepCount()) return;
    pipeline_.steps.erase(pipeline_.steps.begin() + index);
    changed(std::min(index, stepCount() - 1));
}

bool PipelineEditor::moveStep(int from, int to) {
    if (from < 0 || from >= stepCount() || to < 0 || to >= stepCount() || from == to) return false;
    std::swap(pipeline_.steps[static_cast<std::size_t>(from)], pipeline_.steps[static_cast<std::size_t>(to)]);
    changed(to);
    return true;
}

void PipelineEditor::setStep(int index, const PipelineStep& step) {
    if (index < 0 || index >= stepCount()) return;
    pipeline_.steps[static_cast<std::size_t>(index)] = step;
    changed(index);
}

void PipelineEditor::editCurrent(const std::function<void(PipelineStep&)>& edit) {
    const int i = currentStep();
    if (updating_ || i < 0) return;
    edit(pipeline_.steps[static_cast<std::size_t>(i)]);
    changed(i);
}

void PipelineEditor::changed(int select) {
    reports_.clear();  // times belong to the pipeline that ran, not to this edited one
    resultLabel_->clear();
    refreshList();
    {
        const QSignalBlocker block(list_);
        list_->setCurrentRow(select);
    }
    refreshDetails();
    refreshButtons();
    emit pipelineChanged();
}

void PipelineEditor::refreshList() {
    const QSignalBlocker block(list_);
    list_->clear();
    for (std::size_t i = 0; i < pipeline_.steps.size(); ++i) {
        const PipelineStep& s = pipeline_.steps[i];
        QString text = QStringLiteral("%1. %2").arg(i + 1).arg(QString::fromStdString(s.label()));
        if (!s.inputs.empty()) {
            QStringList ins;
            for (const std::string& in : s.inputs) ins << QString::fromStdString(in);
            text += QStringLiteral("  ← %1").arg(ins.join(QStringLiteral(", ")));
        }
        if (i < reports_.size() && reports_[i].timing.totalMs)
            text += QStringLiteral("   %1 ms").arg(*reports_[i].timing.totalMs, 0, 'f', 3);
        list_->addItem(text);
    }
}

QStringList PipelineEditor::namesBefore(int index) const {
    QStringList names{QString::fromLatin1(kPipelineSource)};
    for (int i = 0; i < index; ++i)
        if (!pipeline_.steps[static_cast<std::size_t>(i)].id.empty())
            names << QString::fromStdString(pipeline_.steps[static_cast<std::size_t>(i)].id);
    return names;
}

void PipelineEditor::refreshDetails() {
    updating_ = true;
    const int i = currentStep();
    details_->setEnabled(i >= 0);
    if (i < 0) {
        idEdit_->clear();
        firstInput_->clear();
        filterLabel_->clear();
        for (QWidget* w : std::initializer_list<QWidget*>{secondInput_, secondInputLabel_, thresholdSpin_, thresholdLabel_,
                                                         floatCheck_, absCheck_})
            w->setVisible(false);
        updating_ = false;
        return;
    }
    const PipelineStep& s = pipeline_.steps[static_cast<std::size_t>(i)];
    details_->setTitle(tr("Step %1: %2").arg(i + 1).arg(QString::fromLatin1(stepOpName(s.op))));
    idEdit_->setText(QString::fromStdString(s.id));
    const QStringList names = namesBefore(i);
    const bool magnitude = s.op == StepOp::Magnitude;
    const auto fill = [&](QComboBox* combo, const std::string& chosen, bool offerPrevious) {
        combo->clear();
        if (offerPrevious) combo->addItem(i == 0 ? tr("previous step (the source)") : tr("previous step"), kPrevious);
        for (const QString& n : names) combo->addItem(n, n);
        const int at = combo->findData(QString::fromStdString(chosen));
        if (at >= 0) combo->setCurrentIndex(at);
        else if (!chosen.empty()) {  // a name no earlier step has: shown, and the problem line says why
            combo->addItem(tr("%1 (unknown)").arg(QString::fromStdString(chosen)), QString::fromStdString(chosen));
            combo->setCurrentIndex(combo->count() - 1);
        }
    };
    fill(firstInput_, s.inputs.empty() ? std::string() : s.inputs[0], !magnitude);
    fill(secondInput_, s.inputs.size() > 1 ? s.inputs[1] : std::string(), false);
    secondInput_->setVisible(magnitude);
    secondInputLabel_->setVisible(magnitude);
    thresholdSpin_->setVisible(s.op == StepOp::Threshold);
    thresholdLabel_->setVisible(s.op == StepOp::Threshold);
    thresholdSpin_->setValue(s.threshold);
    const bool convolve = s.op == StepOp::Convolve;
    floatCheck_->setVisible(convolve);
    absCheck_->setVisible(convolve);
    floatCheck_->setChecked(s.filter.output.floatOutput);
    absCheck_->setChecked(s.filter.output.absolute);
    if (convolve && !s.filter.kernels.empty()) {
        filterLabel_->setText(tr("%1, %2x%3, border %4")
                                  .arg(QString::fromStdString(s.filter.name.empty() ? std::string("custom") : s.filter.name))
                                  .arg(s.filter.kernels[0].width)
                                  .arg(s.filter.kernels[0].height)
                                  .arg(QString::fromLatin1(borderModeName(s.filter.border.mode))));
    } else {
        filterLabel_->setText(explanation(s.op));
    }
    updating_ = false;
}

void PipelineEditor::refreshButtons() {
    const int i = currentStep();
    removeButton_->setEnabled(i >= 0 && !running_);
    upButton_->setEnabled(i > 0 && !running_);
    downButton_->setEnabled(i >= 0 && i + 1 < stepCount() && !running_);
    const QString why = problem();
    // No steps yet is where every pipeline starts: a hint, not an error.
    const bool empty = stepCount() == 0;
    problemLabel_->setText(empty ? tr("No steps yet: add a preset, the kernel designer's kernel or a point operation "
                                      "above, or open an example (Tools > Open pipeline example).")
                                 : why);
    problemLabel_->setStyleSheet(empty ? QStringLiteral("color:#5f6368") : QStringLiteral("color:#c0392b"));
    problemLabel_->setVisible(!why.isEmpty());
    runButton_->setEnabled(why.isEmpty() && !running_);
    runButton_->setText(running_ ? tr("Running...") : tr("Run pipeline"));
}

void PipelineEditor::setRunning(bool running) {
    running_ = running;
    for (QWidget* w : std::initializer_list<QWidget*>{addPresetButton_, addKernelButton_, addPointButton_, details_})
        w->setEnabled(!running);
    if (!running) refreshDetails();
    refreshButtons();
}

void PipelineEditor::showResult(const std::vector<StepReport>& steps, std::optional<long long> objectCount,
                                const QString& error) {
    reports_ = steps;
    refreshList();
    list_->setCurrentRow(currentStep());
    double total = 0.0;
    for (const StepReport& r : steps) total += r.timing.totalMs.value_or(0.0);
    QString text;
    if (!error.isEmpty()) text = tr("<span style='color:#c0392b'>failed: %1</span>").arg(error.toHtmlEscaped());
    else text = tr("%1 steps, %2 ms").arg(steps.size()).arg(total, 0, 'f', 3);
    if (objectCount) text += tr("<br><b>Objects: %1</b>").arg(*objectCount);
    resultLabel_->setText(text);
}

QString PipelineEditor::resultText() const { return resultLabel_->text(); }

bool PipelineEditor::loadFile(const QString& path, QString* error) {
    Pipeline loaded;
    std::string why;
    if (!loadPipelineFile(path.toStdString(), loaded, &why)) {
        if (error) *error = QString::fromStdString(why);
        return false;
    }
    setPipeline(loaded);
    return true;
}

bool PipelineEditor::loadJson(const QByteArray& text, QString* error) {
    Pipeline parsed;
    std::string why;
    if (!parsePipelineJson(text.toStdString(), parsed, &why)) {
        if (error) *error = QString::fromStdString(why);
        return false;
    }
    setPipeline(parsed);
    return true;
}

bool PipelineEditor::saveFile(const QString& path, QString* error) const {
    std::string why;
    if (!savePipelineFile(path.toStdString(), pipeline_, &why)) {
        if (error) *error = QString::fromStdString(why);
        return false;
    }
    return true;
}

void PipelineEditor::browseLoad() {
    const QString dir = QSettings().value(QStringLiteral("pipeline/lastDir")).toString();
    const QString path = QFileDialog::getOpenFileName(this, tr("Load pipeline"), dir, tr("Pipeline files (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    QSettings().setValue(QStringLiteral("pipeline/lastDir"), QFileInfo(path).absolutePath());
    QString why;
    if (!loadFile(path, &why)) emit errorOccurred(tr("Cannot load pipeline"), why);
}

void PipelineEditor::browseSave() {
    const QString dir = QSettings().value(QStringLiteral("pipeline/lastDir")).toString();
    const QString suggested = QDir(dir).filePath(
        (pipeline_.name.empty() ? QStringLiteral("pipeline") : QString::fromStdString(pipeline_.name)) + QStringLiteral(".json"));
    QString path = QFileDialog::getSaveFileName(this, tr("Save pipeline"), suggested, tr("Pipeline files (*.json)"));
    if (path.isEmpty()) return;
    if (!path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive)) path += QStringLiteral(".json");
    QSettings().setValue(QStringLiteral("pipeline/lastDir"), QFileInfo(path).absolutePath());
    QString why;
    if (!saveFile(path, &why)) emit errorOccurred(tr("Cannot save pipeline"), why);
}

}  // namespace fs::widgets
