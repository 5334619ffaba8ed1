#include "fs/widgets/backend_chooser.hpp"

#include <algorithm>

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QStandardItemModel>
#include <QVBoxLayout>

namespace fs::widgets {

BackendChooser::BackendChooser(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    modeCombo_ = new QComboBox;
    modeCombo_->setToolTip(tr("Which backend and mode computes the result"));
    compareCombo_ = new QComboBox;
    // Long backend names ("OpenCL on the CPU (device)") must not widen the dock: the list shows them whole.
    for (QComboBox* combo : {modeCombo_, compareCombo_}) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(14);
    }
    compareCombo_->setToolTip(tr("The difference view shows |result - this mode's result| and the max abs error"));
    form->addRow(tr("Run with"), modeCombo_);
    form->addRow(tr("Compare with"), compareCombo_);
    layout->addLayout(form);
    explanation_ = new QLabel;
    explanation_->setWordWrap(true);
    explanation_->setFrameShape(QFrame::StyledPanel);
    explanation_->setMargin(6);
    explanation_->setMinimumHeight(60);
    explanation_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    layout->addWidget(explanation_);
    unavailable_ = new QLabel;
    unavailable_->setWordWrap(true);
    unavailable_->setStyleSheet(QStringLiteral("color:#a15c00"));
    layout->addWidget(unavailable_);
    connect(modeCombo_, &QComboBox::currentIndexChanged, this, [this] {
        filterExplanation_.clear();  // it was the previous mode's
        refreshExplanation();
        emit currentChanged(currentKey());
    });
    connect(compareCombo_, &QComboBox::currentIndexChanged, this, [this] { emit compareChanged(compareKey()); });
}

void BackendChooser::fill(QComboBox* combo) {
    auto* model = new QStandardItemModel(combo);
    for (const ModeChoice& c : choices_) {
        QString text = QStringLiteral("%1 · %2").arg(c.backendName, QString::fromStdString(c.mode.id));
        if (c.mode.approximate) text += tr(" (approximate)");  // within a bound of the reference, not bit for bit
        auto* item = new QStandardItem(text);
        item->setData(c.key(), Qt::UserRole);
        if (!c.mode.available) {
            item->setFlags(item->flags() & ~(Qt::ItemIsEnabled | Qt::ItemIsSelectable));
            item->setToolTip(tr("Unavailable: %1").arg(QString::fromStdString(c.mode.unavailableReason)));
        } else {
            item->setToolTip(QString::fromStdString(c.mode.description));
        }
        model->appendRow(item);
    }
    combo->setModel(model);
}

void BackendChooser::setChoices(const QVector<ModeChoice>& choices) {
    const QString previous = currentKey(), previousCompare = compareKey();
    QSignalBlocker block1(modeCombo_), block2(compareCombo_);
    choices_ = choices;
    fill(modeCombo_);
    fill(compareCombo_);
    // Keep the old selection, else the first available mode; compare defaults to the CPU reference.
    int first = -1;
    for (int i = 0; i < choices_.size() && first < 0; ++i)
        if (choices_[i].mode.available) first = i;
    const int keep = indexOf(previous);
    modeCombo_->setCurrentIndex(keep >= 0 && choices_[keep].mode.available ? keep : first);
    const int keepCompare = indexOf(previousCompare);
    const int reference = indexOf(QStringLiteral("cpu/reference"));
    compareCombo_->setCurrentIndex(keepCompare >= 0 && choices_[keepCompare].mode.available ? keepCompare
                                   : reference >= 0                                           ? reference
                                                                                               : first);
    QStringList reasons;
    for (const ModeChoice& c : choices_)
        if (!c.mode.available) {
            // One mode the device lacks the hardware for (tensor cores) is named; a backend that cannot run at all
            // is named once.
            const bool backendRuns = std::any_of(choices_.begin(), choices_.end(), [&](const ModeChoice& o) {
                return o.backendId == c.backendId && o.mode.available;
            });
            const QString who =
                backendRuns ? QStringLiteral("%1 · %2").arg(c.backendName, QString::fromStdString(c.mode.id)) : c.backendName;
            const QString line = tr("%1 unavailable: %2").arg(who, QString::fromStdString(c.mode.unavailableReason));
            if (!reasons.contains(line)) reasons << line;
        }
    unavailable_->setText(reasons.join('\n'));
    unavailable_->setVisible(!reasons.isEmpty());
    refreshExplanation();
}

int BackendChooser::indexOf(const QString& key) const {
    for (int i = 0; i < choices_.size(); ++i)
        if (choices_[i].key() == key) return i;
    return -1;
}

QString BackendChooser::currentKey() const {
    const int i = modeCombo_->currentIndex();
    return i >= 0 && i < choices_.size() ? choices_[i].key() : QString();
}

QString BackendChooser::compareKey() const {
    const int i = compareCombo_->currentIndex();
    return i >= 0 && i < choices_.size() ? choices_[i].key() : QString();
}

const ModeChoice* BackendChooser::current() const {
    const int i = modeCombo_->currentIndex();
    return i >= 0 && i < choices_.size() ? &choices_[i] : nullptr;
}

bool BackendChooser::isAvailable(const QString& key) const {
    const int i = indexOf(key);
    return i >= 0 && choices_[i].mode.available;
}

bool BackendChooser::select(const QString& key) {
    if (!isAvailable(key)) return false;
    modeCombo_->setCurrentIndex(indexOf(key));
    return true;
}

bool BackendChooser::selectCompare(const QString& key) {
    if (!isAvailable(key)) return false;
    compareCombo_->setCurrentIndex(indexOf(key));
    return true;
}

QString BackendChooser::explanation() const { return explanation_->text(); }

QString BackendChooser::unavailableText() const { return unavailable_->text(); }

QStringList BackendChooser::unavailableBackends() const {
    QStringList lines;
    QStringList seen;
    for (const ModeChoice& c : choices_) {
        if (seen.contains(c.backendId)) continue;
        const bool runs = std::any_of(choices_.begin(), choices_.end(),
                                      [&](const ModeChoice& o) { return o.backendId == c.backendId && o.mode.available; });
        seen << c.backendId;
        if (runs) continue;
        QString why = QString::fromStdString(c.mode.unavailableReason);
        if (const auto aside = why.indexOf(QStringLiteral(" (")); aside > 0) why.truncate(aside);
        lines << tr("%1: %2").arg(c.backendName, why);
    }
    return lines;
}

void BackendChooser::setFilterExplanation(const QString& sentence) {
    filterExplanation_ = sentence;
    refreshExplanation();
}

void BackendChooser::refreshExplanation() {
    const ModeChoice* c = current();
    const QString approximate =
        c && c->mode.approximate ? tr(" (approximate: its measured error shows beside its time)") : QString();
    const QString text = filterExplanation_.isEmpty() ? QString::fromStdString(c ? c->mode.description : std::string())
                                                      : filterExplanation_;
    explanation_->setText(c ? QStringLiteral("<b>%1 · %2</b>%3<br>%4")
                                  .arg(c->backendName.toHtmlEscaped(), QString::fromStdString(c->mode.id).toHtmlEscaped(),
                                       approximate.toHtmlEscaped(), text.toHtmlEscaped())
                            : tr("No backend is available."));
}

}  // namespace fs::widgets
