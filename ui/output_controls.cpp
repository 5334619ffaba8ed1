#include "output_controls.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QUndoCommand>
#include <QUndoStack>
#include <functional>

namespace fs::ui {

namespace {

// One change of |v| and scale, on the kernel designer's undo stack beside the kernel edits, so Ctrl+Z
// takes back a mapping the studio chose as it takes back a preset.
class MappingCommand : public QUndoCommand {
public:
    MappingCommand(std::function<void(const DisplayMapping&)> show, DisplayMapping before, DisplayMapping after,
                   const QString& text)
        : QUndoCommand(text), show_(std::move(show)), before_(before), after_(after) {}
    void undo() override { show_(before_); }
    void redo() override { show_(after_); }

private:
    std::function<void(const DisplayMapping&)> show_;
    DisplayMapping before_, after_;
};

QString scaleText(double scale) { return QString::number(scale, 'g', 4); }

}  // namespace

OutputControls::OutputControls(QUndoStack* undo, QWidget* parent)
    : QGroupBox(tr("Border, output and channels"), parent), undo_(undo) {
    auto* form = new QFormLayout(this);
    borderCombo_ = new QComboBox;
    for (BorderMode m : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Constant, BorderMode::Wrap})
        borderCombo_->addItem(QString::fromLatin1(borderModeName(m)));
    borderCombo_->setCurrentIndex(static_cast<int>(BorderMode::Reflect101));
    borderCombo_->setToolTip(tr("What the kernel reads outside the image"));
    borderValueSpin_ = new QDoubleSpinBox;
    borderValueSpin_->setRange(-65535, 65535);
    borderValueSpin_->setEnabled(false);
    borderValueSpin_->setToolTip(tr("Value read outside the image for the constant border"));
    absCheck_ = new QCheckBox(tr("absolute value |v|"));
    absCheck_->setToolTip(tr("Edge kernels give negative responses: |v| shows both directions"));
    scaleSpin_ = new QDoubleSpinBox;
    scaleSpin_->setRange(-1000, 1000);
    scaleSpin_->setDecimals(4);
    scaleSpin_->setValue(1.0);
    scaleSpin_->setSingleStep(0.1);
    scaleSpin_->setToolTip(tr("v = scale * sum + offset (offset is in the kernel designer), then |v| if checked"));
    floatCheck_ = new QCheckBox(tr("float output (raw, no rounding)"));
    filterAlphaCheck_ = new QCheckBox(tr("filter alpha too"));
    filterAlphaCheck_->setToolTip(tr("Images with alpha: filter it like the colours. Off: the result keeps the "
                                     "image's own alpha (an edge filter would otherwise make it transparent)"));
    channelsCombo_ = new QComboBox;
    channelsCombo_->addItem(tr("all channels"));
    channelsCombo_->addItem(tr("luminance only"));
    channelsCombo_->setToolTip(tr("Filter every channel independently, or a gray version of the image"));
    mappingNote_ = new QLabel;
    mappingNote_->setObjectName(QStringLiteral("mappingNote"));
    mappingNote_->setWordWrap(true);
    mappingNote_->setStyleSheet(QStringLiteral("color:#1a5fb4"));
    mappingNote_->hide();
    liveCheck_ = new QCheckBox(tr("re-run on every change"));
    liveCheck_->setChecked(true);
    // Names for tests and style sheets.
    borderCombo_->setObjectName(QStringLiteral("borderCombo"));
    borderValueSpin_->setObjectName(QStringLiteral("borderValue"));
    absCheck_->setObjectName(QStringLiteral("absoluteCheck"));
    scaleSpin_->setObjectName(QStringLiteral("scaleSpin"));
    floatCheck_->setObjectName(QStringLiteral("floatOutputCheck"));
    filterAlphaCheck_->setObjectName(QStringLiteral("filterAlphaCheck"));
    channelsCombo_->setObjectName(QStringLiteral("channelsCombo"));
    liveCheck_->setObjectName(QStringLiteral("liveCheck"));
    form->addRow(tr("Border"), borderCombo_);
    form->addRow(tr("Constant"), borderValueSpin_);
    form->addRow(tr("Scale"), scaleSpin_);
    form->addRow(QString(), absCheck_);
    form->addRow(QString(), mappingNote_);
    form->addRow(QString(), floatCheck_);
    form->addRow(QString(), filterAlphaCheck_);
    form->addRow(tr("Channels"), channelsCombo_);
    form->addRow(QString(), liveCheck_);
    connect(borderCombo_, &QComboBox::currentIndexChanged, this, [this](int i) {
        borderValueSpin_->setEnabled(i == static_cast<int>(BorderMode::Constant));
        emit changed();
    });
    connect(borderValueSpin_, &QDoubleSpinBox::valueChanged, this, &OutputControls::changed);
    const auto mappingEdited = [this] {
        refreshNote();
        emit changed();
    };
    connect(absCheck_, &QCheckBox::toggled, this, mappingEdited);
    connect(scaleSpin_, &QDoubleSpinBox::valueChanged, this, mappingEdited);
    connect(floatCheck_, &QCheckBox::toggled, this, &OutputControls::changed);
    connect(filterAlphaCheck_, &QCheckBox::toggled, this, &OutputControls::changed);
    connect(channelsCombo_, &QComboBox::currentIndexChanged, this, &OutputControls::channelsChanged);
    connect(liveCheck_, &QCheckBox::toggled, this, [this](bool on) {
        if (on) emit changed();
    });
}

Border OutputControls::border() const {
    Border border;
    border.mode = static_cast<BorderMode>(borderCombo_->currentIndex());
    border.value = static_cast<float>(borderValueSpin_->value());
    return border;
}

OutputMapping OutputControls::mapping() const {
    OutputMapping mapping;
    mapping.scale = static_cast<float>(scaleSpin_->value());
    mapping.absolute = absCheck_->isChecked();
    mapping.floatOutput = floatCheck_->isChecked();
    return mapping;
}

bool OutputControls::filterAlpha() const { return filterAlphaCheck_->isChecked(); }
bool OutputControls::luminanceOnly() const { return channelsCombo_->currentIndex() == 1; }
bool OutputControls::live() const { return liveCheck_->isChecked(); }
DisplayMapping OutputControls::displayMapping() const { return {absCheck_->isChecked(), scaleSpin_->value()}; }

void OutputControls::setFromFile(const FilterSpec& spec) {
    {
        const QSignalBlocker b1(borderCombo_), b2(borderValueSpin_), b3(absCheck_), b4(scaleSpin_), b5(floatCheck_);
        borderCombo_->setCurrentIndex(static_cast<int>(spec.border.mode));
        borderValueSpin_->setEnabled(spec.border.mode == BorderMode::Constant);
        borderValueSpin_->setValue(spec.border.value);
        absCheck_->setChecked(spec.output.absolute);
        scaleSpin_->setValue(spec.output.scale);
        floatCheck_->setChecked(spec.output.floatOutput);
    }
    autoMapping_.reset();  // the file chose its own mapping
    refreshNote();
    emit changed();
}

void OutputControls::showDisplayMapping(const DisplayMapping& mapping) {
    {
        const QSignalBlocker b1(absCheck_), b2(scaleSpin_);
        absCheck_->setChecked(mapping.absolute);
        scaleSpin_->setValue(mapping.scale);
    }
    refreshNote();
    emit changed();
}

void OutputControls::setDisplayMapping(const DisplayMapping& mapping, const QString& why) {
    if (mapping == displayMapping()) return;
    undo_->push(new MappingCommand([this](const DisplayMapping& m) { showDisplayMapping(m); }, displayMapping(), mapping, why));
}

void OutputControls::presetApplied(const FilterSpec& spec, const Image* image) {
    const DisplayMapping now = displayMapping();
    // An offset in the designer is the user's own way of showing signed values: leave it alone.
    const std::optional<DisplayMapping> suggested = spec.output.offset == 0.0f ? zeroSumMapping(spec, image) : std::nullopt;
    if (suggested) {
        if (*suggested == now) return;
        if (!autoMapping_ || *autoMapping_ != now) mappingBeforeAuto_ = now;
        autoMapping_ = suggested;
        // Said in the view's caption and beside the controls, and named in Edit > Undo.
        setDisplayMapping(*suggested, tr("show |v| × %1 (zero-sum kernel)").arg(scaleText(suggested->scale)));
    } else if (autoMapping_ && *autoMapping_ == now) {
        autoMapping_.reset();
        setDisplayMapping(mappingBeforeAuto_, tr("raw values (kernel is not zero-sum)"));
    }
}

void OutputControls::refit(const FilterSpec& spec, const Image* image) {
    if (!autoMapping_ || *autoMapping_ != displayMapping()) return;
    if (const std::optional<DisplayMapping> fitted = zeroSumMapping(spec, image); fitted && *fitted != *autoMapping_) {
        autoMapping_ = fitted;
        showDisplayMapping(*fitted);
    }
}

void OutputControls::refreshNote() {
    const DisplayMapping m = displayMapping();
    QString note;
    if (m.absolute || m.scale != 1.0) {
        note = m.absolute ? (m.scale != 1.0 ? tr("|v| × %1").arg(scaleText(m.scale)) : tr("|v|")) : tr("× %1").arg(scaleText(m.scale));
        if (autoMapping_ && *autoMapping_ == m) note += tr(" for the zero-sum kernel (Ctrl+Z: raw values)");
    }
    emit viewNoteChanged(note);
    mappingNote_->setText(autoMapping_ && *autoMapping_ == m
                              ? tr("Chosen for the zero-sum kernel so its edges show; Ctrl+Z gives the raw values.")
                              : QString());
    mappingNote_->setVisible(!mappingNote_->text().isEmpty());
}

}  // namespace fs::ui
