#include "fs/widgets/speed_strip.hpp"

#include <QCheckBox>
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

constexpr double kLogSpan = 20.0;  // bars spanning more than this offer a log scale

// The largest pixel size from `start` down to `floor` at which `text` fits `width` on one line.
int fittingPixelSize(QFont font, const QString& text, int width, int start, int floor) {
    for (int px = start; px > floor; --px) {
        font.setPixelSize(px);
        if (QFontMetrics(font).horizontalAdvance(text) <= width) return px;
    }
    return floor;
}

}  // namespace

QString SpeedStrip::Row::text() const {
    QString text = runs.isEmpty() ? SpeedStrip::tr("%1 ms").arg(formatMs(ms)) : SpeedStrip::tr("%1 ms, %2").arg(formatMs(ms), runs);
    if (isBaseline) return text + SpeedStrip::tr("   baseline");
    if (!speedup) return text;
    if (*speedup >= 1.0) return text + SpeedStrip::tr("   ×%1 faster").arg(formatFactor(*speedup));
    return text + SpeedStrip::tr("   ×%1 slower").arg(formatFactor(1.0 / *speedup));
}

SpeedStrip::SpeedStrip(QWidget* parent) : QWidget(parent), logCheck_(new QCheckBox(tr("Log scale"), this)) {
    setObjectName(QStringLiteral("speedStrip"));
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    logCheck_->setObjectName(QStringLiteral("stripLogScale"));
    logCheck_->setToolTip(tr("Bar lengths on a log scale: the short bars of the fast modes stay visible"));
    logCheck_->hide();
    connect(logCheck_, &QCheckBox::toggled, this, qOverload<>(&QWidget::update));
}

QStringList SpeedStrip::notes() const {
    QStringList lines = stories_;
    if (!mixedNote_.isEmpty()) lines << mixedNote_;
    if (!unavailable_.isEmpty()) lines << tr("Not on this machine: %1").arg(unavailable_.join(QStringLiteral(" · ")));
    return lines;
}

bool SpeedStrip::logScaleOffered() const {
    return rows_.size() > 1 && rows_.back().ms > 0.0 && rows_.front().ms / rows_.back().ms > kLogSpan;
}

bool SpeedStrip::logScale() const { return logScaleOffered() && logCheck_->isChecked(); }

void SpeedStrip::setLogScale(bool on) { logCheck_->setChecked(on); }

void SpeedStrip::setUnavailableBackends(const QStringList& lines) {
    unavailable_ = lines;
    update();
}

void SpeedStrip::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    placeLogCheck();
}

void SpeedStrip::placeLogCheck() {
    QFont f = font();
    f.setPixelSize(std::clamp(height() / 14, 12, 22));
    logCheck_->setFont(f);
    logCheck_->resize(logCheck_->sizeHint());
    logCheck_->move(width() - logCheck_->width() - 12, 8);
    logCheck_->setVisible(logScaleOffered());
}

QString SpeedStrip::emptyMessage() const {
    return tr("No timings yet: Run every mode (Shift+F5) races every backend on this filter and image");
}

void SpeedStrip::setGroup(const ComparisonGroup* group) {
    rows_.clear();
    title_.clear();
    baselineName_.clear();
    stories_.clear();
    mixedNote_.clear();
    if (group) {
        title_ = group->key.title();
        const QVector<Speedup> ratios = ComparisonBoard::speedups(*group);
        // One baseline for the whole strip: the single-thread reference, else the fastest CPU mode.
        const bool haveReference = std::any_of(ratios.begin(), ratios.end(), [](const Speedup& s) { return s.baseline == Speedup::Baseline::Reference; });
        const Speedup::Baseline which = haveReference ? Speedup::Baseline::Reference : Speedup::Baseline::FastestCpu;
        for (const Measurement& m : group->bars) {
            if (m.totalMs() <= 0.0) continue;
            Row row{m.mode, m.totalMs(), std::nullopt, false, ComparisonBoard::runsLabel(m)};
            for (const Speedup& s : ratios)
                if (s.baseline == which && s.mode == m.mode) {
                    row.speedup = s.value;
                    row.isBaseline = s.baselineMode == m.mode;
                    baselineName_ = s.baselineMode;
                }
            rows_.push_back(row);
        }
        std::stable_sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) { return a.ms > b.ms; });
        for (const SpeedupStory& story : ComparisonBoard::stories(*group)) stories_ << story.text();
        mixedNote_ = ComparisonBoard::mixedRunsNote(*group);
    }
    placeLogCheck();
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
        const QStringList lines = notes();
        p.drawText(area, Qt::AlignCenter | Qt::TextWordWrap,
                   lines.isEmpty() ? emptyMessage() : emptyMessage() + QStringLiteral("\n\n") + lines.join(QLatin1Char('\n')));
        return;
    }
    // Title, bars and notes share the height; text is sized to its row, large enough for the back of a room.
    const int titlePx = std::clamp(area.height() / 10, 12, 30);
    QFont title = base;
    title.setBold(true);
    QString heading = title_;
    const QString against = baselineName_.isEmpty() ? QString() : tr("×N against %1").arg(baselineName_);
    if (!against.isEmpty()) heading += QStringLiteral("  ·  ") + against;
    const int headingWidth = area.width() - (logCheck_->isVisible() ? logCheck_->width() + 12 : 0);
    // One line when it fits at a readable size, else the filter and the baseline on lines of their own.
    QStringList headingLines{heading};
    title.setPixelSize(titlePx);
    if (QFontMetrics(title).horizontalAdvance(heading) > headingWidth && !against.isEmpty()) headingLines = {title_, against};
    int headingPx = titlePx;
    for (const QString& line : headingLines) headingPx = std::min(headingPx, fittingPixelSize(title, line, headingWidth, titlePx, 9));
    title.setPixelSize(headingPx);
    p.setFont(title);
    p.setPen(palette().color(QPalette::Text));
    const int headingLine = QFontMetrics(title).lineSpacing();
    for (int i = 0; i < headingLines.size(); ++i)
        p.drawText(QRect(area.left(), area.top() + i * headingLine, headingWidth, headingLine), Qt::AlignLeft | Qt::AlignVCenter,
                   headingLines[i]);
    const int titleHeight = headingLine * static_cast<int>(headingLines.size()) + 4;

    // Notes below the bars, wrapped to the width.
    QFont noteFont = base;
    noteFont.setPixelSize(std::clamp(area.height() / 16, 11, 22));
    const QString noteText = notes().join(QLatin1Char('\n'));
    const int noteHeight = noteText.isEmpty() ? 0
                                              : QFontMetrics(noteFont).boundingRect(QRect(0, 0, area.width(), 10000),
                                                                                    Qt::TextWordWrap, noteText).height() + 4;

    const int n = static_cast<int>(rows_.size());
    const double rowHeight = std::max(8.0, std::min<double>(96.0, (area.height() - titleHeight - noteHeight) / static_cast<double>(n)));

    QFont label = base;
    label.setPixelSize(std::clamp(static_cast<int>(rowHeight * 0.5), 10, 34));
    QFontMetrics fm(label);
    int nameWidth = 0, valueWidth = 0;
    for (const Row& r : rows_) {
        nameWidth = std::max(nameWidth, fm.horizontalAdvance(r.mode));
        valueWidth = std::max(valueWidth, fm.horizontalAdvance(r.text()));
    }
    // Names and values keep their full text: a narrow strip makes the font smaller, not the words shorter.
    const int gap = fm.horizontalAdvance(QStringLiteral("  "));
    while (label.pixelSize() > 9 && nameWidth + valueWidth + 2 * gap + 40 > area.width()) {
        label.setPixelSize(label.pixelSize() - 1);
        fm = QFontMetrics(label);
        nameWidth = valueWidth = 0;
        for (const Row& r : rows_) {
            nameWidth = std::max(nameWidth, fm.horizontalAdvance(r.mode));
            valueWidth = std::max(valueWidth, fm.horizontalAdvance(r.text()));
        }
    }
    // A few pixels of slack: the widest name must not be cut by fractional advances.
    nameWidth += 4;
    p.setFont(label);
    const int barLeft = area.left() + nameWidth + gap;
    const int barSpace = std::max(10, area.right() - barLeft - valueWidth - gap);
    const double slowest = rows_.front().ms;
    const double fastest = std::max(1e-9, rows_.back().ms);
    const bool log = logScale();
    for (int i = 0; i < n; ++i) {
        const Row& r = rows_[i];
        const double top = area.top() + titleHeight + i * rowHeight;
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRectF(area.left(), top, nameWidth, rowHeight), Qt::AlignRight | Qt::AlignVCenter, r.mode);
        // Linear lengths: a 0.1 ms bar beside a 200 ms one is a sliver, and its number says the rest. On the
        // log scale the fastest bar keeps a share of the space and each factor of ten adds the same length.
        const double share = log ? (std::log(r.ms / fastest) + 1.0) / (std::log(slowest / fastest) + 1.0) : r.ms / slowest;
        const double length = std::max(3.0, barSpace * share);
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
    if (!noteText.isEmpty()) {
        p.setFont(noteFont);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(area.left(), area.bottom() - noteHeight + 4, area.width(), noteHeight), Qt::AlignLeft | Qt::TextWordWrap,
                   noteText);
    }
}

}  // namespace fs::widgets
