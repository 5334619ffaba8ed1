#pragma once
#include <QSpinBox>
#include <QString>
#include <QWidget>
#include <QPoint>
#include <vector>

#include "fs/filter_spec.hpp"

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QTableWidget;
class QTableWidgetItem;
class QUndoStack;
class QPushButton;

namespace fs::widgets {

// Everything the kernel designer edits; one undo step is one change of it.
struct KernelDesign {
    QString name;
    std::vector<Kernel> kernels;  // cell values as typed, before the divisor
    Combine combine = Combine::Single;
    double divisor = 1.0;
    double offset = 0.0;
    bool operator==(const KernelDesign& o) const {
        return name == o.name && kernels == o.kernels && combine == o.combine && divisor == o.divisor && offset == o.offset;
    }
};

// A size box that takes only odd values: typing passes through even ones ("4" on the way to "41") without
// complaint, and an even value left there becomes the next odd one when editing ends.
class OddSizeSpinBox : public QSpinBox {
    Q_OBJECT
public:
    explicit OddSizeSpinBox(QWidget* parent = nullptr);

protected:
    QValidator::State validate(QString& text, int& pos) const override;
    void fixup(QString& text) const override;
};

// The kernel designer: an odd-sized grid of weights with a heatmap, presets
// with their parameters, normalize, divisor/offset, the sum and what it means,
// a separable badge, JSON load/save and undo/redo.
class KernelEditor : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxEditableSize = kMaxKernelSize;  // what every backend runs

    explicit KernelEditor(QWidget* parent = nullptr);

    // The spec to run: kernels divided by the divisor, output.offset from the
    // offset; border and the rest of the mapping come from setSaveContext().
    FilterSpec spec() const;
    KernelDesign design() const { return design_; }
    // The preset box as shown: its text (a friendly name, or "custom") and the preset text it stands for
    // (empty for custom kernels).
    QString presetBoxText() const;
    QString shownPresetText() const;
    // The inline note under the grid about a refused cell; empty when none.
    QString cellNote() const;
    QUndoStack* undoStack() const { return undo_; }
    int editedKernel() const { return current_; }

    // Border and output mapping written into saved kernel files.
    void setSaveContext(const Border& border, const OutputMapping& mapping);

    // Presets use fs::makePreset texts, e.g. "gaussian:5:1.2"; returns false
    // with the reason when the text is rejected.
    bool applyPresetText(const QString& text, QString* error = nullptr);
    bool loadFile(const QString& path, QString* error);
    bool loadJson(const QByteArray& text, QString* error);  // kernel file contents
    bool saveFile(const QString& path, QString* error) const;

public slots:
    void setDesign(const fs::widgets::KernelDesign& design);  // one undo step
    void setSpec(const fs::FilterSpec& spec);                  // divisor 1, offset from spec
    void normalize();
    void setKernelSize(int size);

signals:
    void specChanged();
    // A preset replaced the kernel (box, Apply or applyPresetText): the owner may pick a display mapping for it.
    void presetApplied(const fs::FilterSpec& spec);
    // A kernel file was loaded: its border and mapping are for the owner to apply.
    void fileLoaded(const fs::FilterSpec& spec);
    void errorOccurred(const QString& title, const QString& message);

private:
    friend class DesignCommand;
    void showDesign(const KernelDesign& design);  // no undo step
    void rebuildGrid();
    void refreshCellColours();
    void refreshSummary();
    void rebuildPresetParameters();
    void onCellChanged(QTableWidgetItem* item);
    QString presetText() const;
    void syncPresetWidgets(const QString& text);
    void syncPresetToDesign();  // the box names the design's preset, or "custom"
    void markCell(int row, int column, const QString& note);
    void browseLoad();
    void browseSave();

    KernelDesign design_;
    int current_ = 0;  // which kernel of a two-kernel design the grid shows
    bool updating_ = false;
    Border saveBorder_;
    OutputMapping saveMapping_;

    QUndoStack* undo_;
    QComboBox* presetCombo_;
    QFormLayout* presetParams_;
    std::vector<QWidget*> presetParamWidgets_;
    OddSizeSpinBox* sizeSpin_;
    QLabel* cellNote_;
    QPoint markedCell_{-1, -1};
    QComboBox* kernelSelect_;
    QTableWidget* grid_;
    QDoubleSpinBox* divisorSpin_;
    QDoubleSpinBox* offsetSpin_;
    QLabel* sumLabel_;
    QLabel* separableBadge_;
    QLabel* nameLabel_;
    QPushButton* loadButton_;
    QPushButton* saveButton_;
};

}  // namespace fs::widgets

Q_DECLARE_METATYPE(fs::FilterSpec)
