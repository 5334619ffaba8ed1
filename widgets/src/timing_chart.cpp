#include "fs/widgets/timing_chart.hpp"

#include <QCheckBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QPushButton>
#include <QSaveFile>
#include <QTabWidget>
#include <QTextStream>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <optional>
#include <qcustomplot.h>

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
    {"download", &TimingRecord::downloadMs, QColor(244, 180, 0)},
    {"interop map/unmap", &TimingRecord::mapMs, QColor(15, 157, 88)},
};

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

QCustomPlot* makePlot() {
    auto* plot = new QCustomPlot;
    plot->setMinimumHeight(180);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setRangeDrag(Qt::Vertical);
    plot->axisRect()->setRangeZoom(Qt::Vertical);
    return plot;
}

void setValueAxis(QCPAxis* axis, const QString& name, bool log) {
    axis->setLabel(name);
    axis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (log) axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    else axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
}

QString csvField(const std::optional<double>& v) { return v ? QString::number(*v, 'f', 4) : QString(); }

}  // namespace

TimingChart::TimingChart(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    tabs_ = new QTabWidget;
    breakdown_ = makePlot();
    historyPlot_ = makePlot();
    speedup_ = makePlot();
    pipelinePlot_ = makePlot();
    tabs_->addTab(breakdown_, tr("Breakdown"));
    tabs_->addTab(historyPlot_, tr("History"));
    tabs_->addTab(speedup_, tr("Speedup vs CPU reference"));
    tabs_->addTab(pipelinePlot_, tr("Pipeline steps"));
    layout->addWidget(tabs_, 1);

    auto* buttons = new QHBoxLayout;
    logCheck_ = new QCheckBox(tr("Log scale"));
    auto* pngButton = new QPushButton(tr("Export PNG..."));
    auto* csvButton = new QPushButton(tr("Export CSV..."));
    auto* clearButton = new QPushButton(tr("Clear"));
    buttons->addWidget(logCheck_);
    buttons->addStretch(1);
    buttons->addWidget(clearButton);
    buttons->addWidget(pngButton);
    buttons->addWidget(csvButton);
    layout->addLayout(buttons);

    connect(tabs_, &QTabWidget::currentChanged, this, [this] { static_cast<QCustomPlot*>(tabs_->currentWidget())->replot(); });
    connect(logCheck_, &QCheckBox::toggled, this, &TimingChart::setLogScale);
    connect(pngButton, &QPushButton::clicked, this, &TimingChart::browseExportPng);
    connect(csvButton, &QPushButton::clicked, this, &TimingChart::browseExportCsv);
    connect(clearButton, &QPushButton::clicked, this, &TimingChart::clear);
    replot();
}

void TimingChart::addRecord(const TimingRecord& timing, const QString& imageLabel) {
    const int run = history_.isEmpty() ? 1 : history_.back().run + 1;
    history_.push_back({run, imageLabel, timing, QString()});
    if (imageLabel != currentImage_) {
        currentImage_ = imageLabel;
        categories_.clear();
        latest_.clear();
    }
    const QString name = label(timing);
    const auto at = categories_.indexOf(name);
    if (at >= 0) latest_[at] = timing;
    else {
        categories_ << name;
        latest_ << timing;
    }
    replot();
}

void TimingChart::addPipelineRun(const QString& name, const TimingRecord& total, const QVector<Step>& steps,
                                 const QString& imageLabel) {
    const int run = history_.isEmpty() ? 1 : history_.back().run + 1;
    for (const Step& step : steps) pipelineEntries_.push_back({run, imageLabel, step.timing, step.label});
    const QString title = name.isEmpty() ? tr("pipeline") : tr("pipeline %1").arg(name);
    history_.push_back({run, imageLabel, total, title});
    pipelineSteps_ = steps;
    pipelineTitle_ = tr("%1 on %2 (%3), total %4 ms")
                         .arg(title, label(total), imageLabel)
                         .arg(totalOf(total), 0, 'f', 3);
    tabs_->setCurrentWidget(pipelinePlot_);
    replot();
}

QString TimingChart::currentTab() const { return tabs_->tabText(tabs_->currentIndex()); }

void TimingChart::clear() {
    history_.clear();
    pipelineEntries_.clear();
    pipelineSteps_.clear();
    pipelineTitle_.clear();
    categories_.clear();
    latest_.clear();
    currentImage_.clear();
    replot();
}

bool TimingChart::logScale() const { return logCheck_->isChecked(); }

void TimingChart::setLogScale(bool on) {
    if (logCheck_->isChecked() != on) logCheck_->setChecked(on);
    replot();
}

void TimingChart::replot() {
    // Only the tab on screen is drawn on every run: the history grows by a point per run, and drawing it
    // while hidden made long live-editing sessions slower with every run (the GUI soak test measured it).
    const auto replotIfShown = [this](QCustomPlot* plot) {
        if (tabs_->currentWidget() == plot) plot->replot();
    };
    const bool log = logCheck_->isChecked();
    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
    for (int i = 0; i < categories_.size(); ++i) names->addTick(i + 1, categories_[i]);

    drawStackedBars(breakdown_, categories_, latest_,
                    tr("ms (%1)").arg(currentImage_.isEmpty() ? tr("no runs yet") : currentImage_));
    replotIfShown(breakdown_);

    // History: total of every run in order.
    historyPlot_->clearPlottables();
    auto* line = historyPlot_->addGraph();
    line->setName(tr("total ms"));
    line->setPen(QPen(QColor(66, 133, 244), 2));
    line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    QVector<double> runs, totals;
    double maxTotal = 0.0, minTotal = 1e300;
    for (const Entry& e : history_) {
        runs << e.run;
        const double v = std::max(totalOf(e.timing), 1e-4);
        totals << v;
        maxTotal = std::max(maxTotal, v);
        minTotal = std::min(minTotal, v);
    }
    line->setData(runs, totals, true);
    historyPlot_->xAxis->setLabel(tr("run"));
    historyPlot_->xAxis->setRange(runs.isEmpty() ? 0 : runs.front() - 0.5, runs.isEmpty() ? 1 : runs.back() + 0.5);
    setValueAxis(historyPlot_->yAxis, tr("total ms"), log);
    if (log) historyPlot_->yAxis->setRange(std::max(1e-4, minTotal * 0.5), std::max(1.0, maxTotal * 2.0));
    else historyPlot_->yAxis->setRange(0, std::max(1e-3, maxTotal * 1.15));
    replotIfShown(historyPlot_);

    // Speedup: CPU reference total / this total, for the current image.
    speedup_->clearPlottables();
    speedup_->xAxis->setTicker(names);
    speedup_->xAxis->setTickLabelRotation(categories_.size() > 4 ? 30 : 0);
    speedup_->xAxis->setRange(0.4, std::max(4.0, static_cast<double>(categories_.size())) + 0.6);
    const auto ref = categories_.indexOf(QStringLiteral("cpu/reference"));
    setValueAxis(speedup_->yAxis, ref >= 0 ? tr("speedup vs cpu/reference (x)") : tr("run cpu/reference to see speedups"), log);
    double maxSpeedup = 1.0, minSpeedup = 1.0;
    if (ref >= 0) {
        const double refTotal = totalOf(latest_[ref]);
        QVector<double> keys, values;
        for (int i = 0; i < latest_.size(); ++i) {
            const double t = totalOf(latest_[i]);
            if (t <= 0.0) continue;
            keys << i + 1;
            values << refTotal / t;
            maxSpeedup = std::max(maxSpeedup, refTotal / t);
            minSpeedup = std::min(minSpeedup, refTotal / t);
        }
        auto* bars = new QCPBars(speedup_->xAxis, speedup_->yAxis);
        bars->setName(tr("speedup"));
        bars->setBrush(QColor(15, 157, 88));
        bars->setPen(QPen(QColor(15, 157, 88).darker(130)));
        bars->setWidth(0.6);
        if (log) bars->setBaseValue(std::min(0.5, minSpeedup * 0.5));
        bars->setData(keys, values, true);
    }
    if (log) speedup_->yAxis->setRange(std::min(0.5, minSpeedup * 0.5), maxSpeedup * 2.0);
    else speedup_->yAxis->setRange(0, maxSpeedup * 1.15);
    replotIfShown(speedup_);

    QStringList stepNames;
    QVector<TimingRecord> stepRecords;
    for (int i = 0; i < pipelineSteps_.size(); ++i) {
        stepNames << QStringLiteral("%1 %2").arg(i + 1).arg(pipelineSteps_[i].label);
        stepRecords << pipelineSteps_[i].timing;
    }
    drawStackedBars(pipelinePlot_, stepNames, stepRecords, tr("ms per step"));
    pipelinePlot_->xAxis->setLabel(pipelineTitle_.isEmpty() ? tr("run a pipeline to see its steps") : pipelineTitle_);
    replotIfShown(pipelinePlot_);
}

// One stacked bar per record (absent parts left out); on a log axis stacked
// segments would mislead, so the parts of a bar sit side by side there.
void TimingChart::drawStackedBars(QCustomPlot* plot, const QStringList& categories, const QVector<TimingRecord>& records,
                                  const QString& axisLabel) {
    const bool log = logCheck_->isChecked();
    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
    for (int i = 0; i < categories.size(); ++i) names->addTick(i + 1, categories[i]);
    plot->clearPlottables();
    plot->legend->setVisible(true);
    plot->legend->setFont(QFont(font().family(), 8));
    plot->xAxis->setTicker(names);
    plot->xAxis->setTickLabelRotation(categories.size() > 4 ? 30 : 0);
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
    out << "run,image,backend,mode,host_prep_ms,upload_ms,kernel_ms,download_ms,interop_map_ms,total_ms,step\n";
    const auto write = [&out](const Entry& e) {
        const TimingRecord& t = e.timing;
        out << e.run << ",\"" << e.imageLabel << "\"," << QString::fromStdString(t.backend) << ','
            << QString::fromStdString(t.mode) << ',' << csvField(t.hostPrepMs) << ',' << csvField(t.uploadMs) << ','
            << csvField(t.kernelMs) << ',' << csvField(t.downloadMs) << ',' << csvField(t.mapMs) << ','
            << csvField(t.totalMs) << ",\"" << QString(e.step).replace('"', QStringLiteral("\"\"")) << "\"\n";
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
