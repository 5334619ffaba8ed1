#include "fs/widgets/speed_strip.hpp"

#include <QPainter>
#include <algorithm>
#include <cmath>

namespace fs::widgets {

namespace {

QString formatMs(double ms) {
    if (ms >= 100.0) return QString::number(ms, 'f', 0);
    if (ms >= 10.0) return QString::number(ms, 'f', 1);
    if (ms >= 1.0) return QString::number(ms, 'f', 2);
    return QString::number(ms, 'f', 3);
}

QString formatFactor(double x) { return x >= 100.0 ? QString::number(x, 'f', 0) : x >= 10.0 ? QString::number(x, 'f', 1) : QString::number(x, 'f', 2); }

const QColor kBaseline(128, 134, 139);
const QColor kFaster(30, 142, 62);
const QColor kSlower(227, 116, 0);

}  // namespace

QString SpeedStrip::Row::text() const {
    QString text = SpeedStrip::tr("%1 ms").arg(formatMs(ms));
    if (isBaseline) return text + SpeedStrip::tr("   baseline");
    if (!speedup) return text;
    if (*speedup >= 1.0) return text + SpeedStrip::tr("   ×%1 faster").arg(formatFactor(*speedup));
    return text + SpeedStrip::tr("   ×%1 slower").arg(formatFactor(1.0 / *speedup));
}

SpeedStrip::SpeedStrip(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("speedStrip"));
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
}

QString SpeedStrip::emptyMessage() const {
    return tr("No timings yet: Run every mode (Shift+F5) races every backend on this filter and image");
}

void SpeedStrip::setGroup(const ComparisonGroup* group) {
    rows_.clear();
    title_.clear();
    baselineName_.clear();
    if (group) {
        title_ = group->key.title();
        const QVector<Speedup> ratios = ComparisonBoard::speedups(*group);
        // One baseline for the whole strip: the single-thread reference, else the fastest CPU mode.
        const bool haveReference = std::any_of(ratios.begin(), ratios.end(), [](const Speedup& s) { return s.baseline == Speedup::Baseline::Reference; });
        const Speedup::Baseline which = haveReference ? Speedup::Baseline::Reference : Speedup::Baseline::FastestCpu;
        for (const Measurement& m : group->bars) {
            if (m.totalMs() <= 0.0) continue;
            Row row{m.mode, m.totalMs(), std::nullopt, false};
            for (const Speedup& s : ratios)
                if (s.baseline == which && s.mode == m.mode) {
                    row.speedup = s.value;
                    row.isBaseline = s.baselineMode == m.mode;
                    baselineName_ = s.baselineMode;
                }
            rows_.push_back(row);
        }
        std::stable_sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) { return a.ms > b.ms; });
    }
    update();
}

void SpeedStrip::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRect area = rect().adjusted(12, 8, -12, -8);
    QFont base = font();
    if (rows_.isEmpty()) {
        base.setPixelSize(std::clamp(area.height() / 6, 14, 28));
        p.setFont(base);
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(area, Qt::AlignCenter | Qt::TextWordWrap, emptyMessage());
        return;
    }
    // Rows share the height; text is sized to its row, large enough for the back of a room.
    const int titleHeight = std::clamp(area.height() / 7, 18, 40);
    const int n = static_cast<int>(rows_.size());
    const double rowHeight = std::min<double>(72.0, (area.height() - titleHeight) / static_cast<double>(n));
    QFont title = base;
    title.setPixelSize(std::clamp(titleHeight * 7 / 10, 12, 28));
    title.setBold(true);
    p.setFont(title);
    p.setPen(palette().color(QPalette::Text));
    QString heading = title_;
    if (!baselineName_.isEmpty()) heading += tr("  ·  ×N against %1").arg(baselineName_);
    p.drawText(QRect(area.left(), area.top(), area.width(), titleHeight), Qt::AlignLeft | Qt::AlignVCenter,
               p.fontMetrics().elidedText(heading, Qt::ElideRight, area.width()));

    QFont label = base;
    label.setPixelSize(std::clamp(static_cast<int>(rowHeight * 0.55), 10, 34));
    p.setFont(label);
    const QFontMetrics fm(label);
    int nameWidth = 0, valueWidth = 0;
    for (const Row& r : rows_) {
        nameWidth = std::max(nameWidth, fm.horizontalAdvance(r.mode));
        valueWidth = std::max(valueWidth, fm.horizontalAdvance(r.text()));
    }
    // A few pixels of slack: the widest name must not be elided by fractional advances.
    nameWidth = std::min(nameWidth + 4, area.width() / 3);
    const int gap = fm.horizontalAdvance(QStringLiteral("  "));
    const int barLeft = area.left() + nameWidth + gap;
    const int barSpace = std::max(10, area.right() - barLeft - valueWidth - gap);
    const double slowest = rows_.front().ms;
    for (int i = 0; i < n; ++i) {
        const Row& r = rows_[i];
        const double top = area.top() + titleHeight + i * rowHeight;
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRectF(area.left(), top, nameWidth, rowHeight), Qt::AlignRight | Qt::AlignVCenter,
                   fm.elidedText(r.mode, Qt::ElideMiddle, nameWidth));
        // Linear lengths: a 0.1 ms bar beside a 200 ms one is a sliver, and its number says the rest.
        const double length = std::max(3.0, barSpace * r.ms / slowest);
        const QColor colour = r.isBaseline || !r.speedup ? kBaseline : *r.speedup >= 1.0 ? kFaster : kSlower;
        const QRectF bar(barLeft, top + rowHeight * 0.15, length, rowHeight * 0.7);
        p.fillRect(bar, colour);
        QFont value = label;
        value.setBold(r.speedup && !r.isBaseline && *r.speedup >= 1.0);
        p.setFont(value);
        p.drawText(QRectF(bar.right() + gap / 2.0, top, area.right() - bar.right(), rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   r.text());
        p.setFont(label);
    }
}

}  // namespace fs::widgets
