#pragma once
#include <QString>
#include <QVector>
#include <QWidget>

#include "fs/backend.hpp"

class QComboBox;
class QLabel;

namespace fs::widgets {

// One backend mode as the chooser lists it; filled by the owner from the
// backends it has, so the widget itself never touches one.
struct ModeChoice {
    QString backendId;    // "cpu"
    QString backendName;  // "CPU"
    ModeInfo mode;        // available == false carries the reason
    QString key() const { return backendId + '/' + QString::fromStdString(mode.id); }
};

// Picks the backend+mode to run and the one to compare against (for the
// difference view). Unavailable modes are listed, disabled, with the reason as
// tooltip; the explanation of the selected mode is shown for the classroom.
class BackendChooser : public QWidget {
    Q_OBJECT
public:
    explicit BackendChooser(QWidget* parent = nullptr);

    void setChoices(const QVector<ModeChoice>& choices);
    QVector<ModeChoice> choices() const { return choices_; }
    QString currentKey() const;  // "cpu/parallel"
    QString compareKey() const;
    const ModeChoice* current() const;
    bool isAvailable(const QString& key) const;
    QString explanation() const;
    // The lines under the list saying which backends or modes cannot run here, and why.
    QString unavailableText() const;
    // One line per backend with no mode available here, "CUDA: no NVIDIA driver found" (the reason's first
    // clause): for the Presentation strip.
    QStringList unavailableBackends() const;

public slots:
    // What the current mode runs for the current filter and why (Explanation::sentence());
    // empty: the mode's general description.
    void setFilterExplanation(const QString& sentence);
    // False when the key is unknown or unavailable; the selection then stays.
    bool select(const QString& key);
    bool selectCompare(const QString& key);

signals:
    void currentChanged(const QString& key);
    void compareChanged(const QString& key);

private:
    void fill(QComboBox* combo);
    void refreshExplanation();
    int indexOf(const QString& key) const;

    QVector<ModeChoice> choices_;
    QComboBox* modeCombo_;
    QComboBox* compareCombo_;
    QLabel* explanation_;
    QString filterExplanation_;
    QLabel* unavailable_;
};

}  // namespace fs::widgets
