#include "fs/widgets/kernel_editor.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolButton>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "fs/kernel_file.hpp"
#include "fs/presets.hpp"
#include "fs/widgets/preset_names.hpp"

namespace fs::widgets {

class DesignCommand : public QUndoCommand {
public:
    DesignCommand(KernelEditor* editor, KernelDesign before, KernelDesign after, const QString& text)
        : QUndoCommand(text), editor_(editor), before_(std::move(before)), after_(std::move(after)) {}
    void undo() override { editor_->showDesign(before_); }
    void redo() override { editor_->showDesign(after_); }

private:
    KernelEditor* editor_;
    KernelDesign before_, after_;
};

namespace {

QString formatWeight(double v) {
    if (v == 0.0) return QStringLiteral("0");
    return QString::number(v, 'g', 4);
}

// Float sums of zero-sum kernels come out as 1e-9 and the like: that is 0.
QString formatSum(double v) { return std::abs(v) < 1e-6 ? QStringLiteral("0") : QString::number(v, 'g', 5); }

double kernelSum(const Kernel& k) {
    double s = 0.0;
    for (float w : k.weights) s += w;
    return s;
}

// Blue for negative, white for zero, red for positive, scaled by the largest |weight|.
QColor heatColour(double v, double maxAbs) {
    if (maxAbs <= 0.0) return Qt::white;
    const double t = std::clamp(std::abs(v) / maxAbs, 0.0, 1.0);
    const int fade = static_cast<int>(std::lround(255.0 * (1.0 - 0.85 * t)));
    return v >= 0 ? QColor(255, fade, fade) : QColor(fade, fade, 255);
}

struct PresetPattern {
    QString base;
    QStringList parameters;  // SIZE, N, SIGMA, AMOUNT ...
    QStringList defaults;
};

PresetPattern parsePattern(const PresetInfo& info) {
    QString name = QString::fromStdString(info.name);
    name.remove('[').remove(']');
    QStringList parts = name.split(':');
    PresetPattern p{parts.takeFirst(), parts, {}};
    const QRegularExpressionMatch m =
        QRegularExpression(QStringLiteral("default ([0-9.]+(?::[0-9.]+)*)")).match(QString::fromStdString(info.summary));
    if (m.hasMatch()) p.defaults = m.captured(1).split(':');
    return p;
}

bool isSizeParameter(const QString& p) { return p.contains(QStringLiteral("SIZE")) || p == QStringLiteral("N"); }

const PresetInfo* presetNamed(const std::vector<PresetInfo>& presets, const QString& pattern) {
    for (const PresetInfo& info : presets)
        if (QString::fromStdString(info.name) == pattern) return &info;
    return nullptr;
}

// Sizes a preset takes when its summary names them ("SIZE 3, 5 or 7"), else every odd size.
std::pair<int, int> sizeRange(const PresetInfo& info) {
    const QRegularExpressionMatch m =
        QRegularExpression(QStringLiteral("SIZE (\\d+)(?:, \\d+)* or (\\d+)")).match(QString::fromStdString(info.summary));
    if (m.hasMatch()) return {m.captured(1).toInt(), m.captured(2).toInt()};
    return {1, KernelEditor::kMaxEditableSize};
}

}  // namespace

OddSizeSpinBox::OddSizeSpinBox(QWidget* parent) : QSpinBox(parent) {
    setSingleStep(2);
    // The value counts only when typing ends (Enter, focus out): "4" on the way to "41" is not a size.
    setKeyboardTracking(false);
}

QValidator::State OddSizeSpinBox::validate(QString& text, int& pos) const {
    const QValidator::State state = QSpinBox::validate(text, pos);
    if (state == QValidator::Acceptable && valueFromText(text) % 2 == 0) return QValidator::Intermediate;
    return state;
}

void OddSizeSpinBox::fixup(QString& text) const {
    bool ok = false;
    const int typed = locale().toInt(text.trimmed(), &ok);
    if (!ok) return;
    int odd = typed % 2 == 0 ? typed + 1 : typed;
    if (odd > maximum()) odd = maximum();
    if (odd < minimum()) odd = minimum();
    text = textFromValue(odd);
}

KernelEditor::KernelEditor(QWidget* parent) : QWidget(parent), undo_(new QUndoStack(this)) {
    qRegisterMetaType<fs::FilterSpec>();
    auto* layout = new QVBoxLayout(this);

    // Presets and their parameters.
    auto* presetBox = new QGroupBox(tr("Preset"));
    auto* presetLayout = new QVBoxLayout(presetBox);
    auto* presetRow = new QHBoxLayout;
    presetCombo_ = new QComboBox;
    presetCombo_->setObjectName(QStringLiteral("presetCombo"));
    // First entry: a kernel no preset makes (edited cells, a file); it is shown, choosing it changes nothing.
    presetCombo_->addItem(tr("custom"), QString());
    presetCombo_->setItemData(0, tr("The kernel was edited by hand or loaded from a file"), Qt::ToolTipRole);
    for (const PresetInfo& info : listPresets()) {
        const PresetPattern p = parsePattern(info);
        presetCombo_->addItem(presetDisplayName(p.base), QString::fromStdString(info.name));
        presetCombo_->setItemData(presetCombo_->count() - 1,
                                  tr("%1 (preset id %2)").arg(QString::fromStdString(info.summary), p.base), Qt::ToolTipRole);
    }
    presetCombo_->setToolTip(tr("Preset kernel; its parameters appear below. Hover an entry for its id."));
    auto* applyButton = new QPushButton(tr("Apply"));
    applyButton->setToolTip(tr("Replace the kernel by this preset"));
    presetRow->addWidget(presetCombo_, 1);
    presetRow->addWidget(applyButton);
    presetLayout->addLayout(presetRow);
    presetParams_ = new QFormLayout;
    presetLayout->addLayout(presetParams_);
    // The kernel's name under the box: for a preset its id, as files and the command line write it.
    nameLabel_ = new QLabel;
    nameLabel_->setObjectName(QStringLiteral("kernelName"));
    nameLabel_->setWordWrap(true);
    presetLayout->addWidget(nameLabel_);
    layout->addWidget(presetBox);

    // Size and which kernel (magnitude designs have two).
    auto* sizeRow = new QHBoxLayout;
    sizeSpin_ = new OddSizeSpinBox;
    sizeSpin_->setObjectName(QStringLiteral("kernelSize"));
    sizeSpin_->setRange(1, kMaxEditableSize);
    sizeSpin_->setToolTip(tr("Kernel size, odd, 1 to %1: the centre cell is the output pixel. "
                             "An even size becomes the next odd one.").arg(kMaxEditableSize));
    kernelSelect_ = new QComboBox;
    kernelSelect_->setToolTip(tr("Magnitude designs combine two kernels: sqrt(k1^2 + k2^2)"));
    sizeRow->addWidget(new QLabel(tr("Kernel size")));
    sizeRow->addWidget(sizeSpin_);
    sizeRow->addWidget(kernelSelect_);
    sizeRow->addStretch(1);
    layout->addLayout(sizeRow);

    // Two short rows rather than one long one: the designer fits a 300-pixel dock.
    auto* mathRow = new QGridLayout;
    divisorSpin_ = new QDoubleSpinBox;
    divisorSpin_->setRange(-1e6, 1e6);
    divisorSpin_->setDecimals(4);
    divisorSpin_->setValue(1.0);
    divisorSpin_->setToolTip(tr("Every weight is divided by this (e.g. 16 for a 1-2-1 binomial)"));
    offsetSpin_ = new QDoubleSpinBox;
    offsetSpin_->setRange(-65535, 65535);
    offsetSpin_->setDecimals(2);
    offsetSpin_->setToolTip(tr("Added to every result after the scale (128 shows signed edges as grey)"));
    auto* normalizeButton = new QPushButton(tr("Normalize"));
    normalizeButton->setToolTip(tr("Scale the weights to sum 1 (or the positive weights to 1 for zero-sum kernels)"));
    mathRow->addWidget(new QLabel(tr("Divisor")), 0, 0);
    mathRow->addWidget(divisorSpin_, 0, 1);
    mathRow->addWidget(normalizeButton, 0, 2);
    mathRow->addWidget(new QLabel(tr("Offset")), 1, 0);
    mathRow->addWidget(offsetSpin_, 1, 1);
    mathRow->setColumnStretch(1, 1);
    layout->addLayout(mathRow);

    sumLabel_ = new QLabel;
    sumLabel_->setWordWrap(true);
    separableBadge_ = new QLabel;
    separableBadge_->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Maximum);
    separableBadge_->setAlignment(Qt::AlignCenter);
    auto* infoRow = new QVBoxLayout;
    infoRow->addWidget(sumLabel_);
    infoRow->addWidget(separableBadge_, 0, Qt::AlignLeft);

    auto* fileRow = new QHBoxLayout;
    auto* undoButton = new QToolButton;
    undoButton->setText(tr("Undo"));
    auto* redoButton = new QToolButton;
    redoButton->setText(tr("Redo"));
    loadButton_ = new QPushButton(tr("Load..."));
    loadButton_->setToolTip(tr("Load a kernel file (JSON)"));
    saveButton_ = new QPushButton(tr("Save..."));
    saveButton_->setToolTip(tr("Save the kernel, border and output mapping as a JSON file"));
#ifndef FS_HAVE_KERNEL_FILES
    loadButton_->setEnabled(false);
    saveButton_->setEnabled(false);
    loadButton_->setToolTip(tr("Built without nlohmann-json: kernel files unavailable"));
    saveButton_->setToolTip(loadButton_->toolTip());
#endif
    fileRow->addWidget(undoButton);
    fileRow->addWidget(redoButton);
    fileRow->addStretch(1);
    fileRow->addWidget(loadButton_);
    fileRow->addWidget(saveButton_);
    layout->addLayout(fileRow);

    // The grid last: in a short dock it is the grid that scrolls, never Normalize, Undo or Save.
    grid_ = new QTableWidget;
    grid_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    grid_->horizontalHeader()->setMinimumSectionSize(36);
    grid_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    grid_->horizontalHeader()->setDefaultSectionSize(52);
    grid_->verticalHeader()->setDefaultSectionSize(26);
    grid_->setMinimumHeight(150);
    grid_->setToolTip(tr("Correlation weights, row-major, centre cell = output pixel. Type to edit."));
    layout->addWidget(grid_, 1);
    cellNote_ = new QLabel;
    cellNote_->setObjectName(QStringLiteral("cellNote"));
    cellNote_->setWordWrap(true);
    cellNote_->setStyleSheet(QStringLiteral("color:#b3261e"));
    cellNote_->hide();
    layout->addWidget(cellNote_);
    layout->addLayout(infoRow);  // below the grid: its text changes with every edit, the grid must not move


    connect(undo_, &QUndoStack::canUndoChanged, undoButton, &QWidget::setEnabled);
    connect(undo_, &QUndoStack::canRedoChanged, redoButton, &QWidget::setEnabled);
    undoButton->setEnabled(false);
    redoButton->setEnabled(false);
    connect(undoButton, &QToolButton::clicked, undo_, &QUndoStack::undo);
    connect(redoButton, &QToolButton::clicked, undo_, &QUndoStack::redo);
    connect(presetCombo_, &QComboBox::currentIndexChanged, this, [this] {
        rebuildPresetParameters();
        if (!updating_ && !presetText().isEmpty()) applyPresetText(presetText());
    });
    connect(applyButton, &QPushButton::clicked, this, [this] {
        if (!presetText().isEmpty()) applyPresetText(presetText());
    });
    connect(sizeSpin_, &QSpinBox::valueChanged, this, [this](int v) {
        if (!updating_) setKernelSize(v);
    });
    connect(kernelSelect_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (updating_ || i < 0) return;
        current_ = i;
        showDesign(design_);
    });
    connect(grid_, &QTableWidget::itemChanged, this, &KernelEditor::onCellChanged);
    connect(divisorSpin_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        if (updating_) return;
        if (v == 0.0) {  // dividing by zero has no meaning: keep the old one
            showDesign(design_);
            return;
        }
        KernelDesign d = design_;
        d.divisor = v;
        setDesign(d);
    });
    connect(offsetSpin_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        if (updating_) return;
        KernelDesign d = design_;
        d.offset = v;
        setDesign(d);
    });
    connect(normalizeButton, &QPushButton::clicked, this, &KernelEditor::normalize);
    connect(loadButton_, &QPushButton::clicked, this, &KernelEditor::browseLoad);
    connect(saveButton_, &QPushButton::clicked, this, &KernelEditor::browseSave);

    // Start from the 3x3 Gaussian so the first run shows something sensible; the box follows the design.
    FilterSpec initial;
    makePreset("gaussian:3:0", initial);
    KernelDesign d;
    d.name = QString::fromStdString(initial.name);
    d.kernels = initial.kernels;
    d.combine = initial.combine;
    showDesign(d);
}

void KernelEditor::rebuildPresetParameters() {
    const std::vector<PresetInfo> presets = listPresets();
    const PresetInfo* info = presetNamed(presets, presetCombo_->currentData().toString());
    if (!info) {
        // Custom keeps the last preset's rows, disabled: removing them moved the grid under the mouse
        // on the first cell edit.
        for (QWidget* w : presetParamWidgets_) {
            w->setEnabled(false);
            if (QWidget* label = presetParams_->labelForField(w)) label->setEnabled(false);
        }
        return;
    }
    while (presetParams_->rowCount() > 0) presetParams_->removeRow(0);
    presetParamWidgets_.clear();
    const PresetPattern p = parsePattern(*info);
    for (int i = 0; i < p.parameters.size(); ++i) {
        const QString& name = p.parameters[i];
        const QString def = i < p.defaults.size() ? p.defaults[i] : QString();
        QWidget* editor = nullptr;
        if (isSizeParameter(name)) {
            auto* spin = new OddSizeSpinBox;
            const auto [low, high] = sizeRange(*info);
            spin->setRange(low, high);
            spin->setValue(def.isEmpty() ? 3 : def.toInt());
            connect(spin, &QSpinBox::valueChanged, this, [this] { applyPresetText(presetText()); });
            editor = spin;
        } else {
            auto* spin = new QDoubleSpinBox;
            spin->setRange(0.0, 50.0);
            spin->setSingleStep(0.1);
            spin->setDecimals(2);
            spin->setValue(def.isEmpty() ? 1.0 : def.toDouble());
            if (name == QStringLiteral("SIGMA")) spin->setSpecialValueText(tr("auto (from size)"));
            connect(spin, &QDoubleSpinBox::valueChanged, this, [this] { applyPresetText(presetText()); });
            editor = spin;
        }
        editor->setToolTip(QString::fromStdString(info->summary));
        presetParams_->addRow(name.toLower(), editor);
        presetParamWidgets_.push_back(editor);
    }
}

void KernelEditor::syncPresetWidgets(const QString& text) {
    // Show the preset and parameters a text names, without applying anything.
    const QStringList parts = text.split(':');
    const std::vector<PresetInfo> presets = listPresets();
    int index = -1;
    PresetPattern pattern;
    for (int i = 1; i < presetCombo_->count() && index < 0; ++i)
        if (const PresetInfo* info = presetNamed(presets, presetCombo_->itemData(i).toString())) {
            pattern = parsePattern(*info);
            if (pattern.base == parts.front()) index = i;
        }
    if (index < 0) return;
    const bool wasUpdating = updating_;
    updating_ = true;
    if (index != presetCombo_->currentIndex()) presetCombo_->setCurrentIndex(index);  // rebuilds the parameters
    for (std::size_t i = 0; i < presetParamWidgets_.size(); ++i) {
        // A parameter the text leaves out has its default ("sobel-x" is sobel-x:3).
        const auto at = static_cast<qsizetype>(i);
        const QString value = at + 1 < parts.size()         ? parts[at + 1]
                              : at < pattern.defaults.size() ? pattern.defaults[at]
                                                             : QString();
        if (value.isEmpty()) continue;
        const QSignalBlocker block(presetParamWidgets_[i]);
        if (auto* sp = qobject_cast<QSpinBox*>(presetParamWidgets_[i])) sp->setValue(value.toInt());
        else if (auto* dp = qobject_cast<QDoubleSpinBox*>(presetParamWidgets_[i])) dp->setValue(value.toDouble());
    }
    updating_ = wasUpdating;
}

void KernelEditor::syncPresetToDesign() {
    FilterSpec made;
    const bool fromPreset = design_.divisor == 1.0 && makePreset(design_.name.toStdString(), made) &&
                            made.kernels == design_.kernels && made.combine == design_.combine;
    if (fromPreset) {
        syncPresetWidgets(design_.name);
        return;
    }
    const bool wasUpdating = updating_;
    updating_ = true;
    presetCombo_->setCurrentIndex(0);  // custom: no parameters
    updating_ = wasUpdating;
}

QString KernelEditor::presetBoxText() const { return presetCombo_->currentText(); }

QString KernelEditor::shownPresetText() const { return presetText(); }

QString KernelEditor::cellNote() const { return cellNote_->isHidden() ? QString() : cellNote_->text(); }

QString KernelEditor::presetText() const {
    const std::vector<PresetInfo> presets = listPresets();
    const PresetInfo* info = presetNamed(presets, presetCombo_->currentData().toString());
    if (!info) return {};
    QString text = parsePattern(*info).base;
    for (QWidget* w : presetParamWidgets_) {
        if (auto* s = qobject_cast<QSpinBox*>(w)) text += ':' + QString::number(s->value());
        else if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) text += ':' + QString::number(d->value(), 'g', 6);
    }
    return text;
}

bool KernelEditor::applyPresetText(const QString& text, QString* error) {
    FilterSpec spec;
    std::string why;
    if (!makePreset(text.toStdString(), spec, &why)) {
        if (error) *error = QString::fromStdString(why);
        nameLabel_->setText(QStringLiteral("<span style='color:#c00'>%1</span>").arg(QString::fromStdString(why).toHtmlEscaped()));
        return false;
    }
    syncPresetWidgets(text);
    KernelDesign d;
    d.name = QString::fromStdString(spec.name.empty() ? text.toStdString() : spec.name);
    d.kernels = spec.kernels;
    d.combine = spec.combine;
    d.offset = design_.offset;  // the offset belongs to how the user views the result
    current_ = 0;
    setDesign(d);
    if (design_ != d) return false;  // refused: setDesign said why
    emit presetApplied(spec);
    return true;
}

void KernelEditor::setDesign(const KernelDesign& design) {
    for (const Kernel& k : design.kernels) {
        // Even sizes have no centre cell, and no backend runs past kMaxKernelSize: say so here, not at run time.
        if (const std::string why = validateKernel(k); !why.empty()) {
            emit errorOccurred(tr("Kernel refused"), QString::fromStdString(why));
            return;
        }
    }
    if (design == design_) {
        showDesign(design_);
        return;
    }
    undo_->push(new DesignCommand(this, design_, design, tr("edit %1").arg(design.name)));
}

void KernelEditor::setSpec(const FilterSpec& spec) {
    KernelDesign d;
    d.name = QString::fromStdString(spec.name);
    d.kernels = spec.kernels;
    d.combine = spec.combine;
    d.offset = spec.output.offset;
    current_ = 0;
    setDesign(d);
}

void KernelEditor::setSaveContext(const Border& border, const OutputMapping& mapping) {
    saveBorder_ = border;
    saveMapping_ = mapping;
}

FilterSpec KernelEditor::spec() const {
    FilterSpec s;
    s.name = design_.name.toStdString();
    s.combine = design_.combine;
    s.border = saveBorder_;
    s.output = saveMapping_;
    s.output.offset = static_cast<float>(design_.offset);
    for (Kernel k : design_.kernels) {
        if (design_.divisor != 1.0)
            for (float& w : k.weights) w = static_cast<float>(w / design_.divisor);
        s.kernels.push_back(std::move(k));
    }
    return s;
}

void KernelEditor::showDesign(const KernelDesign& design) {
    design_ = design;
    if (design_.kernels.empty()) design_.kernels.push_back(identityKernel());
    current_ = std::clamp(current_, 0, static_cast<int>(design_.kernels.size()) - 1);
    updating_ = true;
    const Kernel& k = design_.kernels[static_cast<std::size_t>(current_)];
    sizeSpin_->setValue(std::max(k.width, k.height));
    kernelSelect_->clear();
    for (std::size_t i = 0; i < design_.kernels.size(); ++i) kernelSelect_->addItem(tr("kernel %1").arg(i + 1));
    kernelSelect_->setCurrentIndex(current_);
    kernelSelect_->setVisible(design_.kernels.size() > 1);
    divisorSpin_->setValue(design_.divisor);
    offsetSpin_->setValue(design_.offset);
    nameLabel_->setText(tr("<span style='color:#5f6368'>id <b>%1</b></span>").arg(design_.name.toHtmlEscaped()));
    nameLabel_->setToolTip(tr("The kernel's name; for a preset, its id as files and the command line write it"));
    rebuildGrid();
    updating_ = false;
    syncPresetToDesign();
    cellNote_->hide();
    markedCell_ = {-1, -1};
    refreshSummary();
    emit specChanged();
}

void KernelEditor::rebuildGrid() {
    const Kernel& k = design_.kernels[static_cast<std::size_t>(current_)];
    const bool wasUpdating = updating_;
    updating_ = true;
    grid_->setRowCount(k.height);
    grid_->setColumnCount(k.width);
    for (int y = 0; y < k.height; ++y) {
        for (int x = 0; x < k.width; ++x) {
            QTableWidgetItem* item = grid_->item(y, x);
            if (!item) {
                item = new QTableWidgetItem;
                item->setTextAlignment(Qt::AlignCenter);
                grid_->setItem(y, x, item);
            }
            item->setText(formatWeight(k.at(x, y)));
            QFont f = item->font();
            f.setBold(x == k.radiusX() && y == k.radiusY());
            item->setFont(f);
        }
    }
    QStringList rows, cols;
    for (int y = 0; y < k.height; ++y) rows << QString::number(y - k.radiusY());
    for (int x = 0; x < k.width; ++x) cols << QString::number(x - k.radiusX());
    grid_->setVerticalHeaderLabels(rows);
    grid_->setHorizontalHeaderLabels(cols);
    grid_->resizeColumnsToContents();  // weights like -0.04321 stay readable
    refreshCellColours();
    updating_ = wasUpdating;
}

void KernelEditor::refreshCellColours() {
    const Kernel& k = design_.kernels[static_cast<std::size_t>(current_)];
    double maxAbs = 0.0;
    for (float w : k.weights) maxAbs = std::max(maxAbs, static_cast<double>(std::abs(w)));
    for (int y = 0; y < k.height; ++y)
        for (int x = 0; x < k.width; ++x)
            if (QTableWidgetItem* item = grid_->item(y, x)) {
                item->setBackground(heatColour(k.at(x, y), maxAbs));
                item->setForeground(Qt::black);
                item->setToolTip(QString());
            }
}

void KernelEditor::refreshSummary() {
    const FilterSpec s = spec();
    QStringList sums;
    bool allSeparable = true;
    QString meaning;
    for (std::size_t i = 0; i < s.kernels.size(); ++i) {
        const double sum = kernelSum(s.kernels[i]);
        sums << formatSum(sum);
        if (i == 0) {
            const bool anyNegative = std::any_of(s.kernels[i].weights.begin(), s.kernels[i].weights.end(), [](float w) { return w < 0.0f; });
            // Sum 1 keeps flat areas as they are; only all-positive weights average (blur).
            if (std::abs(sum - 1.0) < 1e-4)
                meaning = anyNegative ? tr("keeps the brightness of flat areas and strengthens changes (sharpen, emboss)")
                                      : tr("keeps brightness (averaging / blur)");
            else if (std::abs(sum) < 1e-4) meaning = tr("responds to edges: flat areas become 0 (shown with |v| or an offset)");
            else if (sum > 1.0) meaning = tr("brightens by %1x").arg(sum, 0, 'g', 3);
            else if (sum > 0.0) meaning = tr("darkens to %1x").arg(sum, 0, 'g', 3);
            else meaning = tr("inverts brightness (negative sum)");
        }
        if (!separate(s.kernels[i])) allSeparable = false;
    }
    QString text = tr("<b>Sum %1</b>: %2").arg(sums.join(QStringLiteral(" / ")), meaning);
    if (s.combine == Combine::Magnitude) text += tr("<br>combined as sqrt(k1&sup2; + k2&sup2;)");
    sumLabel_->setText(text);
    const Kernel& k = s.kernels.front();
    if (allSeparable && k.width * k.height > 1) {
        separableBadge_->setText(tr(" separable: %1 + %2 taps instead of %3 ").arg(k.width).arg(k.height).arg(k.width * k.height));
        separableBadge_->setStyleSheet(QStringLiteral("background:#2e7d32;color:white;border-radius:4px;padding:2px 0px"));
        separableBadge_->setToolTip(tr("Rank 1: a row pass then a column pass gives the same result"));
    } else {
        separableBadge_->setText(tr(" not separable "));
        separableBadge_->setStyleSheet(QStringLiteral("background:#777;color:white;border-radius:4px;padding:2px 0px"));
        separableBadge_->setToolTip(tr("Not rank 1: every output needs all %1 weights").arg(k.width * k.height));
    }
}

void KernelEditor::onCellChanged(QTableWidgetItem* item) {
    if (updating_ || !item) return;
    bool ok = false;
    const double value = item->text().trimmed().toDouble(&ok);
    KernelDesign d = design_;
    Kernel& k = d.kernels[static_cast<std::size_t>(current_)];
    if (item->column() >= k.width || item->row() >= k.height) {
        showDesign(design_);
        return;
    }
    if (!ok || !std::isfinite(value)) {
        // A typo in one cell is marked where it happened; the kernel keeps its old weight.
        const QString typed = item->text();
        const float kept = k.at(item->column(), item->row());
        updating_ = true;
        item->setText(formatWeight(kept));
        updating_ = false;
        markCell(item->row(), item->column(),
                 tr("'%1' is not a number: the cell at (%2, %3) keeps %4")
                     .arg(typed)
                     .arg(item->column() - k.radiusX())
                     .arg(item->row() - k.radiusY())
                     .arg(formatWeight(kept)));
        return;
    }
    k.at(item->column(), item->row()) = static_cast<float>(value);
    d.name = tr("custom");
    setDesign(d);
}

void KernelEditor::markCell(int row, int column, const QString& note) {
    const bool wasUpdating = updating_;
    updating_ = true;  // colours and tooltips change items too: not an edit
    refreshCellColours();  // an earlier mark goes
    if (QTableWidgetItem* item = grid_->item(row, column)) {
        item->setBackground(QColor(255, 138, 128));
        item->setToolTip(note);
    }
    updating_ = wasUpdating;
    markedCell_ = {column, row};
    cellNote_->setText(note);
    cellNote_->show();
}

void KernelEditor::setKernelSize(int size) {
    size = std::clamp(size | 1, 1, kMaxEditableSize);
    KernelDesign d = design_;
    for (Kernel& old : d.kernels) {
        Kernel k(size, size, std::vector<float>(static_cast<std::size_t>(size) * size, 0.0f));
        // Keep the centred overlap so growing a kernel pads it with zeros.
        for (int y = 0; y < size; ++y)
            for (int x = 0; x < size; ++x) {
                const int ox = x - k.radiusX() + old.radiusX(), oy = y - k.radiusY() + old.radiusY();
                if (ox >= 0 && oy >= 0 && ox < old.width && oy < old.height) k.at(x, y) = old.at(ox, oy);
            }
        old = std::move(k);
    }
    d.name = tr("custom");
    setDesign(d);
}

void KernelEditor::normalize() {
    KernelDesign d = design_;
    for (Kernel& k : d.kernels) {
        double sum = 0.0, positive = 0.0, maxAbs = 0.0;
        for (float w : k.weights) {
            sum += w;
            positive += std::max(0.0f, w);
            maxAbs = std::max(maxAbs, static_cast<double>(std::abs(w)));
        }
        // Zero-sum (edge) kernels cannot sum to 1: scale their positive lobe instead.
        const double by = std::abs(sum) > 1e-6 * std::max(1.0, maxAbs) ? sum : positive;
        if (by == 0.0) {  // all zeros, or only negative weights summing to 0: nothing to divide by
            emit errorOccurred(tr("Cannot normalize"),
                               tr("the kernel has no positive weights and sums to 0: there is nothing to scale to 1"));
            return;
        }
        for (float& w : k.weights) w = static_cast<float>(w / by);
    }
    d.divisor = 1.0;
    setDesign(d);
}

bool KernelEditor::loadFile(const QString& path, QString* error) {
#ifdef FS_HAVE_KERNEL_FILES
    FilterSpec loaded;
    std::string why;
    if (!loadKernelFile(path.toStdString(), loaded, &why)) {
        if (error) *error = QString::fromStdString(why);
        return false;
    }
    setSpec(loaded);
    emit fileLoaded(loaded);
    return true;
#else
    (void)path;
    if (error) *error = tr("this build has no kernel file support (nlohmann-json missing)");
    return false;
#endif
}

bool KernelEditor::loadJson(const QByteArray& text, QString* error) {
#ifdef FS_HAVE_KERNEL_FILES
    FilterSpec loaded;
    std::string why;
    if (!parseKernelJson(text.toStdString(), loaded, &why)) {
        if (error) *error = QString::fromStdString(why);
        return false;
    }
    setSpec(loaded);
    emit fileLoaded(loaded);
    return true;
#else
    (void)text;
    if (error) *error = tr("this build has no kernel file support (nlohmann-json missing)");
    return false;
#endif
}

bool KernelEditor::saveFile(const QString& path, QString* error) const {
#ifdef FS_HAVE_KERNEL_FILES
    std::string why;
    if (!saveKernelFile(path.toStdString(), spec(), &why)) {
        if (error) *error = QString::fromStdString(why);
        return false;
    }
    return true;
#else
    (void)path;
    if (error) *error = tr("this build has no kernel file support (nlohmann-json missing)");
    return false;
#endif
}

void KernelEditor::browseLoad() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load kernel"), {}, tr("Kernel files (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!loadFile(path, &error)) emit errorOccurred(tr("Cannot load kernel"), error);
}

void KernelEditor::browseSave() {
    QString path = QFileDialog::getSaveFileName(this, tr("Save kernel"), design_.name + QStringLiteral(".json"),
                                                tr("Kernel files (*.json)"));
    if (path.isEmpty()) return;
    if (!path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive)) path += QStringLiteral(".json");
    QString error;
    if (!saveFile(path, &error)) emit errorOccurred(tr("Cannot save kernel"), error);
}

}  // namespace fs::widgets
