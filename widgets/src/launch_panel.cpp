#include "fs/widgets/launch_panel.hpp"

#include <QBoxLayout>
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSet>
#include <QSpinBox>
#include <QTextDocument>
#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>

#include "plot_states.hpp"

namespace fs::widgets {

namespace {

// Shapes a student can try; the panel adds any other a tuned result needs.
const char* const kBlockShapes[] = {"8x8",  "16x8", "8x16", "16x16", "32x8", "32x16", "32x32",
                                    "32x4", "64x4", "64x8", "64x16", "128x2", "128x4", "256x1"};
// 3x3, 5x5 and 6x6 for the course paper's k x k sweep (global, constant, texture take 1..8 each way).
const char* const kPerThread[] = {"1x1", "1x2", "1x4", "1x8", "2x1", "2x2", "4x1", "2x4", "4x2", "8x1",
                                  "3x3", "4x4", "5x5", "6x6"};

QString shapeText(int x, int y) { return QStringLiteral("%1x%2").arg(x).arg(y); }

void fillShapes(QComboBox* combo, const char* const* shapes, std::size_t count) {
    combo->addItem(QObject::tr("default (the mode's choice)"), QString());
    for (std::size_t i = 0; i < count; ++i) combo->addItem(QString::fromLatin1(shapes[i]), QString::fromLatin1(shapes[i]));
}

void selectShape(QComboBox* combo, int x, int y) {
    if (x <= 0 || y <= 0) {
        combo->setCurrentIndex(0);
        return;
    }
    const QString text = shapeText(x, y);
    int at = combo->findData(text);
    if (at < 0) {
        combo->addItem(text, text);
        at = combo->count() - 1;
    }
    combo->setCurrentIndex(at);
}

void readShape(const QComboBox* combo, int& x, int& y) {
    x = y = 0;
    const std::string text = combo->currentData().toString().toStdString();
    if (!text.empty()) parseShape(text, x, y);
}

QString bytesText(std::size_t bytes) {
    return bytes < 1024 ? QObject::tr("%1 B").arg(bytes) : QObject::tr("%1 KiB").arg(static_cast<double>(bytes) / 1024.0, 0, 'f', 1);
}

// The chart's name for a candidate: shortLabel, with halo and radius when shapes alone repeat.
QStringList candidateLabels(const std::vector<TuneEntry>& entries) {
    QStringList labels;
    for (const TuneEntry& e : entries) labels << QString::fromStdString(e.config.shortLabel());
    if (QSet<QString>(labels.begin(), labels.end()).size() == labels.size()) return labels;
    for (std::size_t i = 0; i < entries.size(); ++i)
        labels[static_cast<int>(i)] += QStringLiteral(" %1/%2").arg(QString::fromLatin1(haloSchemeName(entries[i].config.halo)),
                                                                     QString::fromLatin1(radiusPathName(entries[i].config.radius)));
    return labels;
}

}  // namespace

LaunchPanel::LaunchPanel(QWidget* parent) : QWidget(parent) {
    qRegisterMetaType<fs::LaunchConfig>();
    // Three columns for the wide, short bottom dock: knobs and tuning, the report, the candidates chart;
    // stacked in a narrow one, where side by side they cut the report's words at the dock's edge.
    auto* outer = new QVBoxLayout(this);
    columns_ = new QBoxLayout(QBoxLayout::LeftToRight);
    auto* columns = columns_;
    auto* layout = new QVBoxLayout;
    disabledLabel_ = new QLabel;
    disabledLabel_->setWordWrap(true);
    disabledLabel_->setObjectName(QStringLiteral("launchDisabled"));
    disabledLabel_->setStyleSheet(QStringLiteral("color:#a15c00"));
    outer->addWidget(disabledLabel_);
    outer->addLayout(columns, 1);

    knobs_ = new QGroupBox(tr("Launch configuration (next runs)"));
    auto* form = new QFormLayout(knobs_);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    blockCombo_ = new QComboBox;
    fillShapes(blockCombo_, kBlockShapes, std::size(kBlockShapes));
    blockCombo_->setToolTip(tr("Threads per block, W x H: W along rows (coalesced loads), H down columns"));
    perThreadCombo_ = new QComboBox;
    fillShapes(perThreadCombo_, kPerThread, std::size(kPerThread));
    perThreadCombo_->setToolTip(tr("Output pixels each thread computes, X x Y: more reuse of loaded inputs, more registers"));
    haloCombo_ = new QComboBox;
    for (HaloScheme h : {HaloScheme::Default, HaloScheme::Cooperative, HaloScheme::PerThread})
        haloCombo_->addItem(QString::fromLatin1(haloSchemeName(h)), static_cast<int>(h));
    haloCombo_->setToolTip(tr("How the shared-memory tile and its halo are loaded: cooperative row segments, "
                              "or the textbook loop where each thread loads its own pixels"));
    radiusCombo_ = new QComboBox;
    for (RadiusPath r : {RadiusPath::Default, RadiusPath::Compiled, RadiusPath::Runtime})
        radiusCombo_->addItem(QString::fromLatin1(radiusPathName(r)), static_cast<int>(r));
    radiusCombo_->setToolTip(tr("Compiled: the radius is a template parameter (loops unrolled); runtime: read from memory"));
    layoutCombo_ = new QComboBox;
    for (ChannelLayout l : {ChannelLayout::Interleaved, ChannelLayout::Planar})
        layoutCombo_->addItem(QString::fromLatin1(channelLayoutName(l)), static_cast<int>(l));
    layoutCombo_->setToolTip(tr("Interleaved: colour images are filtered as stored (RGBRGB, an array of structures). "
                                "Planar: split into one plane per channel first (a structure of arrays), each "
                                "plane filtered as a gray image, then interleaved again; the split and merge are "
                                "timed apart from the kernel."));
    defaultsButton_ = new QPushButton(tr("Defaults"));
    defaultsButton_->setToolTip(tr("Let the mode choose every knob"));
    form->addRow(tr("Block shape"), blockCombo_);
    form->addRow(tr("Outputs per thread"), perThreadCombo_);
    form->addRow(tr("Halo loading"), haloCombo_);
    form->addRow(tr("Radius"), radiusCombo_);
    form->addRow(tr("Channels"), layoutCombo_);
    serialCheck_ = new QCheckBox(tr("serial (no overlap)"));
    serialCheck_->setObjectName(QStringLiteral("launchSerial"));
    serialCheck_->setToolTip(tr("Upload the whole image, filter it, download it, one after the other. Off: the image "
                                "goes in pieces whose upload, filter and download overlap on several streams. Applies "
                                "to every CUDA run."));
    pinnedCheck_ = new QCheckBox(tr("pinned host memory"));
    pinnedCheck_->setObjectName(QStringLiteral("launchPinned"));
    pinnedCheck_->setToolTip(tr("Copy the image into page-locked host memory once, so uploads and downloads go "
                                "straight over PCIe at full rate. Off: pageable memory, staged through pinned "
                                "buffers. Applies to every CUDA run."));
    budgetSpin_ = new QSpinBox;
    budgetSpin_->setObjectName(QStringLiteral("launchBudget"));
    budgetSpin_->setRange(0, 1 << 20);
    budgetSpin_->setSingleStep(64);
    budgetSpin_->setSuffix(tr(" MB"));
    budgetSpin_->setSpecialValueText(tr("engine's own"));
    budgetSpin_->setToolTip(tr("Most device memory a run may hold: larger images go through strips with halos, as "
                               "images larger than the GPU in the course paper. Applies to every CUDA run."));
    form->addRow(QString(), defaultsButton_);
    form->addRow(tr("Transfers"), serialCheck_);
    form->addRow(tr("Host memory"), pinnedCheck_);
    form->addRow(tr("Device memory"), budgetSpin_);
    layout->addWidget(knobs_);

    report_ = new QLabel;
    report_->setWordWrap(true);
    report_->setTextFormat(Qt::RichText);
    report_->setFrameShape(QFrame::StyledPanel);
    report_->setMargin(6);
    report_->setMinimumWidth(240);
    report_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    report_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    report_->setObjectName(QStringLiteral("launchReport"));

    auto* tuneRow = new QGridLayout;
    tuneButton_ = new QPushButton(tr("Autotune"));
    tuneButton_->setToolTip(tr("Time every candidate configuration of this mode on the current image and filter"));
    cancelButton_ = new QPushButton(tr("Cancel"));
    useBestButton_ = new QPushButton(tr("Use best"));
    resetButton_ = new QPushButton(tr("Reset tuning"));
    resetButton_->setToolTip(tr("Forget every tuned configuration (memory and file); 'auto' goes back to its defaults"));
    // Two rows of two: in one row of four, "Reset tuning" was cut in a 350-pixel column.
    tuneRow->addWidget(tuneButton_, 0, 0);
    tuneRow->addWidget(cancelButton_, 0, 1);
    tuneRow->addWidget(useBestButton_, 1, 0);
    tuneRow->addWidget(resetButton_, 1, 1);
    layout->addLayout(tuneRow);
    progress_ = new QProgressBar;
    progress_->setTextVisible(true);
    progress_->setFormat(tr("%v of %m candidates"));
    layout->addWidget(progress_);
    message_ = new QLabel;
    message_->setWordWrap(true);
    message_->setObjectName(QStringLiteral("launchMessage"));
    layout->addWidget(message_);
    layout->addStretch(1);
    auto* left = new QWidget;
    left_ = left;
    left->setLayout(layout);
    left->setMaximumWidth(380);  // side by side; stacked, it takes the width
    layout->setContentsMargins(0, 0, 0, 0);
    columns->addWidget(left);
    columns->addWidget(report_);

    // Colours say it (grey candidates, blue default, green best) and so do the words above those two bars:
    // a legend would cover bars in a narrow dock.
    plot_ = new QCustomPlot;
    plot_->setMinimumSize(260, 200);
    plot_->yAxis->setLabel(tr("kernel ms (median)"));
    plot_->xAxis->setTickLabelRotation(90);
    plot_->xAxis->setTickLabelFont(QFont(font().family(), 7));
    plot_->setToolTip(tr("Kernel time of every candidate the tuner ran: grey candidates, blue the mode's default, green the best"));
    columns->addWidget(plot_, 1);

    // Names for tests and style sheets.
    blockCombo_->setObjectName(QStringLiteral("launchBlock"));
    perThreadCombo_->setObjectName(QStringLiteral("launchPerThread"));
    haloCombo_->setObjectName(QStringLiteral("launchHalo"));
    radiusCombo_->setObjectName(QStringLiteral("launchRadius"));
    layoutCombo_->setObjectName(QStringLiteral("launchLayout"));
    tuneButton_->setObjectName(QStringLiteral("launchAutotune"));
    cancelButton_->setObjectName(QStringLiteral("launchCancel"));
    useBestButton_->setObjectName(QStringLiteral("launchUseBest"));
    resetButton_->setObjectName(QStringLiteral("launchReset"));

    for (QComboBox* combo : {blockCombo_, perThreadCombo_, haloCombo_, radiusCombo_, layoutCombo_})
        connect(combo, &QComboBox::activated, this, [this] { emit configChanged(config()); });
    connect(defaultsButton_, &QPushButton::clicked, this, [this] {
        setConfig(LaunchConfig{});
        emit configChanged(config());
    });
    const auto transfers = [this] { emit transfersChanged(serialTransfers(), deviceBudgetMB(), pinnedHostMemory()); };
    connect(serialCheck_, &QCheckBox::toggled, this, transfers);
    connect(pinnedCheck_, &QCheckBox::toggled, this, transfers);
    // editingFinished: one change per typed number, not one per digit.
    connect(budgetSpin_, &QSpinBox::editingFinished, this, transfers);
    connect(tuneButton_, &QPushButton::clicked, this, &LaunchPanel::autotuneRequested);
    connect(cancelButton_, &QPushButton::clicked, this, &LaunchPanel::cancelTuneRequested);
    connect(useBestButton_, &QPushButton::clicked, this, &LaunchPanel::useBest);
    connect(resetButton_, &QPushButton::clicked, this, &LaunchPanel::resetTuningRequested);
    replot();
    refreshEnabled();
}

int LaunchPanel::sideBySideWidth() const {
    const int spacing = std::max(0, columns_->spacing());
    const QMargins m = contentsMargins() + layout()->contentsMargins();
    return left_->minimumSizeHint().width() + report_->minimumWidth() + plot_->minimumWidth() + 2 * spacing + m.left() + m.right();
}

bool LaunchPanel::columnsSideBySide() const { return columns_->direction() == QBoxLayout::LeftToRight; }

QSize LaunchPanel::minimumSizeHint() const {
    // As narrow as the stacked columns need, whichever way they stand now: a scroll area then gives the
    // panel its viewport's width, and the resize picks the arrangement.
    QSize hint = QWidget::minimumSizeHint();
    const QMargins m = contentsMargins() + layout()->contentsMargins();
    const int stacked = std::max({left_->minimumSizeHint().width(), report_->minimumWidth(), plot_->minimumWidth(),
                                  disabledLabel_->minimumSizeHint().width()}) +
                        m.left() + m.right();
    hint.setWidth(std::min(hint.width(), stacked));
    return hint;
}

void LaunchPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // Some slack before going side by side: a scroll bar coming and going must not flip it back and forth.
    const int needed = sideBySideWidth() + (columnsSideBySide() ? 0 : 24);
    const QBoxLayout::Direction want = width() >= needed ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    if (columns_->direction() == want) return;
    columns_->setDirection(want);
    left_->setMaximumWidth(want == QBoxLayout::LeftToRight ? 380 : QWIDGETSIZE_MAX);
    updateGeometry();
}

bool LaunchPanel::serialTransfers() const { return serialCheck_->isChecked(); }
bool LaunchPanel::pinnedHostMemory() const { return pinnedCheck_->isChecked(); }
int LaunchPanel::deviceBudgetMB() const { return budgetSpin_->value(); }

LaunchConfig LaunchPanel::config() const {
    LaunchConfig c;
    readShape(blockCombo_, c.blockX, c.blockY);
    readShape(perThreadCombo_, c.perThreadX, c.perThreadY);
    c.halo = static_cast<HaloScheme>(haloCombo_->currentData().toInt());
    c.radius = static_cast<RadiusPath>(radiusCombo_->currentData().toInt());
    c.layout = static_cast<ChannelLayout>(layoutCombo_->currentData().toInt());
    return c;
}

void LaunchPanel::setConfig(const LaunchConfig& c) {
    selectShape(blockCombo_, c.blockX, c.blockY);
    selectShape(perThreadCombo_, c.perThreadX, c.perThreadY);
    haloCombo_->setCurrentIndex(haloCombo_->findData(static_cast<int>(c.halo)));
    radiusCombo_->setCurrentIndex(radiusCombo_->findData(static_cast<int>(c.radius)));
    layoutCombo_->setCurrentIndex(layoutCombo_->findData(static_cast<int>(c.layout)));
}

void LaunchPanel::setDisabledReason(const QString& reason) {
    disabledReason_ = reason;
    disabledLabel_->setText(reason);
    disabledLabel_->setVisible(!reason.isEmpty());
    if (!reason.isEmpty()) {
        report_->setText(tr("<i>No launch to describe.</i>"));
        refused_ = false;
    }
    refreshEnabled();
}

void LaunchPanel::setReport(const LaunchReport& r) {
    refused_ = !r.ok();
    if (refused_) {
        report_->setText(tr("<b style='color:#c0392b'>Refused:</b> <span style='color:#c0392b'>%1</span>")
                             .arg(QString::fromStdString(r.error).toHtmlEscaped()));
        return;
    }
    const LaunchConfig& c = r.config;
    const double occupancy = r.maxWarpsPerSM > 0 ? 100.0 * r.activeWarpsPerSM / r.maxWarpsPerSM : 0.0;
    QString html = QStringLiteral("<table cellspacing='2'>");
    const auto row = [&html](const QString& name, const QString& value) {
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(name.toHtmlEscaped(), value.toHtmlEscaped());
    };
    row(tr("Mode"), QStringLiteral("%1 (%2)").arg(QString::fromStdString(r.mode), QString::fromStdString(r.kernel)));
    row(tr("Block"), tr("%1, %2 threads").arg(shapeText(c.blockX, c.blockY)).arg(r.threadsPerBlock));
    row(tr("Per thread"), tr("%1 outputs, halo %2, radius %3")
                              .arg(shapeText(c.perThreadX, c.perThreadY), QString::fromLatin1(haloSchemeName(c.halo)),
                                   QString::fromLatin1(radiusPathName(c.radius))));
    row(tr("Grid"), tr("%1 x %2 blocks").arg(r.gridX).arg(r.gridY));
    if (c.layout == ChannelLayout::Planar) row(tr("Channels"), tr("planar: the grid runs once per channel plane"));
    row(tr("Occupancy"), tr("%1 of %2 warps per SM (%3%), %4 blocks/SM, limited by %5")
                             .arg(r.activeWarpsPerSM)
                             .arg(r.maxWarpsPerSM)
                             .arg(occupancy, 0, 'f', 0)
                             .arg(r.activeBlocksPerSM)
                             .arg(QString::fromStdString(r.limiter)));
    row(tr("Registers"), tr("%1 per thread").arg(r.registersPerThread));
    row(tr("Shared memory"), tr("%1 per block").arg(bytesText(r.sharedBytesPerBlock)));
    html += QStringLiteral("</table>");
    report_->setText(html);
}

QString LaunchPanel::reportText() const {
    QTextDocument doc;
    doc.setHtml(report_->text());
    return doc.toPlainText();
}

void LaunchPanel::setTuning(bool running) {
    tuning_ = running;
    if (running) {
        progress_->setRange(0, 0);  // busy until the first candidate reports the total
        message_->setText(tr("tuning..."));
    }
    refreshEnabled();
}

void LaunchPanel::setTuneProgress(int done, int total) {
    progress_->setRange(0, std::max(total, 1));
    progress_->setValue(done);
}

void LaunchPanel::setTuneResult(const TuneResult& result) {
    tune_ = result;
    QString text;
    if (!result.error.empty()) {
        text = tr("tuning failed: %1").arg(QString::fromStdString(result.error));
    } else if (result.cancelled) {
        text = tr("tuning cancelled after %1 candidates").arg(result.entries.size());
    } else if (result.fromCache) {
        text = tr("from the tuning cache: best %1 (%2 ms); Reset tuning to time again")
                   .arg(QString::fromStdString(result.best.shortLabel()))
                   .arg(result.bestMs, 0, 'f', 4);
    } else {
        const auto refused = std::count_if(result.entries.begin(), result.entries.end(),
                                           [](const TuneEntry& e) { return !e.error.empty(); });
        text = tr("best %1: %2 ms, default %3: %4 ms (%5x); %6 candidates, %7 refused")
                   .arg(QString::fromStdString(result.best.shortLabel()))
                   .arg(result.bestMs, 0, 'f', 4)
                   .arg(QString::fromStdString(result.defaultConfig.shortLabel()))
                   .arg(result.defaultMs, 0, 'f', 4)
                   .arg(result.bestMs > 0.0 ? result.defaultMs / result.bestMs : 0.0, 0, 'f', 2)
                   .arg(result.entries.size())
                   .arg(refused);
    }
    message_->setText(text);
    replot();
    refreshEnabled();
}

void LaunchPanel::setMessage(const QString& message) { message_->setText(message); }

QString LaunchPanel::message() const { return message_->text(); }

void LaunchPanel::useBest() {
    if (!tune_.ok() || tune_.bestMs <= 0.0) return;
    setConfig(tune_.best);
    emit configChanged(config());
}

void LaunchPanel::refreshEnabled() {
    const bool usable = disabledReason_.isEmpty();
    knobs_->setEnabled(usable && !tuning_);
    tuneButton_->setEnabled(usable && !tuning_);
    cancelButton_->setEnabled(tuning_);
    useBestButton_->setEnabled(usable && !tuning_ && tune_.ok() && tune_.bestMs > 0.0);
    resetButton_->setEnabled(usable && !tuning_);
    progress_->setVisible(tuning_);
    report_->setEnabled(usable);
    plot_->setEnabled(usable);
}

void LaunchPanel::replot() {
    plot_->clearPlottables();
    plot_->clearItems();
    charted_ = 0;
    bestLabel_.clear();
    defaultLabel_.clear();
    const QStringList labels = candidateLabels(tune_.entries);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    QVector<double> keys, values, bestKey, bestValue, defaultKey, defaultValue;
    double maxMs = 0.0;
    for (std::size_t i = 0; i < tune_.entries.size(); ++i) {
        const TuneEntry& e = tune_.entries[i];
        if (!e.error.empty()) continue;  // refused or failed: counted in the message, not charted
        ++charted_;
        const double key = charted_;
        ticker->addTick(key, labels[static_cast<int>(i)]);
        maxMs = std::max(maxMs, e.medianMs);
        if (e.config == tune_.best) {
            bestKey << key;
            bestValue << e.medianMs;
            bestLabel_ = labels[static_cast<int>(i)];
        } else if (e.config == tune_.defaultConfig) {
            defaultKey << key;
            defaultValue << e.medianMs;
        } else {
            keys << key;
            values << e.medianMs;
        }
        if (e.config == tune_.defaultConfig) defaultLabel_ = labels[static_cast<int>(i)];
    }
    const auto addBars = [this](const QString& name, const QColor& colour, const QVector<double>& k, const QVector<double>& v) {
        if (k.isEmpty()) return;
        auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
        bars->setName(name);
        bars->setBrush(colour);
        bars->setPen(QPen(colour.darker(140)));
        bars->setWidth(0.7);
        bars->setData(k, v, true);
    };
    addBars(tr("candidate"), QColor(160, 170, 190), keys, values);
    addBars(tr("default"), QColor(66, 133, 244), defaultKey, defaultValue);
    addBars(tr("best"), QColor(15, 157, 88), bestKey, bestValue);
    // Words above the two bars that matter, so they read without the legend too.
    const auto mark = [this](double key, double value, const QString& text, const QColor& colour) {
        auto* label = new QCPItemText(plot_);
        label->position->setType(QCPItemPosition::ptPlotCoords);
        label->position->setCoords(key, value);
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        label->setText(text);
        label->setColor(colour);
        label->setFont(QFont(font().family(), 8, QFont::Bold));
    };
    if (!bestKey.isEmpty() && tune_.best != tune_.defaultConfig) mark(bestKey[0], bestValue[0], tr("best"), QColor(15, 157, 88));
    for (std::size_t i = 0, key = 0; i < tune_.entries.size(); ++i) {
        if (!tune_.entries[i].error.empty()) continue;
        ++key;
        if (tune_.entries[i].config == tune_.defaultConfig)
            mark(static_cast<double>(key), tune_.entries[i].medianMs, tune_.defaultConfig == tune_.best ? tr("best = default") : tr("default"),
                 QColor(66, 133, 244));
    }
    plot_->xAxis->setTicker(ticker);
    plot_->xAxis->setRange(0.3, std::max(charted_, 4) + 0.7);
    plot_->yAxis->setRange(0, std::max(1e-3, maxMs * 1.2));
    if (charted_ == 0)
        showEmptyState(plot_, disabledReason_.isEmpty()
                                  ? tr("No candidates timed yet.\nAutotune (Ctrl+T) times every launch\nconfiguration of this mode here.")
                                  : tr("Launch configurations are\nfor GPU modes."));
    else showAxes(plot_, false);
    plot_->replot();
}

}  // namespace fs::widgets
