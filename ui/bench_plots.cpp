#include "bench_plots.hpp"

#include <QApplication>
#include <QDate>
#include <QDir>
#include <QSaveFile>
#include <QSysInfo>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <qcustomplot.h>
#include <set>

namespace fs::ui {
namespace {

// Okabe-Ito and Tableau colours: told apart by colour-blind readers and on a projector.
const QColor kPalette[] = {QColor(0, 114, 178),  QColor(213, 94, 0),  QColor(0, 158, 115),  QColor(204, 121, 167),
                           QColor(230, 159, 0),  QColor(86, 180, 233), QColor(0, 0, 0),      QColor(148, 103, 189),
                           QColor(140, 86, 75),  QColor(127, 127, 127)};
const Qt::PenStyle kStyles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine, Qt::DashDotDotLine};
const QCPScatterStyle::ScatterShape kShapes[] = {QCPScatterStyle::ssCircle, QCPScatterStyle::ssSquare,
                                                 QCPScatterStyle::ssTriangle, QCPScatterStyle::ssDiamond,
                                                 QCPScatterStyle::ssCross};

// What the x axis shows: image size when the records span several, else the mask width.
struct Axis {
    bool bySize = true;
    std::vector<double> ticks;
    std::map<double, QString> labels;
};

double pixels(const bench::BenchRecord& r) { return static_cast<double>(r.width) * r.height; }

Axis axisFor(const std::vector<const bench::BenchRecord*>& records) {
    Axis a;
    std::set<std::pair<int, int>> sizes;
    for (const auto* r : records) sizes.insert({r->width, r->height});
    a.bySize = sizes.size() > 1;
    for (const auto* r : records) {
        const double x = a.bySize ? pixels(*r) : r->maskSize;
        if (a.labels.count(x)) continue;
        a.labels[x] = a.bySize ? QStringLiteral("%1x%2").arg(r->width).arg(r->height) : QString::number(r->maskSize);
    }
    for (const auto& [x, label] : a.labels) a.ticks.push_back(x);
    return a;
}

// The series' second key: the mask when x is the size, else the batch shape.
QString variantOf(const bench::BenchRecord& r, const Axis& a) {
    return a.bySize ? QStringLiteral("%1x%1 mask").arg(r.maskSize) : QString::fromStdString(r.shape);
}

void resetPlot(QCustomPlot& plot) {
    plot.clearGraphs();
    plot.clearItems();
    plot.legend->clearItems();
    // The legend in its own column right of the axes, never over the data.
    if (plot.plotLayout()->elementCount() < 2 || !plot.plotLayout()->hasElement(0, 1)) {
        auto* legendCell = new QCPLayoutGrid;
        plot.plotLayout()->addElement(0, 1, legendCell);
        plot.axisRect()->insetLayout()->take(plot.legend);
        legendCell->addElement(0, 0, plot.legend);
        legendCell->addElement(1, 0, new QCPLayoutElement(&plot));  // pushes the legend to the top
        legendCell->setRowStretchFactor(0, 0.001);
        legendCell->setRowStretchFactor(1, 1.0);
        legendCell->setMargins(QMargins(4, 10, 12, 4));
        plot.plotLayout()->setColumnStretchFactor(1, 0.001);
    }
    plot.legend->setVisible(true);
    plot.legend->setFont(QFont(plot.font().family(), 8));
    plot.legend->setRowSpacing(0);
}

// Ticks at 1, 2 and 5 times each power of ten inside [low, high], labelled in plain numbers: a log axis
// ticked only at powers of ten left a speed-up range of 50-500 with one label. A wide range keeps 1 and 5.
QSharedPointer<QCPAxisTickerText> logTicks(double low, double high) {
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    for (const std::vector<double>& steps : {std::vector<double>{1, 2, 5}, std::vector<double>{1, 5}, std::vector<double>{1}}) {
        ticker->clear();
        int count = 0;
        for (int d = static_cast<int>(std::floor(std::log10(low))); d <= static_cast<int>(std::ceil(std::log10(high))); ++d)
            for (double m : steps) {
                const double v = m * std::pow(10.0, d);
                if (v < low || v > high) continue;
                ticker->addTick(v, QString::number(v, 'g', 6));
                ++count;
            }
        if (count <= 12) break;
    }
    ticker->setSubTickCount(0);
    return ticker;
}

// Draws `value` of each record by (contender, variant) against the axis.
void drawSeries(QCustomPlot& plot, const std::vector<const bench::BenchRecord*>& records, const Axis& axis,
                const std::function<double(const bench::BenchRecord&)>& value, const QString& yLabel) {
    std::vector<std::string> contenders;
    std::vector<QString> variants;
    for (const auto* r : records) {
        if (std::find(contenders.begin(), contenders.end(), r->contender) == contenders.end()) contenders.push_back(r->contender);
        const QString v = variantOf(*r, axis);
        if (std::find(variants.begin(), variants.end(), v) == variants.end()) variants.push_back(v);
    }
    double minY = 1e300, maxY = 0;
    std::map<std::pair<std::size_t, std::size_t>, QCPGraph*> graphs;
    for (const auto* r : records) {
        const double y = value(*r);
        if (!(y > 0) || !std::isfinite(y)) continue;
        const std::size_t c = static_cast<std::size_t>(std::find(contenders.begin(), contenders.end(), r->contender) - contenders.begin());
        const std::size_t v = static_cast<std::size_t>(std::find(variants.begin(), variants.end(), variantOf(*r, axis)) - variants.begin());
        QCPGraph*& g = graphs[{c, v}];
        if (!g) {
            g = plot.addGraph();
            const QColor colour = kPalette[c % std::size(kPalette)];
            QPen pen(colour, 2);
            pen.setStyle(kStyles[v % std::size(kStyles)]);
            g->setPen(pen);
            g->setScatterStyle(QCPScatterStyle(kShapes[v % std::size(kShapes)], colour, 7));
            g->setName(QString::fromStdString(r->contender));
            g->removeFromLegend();
        }
        g->addData(axis.bySize ? pixels(*r) : r->maskSize, y);
        minY = std::min(minY, y);
        maxY = std::max(maxY, y);
    }
    // Legend: one entry per contender (its colour), then one per variant (its line style) when there are several.
    for (std::size_t c = 0; c < contenders.size(); ++c) {
        QCPGraph* key = plot.addGraph();
        key->setPen(QPen(kPalette[c % std::size(kPalette)], 3));
        key->setName(QString::fromStdString(contenders[c]));
    }
    if (variants.size() > 1)
        for (std::size_t v = 0; v < variants.size(); ++v) {
            QCPGraph* key = plot.addGraph();
            QPen pen(Qt::darkGray, 2);
            pen.setStyle(kStyles[v % std::size(kStyles)]);
            key->setPen(pen);
            key->setScatterStyle(QCPScatterStyle(kShapes[v % std::size(kShapes)], Qt::darkGray, 7));
            key->setName(variants[v]);
        }

    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    for (const auto& [x, label] : axis.labels) ticker->addTick(x, label);
    plot.xAxis->setTicker(ticker);
    plot.xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot.xAxis->setLabel(axis.bySize ? QObject::tr("image size (pixels, log)") : QObject::tr("mask width (log)"));
    plot.xAxis->setTickLabelRotation(axis.ticks.size() > 6 ? 45 : 0);
    if (!axis.ticks.empty()) plot.xAxis->setRange(axis.ticks.front() / 1.3, axis.ticks.back() * 1.3);
    plot.yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot.yAxis->setLabel(yLabel);
    const double low = maxY > 0 ? minY / 2 : 0.1, high = maxY > 0 ? maxY * 2 : 10;
    plot.yAxis->setRange(low, high);
    plot.yAxis->setTicker(logTicks(low, high));
}

std::vector<const bench::BenchRecord*> usable(const std::vector<bench::BenchRecord>& records) {
    std::vector<const bench::BenchRecord*> out;
    for (const bench::BenchRecord& r : records)
        if (r.ok()) out.push_back(&r);
    return out;
}

bool savePlot(QCustomPlot& plot, const QString& path, std::string& error) {
    // Through QSaveFile: a failed write leaves no half-written PNG.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !plot.toPixmap(plot.width(), plot.height(), 1.0).save(&file, "PNG") || !file.commit()) {
        error = path.toStdString() + ": could not write the plot: " + file.errorString().toStdString();
        return false;
    }
    return true;
}

}  // namespace

void drawTimePlot(QCustomPlot& plot, const std::vector<bench::BenchRecord>& records) {
    resetPlot(plot);
    const std::vector<const bench::BenchRecord*> rows = usable(records);
    drawSeries(plot, rows, axisFor(rows), [](const bench::BenchRecord& r) { return r.total.mean; },
               QObject::tr("mean total ms (log)"));
    plot.replot();
}

void drawSpeedupPlot(QCustomPlot& plot, const std::vector<bench::BenchRecord>& records, const std::string& baseline) {
    resetPlot(plot);
    std::vector<const bench::BenchRecord*> rows;
    for (const auto* r : usable(records))
        if (r->speedup && r->contender != baseline) rows.push_back(r);
    drawSeries(plot, rows, axisFor(rows), [](const bench::BenchRecord& r) { return r.speedup.value_or(0.0); },
               QObject::tr("speed-up over %1 (log)").arg(QString::fromStdString(baseline)));
    plot.replot();
}

QString benchPlotHeading(const std::vector<bench::BenchRecord>& records, const std::string& preset, const std::string& title) {
    QStringList devices;
    for (const bench::BenchRecord& r : records)
        if (const QString d = QString::fromStdString(r.device); !d.isEmpty() && !devices.contains(d)) devices << d;
    const QString what = title.empty() ? QString::fromStdString(preset)
                                       : QStringLiteral("%1: %2").arg(QString::fromStdString(preset), QString::fromStdString(title));
    const QString machine = devices.isEmpty() ? QSysInfo::machineHostName() : devices.join(QStringLiteral(" + "));
    return QStringLiteral("%1\n%2, %3").arg(what, machine, QDate::currentDate().toString(Qt::ISODate));
}

bool writeBenchPlots(const std::vector<bench::BenchRecord>& records, const std::string& preset, const std::string& baseline,
                     const std::string& dir, std::vector<std::string>& written, std::string& error, const std::string& title) {
    std::unique_ptr<QApplication> app;
    if (!QApplication::instance()) {
        // The CLI never shows a window: draw offscreen unless told otherwise.
        if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 0);
        static int argc = 1;
        static char name[] = "filterstudio-cli";
        static char* argv[] = {name, nullptr};
        app = std::make_unique<QApplication>(argc, argv);
    }
    const QString base = QDir(QString::fromStdString(dir)).filePath(QString::fromStdString(preset));
    const QString heading = benchPlotHeading(records, preset, title);
    // A plot each, titled above the axes and legend, with text a page or a slide can read.
    const auto write = [&](const QString& path, const std::function<void(QCustomPlot&)>& draw) {
        QCustomPlot plot;
        plot.resize(1000, 600);
        draw(plot);
        QFont text(plot.font().family(), 10);
        for (QCPAxis* axis : {plot.xAxis, plot.yAxis}) {
            axis->setTickLabelFont(text);
            axis->setLabelFont(text);
        }
        plot.plotLayout()->insertRow(0);
        QFont bold(plot.font().family(), 11, QFont::Bold);
        auto* titleElement = new QCPTextElement(&plot, heading, bold);
        titleElement->setObjectName(QStringLiteral("plotTitle"));
        plot.plotLayout()->addElement(0, 0, titleElement);
        plot.replot();
        if (!savePlot(plot, path, error)) return false;
        written.push_back(path.toStdString());
        return true;
    };
    return write(base + QStringLiteral("-time.png"), [&](QCustomPlot& plot) { drawTimePlot(plot, records); }) &&
           write(base + QStringLiteral("-speedup.png"), [&](QCustomPlot& plot) { drawSpeedupPlot(plot, records, baseline); });
}

}  // namespace fs::ui
