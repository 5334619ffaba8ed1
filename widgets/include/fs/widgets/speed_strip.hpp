#pragma once
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <optional>

#include "fs/widgets/comparison.hpp"

namespace fs::widgets {

// One comparison group's times as a strip of large horizontal bars, for a projector: a row per mode with
// its time written beside the bar and how many times faster it ran than the group's baseline (the
// single-thread reference when measured, else the fastest CPU mode). Ratios come only from
// ComparisonBoard::speedups of the one group, so they never divide one filter's or image's time by another's.
class SpeedStrip : public QWidget {
    Q_OBJECT
public:
    struct Row {
        QString mode;
        double ms = 0.0;
        std::optional<double> speedup;  // baseline ms / this ms; none when the group has no baseline
        bool isBaseline = false;
        QString text() const;  // "12.3 ms   ×4.1 faster", as drawn beside the bar
    };

    explicit SpeedStrip(QWidget* parent = nullptr);

    // Copies what it needs from `group`; null shows the empty state.
    void setGroup(const ComparisonGroup* group);
    QString title() const { return title_; }  // the group's filter and image; empty when none
    QVector<Row> rows() const { return rows_; }  // slowest first, as drawn
    QString emptyMessage() const;                // shown while there are no rows

    QSize sizeHint() const override { return {800, 220}; }
    QSize minimumSizeHint() const override { return {300, 110}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QString title_;
    QString baselineName_;
    QVector<Row> rows_;
};

}  // namespace fs::widgets
