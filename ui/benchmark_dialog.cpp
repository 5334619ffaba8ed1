#include "benchmark_dialog.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QGuiApplication>
#include <QScreen>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <qcustomplot.h>
#include <random>

#include "bench_plots.hpp"

namespace fs::ui {

namespace {

QVector<int> parseList(const QString& text, QString* error) {
    QVector<int> values;
    for (const QString& part : text.split(',', Qt::SkipEmptyParts)) {
        bool ok = false;
        const int v = part.trimmed().toInt(&ok);
        if (!ok || v <= 0) {
            if (error) *error = QObject::tr("'%1' is not a positive whole number").arg(part.trimmed());
            return {};
        }
        values << v;
    }
    if (values.isEmpty() && error) *error = QObject::tr("the list is empty");
    return values;
}

// "2800, 1920x1200": a side for a square, or WxH.
std::vector<std::pair<int, int>> parseSizes(const QString& text, QString* error) {
    std::vector<std::pair<int, int>> sizes;
    for (const QString& part : text.split(',', Qt::SkipEmptyParts)) {
        const QStringList wh = part.trimmed().split('x');
        bool okW = false, okH = false;
        const int w = wh.value(0).toInt(&okW);
        const int h = wh.size() == 2 ? wh.value(1).toInt(&okH) : (okH = okW, w);
        if (wh.size() > 2 || !okW || !okH || w <= 0 || h <= 0 || w > 65536 || h > 65536) {
            if (error) *error = QObject::tr("'%1' is not a size (a side such as 2800, or 1920x1200)").arg(part.trimmed());
            return {};
        }
        sizes.emplace_back(w, h);
    }
    if (sizes.empty() && error) *error = QObject::tr("the list is empty");
    return sizes;
}

QString msText(const bench::PartStats& p) {
    return p.present ? QStringLiteral("%1 ± %2").arg(p.mean, 0, 'f', 3).arg(p.stddev, 0, 'f', 3) : QString();
}

QString optionalText(const std::optional<double>& v, int decimals) {
    return v ? QString::number(*v, 'f', decimals) : QString();
}

// The last finished (or cancelled) run, for the next dialog: the window makes a new one per Ctrl+B.
struct KeptResults {
    std::vector<bench::BenchRecord> records;
    std::string runName, runTitle, baseline;
    QString status, preset;
    bool quick = false;
};

KeptResults& kept() {
    static KeptResults results;
    return results;
}

// "TITLE. From SOURCE": what a preset rebuilds and the paper it comes from, by title.
QString presetDescription(const bench::BenchPreset& p) {
    return QObject::tr("%1. From %2").arg(QString::fromStdString(p.title), QString::fromStdString(p.source));
}

}  // namespace

BenchmarkDialog::BenchmarkDialog(BackendFactory factory, QWidget* parent)
    : QDialog(parent), factory_(std::move(factory)), backends_(factory_()) {
    setWindowTitle(tr("Benchmark and compare"));
    // Most of the screen: the table and the plots are what the dialog is for.
    const QScreen* screen = parent ? parent->screen() : QGuiApplication::primaryScreen();
    const QSize room = screen ? screen->availableGeometry().size() : QSize(1024, 768);
    resize(std::clamp(room.width() * 9 / 10, 760, 1400), std::clamp(room.height() * 9 / 10, 560, 1000));
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    auto* form = new QFormLayout;
    presetCombo_ = new QComboBox;
    presetCombo_->addItem(tr("custom sweep (the form below)"), QString());
    for (const std::string& name : bench::benchPresetNames()) {
        bench::BenchPreset p;
        bench::makeBenchPreset(name, false, p, nullptr);
        presetCombo_->addItem(QString::fromStdString(name), QString::fromStdString(name));
        presetCombo_->setItemData(presetCombo_->count() - 1, presetDescription(p), Qt::ToolTipRole);
    }
    presetCombo_->setToolTip(tr("A preset rebuilds a table of the papers FilterStudio was made from (docs/teaching.md)"));
    quickCheck_ = new QCheckBox(tr("quick (small sizes, few runs)"));
    auto* presetRow = new QHBoxLayout;
    presetRow->addWidget(presetCombo_, 1);
    presetRow->addWidget(quickCheck_);
    sizesEdit_ = new QLineEdit(QStringLiteral("256, 512, 1024, 2048"));
    sizesEdit_->setToolTip(tr("Image sizes, comma separated: a side for a square (2800) or WxH (1920x1200)"));
    kernelsEdit_ = new QLineEdit(QStringLiteral("3, 5, 7"));
    kernelsEdit_->setToolTip(tr("Odd mask sizes, comma separated"));
    kernelType_ = new QComboBox;
    kernelType_->addItem(tr("dense"), static_cast<int>(bench::MaskKind::Dense));
    kernelType_->addItem(tr("box"), static_cast<int>(bench::MaskKind::Box));
    kernelType_->addItem(tr("gaussian"), static_cast<int>(bench::MaskKind::Gaussian));
    kernelType_->setToolTip(tr("dense: every weight set, not separable (as the papers' masks); box and gaussian split "
                               "into a row and a column, which some modes exploit"));
    channelsCombo_ = new QComboBox;
    channelsCombo_->addItems({QStringLiteral("1"), QStringLiteral("3"), QStringLiteral("4")});
    depthCombo_ = new QComboBox;
    depthCombo_->addItems({QStringLiteral("u8"), QStringLiteral("u16"), QStringLiteral("f32")});
    borderCombo_ = new QComboBox;
    for (BorderMode m : {BorderMode::Reflect101, BorderMode::Replicate, BorderMode::Constant, BorderMode::Wrap})
        borderCombo_->addItem(QString::fromLatin1(borderModeName(m)), static_cast<int>(m));
    warmupSpin_ = new QSpinBox;
    warmupSpin_->setRange(0, 100);
    warmupSpin_->setValue(1);
    warmupSpin_->setToolTip(tr("Untimed runs first (the first CUDA or OpenCL run pays for setup)"));
    repeatsSpin_ = new QSpinBox;
    repeatsSpin_->setRange(1, 1000);
    repeatsSpin_->setValue(5);
    repeatsSpin_->setToolTip(tr("Timed runs per point: mean, standard deviation, min and max are reported"));
    baselineCombo_ = new QComboBox;
    baselineCombo_->setToolTip(tr("Speed-ups are this mode's mean total time over each other's"));
    pinnedCheck_ = new QCheckBox(tr("pinned host memory"));
    pinnedCheck_->setToolTip(tr("Copy each image to page-locked memory first: uploads skip the staging copy"));
    transfersCombo_ = new QComboBox;
    transfersCombo_->setObjectName(QStringLiteral("benchTransfers"));
    transfersCombo_->addItem(tr("overlapped"), static_cast<int>(Transfers::Overlapped));
    transfersCombo_->addItem(tr("serial"), static_cast<int>(Transfers::Serial));
    transfersCombo_->addItem(tr("resident (kernel only)"), static_cast<int>(Transfers::Resident));
    transfersCombo_->setToolTip(tr("overlapped: the image goes up and comes down in pieces on several streams; "
                                   "serial: upload, filter and download the whole image one after the other; "
                                   "resident: the image is uploaded once and kept on the device, as the live "
                                   "preview keeps it, and each run is the kernel and its download"));
    budgetSpin_ = new QSpinBox;
    budgetSpin_->setRange(0, 1 << 20);
    budgetSpin_->setSuffix(tr(" MB"));
    budgetSpin_->setSpecialValueText(tr("engine's own"));
    budgetSpin_->setToolTip(tr("Most device memory a run may hold; larger images go through strips "
                               "(the course paper's 2 GB GPU)"));
    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(sizesEdit_, 2);
    sizeRow->addWidget(new QLabel(tr("masks")));
    sizeRow->addWidget(kernelsEdit_, 1);
    sizeRow->addWidget(kernelType_);
    auto* formatRow = new QHBoxLayout;
    formatRow->addWidget(new QLabel(tr("channels")));
    formatRow->addWidget(channelsCombo_);
    formatRow->addWidget(new QLabel(tr("depth")));
    formatRow->addWidget(depthCombo_);
    formatRow->addWidget(new QLabel(tr("border")));
    formatRow->addWidget(borderCombo_);
    formatRow->addStretch(1);
    auto* runsRow = new QHBoxLayout;
    runsRow->addWidget(new QLabel(tr("warm-up")));
    runsRow->addWidget(warmupSpin_);
    runsRow->addWidget(new QLabel(tr("timed")));
    runsRow->addWidget(repeatsSpin_);
    runsRow->addWidget(new QLabel(tr("baseline")));
    runsRow->addWidget(baselineCombo_, 1);
    form->addRow(tr("Preset"), presetRow);
    form->addRow(tr("Sizes"), sizeRow);
    form->addRow(tr("Images"), formatRow);
    form->addRow(tr("Runs"), runsRow);
    auto* cudaRow = new QHBoxLayout;
    cudaRow->addWidget(pinnedCheck_);
    cudaRow->addWidget(new QLabel(tr("transfers")));
    cudaRow->addWidget(transfersCombo_);
    cudaRow->addWidget(new QLabel(tr("device memory")));
    cudaRow->addWidget(budgetSpin_);
    cudaRow->addStretch(1);
    form->addRow(tr("CUDA"), cudaRow);
    top->addLayout(form, 3);
    modeList_ = new QListWidget;
    for (const auto& b : backends_) {
        const std::string backendReason = b->unavailableReason();
        const std::vector<ModeInfo> modes = b->modes();
        // Ticked at first: the CPU's fast modes (the CPU is the backend with the reference; the
        // single-thread reference itself is slow on large sizes and left to tick by hand).
        const bool holdsReference = std::any_of(modes.begin(), modes.end(), [](const ModeInfo& m) { return m.isReference; });
        for (const ModeInfo& m : modes) {
            const QString key = QString::fromStdString(b->id() + "/" + m.id);
            auto* item = new QListWidgetItem(key, modeList_);
            item->setData(Qt::UserRole, key);
            const bool available = backendReason.empty() && m.available;
            if (available) {
                item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
                item->setCheckState(holdsReference && !m.isReference ? Qt::Checked : Qt::Unchecked);
                item->setToolTip(QString::fromStdString(m.description));
            } else {
                item->setFlags(Qt::NoItemFlags);
                item->setToolTip(tr("Unavailable: %1").arg(QString::fromStdString(backendReason.empty() ? m.unavailableReason : backendReason)));
            }
        }
    }
    top->addWidget(modeList_, 2);
    layout->addLayout(top);

    auto* controls = new QHBoxLayout;
    runButton_ = new QPushButton(tr("Run"));
    cancelButton_ = new QPushButton(tr("Cancel"));
    cancelButton_->setEnabled(false);
    auto* csvButton = new QPushButton(tr("Export CSV..."));
    auto* pngButton = new QPushButton(tr("Save plots (PNG)..."));
    progress_ = new QProgressBar;
    statusLabel_ = new QLabel;
    statusLabel_->setObjectName(QStringLiteral("benchmarkStatus"));
    statusLabel_->setWordWrap(true);
    statusLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);  // written paths can be copied
    controls->addWidget(runButton_);
    controls->addWidget(cancelButton_);
    controls->addWidget(progress_, 1);
    controls->addWidget(csvButton);
    controls->addWidget(pngButton);
    layout->addLayout(controls);
    layout->addWidget(statusLabel_);

    auto* splitter = new QSplitter(Qt::Vertical);
    table_ = new QTableWidget(0, 13);
    table_->setHorizontalHeaderLabels({tr("contender"), tr("size"), tr("mask"), tr("shape"), tr("upload ms"),
                                       tr("kernel ms"), tr("download ms"), tr("total ms"), tr("min ms"), tr("max ms"),
                                       tr("speed-up"), tr("GB/s"), tr("GFLOP/s")});
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    plots_ = new QTabWidget;
    timePlot_ = new QCustomPlot;
    speedupPlot_ = new QCustomPlot;
    plots_->addTab(timePlot_, tr("Time vs size"));
    plots_->addTab(speedupPlot_, tr("Speed-up vs size"));
    splitter->addWidget(table_);
    splitter->addWidget(plots_);
    splitter->setChildrenCollapsible(false);
    // Both grow with the dialog; the table shows at least six rows, the plots stay readable.
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    table_->setMinimumHeight(table_->horizontalHeader()->sizeHint().height() + 6 * table_->verticalHeader()->defaultSectionSize() +
                             2 * table_->frameWidth());
    plots_->setMinimumHeight(240);
    layout->addWidget(splitter, 1);
    replot();
    refreshBaselines();

    connect(modeList_, &QListWidget::itemChanged, this, [this] { refreshBaselines(); });
    connect(presetCombo_, &QComboBox::currentIndexChanged, this,
            [this] { choosePreset(presetCombo_->currentData().toString(), quickCheck_->isChecked()); });
    connect(quickCheck_, &QCheckBox::toggled, this,
            [this](bool quick) { choosePreset(presetCombo_->currentData().toString(), quick); });
    connect(runButton_, &QPushButton::clicked, this, &BenchmarkDialog::start);
    connect(cancelButton_, &QPushButton::clicked, this, &BenchmarkDialog::cancel);
    connect(csvButton, &QPushButton::clicked, this, [this] {
        QString path = QFileDialog::getSaveFileName(this, tr("Export benchmark"),
                                                    QString::fromStdString(runName_ + ".csv"), tr("CSV files (*.csv)"));
        if (path.isEmpty()) return;
        QString error;
        if (!exportCsv(path, &error)) emit errorOccurred(tr("Cannot export benchmark"), error);
        else confirmExport({path});
    });
    connect(pngButton, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for the plots"));
        if (dir.isEmpty()) return;
        QString error;
        QStringList written;
        if (!exportPlots(dir, &error, &written)) emit errorOccurred(tr("Cannot save the plots"), error);
        else confirmExport(written);
    });
    restoreResults();
}

BenchmarkDialog::~BenchmarkDialog() {
    cancel_ = true;
    future_.waitForFinished();
}

void BenchmarkDialog::configure(const QString& sizes, const QString& kernels, const QStringList& modes, int repeats) {
    presetCombo_->setCurrentIndex(0);
    sizesEdit_->setText(sizes);
    kernelsEdit_->setText(kernels);
    repeatsSpin_->setValue(repeats);
    for (int i = 0; i < modeList_->count(); ++i) {
        QListWidgetItem* item = modeList_->item(i);
        if (item->flags() & Qt::ItemIsUserCheckable)
            item->setCheckState(modes.contains(item->data(Qt::UserRole).toString()) ? Qt::Checked : Qt::Unchecked);
    }
}

void BenchmarkDialog::choosePreset(const QString& name, bool quick) {
    const QSignalBlocker blockCombo(presetCombo_), blockQuick(quickCheck_);
    presetCombo_->setCurrentIndex(std::max(0, presetCombo_->findData(name)));
    quickCheck_->setChecked(quick);
    bench::BenchPreset p;
    const bool isPreset = !name.isEmpty() && bench::makeBenchPreset(name.toStdString(), quick, p, nullptr);
    // A preset fixes the sweep; the form shows what it runs.
    for (QWidget* w : std::initializer_list<QWidget*>{sizesEdit_, kernelsEdit_, kernelType_, channelsCombo_, depthCombo_,
                                                      borderCombo_, warmupSpin_, repeatsSpin_, baselineCombo_, modeList_})
        w->setEnabled(!isPreset);
    if (!isPreset) {
        refreshBaselines();
        return;
    }
    QStringList sizes, masks;
    for (const auto& [w, h] : p.sizes) sizes << (w == h ? QString::number(w) : QStringLiteral("%1x%2").arg(w).arg(h));
    for (int m : p.maskSizes) masks << QString::number(m);
    sizesEdit_->setText(sizes.join(QStringLiteral(", ")));
    kernelsEdit_->setText(masks.join(QStringLiteral(", ")));
    kernelType_->setCurrentIndex(kernelType_->findData(static_cast<int>(p.masks)));
    channelsCombo_->setCurrentText(QString::number(p.channels));
    depthCombo_->setCurrentText(QString::fromLatin1(depthName(p.depth)));
    borderCombo_->setCurrentIndex(borderCombo_->findData(static_cast<int>(p.border.mode)));
    warmupSpin_->setValue(p.warmup);
    repeatsSpin_->setValue(p.repeats);
    baselineCombo_->clear();
    baselineCombo_->addItem(QString::fromStdString(p.baseline));
    statusLabel_->setText(presetDescription(p));
}

void BenchmarkDialog::refreshBaselines() {
    if (!presetCombo_->currentData().toString().isEmpty()) return;
    const QString previous = baselineCombo_->currentText();
    const QSignalBlocker block(baselineCombo_);
    baselineCombo_->clear();
    for (int i = 0; i < modeList_->count(); ++i)
        if (modeList_->item(i)->checkState() == Qt::Checked) baselineCombo_->addItem(modeList_->item(i)->data(Qt::UserRole).toString());
    const int keep = baselineCombo_->findText(previous);
    if (keep >= 0) baselineCombo_->setCurrentIndex(keep);
}

bool BenchmarkDialog::buildPreset(bench::BenchPreset& out, QString& why) const {
    const QString name = presetCombo_->currentData().toString();
    // The transfer knobs set here override a preset's (as the CLI's --pinned, --serial, --resident, --device-memory).
    auto applyKnobs = [this](bench::BenchPreset& p) {
        if (pinnedCheck_->isChecked()) p.knobs.host = HostMemory::Pinned;
        if (const auto t = static_cast<Transfers>(transfersCombo_->currentData().toInt()); t != Transfers::Overlapped)
            p.knobs.transfers = t;
        if (budgetSpin_->value() > 0) p.knobs.deviceBudgetBytes = static_cast<std::size_t>(budgetSpin_->value()) << 20;
    };
    if (!name.isEmpty()) {
        std::string error;
        if (!bench::makeBenchPreset(name.toStdString(), quickCheck_->isChecked(), out, &error)) {
            why = QString::fromStdString(error);
            return false;
        }
        applyKnobs(out);
        return true;
    }
    bench::BenchPreset p;
    p.name = "benchmark";
    p.title = "custom sweep";
    p.source = "the Benchmark dialog";
    p.sizes = parseSizes(sizesEdit_->text(), &why);
    if (p.sizes.empty()) {
        why = tr("Image sizes: %1").arg(why);
        return false;
    }
    const QVector<int> masks = parseList(kernelsEdit_->text(), &why);
    if (masks.isEmpty()) {
        why = tr("Mask sizes: %1").arg(why);
        return false;
    }
    for (int m : masks) {
        if (m % 2 == 0 || m > kMaxKernelSize) {
            why = tr("Mask sizes: %1 is not an odd size from 1 to %2").arg(m).arg(kMaxKernelSize);
            return false;
        }
        p.maskSizes.push_back(m);
    }
    p.masks = static_cast<bench::MaskKind>(kernelType_->currentData().toInt());
    p.channels = channelsCombo_->currentText().toInt();
    parseDepth(depthCombo_->currentText().toStdString(), p.depth);
    p.border.mode = static_cast<BorderMode>(borderCombo_->currentData().toInt());
    p.warmup = warmupSpin_->value();
    p.repeats = repeatsSpin_->value();
    for (int i = 0; i < modeList_->count(); ++i)
        if (modeList_->item(i)->checkState() == Qt::Checked) {
            const QString key = modeList_->item(i)->data(Qt::UserRole).toString();
            bench::Contender c;
            c.label = key.toStdString();
            c.backend = key.section('/', 0, 0).toStdString();
            c.pick = bench::ModePick::Named;
            c.mode = key.section('/', 1).toStdString();
            p.contenders.push_back(c);
        }
    if (p.contenders.empty()) {
        why = tr("tick at least one mode to benchmark");
        return false;
    }
    p.baseline = baselineCombo_->currentText().toStdString();
    applyKnobs(p);
    out = std::move(p);
    return true;
}

void BenchmarkDialog::cancel() {
    if (!running_) return;
    cancel_ = true;
    statusLabel_->setText(tr("cancelling after the current run..."));
}

void BenchmarkDialog::start() {
    if (running_) return;
    bench::BenchPreset preset;
    QString why;
    if (!buildPreset(preset, why)) {
        emit errorOccurred(tr("Cannot start the benchmark"), why);
        return;
    }
    const std::uint32_t seed = std::random_device{}();
    runName_ = preset.name;
    runTitle_ = preset.title;
    baseline_ = preset.baseline;
    records_.clear();
    kept() = KeptResults{};  // results are kept until the next run
    table_->setRowCount(0);
    replot();
    cancel_ = false;
    running_ = true;
    runButton_->setEnabled(false);
    cancelButton_->setEnabled(true);
    const int total = static_cast<int>(preset.sizes.size() * preset.maskSizes.size() * preset.contenders.size() *
                                       preset.shapes.size());
    progress_->setRange(0, total);
    progress_->setValue(0);
    statusLabel_->setText(tr("%1: random images, seed %2, %3 channel(s) %4, border %5, %6 warm-up + %7 timed runs; "
                             "CUDA: %8 host memory, %9 transfers")
                              .arg(QString::fromStdString(preset.name))
                              .arg(seed)
                              .arg(preset.channels)
                              .arg(QString::fromLatin1(depthName(preset.depth)))
                              .arg(QString::fromLatin1(borderModeName(preset.border.mode)))
                              .arg(preset.warmup)
                              .arg(preset.repeats)
                              .arg(QString::fromLatin1(hostMemoryName(preset.knobs.host)),
                                   QString::fromLatin1(transfersName(preset.knobs.transfers))));

    future_ = QtConcurrent::run([this, preset, seed] {
        const bench::BenchRunResult result =
            bench::runBenchPreset(preset, backends_, seed, [this](int doneCount, int, const bench::BenchRecord& r) {
                QMetaObject::invokeMethod(this, [this, r, doneCount] {
                    records_.push_back(r);
                    addRecord(r);
                    replot();
                    progress_->setValue(doneCount);
                }, Qt::QueuedConnection);
                return !cancel_.load();
            });
        // Speed-ups need the baseline's rows, so they come once the sweep is over.
        QMetaObject::invokeMethod(this, [this, records = result.records, cancelled = result.cancelled] {
            records_ = records;
            table_->setRowCount(0);
            for (const bench::BenchRecord& r : records_) addRecord(r);
            replot();
            done(cancelled ? tr("cancelled") : tr("finished"));
        }, Qt::QueuedConnection);
    });
}

void BenchmarkDialog::done(const QString& message) {
    running_ = false;
    runButton_->setEnabled(true);
    cancelButton_->setEnabled(false);
    statusLabel_->setText(statusLabel_->text().section(QStringLiteral(" - "), 0, 0) + QStringLiteral(" - ") + message);
    keepResults();
    emit finished();
}

QString BenchmarkDialog::statusText() const { return statusLabel_->text(); }

void BenchmarkDialog::keepResults() const {
    KeptResults& k = kept();
    k.records = records_;
    k.runName = runName_;
    k.runTitle = runTitle_;
    k.baseline = baseline_;
    k.status = statusLabel_->text();
    k.preset = presetCombo_->currentData().toString();
    k.quick = quickCheck_->isChecked();
}

void BenchmarkDialog::restoreResults() {
    const KeptResults& k = kept();
    if (k.records.empty()) return;
    choosePreset(k.preset, k.quick);
    records_ = k.records;
    runName_ = k.runName;
    runTitle_ = k.runTitle;
    baseline_ = k.baseline;
    for (const bench::BenchRecord& r : records_) addRecord(r);
    replot();
    statusLabel_->setText(k.status);
}

void BenchmarkDialog::confirmExport(const QStringList& paths) {
    const QStringList shown = [&] {
        QStringList native;
        for (const QString& p : paths) native << QDir::toNativeSeparators(p);
        return native;
    }();
    statusLabel_->setText(tr("Wrote %1").arg(shown.join(QStringLiteral(", "))));
    emit exported(paths);
    QMessageBox::information(this, tr("Saved"), tr("Wrote:\n%1").arg(shown.join(QLatin1Char('\n'))));
}

void BenchmarkDialog::addRecord(const bench::BenchRecord& r) {
    const int row = table_->rowCount();
    table_->insertRow(row);
    const QString size = QStringLiteral("%1x%2").arg(r.width).arg(r.height);
    QStringList cells = {QString::fromStdString(r.contender), size, QString::number(r.maskSize),
                         QString::fromStdString(r.shape)};
    if (r.ok())
        cells << msText(r.upload) << msText(r.kernel) << msText(r.download) << msText(r.total)
              << QString::number(r.total.min, 'f', 3) << QString::number(r.total.max, 'f', 3) << optionalText(r.speedup, 2)
              << optionalText(r.gbps, 2) << optionalText(r.gflops, 2);
    else
        cells << QString::fromStdString(r.error);
    for (int c = 0; c < cells.size(); ++c) table_->setItem(row, c, new QTableWidgetItem(cells[c]));
    if (!r.ok()) table_->setSpan(row, 4, 1, table_->columnCount() - 4);
}

void BenchmarkDialog::replot() {
    drawTimePlot(*timePlot_, records_);
    drawSpeedupPlot(*speedupPlot_, records_, baseline_);
}

bool BenchmarkDialog::exportCsv(const QString& path, QString* error) const {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error) *error = tr("could not open %1: %2").arg(path, file.errorString());
        return false;
    }
    file.write(QByteArray::fromStdString(bench::benchRecordsCsv(records_)));
    if (!file.commit()) {
        if (error) *error = tr("could not write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool BenchmarkDialog::exportPlots(const QString& dir, QString* error, QStringList* writtenPaths) const {
    std::vector<std::string> written;
    std::string why;
    if (writeBenchPlots(records_, runName_, baseline_, dir.toStdString(), written, why, runTitle_)) {
        if (writtenPaths)
            for (const std::string& path : written) writtenPaths->push_back(QString::fromStdString(path));
        return true;
    }
    if (error) *error = QString::fromStdString(why);
    return false;
}

}  // namespace fs::ui
