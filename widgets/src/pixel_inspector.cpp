#include "fs/widgets/pixel_inspector.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace fs::widgets {

PixelInspector::PixelInspector(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    header_ = new QLabel;
    header_->setWordWrap(true);
    channelCombo_ = new QComboBox;
    channelCombo_->setObjectName(QStringLiteral("inspectorChannel"));
    channelCombo_->setToolTip(tr("Which channel the table shows; colour images are stored blue, green, red"));
    top->addWidget(header_, 1);
    top->addWidget(channelCombo_);
    layout->addLayout(top);
    table_ = new QTableWidget;
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setDefaultSectionSize(64);
    table_->verticalHeader()->setDefaultSectionSize(34);
    table_->setToolTip(tr("Each tap: input value (top) and kernel weight (bottom) of the first kernel"));
    layout->addWidget(table_, 1);
    arithmetic_ = new QLabel;
    arithmetic_->setWordWrap(true);
    arithmetic_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(arithmetic_);
    connect(channelCombo_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0) emit channelChanged(index);
    });
    setChannelCount(1);
    clear(tr("Hover over or click the image to inspect a pixel."));
}

int PixelInspector::channel() const { return std::max(0, channelCombo_->currentIndex()); }

QString PixelInspector::channelName(int index, int channels) {
    if (channels <= 2) return index == 0 ? tr("gray") : tr("alpha");
    switch (index) {
    case 0: return tr("blue");
    case 1: return tr("green");
    case 2: return tr("red");
    default: return tr("alpha");
    }
}

void PixelInspector::setChannelCount(int channels) {
    channels = std::max(1, channels);
    const int keep = channelCombo_->currentIndex();
    if (channelCombo_->count() == channels && channelName(0, channels) == channelCombo_->itemText(0)) return;
    const QSignalBlocker block(channelCombo_);
    channelCombo_->clear();
    for (int c = 0; c < channels; ++c) channelCombo_->addItem(channelName(c, channels));
    channelCombo_->setCurrentIndex(keep >= 0 && keep < channels ? keep : 0);
    channelCombo_->setEnabled(channels > 1);
}

void PixelInspector::clear(const QString& message) {
    probe_ = PixelProbe{};
    header_->setText(message);
    table_->clear();
    table_->setRowCount(0);
    table_->setColumnCount(0);
    arithmetic_->clear();
}

void PixelInspector::setProbe(const PixelProbe& probe) {
    probe_ = probe;
    header_->setText(tr("<b>Pixel (%1, %2)</b>, %3 channel (%4 of %5 in memory), kernel %6x%7")
                         .arg(probe.pixel.x())
                         .arg(probe.pixel.y())
                         .arg(channelName(probe.channel, probe.channels))
                         .arg(probe.channel + 1)
                         .arg(probe.channels)
                         .arg(probe.kernelWidth)
                         .arg(probe.kernelHeight));
    // Show at most kMaxTableSize taps each way, centred on the pixel.
    const int cols = std::min(probe.kernelWidth, kMaxTableSize), rows = std::min(probe.kernelHeight, kMaxTableSize);
    const int x0 = (probe.kernelWidth - cols) / 2, y0 = (probe.kernelHeight - rows) / 2;
    table_->clear();
    table_->setRowCount(rows);
    table_->setColumnCount(cols);
    QStringList colLabels, rowLabels;
    for (int x = 0; x < cols; ++x) colLabels << QString::number(x0 + x - probe.kernelWidth / 2);
    for (int y = 0; y < rows; ++y) rowLabels << QString::number(y0 + y - probe.kernelHeight / 2);
    table_->setHorizontalHeaderLabels(colLabels);
    table_->setVerticalHeaderLabels(rowLabels);
    const QVector<double> noWeights;
    const QVector<double>& w = probe.weights.isEmpty() ? noWeights : probe.weights.front();
    for (int y = 0; y < rows; ++y) {
        for (int x = 0; x < cols; ++x) {
            const int i = (y0 + y) * probe.kernelWidth + (x0 + x);
            const double in = i < probe.inputs.size() ? probe.inputs[i] : 0.0;
            const double weight = i < w.size() ? w[i] : 0.0;
            auto* item = new QTableWidgetItem(QStringLiteral("%1\n×%2").arg(in, 0, 'g', 5).arg(weight, 0, 'g', 4));
            item->setTextAlignment(Qt::AlignCenter);
            if (x0 + x == probe.kernelWidth / 2 && y0 + y == probe.kernelHeight / 2) item->setBackground(QColor(255, 235, 160));
            else if (weight == 0.0) item->setForeground(QColor(150, 150, 150));
            table_->setItem(y, x, item);
        }
    }
    QStringList lines;
    for (int k = 0; k < probe.sums.size(); ++k) lines << tr("Σ input×weight (kernel %1) = %2").arg(k + 1).arg(probe.sums[k], 0, 'g', 7);
    if (!probe.combineText.isEmpty()) lines << probe.combineText;
    if (!probe.mappingText.isEmpty()) lines << probe.mappingText;
    lines << tr("<b>expected %1</b>").arg(probe.expected, 0, 'g', 7);
    if (probe.hasShown) {
        const bool same = probe.shown == probe.expected;
        lines << tr("result image holds <b>%1</b> %2").arg(probe.shown, 0, 'g', 7).arg(same ? tr("(matches)") : tr("(differs: rounding or a mode bug)"));
    }
    if (probe.kernelWidth > kMaxTableSize || probe.kernelHeight > kMaxTableSize)
        lines << tr("(table shows the centre %1x%2 taps)").arg(cols).arg(rows);
    arithmetic_->setText(lines.join(QStringLiteral("<br>")));
}

}  // namespace fs::widgets
