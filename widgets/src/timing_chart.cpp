#include "fs/widgets/timing_chart.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QTabWidget>
#include <QTextStream>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <optional>
#include <qcustomplot.h>

#include "plot_states.hpp"

namespace fs::widgets {

namespace {

struct Part {
    const char* name;
    std::optional<double> TimingRecord::*field;
    QColor colour;
};

const Part kParts[] = {
    {"host prep", &TimingRecord::hostPrepMs, QColor(150, 150, 150)},
    {"upload", &TimingRecord::uploadMs, QColor(66, 133, 244)},
    {"kernel", &TimingRecord::kernelMs, QColor(219, 68, 55)},
    {"planes split + merge", &TimingRecord::layoutMs, QColor(0, 150, 136)},
    {"download", &TimingRecord::downloadMs, QColor(244, 180, 0)},
    {"interop map/unmap", &TimingRecord::mapMs, QColor(15, 157, 88)},
    {"texture + draw", &TimingRecord::displayMs, QColor(171, 71, 188)},
};

const QColor kReferenceColour(15, 157, 88);
const QColor kFastestCpuColour(66, 133, 244);

// Runs with a chosen GPU launch get a bar of their own, so configurations compare side by side.
QString label(const TimingRecord& t) {
    const QString name = QString::fromStdString(t.backend + "/" + t.mode);
    return t.launch.empty() ? name : QStringLiteral("%1 [%2]").arg(name, QString::fromStdString(t.launch));
}

// The whole run: total when measured, else the sum of its parts.
double totalOf(const TimingRecord& t) {
    if (t.totalMs) return *t.totalMs;
    double sum = 0.0;
    for (const Part& p : kParts)
        if ((t.*p.field)) sum += *(t.*p.field);
    return sum;
}

// What the bar shows that the measured parts do not: time outside them.
double otherOf(const TimingRecord& t) {
    double parts = 0.0;
    for (const Part& p : kParts)
        if ((t.*p.field)) parts += *(t.*p.field);
    return t.totalMs ? std::max(0.0, *t.totalMs - parts) : 0.0;
}

QString formatMs(double ms) {
    if (ms >= 100.0) return QString::number(ms, 'f', 1);
    if (ms >= 1.0) return QString::number(ms, 'f', 2);
    return QString::number(ms, 'f', 3);
}

QString formatPercent(double fraction) {
    const double p = fraction * 100.0;
    return p >= 10.0 ? QString::number(p, 'f', 0) : p >= 1.0 ? QString::number(p, 'f', 1) : QString::number(p, 'f', 2);
}

QString formatRatio(double x) {
    if (x >= 10.0) return QStringLiteral("%1x").arg(x, 0, 'f', 1);
    if (x >= 0.1) return QStringLiteral("%1x").arg(x, 0, 'f', 2);
    return QStringLiteral("%1x").arg(x, 0, 'g', 2);  // "0.0016x", never "0.00x"
}

// The legend sits in a row above the axes: inside them it covered the tallest bars.
QCustomPlot* makePlot(bool legendAbove) {
    auto* plot = new QCustomPlot;
    plot->setMinimumHeight(100);  // a short dock still shows the chart, with fewer ticks
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setRangeDrag(Qt::Vertical);
    plot->axisRect()->setRangeZoom(Qt::Vertical);
    if (legendAbove) {
        // A row of its own, the legend at its left: a full-width legend spread its entries across the plot.
        auto* row = new QCPLayoutGrid;
        plot->plotLayout()->insertRow(0);
        plot->plotLayout()->addElement(0, 0, row);
        plot->plotLayout()->setRowStretchFactor(0, 0.001);
        plot->plotLayout()->setRowSpacing(0);
        row->addElement(0, 0, plot->legend);
        row->addElement(0, 1, new QCPLayoutElement(plot));
        row->setColumnStretchFactor(0, 0.001);
        row->setColumnStretchFactor(1, 1.0);
        plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
        plot->legend->setBorderPen(Qt::NoPen);
        plot->legend->setMargins(QMargins(2, 0, 2, 0));
        plot->legend->setVisible(true);
    }
    return plot;
}

void setValueAxis(QCPAxis* axis, const QString& name, bool log) {
    axis->setLabel(name);
    axis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (log) axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    else axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
}

void setCategoryAxis(QCustomPlot* plot, const QStringList& names, const QFont& font) {
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < names.size(); ++i) ticker->addTick(i + 1, names[i]);
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setTickLabelFont(font);
    plot->xAxis->setTickLabelRotation(0);
    plot->xAxis->setRange(0.4, std::max(3.0, static_cast<double>(names.size())) + 0.6);
}

// Text just above a bar top, in plot coordinates.
void addBarText(QCustomPlot* plot, double key, double value, const QString& text, const QFont& font, bool below = false) {
    auto* item = new QCPItemText(plot);
    item->setClipToAxisRect(false);
    item->position->setCoords(key, value);
    item->setPositionAlignment((below ? Qt::AlignTop : Qt::AlignBottom) | Qt::AlignHCenter);
    item->setTextAlignment(Qt::AlignCenter);
    item->setPadding(QMargins(1, 0, 1, 2));
    item->setFont(font);
    item->setText(text);
}

// Lines at the top left of the axes, over a pale box so bars behind stay readable.
void addTopNote(QCustomPlot* plot, const QString& text, const QFont& font) {
    auto* note = new QCPItemText(plot);
    note->setObjectName(QStringLiteral("chartNote"));
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.01, 0.01);
    note->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    note->setTextAlignment(Qt::AlignLeft);
    note->setFont(font);
    note->setBrush(QColor(255, 255, 255, 220));
    note->setPadding(QMargins(4, 2, 4, 2));
    note->setColor(QColor(60, 60, 60));
    note->setText(text);
}

void addNote(QCustomPlot* plot, const QString& text) {
    auto* note = new QCPItemText(plot);
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.5, 0.4);
    note->setText(text);
    note->setColor(QColor(90, 90, 90));
}

// Room above the tallest bar for `labelLines` lines of text, from the axis rect's height in pixels
// (as last laid out; a short dock needs a larger share of the range than a tall one).
void setValueRange(QCustomPlot* plot, bool log, double minValue, double maxValue, int labelLines, const QFont& font) {
    const double rectPx = plot->axisRect()->height() > 40 ? plot->axisRect()->height() : 120.0;
    const double textPx = QFontMetrics(font).lineSpacing() * labelLines + 4.0;
    const double share = std::min(0.6, textPx / rectPx);  // of the axis taken by the text
    const double grow = share / (1.0 - share);
    if (log) {
        const double low = std::max(1e-4, minValue * 0.5);
        const double high = std::max(low * 10.0, maxValue);
        plot->yAxis->setRange(low, high * std::pow(high / low, grow));
    } else {
        plot->yAxis->setRange(0, std::max(1e-3, maxValue) * (1.0 + grow));
    }
}

QString csvField(const std::optional<double>& v) { return v ? QString::number(*v, 'f', 4) : QString(); }
QString csvText(QString s) { return '"' + s.replace('"', QStringLiteral("\"\"")) + '"'; }

const QColor kHistoryColours[] = {QColor(0, 114, 178), QColor(213, 94, 0), QColor(0, 158, 115), QColor(204, 121, 167),
                                  QColor(230, 159, 0), QColor(86, 180, 233), QColor(0, 0, 0), QColor(148, 103, 189)};
const QCPScatterStyle::ScatterShape kHistoryShapes[] = {QCPScatterStyle::ssCircle, QCPScatterStyle::ssSquare,
                                                        QCPScatterStyle::ssTriangle, QCPScatterStyle::ssDiamond};

// A history point's series: its filter (or pipeline) and image.
QString historyName(const TimingChart::Entry& e) {
    return QStringLiteral("%1 on %2").arg(e.step.isEmpty() ? e.filter : e.step, e.imageLabel);
}

// Where the ratio of the slowest to the fastest bar passes this, short bars vanish on a linear axis.
constexpr double kLogSpan = 20.0;

}  // namespace

TimingChart::TimingChart(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    tabs_ = new QTabWidget;
    breakdown_ = makePlot(true);
    speedup_ = makePlot(true);
    historyPlot_ = makePlot(true);
    historyPlot_->legend->setWrap(3);  // a row of three filters at a time, not one line across the chart
    pipelinePlot_ = makePlot(true);
    tabs_->addTab(breakdown_, tr("Breakdown"));
    tabs_->addTab(speedup_, tr("Speed-up"));
    tabs_->addTab(historyPlot_, tr("History"));
    tabs_->addTab(pipelinePlot_, tr("Steps"));
    layout->addWidget(tabs_, 1);

    controls_ = new QGridLayout;
    logCheck_ = new QCheckBox(tr("Log scale"));
    logCheck_->setToolTip(tr("Log value axis: where bars span more than 20x, the short ones stay visible"));
    groupCombo_ = new QComboBox;
    groupCombo_->setObjectName(QStringLiteral("comparisonGroup"));
    groupCombo_->setToolTip(tr("Bars and speed-ups compare only runs of the same filter, border and image"));
    groupCombo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    groupCombo_->setMinimumContentsLength(14);
    repeatsSpin_ = new QSpinBox;
    repeatsSpin_->setObjectName(QStringLiteral("repeatsSpin"));
    repeatsSpin_->setRange(1, 99);
    repeatsSpin_->setValue(5);
    repeatsSpin_->setPrefix(tr("median of "));
    repeatsSpin_->setToolTip(tr("Run every mode: runs per mode after one untimed warm-up; the bar is the median run"));
    runAllButton_ = new QPushButton(tr("Run every mode"));
    runAllButton_->setObjectName(QStringLiteral("runEveryMode"));
    runAllButton_->setToolTip(tr("Time every available mode on this filter and image (Shift+F5)"));
    // Export and clear share one menu button: the row stays narrow enough for a 1024-pixel window.
    moreButton_ = new QToolButton;
    auto* moreButton = moreButton_;
    moreButton->setObjectName(QStringLiteral("chartMenu"));
    moreButton->setText(tr("Export"));
    moreButton->setToolTip(tr("Export the chart or the runs, or clear them"));
    moreButton->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(moreButton);
    QAction* pngAction = menu->addAction(tr("Chart as PNG..."));
    pngAction->setToolTip(tr("Export the visible chart as a PNG image"));
    QAction* csvAction = menu->addAction(tr("Every run as CSV..."));
    menu->addSeparator();
    QAction* clearAction = menu->addAction(tr("Clear all timings"));
    moreButton->setMenu(menu);
    groupRow_ = new QWidget;
    auto* groupLayout = new QHBoxLayout(groupRow_);
    groupLayout->setContentsMargins(0, 0, 0, 0);
    groupLayout->addWidget(new QLabel(tr("Comparing:")));
    groupLayout->addWidget(groupCombo_, 1);
    layout->addLayout(controls_);
    arrangeControls(true);

    connect(tabs_, &QTabWidget::currentChanged, this, [this] { static_cast<QCustomPlot*>(tabs_->currentWidget())->replot(); });
    connect(logCheck_, &QCheckBox::toggled, this, &TimingChart::setLogScale);
    connect(groupCombo_, &QComboBox::activated, this, [this](int index) { showGroup(groupCombo_->itemData(index).toInt()); });
    connect(runAllButton_, &QPushButton::clicked, this, &TimingChart::runEveryModeRequested);
    connect(pngAction, &QAction::triggered, this, &TimingChart::browseExportPng);
    connect(csvAction, &QAction::triggered, this, &TimingChart::browseExportCsv);
    connect(clearAction, &QAction::triggered, this, &TimingChart::clear);
    rebuildGroupList();
    replot();
}

void TimingChart::addRun(const TimingRecord& timing, const ComparisonKey& key, const ModeRole& role, int repeats, int warmups) {
    const int run = history_.isEmpty() ? 1 : history_.back().run + 1;
    history_.push_back({run, key.imageLabel(), timing, QString(), key.filterName, key.borderName, repeats, warmups});
    Measurement m;
    m.mode = label(timing);
    m.timing = timing;
    m.role = role;
    m.repeats = std::max(1, repeats);
    m.warmups = std::max(0, warmups);
    const int before = static_cast<int>(board_.groups().size());
    const int front = board_.groups().isEmpty() ? 0 : board_.groups().front().id;
    shownGroup_ = board_.add(key, std::move(m));
    if (board_.groups().size() != before || (before > 0 && board_.groups().front().id != front)) rebuildGroupList();
    else groupCombo_->setCurrentIndex(groupCombo_->findData(shownGroup_));
    replot();
    emit measurementsChanged();
}

void TimingChart::addPipelineRun(const QString& name, const TimingRecord& total, const QVector<Step>& steps,
                                 const QString& imageLabel) {
    const int run = history_.isEmpty() ? 1 : history_.back().run + 1;
    for (const Step& step : steps) pipelineEntries_.push_back({run, imageLabel, step.timing, step.label, {}, {}, 1, 0});
    const QString title = name.isEmpty() ? tr("pipeline") : tr("pipeline %1").arg(name);
    history_.push_back({run, imageLabel, total, title, {}, {}, 1, 0});
    pipelineSteps_ = steps;
    pipelineTitle_ = tr("%1 on %2 (%3), total %4 ms")
                         .arg(title, label(total), imageLabel)
                         .arg(totalOf(total), 0, 'f', 3);
    tabs_->setCurrentWidget(pipelinePlot_);
    replot();
}

QString TimingChart::emptyMessage(const QString& tabTitle) const {
    for (int i = 0; i < tabs_->count(); ++i)
        if (tabs_->tabText(i) == tabTitle) return emptyStateMessage(static_cast<QCustomPlot*>(tabs_->widget(i)));
    return {};
}

QString TimingChart::currentTab() const { return tabs_->tabText(tabs_->currentIndex()); }

bool TimingChart::setCurrentTab(const QString& title) {
    for (int i = 0; i < tabs_->count(); ++i)
        if (tabs_->tabText(i) == title) {
            tabs_->setCurrentIndex(i);
            return true;
        }
    return false;
}

bool TimingChart::showGroup(int id) {
    if (!board_.group(id)) return false;
    shownGroup_ = id;
    groupCombo_->setCurrentIndex(groupCombo_->findData(id));
    replot();
    emit measurementsChanged();
    return true;
}

void TimingChart::rebuildGroupList() {
    const QSignalBlocker block(groupCombo_);
    groupCombo_->clear();
    // Newest first: the group just measured is the one people look for.
    const QVector<ComparisonGroup>& groups = board_.groups();
    for (auto it = groups.rbegin(); it != groups.rend(); ++it) groupCombo_->addItem(it->key.title(), it->id);
    if (groups.isEmpty()) groupCombo_->addItem(tr("no runs yet"), 0);
    groupCombo_->setCurrentIndex(std::max(0, groupCombo_->findData(shownGroup_)));
    groupCombo_->setEnabled(!groups.isEmpty());
}

QStringList TimingChart::categories() const {
    QStringList names;
    if (const ComparisonGroup* g = shown())
        for (const Measurement& m : g->bars) names << m.mode;
    return names;
}

// Narrow bars (many modes, a GPU machine) get their text in shorter lines, so neighbours do not overlap.
QString TimingChart::barLabel(const Measurement& m, bool compact) {
    if (!compact)
        return QStringLiteral("%1\n%2\n%3, %4").arg(m.mode, m.key.filterName, m.key.imageLabel(), m.key.borderName);
    QString filter = m.key.filterName;  // "gaussian:15 (15x15)": name and size on lines of their own
    const auto size = filter.lastIndexOf(QStringLiteral(" ("));
    if (size > 0) filter[size] = QLatin1Char('\n');
    return QStringLiteral("%1\n%2\n%3\n%4").arg(m.mode, filter, m.key.imageLabel(), m.key.borderName);
}

QString TimingChart::valueLabel(const Measurement& m, bool compact) {
    const double total = m.totalMs();
    const QString runs = ComparisonBoard::runsLabel(m);
    QString text = (compact ? tr("%1 ms\n%2") : tr("%1 ms, %2")).arg(formatMs(total), runs);
    // A transfer a few thousandths of the bar is invisible as a segment: its share is written out.
    if (m.timing.uploadMs || m.timing.downloadMs || m.timing.mapMs) {
        const double transfer = m.transferMs();
        const QString share = formatPercent(total > 0.0 ? transfer / total : 0.0);
        text += compact ? tr("\ntransfers %1%").arg(share) : tr("\ntransfers %1 ms = %2%").arg(formatMs(transfer), share);
    }
    return text;
}

int TimingChart::oneRowWidth() const {
    const int spacing = std::max(0, controls_->horizontalSpacing());
    int sum = 0;
    for (QWidget* w : std::initializer_list<QWidget*>{logCheck_, groupRow_, runAllButton_, repeatsSpin_, moreButton_})
        sum += w->minimumSizeHint().width() + spacing;
    const QMargins m = layout()->contentsMargins();
    return sum + m.left() + m.right();
}

void TimingChart::arrangeControls(bool oneRow) {
    for (QWidget* w : std::initializer_list<QWidget*>{logCheck_, groupRow_, runAllButton_, repeatsSpin_, moreButton_})
        controls_->removeWidget(w);
    for (int c = 0; c < 5; ++c) controls_->setColumnStretch(c, 0);
    if (oneRow) {
        controls_->addWidget(logCheck_, 0, 0);
        controls_->addWidget(groupRow_, 0, 1);
        controls_->addWidget(runAllButton_, 0, 2);
        controls_->addWidget(repeatsSpin_, 0, 3);
        controls_->addWidget(moreButton_, 0, 4);
        controls_->setColumnStretch(1, 1);
    } else {
        // A side column: the comparison on a row of its own, then running, then the log scale and export.
        controls_->addWidget(groupRow_, 0, 0, 1, 2);
        controls_->addWidget(runAllButton_, 1, 0);
        controls_->addWidget(repeatsSpin_, 1, 1);
        controls_->addWidget(logCheck_, 2, 0);
        controls_->addWidget(moreButton_, 2, 1, Qt::AlignLeft);
        controls_->setColumnStretch(1, 1);
    }
    oneRow_ = oneRow;
    updateGeometry();
}

QSize TimingChart::minimumSizeHint() const {
    // The narrow arrangement's width, whichever stands now: a scroll area then gives the chart its
    // viewport's width, and the resize picks the arrangement.
    QSize hint = QWidget::minimumSizeHint();
    const int spacing = std::max(0, controls_->horizontalSpacing());
    const QMargins m = layout()->contentsMargins();
    const int narrow = std::max({groupRow_->minimumSizeHint().width(),
                                 runAllButton_->minimumSizeHint().width() + spacing + repeatsSpin_->minimumSizeHint().width(),
                                 logCheck_->minimumSizeHint().width() + spacing + moreButton_->minimumSizeHint().width(),
                                 tabs_->minimumSizeHint().width()}) +
                       m.left() + m.right();
    hint.setWidth(std::min(hint.width(), narrow));
    return hint;
}

void TimingChart::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // Slack before going back to one row: a scroll bar coming and going must not flip it back and forth.
    if (const bool oneRow = width() >= oneRowWidth() + (oneRow_ ? 0 : 24); oneRow != oneRow_) arrangeControls(oneRow);
    // Label layout and headroom depend on the size: redraw once the plots have their new geometry.
    if (relayoutPending_) return;
    relayoutPending_ = true;
    QTimer::singleShot(0, this, [this] {
        relayoutPending_ = false;
        replot();
    });
}

// 8 points in a short dock, growing with its height; Presentation adds a step a room can read.
QFont TimingChart::labelFont() const {
    const double grow = std::clamp(height() / 320.0, 1.0, 1.6);
    const double points = (compactLabels() ? 7.0 : 8.0) * grow + (largeText_ ? 3.0 : 0.0);
    QFont f(font().family());
    f.setPointSizeF(points);
    return f;
}

bool TimingChart::compactLabels() const {
    const ComparisonGroup* g = shown();
    const int bars = g ? std::max(3, static_cast<int>(g->bars.size())) : 3;
    // About the width of the longer lines at 8 points, wider as the text grows.
    const double grow = std::clamp(height() / 320.0, 1.0, 1.6) + (largeText_ ? 3.0 / 8.0 : 0.0);
    return (tabs_->width() - 80) / bars < 190 * grow;
}

QStringList TimingChart::barLabels() const {
    QStringList labels;
    if (const ComparisonGroup* g = shown())
        for (const Measurement& m : g->bars) labels << barLabel(m, compactLabels());
    return labels;
}

QStringList TimingChart::valueLabels() const {
    QStringList labels;
    if (const ComparisonGroup* g = shown())
        for (const Measurement& m : g->bars) labels << valueLabel(m, compactLabels());
    return labels;
}

QVector<Speedup> TimingChart::shownSpeedups() const {
    const ComparisonGroup* g = shown();
    return g ? ComparisonBoard::speedups(*g) : QVector<Speedup>();
}

QStringList TimingChart::speedupLabels() const {
    QStringList labels;
    for (const Speedup& s : shownSpeedups()) labels << formatRatio(s.value);
    return labels;
}

bool TimingChart::logScaleSuggested() const {
    const ComparisonGroup* g = shown();
    if (!g) return false;
    double low = 1e300, high = 0.0;
    for (const Measurement& m : g->bars)
        if (m.totalMs() > 0.0) {
            low = std::min(low, m.totalMs());
            high = std::max(high, m.totalMs());
        }
    return high > 0.0 && high / low > kLogSpan;
}

QStringList TimingChart::notes() const {
    QStringList out;
    const ComparisonGroup* g = shown();
    if (!g) return out;
    for (const SpeedupStory& story : ComparisonBoard::stories(*g)) out << story.text();
    if (const QString mixed = ComparisonBoard::mixedRunsNote(*g); !mixed.isEmpty()) out << mixed;
    return out;
}

void TimingChart::clearPipeline() {
    pipelineSteps_.clear();
    pipelineTitle_.clear();
    replot();
}

void TimingChart::setLargeText(bool on) {
    if (largeText_ == on) return;
    largeText_ = on;
    QFont f = tabs_->font();
    f.setPointSizeF(QFont().pointSizeF() + (on ? 3.0 : 0.0));
    tabs_->setFont(f);
    replot();
}

void TimingChart::clear() {
    history_.clear();
    pipelineEntries_.clear();
    pipelineSteps_.clear();
    pipelineTitle_.clear();
    board_.clear();
    shownGroup_ = 0;
    rebuildGroupList();
    replot();
    emit measurementsChanged();
}

bool TimingChart::logScale() const { return logCheck_->isChecked(); }

void TimingChart::setLogScale(bool on) {
    if (logCheck_->isChecked() != on) logCheck_->setChecked(on);
    replot();
}

int TimingChart::repeats() const { return repeatsSpin_->value(); }

void TimingChart::setRepeats(int n) { repeatsSpin_->setValue(n); }

void TimingChart::setSweepProgress(int done, int total) {
    runAllButton_->setEnabled(total <= 0);
    runAllButton_->setText(total <= 0 ? tr("Run every mode") : tr("Running %1 of %2...").arg(std::min(done + 1, total)).arg(total));
}

void TimingChart::replot() {
    // Only the tab on screen is drawn on every run: the history grows by a point per run, and drawing it
    // while hidden made long live-editing sessions slower with every run (the GUI soak test measured it).
    const auto replotIfShown = [this](QCustomPlot* plot) {
        if (tabs_->currentWidget() != plot) return;
        // A short dock gets fewer value ticks, so their labels never run into each other.
        const int room = plot->axisRect()->height() > 20 ? plot->axisRect()->height() : 120;
        plot->yAxis->ticker()->setTickCount(std::clamp(room / 40, 2, 6));
        const QFont text = labelFont();
        for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
            axis->setTickLabelFont(text);
            axis->setLabelFont(text);
        }
        plot->legend->setFont(text);
        plot->replot();
    };
    const bool log = logCheck_->isChecked();

    drawBreakdown();
    replotIfShown(breakdown_);
    drawSpeedup();
    replotIfShown(speedup_);

    // History: total of every run in order, a line and colour per filter and image, named in the legend, so
    // a point is never read against another filter's.
    historyPlot_->clearPlottables();
    historyPlot_->clearItems();
    QVector<double> runs;
    double maxTotal = 0.0, minTotal = 1e300;
    QStringList series;
    QVector<QCPGraph*> lines;
    for (const Entry& e : history_) {
        runs << e.run;
        const double v = std::max(totalOf(e.timing), 1e-4);
        maxTotal = std::max(maxTotal, v);
        minTotal = std::min(minTotal, v);
        const QString name = historyName(e);
        qsizetype at = series.indexOf(name);
        if (at < 0) {
            at = series.size();
            series << name;
            auto* graph = historyPlot_->addGraph();
            const QColor colour = kHistoryColours[static_cast<std::size_t>(at) % std::size(kHistoryColours)];
            graph->setName(name);
            graph->setPen(QPen(colour, 2));
            graph->setScatterStyle(QCPScatterStyle(kHistoryShapes[static_cast<std::size_t>(at) % std::size(kHistoryShapes)], colour, 7));
            lines << graph;
        }
        lines[at]->addData(e.run, v);
    }
    historyPlot_->xAxis->setLabel(tr("run, in order"));
    historyPlot_->xAxis->setRange(runs.isEmpty() ? 0 : runs.front() - 0.5, runs.isEmpty() ? 1 : runs.back() + 0.5);
    setValueAxis(historyPlot_->yAxis, tr("total ms"), log);
    if (log) historyPlot_->yAxis->setRange(std::max(1e-4, minTotal * 0.5), std::max(1.0, maxTotal * 2.0));
    else historyPlot_->yAxis->setRange(0, std::max(1e-3, maxTotal * 1.15));
    if (history_.isEmpty()) showEmptyState(historyPlot_, tr("No runs yet.\nEvery run's total time joins this line, in order."));
    else showAxes(historyPlot_, true);
    replotIfShown(historyPlot_);

    QStringList stepNames;
    QVector<TimingRecord> stepRecords;
    for (int i = 0; i < pipelineSteps_.size(); ++i) {
        // "1 convolve\ngaussian:5:1.2": two short lines stay readable under narrow bars, where a rotated line did not.
        QString name = QStringLiteral("%1 %2").arg(i + 1).arg(pipelineSteps_[i].label);
        if (const auto space = name.indexOf(QLatin1Char(' '), name.indexOf(QLatin1Char(' ')) + 1); space > 0) name[space] = QLatin1Char('\n');
        stepNames << name;
        stepRecords << pipelineSteps_[i].timing;
    }
    pipelinePlot_->clearItems();
    drawStackedBars(pipelinePlot_, stepNames, stepRecords, tr("ms per step"));
    pipelinePlot_->xAxis->setTickLabelRotation(0);
    pipelinePlot_->xAxis->setTickLabelFont(labelFont());
    pipelinePlot_->xAxis->setLabel(pipelineTitle_);
    if (pipelineSteps_.isEmpty()) {
        showEmptyState(pipelinePlot_, tr("No pipeline run yet.\nRun a pipeline (Ctrl+R, Pipeline dock) to see each step's time here."));
    } else {
        showAxes(pipelinePlot_, true);
        // Room above the tallest bar so the legend row never sits on it.
        double top = 0.0;
        for (const Step& step : pipelineSteps_) top = std::max(top, totalOf(step.timing));
        if (!log) setValueRange(pipelinePlot_, false, 0.0, top, 1, labelFont());
    }
    replotIfShown(pipelinePlot_);
}

void TimingChart::drawBreakdown() {
    const bool log = logCheck_->isChecked();
    const ComparisonGroup* g = shown();
    QStringList names;
    QVector<TimingRecord> records;
    if (g)
        for (const Measurement& m : g->bars) {
            names << barLabel(m, compactLabels());
            records << m.timing;
        }
    breakdown_->clearItems();
    drawStackedBars(breakdown_, names, records, tr("ms"));
    const QFont small = labelFont();
    setCategoryAxis(breakdown_, names, small);
    if (!g) {
        showEmptyState(breakdown_, tr("No timings yet.\nEach run of a filter adds a bar here: where its time went.\n"
                                      "Run every mode (Shift+F5) times every backend on the same filter and image."));
        return;
    }
    showAxes(breakdown_, true);
    double top = 0.0, low = 1e300;
    int lines = 1;
    for (int i = 0; i < g->bars.size(); ++i) {
        const Measurement& m = g->bars[i];
        // On a log axis the parts stand side by side: the label goes above the tallest one.
        double barTop = log ? 0.0 : m.totalMs();
        if (log)
            for (const Part& p : kParts) barTop = std::max(barTop, (m.timing.*p.field).value_or(0.0));
        if (log) barTop = std::max({barTop, otherOf(m.timing), 1e-4});
        const QString text = valueLabel(m, compactLabels());
        lines = std::max(lines, static_cast<int>(text.count('\n')) + 1);
        addBarText(breakdown_, i + 1, barTop, text, small);
        top = std::max(top, barTop);
        low = std::min(low, std::max(1e-4, m.totalMs()));
    }
    QStringList notes;
    if (const QString mixed = ComparisonBoard::mixedRunsNote(*g); !mixed.isEmpty()) notes << mixed;
    if (!log && logScaleSuggested())
        notes << tr("Bars span ×%1: tick Log scale to see the short ones").arg(std::round(top / low), 0, 'f', 0);
    if (!notes.isEmpty()) addTopNote(breakdown_, notes.join(QLatin1Char('\n')), small);
    // Keep drawStackedBars' bottom on a log axis (its smallest part), widen only the top.
    const double bottom = log ? breakdown_->yAxis->range().lower * 2.0 : 0.0;
    setValueRange(breakdown_, log, log ? bottom : low, top, lines + static_cast<int>(notes.size()), small);
}

void TimingChart::drawSpeedup() {
    const bool log = logCheck_->isChecked();
    speedup_->clearPlottables();
    speedup_->clearItems();
    const QFont small = labelFont();
    speedup_->legend->setFont(small);
    const ComparisonGroup* g = shown();
    QStringList names;
    if (g)
        for (const Measurement& m : g->bars) names << barLabel(m, compactLabels());
    setCategoryAxis(speedup_, names, small);
    setValueAxis(speedup_->yAxis, tr("speed-up (x)"), log);
    const Measurement* reference = g ? ComparisonBoard::reference(*g) : nullptr;
    const Measurement* fastest = g ? ComparisonBoard::fastestCpu(*g) : nullptr;
    const QVector<Speedup> ratios = g ? ComparisonBoard::speedups(*g) : QVector<Speedup>();

    double maxValue = 1.0, minValue = 1.0;
    for (const Speedup& s : ratios) {
        maxValue = std::max(maxValue, s.value);
        minValue = std::min(minValue, s.value);
    }
    // On a log axis bars grow from 1x: up is faster than the baseline, down slower.
    const double base = log ? 1.0 : 0.0;
    // Both baselines side by side at each mode: left the single-thread reference, right the fastest CPU mode.
    const bool both = reference && fastest;
    const struct {
        Speedup::Baseline which;
        const Measurement* baseline;
        QColor colour;
        double offset;
        QString name;
    } series[] = {
        {Speedup::Baseline::Reference, reference, kReferenceColour, both ? -0.19 : 0.0,
         reference ? tr("vs single-thread reference %1 (%2 ms)").arg(reference->mode, formatMs(reference->totalMs())) : QString()},
        {Speedup::Baseline::FastestCpu, fastest, kFastestCpuColour, both ? 0.19 : 0.0,
         fastest ? tr("vs fastest CPU mode %1 (%2 ms)").arg(fastest->mode, formatMs(fastest->totalMs())) : QString()},
    };
    for (const auto& s : series) {
        if (!s.baseline) continue;
        QVector<double> keys, values;
        for (const Speedup& r : ratios) {
            if (r.baseline != s.which) continue;
            const double key = g->indexOf(r.mode) + 1 + s.offset;
            keys << key;
            values << r.value - base;  // QCPBars draws from its base to base + value
            addBarText(speedup_, key, r.value, formatRatio(r.value), small, log && r.value < 1.0);
        }
        auto* bars = new QCPBars(speedup_->xAxis, speedup_->yAxis);
        bars->setName(s.name);
        bars->setBrush(s.colour);
        bars->setPen(QPen(s.colour.darker(130)));
        bars->setWidth(both ? 0.36 : 0.6);
        bars->setBaseValue(base);
        bars->setData(keys, values, true);
    }
    if (!g) showEmptyState(speedup_, tr("No speed-ups yet.\nThey compare modes that ran the same filter on the same image:\n"
                                        "Run every mode (Shift+F5) measures them all."));
    else showAxes(speedup_, reference || fastest);
    if (g && !reference && !fastest) addNote(speedup_, tr("no CPU mode measured for this filter and image yet: Run every mode"));
    else if (g && !reference) addNote(speedup_, tr("single-thread reference not measured for this filter and image"));
    if (reference || fastest) {
        // The baseline itself: 1x.
        auto* one = new QCPItemStraightLine(speedup_);
        one->point1->setCoords(0, 1);
        one->point2->setCoords(1, 1);
        one->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashLine));
    }
    // The speed-up taken apart: how much came from fewer taps, how much from the CPU and from the GPU.
    QStringList notes;
    if (g)
        for (const SpeedupStory& story : ComparisonBoard::stories(*g)) notes << story.text();
    if (g)
        if (const QString mixed = ComparisonBoard::mixedRunsNote(*g); !mixed.isEmpty()) notes << mixed;
    if (!notes.isEmpty()) addTopNote(speedup_, notes.join(QLatin1Char('\n')), small);
    const int lines = 1 + static_cast<int>(notes.size());
    if (log) setValueRange(speedup_, true, minValue < 1.0 ? minValue * 0.2 : minValue, maxValue, lines, small);  // room below for text
    else setValueRange(speedup_, false, 0.0, maxValue, lines, small);
}

// One stacked bar per record (absent parts left out); on a log axis stacked
// segments would mislead, so the parts of a bar sit side by side there.
void TimingChart::drawStackedBars(QCustomPlot* plot, const QStringList& categories, const QVector<TimingRecord>& records,
                                  const QString& axisLabel) {
    const bool log = logCheck_->isChecked();
    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
    for (int i = 0; i < categories.size(); ++i) names->addTick(i + 1, categories[i]);
    plot->clearPlottables();
    plot->legend->setFont(labelFont());
    plot->xAxis->setTicker(names);
    plot->xAxis->setRange(0.4, std::max(4.0, static_cast<double>(categories.size())) + 0.6);
    setValueAxis(plot->yAxis, axisLabel, log);
    QCPBars* below = nullptr;
    double maxValue = 0.0, minValue = 1e300;
    const int partCount = static_cast<int>(std::size(kParts)) + 1;
    auto partValue = [](const TimingRecord& t, int p, double& v) {
        if (p == static_cast<int>(std::size(kParts))) {
            v = otherOf(t);
            return v > 0.0;
        }
        v = (t.*kParts[p].field).value_or(0.0);
        return (t.*kParts[p].field).has_value();
    };
    std::vector<int> presentCount(static_cast<std::size_t>(records.size()), 0);
    int widest = 1;
    for (int i = 0; i < records.size(); ++i) {
        double v = 0.0;
        for (int p = 0; p < partCount; ++p) presentCount[static_cast<std::size_t>(i)] += partValue(records[i], p, v) ? 1 : 0;
        widest = std::max(widest, presentCount[static_cast<std::size_t>(i)]);
    }
    const double slot = 0.7 / widest;
    std::vector<int> placed(presentCount.size(), 0);
    for (int p = 0; p < partCount; ++p) {
        const bool isOther = p == partCount - 1;
        QVector<double> keys, values;
        for (int i = 0; i < records.size(); ++i) {
            double v = 0.0;
            if (!partValue(records[i], p, v)) continue;
            const std::size_t at = static_cast<std::size_t>(i);
            const double groupStart = i + 1 - slot * presentCount[at] / 2.0;
            keys << (log ? groupStart + slot * (placed[at]++ + 0.5) : i + 1);
            values << (log ? std::max(v, 1e-4) : v);
            minValue = std::min(minValue, std::max(v, 1e-4));
        }
        if (keys.isEmpty()) continue;
        auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setName(isOther ? tr("other (untimed)") : tr(kParts[p].name));
        const QColor colour = isOther ? QColor(200, 200, 220) : kParts[p].colour;
        bars->setPen(QPen(colour.darker(130)));
        bars->setBrush(colour);
        bars->setWidth(log ? slot * 0.9 : 0.6);
        if (log) bars->setBaseValue(1e-4);
        else if (below) bars->moveAbove(below);
        bars->setData(keys, values, true);
        if (!log) below = bars;
    }
    for (const TimingRecord& t : records) maxValue = std::max(maxValue, totalOf(t));
    if (log) plot->yAxis->setRange(std::max(1e-4, minValue * 0.5), std::max(1.0, maxValue * 2.0));
    else plot->yAxis->setRange(0, std::max(1e-3, maxValue * 1.15));
}

bool TimingChart::exportPng(const QString& path, QString* error) const {
    auto* plot = static_cast<QCustomPlot*>(tabs_->currentWidget());
    const int w = std::max(plot->width(), 800), h = std::max(plot->height(), 450);
    if (!plot->savePng(path, w, h)) {
        if (error) *error = tr("could not write %1").arg(path);
        return false;
    }
    return true;
}

bool TimingChart::exportCsv(const QString& path, QString* error) const {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error) *error = tr("could not open %1: %2").arg(path, file.errorString());
        return false;
    }
    QTextStream out(&file);
    out << "run,image,backend,mode,host_prep_ms,upload_ms,kernel_ms,planes_split_merge_ms,download_ms,interop_map_ms,"
           "texture_draw_ms,total_ms,filter,border,repeats,warmups,step\n";
    const auto write = [&out](const Entry& e) {
        const TimingRecord& t = e.timing;
        out << e.run << ',' << csvText(e.imageLabel) << ',' << QString::fromStdString(t.backend) << ','
            << QString::fromStdString(t.mode) << ',' << csvField(t.hostPrepMs) << ',' << csvField(t.uploadMs) << ','
            << csvField(t.kernelMs) << ',' << csvField(t.layoutMs) << ',' << csvField(t.downloadMs) << ',' << csvField(t.mapMs) << ',' << csvField(t.displayMs) << ','
            << csvField(t.totalMs) << ',' << csvText(e.filter) << ',' << csvText(e.border) << ',' << e.repeats << ','
            << e.warmups << ',' << csvText(e.step) << '\n';
    };
    // A pipeline run's total, then its steps under the same run number.
    for (const Entry& e : history_) {
        write(e);
        if (e.step.isEmpty()) continue;
        for (const Entry& step : pipelineEntries_)
            if (step.run == e.run) write(step);
    }
    out.flush();
    if (!file.commit()) {
        if (error) *error = tr("could not write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

void TimingChart::browseExportPng() {
    QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), QStringLiteral("timings.png"), tr("PNG images (*.png)"));
    if (path.isEmpty()) return;
    if (!path.endsWith(QStringLiteral(".png"), Qt::CaseInsensitive)) path += QStringLiteral(".png");
    QString error;
    if (!exportPng(path, &error)) emit errorOccurred(tr("Cannot export chart"), error);
}

void TimingChart::browseExportCsv() {
    QString path = QFileDialog::getSaveFileName(this, tr("Export timings"), QStringLiteral("timings.csv"), tr("CSV files (*.csv)"));
    if (path.isEmpty()) return;
    if (!path.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive)) path += QStringLiteral(".csv");
    QString error;
    if (!exportCsv(path, &error)) emit errorOccurred(tr("Cannot export timings"), error);
}

}  // namespace fs::widgets
