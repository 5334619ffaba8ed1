#pragma once
// The "Border, output and channels" box of the studio: border, scale, |v|, float output, alpha,
// channels, live re-run. It also keeps the mapping the studio chose for a zero-sum preset, so a later
// preset that is not zero-sum puts back what was set before, and each such change is one step of the
// kernel designer's undo stack.
#include <QGroupBox>
#include <optional>

#include "display_mapping.hpp"
#include "fs/filter_spec.hpp"
#include "fs/image.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QUndoStack;

namespace fs::ui {

class OutputControls : public QGroupBox {
    Q_OBJECT
public:
    explicit OutputControls(QUndoStack* undo, QWidget* parent = nullptr);

    Border border() const;
    OutputMapping mapping() const;  // scale, |v|, float output (the offset is the designer's)
    bool filterAlpha() const;
    bool luminanceOnly() const;
    bool live() const;
    DisplayMapping displayMapping() const;

    // A kernel file's own border and mapping; nothing re-runs from here.
    void setFromFile(const FilterSpec& spec);
    // Sets |v| and scale as one undoable step named `why`.
    void setDisplayMapping(const DisplayMapping& mapping, const QString& why);
    // A preset was applied: zero-sum kernels get |v| and a fitted scale on `image`; a later kernel that is
    // not zero-sum puts the earlier mapping back while the chosen one is still in place.
    void presetApplied(const FilterSpec& spec, const Image* image);
    // A new image: a scale the studio fitted to the previous one is fitted again.
    void refit(const FilterSpec& spec, const Image* image);

signals:
    void changed();          // something the filter reads
    void channelsChanged();  // all channels / luminance: the input changes
    void viewNoteChanged(const QString& note);  // the mapping as the view's caption says it

private:
    void showDisplayMapping(const DisplayMapping& mapping);  // controls and note; no undo step
    void refreshNote();

    QUndoStack* undo_;
    QComboBox* borderCombo_;
    QDoubleSpinBox* borderValueSpin_;
    QCheckBox* absCheck_;
    QLabel* mappingNote_;  // says when the studio chose |v| and the scale
    QDoubleSpinBox* scaleSpin_;
    QCheckBox* floatCheck_;
    QCheckBox* filterAlphaCheck_;
    QComboBox* channelsCombo_;
    QCheckBox* liveCheck_;
    std::optional<DisplayMapping> autoMapping_;  // the mapping a zero-sum preset chose
    DisplayMapping mappingBeforeAuto_;           // and what was set before it
};

}  // namespace fs::ui
