#pragma once
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <optional>

#include "fs/widgets/comparison.hpp"

class QCheckBox;

namespace fs::widgets {

// One comparison group's times as a strip of large horizontal bars, for a projector: a row per mode with
// its time written beside the bar and how many times faster it ran than the group's baseline (the
// single-thread reference when measured, else the fastest CPU mode). Ratios come only from
// ComparisonBoard::speedups of the one group, so they never divide one filter's or image's time by another's.
// Below the bars: the speed-up taken apart (algorithm, CPU, GPU), a note when bars were measured differently,
// and one line naming the backends this machine cannot run. Bars spanning more than 20x offer a log scale.
class SpeedStrip : public QWidget {
    Q_OBJECT
public:
    struct Row {
        QString mode;
        double ms = 0.0;
        std::optional<double> speedup;  // baseline ms / this ms; none when the group has no baseline
        bool isBaseline = false;
        QString runs;          // "median of 5", "1 cold run"
        QString text() const;  // "12.3 ms, median of 5   ×4.1 faster", as drawn beside the bar
    };

    explicit SpeedStrip(QWidget* parent = nullptr);

    // Copies what it needs from `group`; null shows the empty state.
    void setGroup(const ComparisonGroup* group);
    QString title() const { return title_; }  // the group's filter and image; empty when none
    QVector<Row> rows() const { return rows_; }  // slowest first, as drawn
    QString emptyMessage() const;                // shown while there are no rows
    // The lines under the bars: the speed-up taken apart, mixed measurements, unavailable backends.
    QStringList notes() const;
    // Bars spanning more than 20x offer the log scale (the check box is shown).
    bool logScaleOffered() const;
    bool logScale() const;

public slots:
    // "CUDA: no NVIDIA driver found", one per backend that cannot run here (BackendChooser::unavailableBackends).
    void setUnavailableBackends(const QStringList& lines);
    void setLogScale(bool on);

    QSize sizeHint() const override { return {800, 220}; }
    QSize minimumSizeHint() const override { return {300, 110}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void placeLogCheck();

    QString title_;
    QString baselineName_;
    QVector<Row> rows_;
    QStringList stories_;
    QString mixedNote_;
    QStringList unavailable_;
    QCheckBox* logCheck_;
};

}  // namespace fs::widgets
