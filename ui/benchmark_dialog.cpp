#include "benchmark_dialog.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QTextStream>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <chrono>
#include <qcustomplot.h>
#include <random>

#include "fs/presets.hpp"

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

void fillRandom(Image& image, std::mt19937& rng) {
    std::uniform_int_distribution<int> byte(0, 255);
    const ImageView v = image.view();
    const int values = v.width * v.channels;
    for (int y = 0; y < v.height; ++y) {
        switch (v.depth) {
        case Depth::U8:
            for (int i = 0; i < values; ++i) v.row<std::uint8_t>(y)[i] = static_cast<std::uint8_t>(byte(rng));
            break;
        case Depth::U16:
            for (int i = 0; i < values; ++i) v.row<std::uint16_t>(y)[i] = static_cast<std::uint16_t>(byte(rng) * 257);
            break;
        case Depth::F32:
            for (int i = 0; i < values; ++i) v.row<float>(y)[i] = static_cast<float>(byte(rng));
            break;
        }
    }
}

}  // namespace

BenchmarkDialog::BenchmarkDialog(BackendFactory factory, QWidget* parent)
    : QDialog(parent), factory_(std::move(factory)), backends_(factory_()) {
    setWindowTitle(tr("Benchmark and compare"));
    resize(1000, 700);
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    auto* form = new QFormLayout;
    sizesEdit_ = new QLineEdit(QStringLiteral("256, 512, 1024, 2048"));
    sizesEdit_->setToolTip(tr("Square image sizes in pixels, comma separated"));
    kernelsEdit_ = new QLineEdit(QStringLiteral("3, 5, 7"));
    kernelsEdit_->setToolTip(tr("Odd kernel sizes, comma separated"));
    kernelType_ = new QComboBox;
    kernelType_->addItems({QStringLiteral("box"), QStringLiteral("gaussian")});
    kernelType_->setToolTip(tr("box is separable-friendly and cheap to build; gaussian uses sigma from the size"));
    channelsCombo_ = new QComboBox;
    channelsCombo_->addItems({QStringLiteral("1"), QStringLiteral("3"), QStringLiteral("4")});
    depthCombo_ = new QComboBox;
    depthCombo_->addItems({QStringLiteral("u8"), QStringLiteral("u16"), QStringLiteral("f32")});
    repeatsSpin_ = new QSpinBox;
    repeatsSpin_->setRange(1, 50);
    repeatsSpin_->setValue(3);
    repeatsSpin_->setToolTip(tr("Runs per point; the median is reported"));
    auto* paperButton = new QPushButton(tr("Seed paper preset (2800²..22400², 3/5/7)"));
    paperButton->setToolTip(tr("The sweep of the paper this project follows; large sizes need several GB of memory"));
    form->addRow(tr("Image sizes"), sizesEdit_);
    form->addRow(tr("Kernel sizes"), kernelsEdit_);
    form->addRow(tr("Kernel"), kernelType_);
    form->addRow(tr("Channels"), channelsCombo_);
    form->addRow(tr("Depth"), depthCombo_);
    form->addRow(tr("Repeats"), repeatsSpin_);
    form->addRow(QString(), paperButton);
    top->addLayout(form, 1);
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
    top->addWidget(modeList_, 1);
    layout->addLayout(top);

    auto* controls = new QHBoxLayout;
    runButton_ = new QPushButton(tr("Run"));
    cancelButton_ = new QPushButton(tr("Cancel"));
    cancelButton_->setEnabled(false);
    auto* csvButton = new QPushButton(tr("Export CSV..."));
    progress_ = new QProgressBar;
    statusLabel_ = new QLabel;
    controls->addWidget(runButton_);
    controls->addWidget(cancelButton_);
    controls->addWidget(progress_, 1);
    controls->addWidget(csvButton);
    layout->addLayout(controls);
    layout->addWidget(statusLabel_);

    auto* splitter = new QSplitter(Qt::Horizontal);
    table_ = new QTableWidget(0, 6);
    table_->setHorizontalHeaderLabels({tr("size"), tr("kernel"), tr("mode"), tr("median ms"), tr("kernel ms"), tr("MPix/s")});
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    plot_ = new QCustomPlot;
    plot_->legend->setVisible(true);
    plot_->legend->setFont(QFont(font().family(), 8));
    plot_->xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    plot_->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    plot_->xAxis->setLabel(tr("image side (px)"));
    plot_->yAxis->setLabel(tr("median ms"));
    splitter->addWidget(table_);
    splitter->addWidget(plot_);
    layout->addWidget(splitter, 1);

    connect(paperButton, &QPushButton::clicked, this, [this] {
        sizesEdit_->setText(QStringLiteral("2800, 5600, 11200, 22400"));
        kernelsEdit_->setText(QStringLiteral("3, 5, 7"));
    });
    connect(runButton_, &QPushButton::clicked, this, &BenchmarkDialog::start);
    connect(cancelButton_, &QPushButton::clicked, this, &BenchmarkDialog::cancel);
    connect(csvButton, &QPushButton::clicked, this, [this] {
        QString path = QFileDialog::getSaveFileName(this, tr("Export benchmark"), QStringLiteral("benchmark.csv"), tr("CSV files (*.csv)"));
        if (path.isEmpty()) return;
        QString error;
        if (!exportCsv(path, &error)) emit errorOccurred(tr("Cannot export benchmark"), error);
    });
}

BenchmarkDialog::~BenchmarkDialog() {
    cancel_ = true;
    future_.waitForFinished();
}

void BenchmarkDialog::configure(const QString& sizes, const QString& kernels, const QStringList& modes, int repeats) {
    sizesEdit_->setText(sizes);
    kernelsEdit_->setText(kernels);
    repeatsSpin_->setValue(repeats);
    for (int i = 0; i < modeList_->count(); ++i) {
        QListWidgetItem* item = modeList_->item(i);
        if (item->flags() & Qt::ItemIsUserCheckable)
            item->setCheckState(modes.contains(item->data(Qt::UserRole).toString()) ? Qt::Checked : Qt::Unchecked);
    }
}

void BenchmarkDialog::cancel() {
    cancel_ = true;
    statusLabel_->setText(tr("cancelling after the current run..."));
}

void BenchmarkDialog::start() {
    if (running_) return;
    QString why;
    const QVector<int> sizes = parseList(sizesEdit_->text(), &why);
    if (sizes.isEmpty()) {
        emit errorOccurred(tr("Bad image sizes"), why);
        return;
    }
    const QVector<int> kernels = parseList(kernelsEdit_->text(), &why);
    if (kernels.isEmpty()) {
        emit errorOccurred(tr("Bad kernel sizes"), why);
        return;
    }
    QStringList modes;
    for (int i = 0; i < modeList_->count(); ++i)
        if (modeList_->item(i)->checkState() == Qt::Checked) modes << modeList_->item(i)->data(Qt::UserRole).toString();
    if (modes.isEmpty()) {
        emit errorOccurred(tr("No modes"), tr("tick at least one mode to benchmark"));
        return;
    }
    std::vector<FilterSpec> specs;
    for (int k : kernels) {
        FilterSpec spec;
        std::string error;
        const QString text = QStringLiteral("%1:%2").arg(kernelType_->currentText()).arg(k);
        if (!makePreset(text.toStdString(), spec, &error)) {
            emit errorOccurred(tr("Bad kernel size"), QString::fromStdString(error));
            return;
        }
        specs.push_back(spec);
    }
    Depth depth = Depth::U8;
    parseDepth(depthCombo_->currentText().toStdString(), depth);
    const int channels = channelsCombo_->currentText().toInt();
    const int repeats = repeatsSpin_->value();
    const unsigned seed = std::random_device{}();

    rows_.clear();
    table_->setRowCount(0);
    replot();
    cancel_ = false;
    running_ = true;
    runButton_->setEnabled(false);
    cancelButton_->setEnabled(true);
    const int total = static_cast<int>(sizes.size() * static_cast<qsizetype>(specs.size()) * modes.size());
    progress_->setRange(0, total);
    progress_->setValue(0);
    statusLabel_->setText(tr("random images, seed %1, %2 channel(s) %3, median of %4").arg(seed).arg(channels).arg(depthName(depth)).arg(repeats));

    future_ = QtConcurrent::run([this, sizes, specs, kernels, modes, depth, channels, repeats, seed] {
        std::mt19937 rng(seed);
        int doneCount = 0;
        for (int size : sizes) {
            Image input;
            try {
                input = Image(size, size, channels, depth);
                fillRandom(input, rng);
            } catch (const std::exception& e) {
                const QString message = tr("%1x%1 image: %2").arg(size).arg(QString::fromUtf8(e.what()));
                QMetaObject::invokeMethod(this, [this, message] { done(message); }, Qt::QueuedConnection);
                return;
            }
            for (std::size_t k = 0; k < specs.size(); ++k) {
                for (const QString& key : modes) {
                    if (cancel_) {
                        QMetaObject::invokeMethod(this, [this] { done(tr("cancelled")); }, Qt::QueuedConnection);
                        return;
                    }
                    Row row{size, kernels[static_cast<int>(k)], key, 0.0, -1.0, {}};
                    Backend* backend = nullptr;
                    for (const auto& b : backends_)
                        if (QString::fromStdString(b->id()) == key.section('/', 0, 0)) backend = b.get();
                    std::vector<double> totals, kernelTimes;
                    for (int r = 0; r < repeats && backend && row.error.isEmpty() && !cancel_; ++r) {
                        const auto t0 = std::chrono::steady_clock::now();
                        RunResult result = backend->run(specs[k], input.cview(), key.section('/', 1).toStdString());
                        const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                        if (!result.ok()) row.error = QString::fromStdString(result.error);
                        totals.push_back(result.timing.totalMs.value_or(wall));
                        if (result.timing.kernelMs) kernelTimes.push_back(*result.timing.kernelMs);
                    }
                    if (!backend) row.error = tr("unknown backend");
                    auto median = [](std::vector<double> v) {
                        std::sort(v.begin(), v.end());
                        return v.empty() ? -1.0 : v[v.size() / 2];
                    };
                    row.medianMs = median(totals);
                    row.kernelMs = median(kernelTimes);
                    ++doneCount;
                    QMetaObject::invokeMethod(this, [this, row, doneCount] {
                        addRow(row);
                        progress_->setValue(doneCount);
                    }, Qt::QueuedConnection);
                }
            }
        }
        QMetaObject::invokeMethod(this, [this] { done(tr("finished")); }, Qt::QueuedConnection);
    });
}

void BenchmarkDialog::done(const QString& message) {
    running_ = false;
    runButton_->setEnabled(true);
    cancelButton_->setEnabled(false);
    statusLabel_->setText(statusLabel_->text().section(QStringLiteral(" - "), 0, 0) + QStringLiteral(" - ") + message);
    emit finished();
}

void BenchmarkDialog::addRow(const Row& row) {
    rows_ << row;
    const int r = table_->rowCount();
    table_->insertRow(r);
    const double mpix = row.medianMs > 0 ? static_cast<double>(row.size) * row.size / 1e6 / (row.medianMs / 1000.0) : 0.0;
    const QStringList cells = {QString::number(row.size), QString::number(row.kernel), row.mode,
                               row.error.isEmpty() ? QString::number(row.medianMs, 'f', 3) : tr("failed"),
                               row.kernelMs >= 0 ? QString::number(row.kernelMs, 'f', 3) : QString(),
                               row.error.isEmpty() ? QString::number(mpix, 'f', 1) : row.error};
    for (int c = 0; c < cells.size(); ++c) table_->setItem(r, c, new QTableWidgetItem(cells[c]));
    replot();
}

void BenchmarkDialog::replot() {
    plot_->clearGraphs();
    QMap<QString, QCPGraph*> graphs;
    const QColor palette[] = {QColor(66, 133, 244), QColor(219, 68, 55), QColor(244, 180, 0), QColor(15, 157, 88),
                              QColor(171, 71, 188), QColor(0, 172, 193), QColor(255, 112, 67), QColor(121, 85, 72)};
    double minX = 1e300, maxX = 0, minY = 1e300, maxY = 0;
    for (const Row& row : rows_) {
        if (!row.error.isEmpty() || row.medianMs <= 0) continue;
        const QString name = QStringLiteral("%1 k%2").arg(row.mode).arg(row.kernel);
        QCPGraph*& g = graphs[name];
        if (!g) {
            g = plot_->addGraph();
            g->setName(name);
            const QColor c = palette[graphs.size() % 8];
            g->setPen(QPen(c, 2));
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
        }
        g->addData(row.size, row.medianMs);
        minX = std::min(minX, static_cast<double>(row.size));
        maxX = std::max(maxX, static_cast<double>(row.size));
        minY = std::min(minY, row.medianMs);
        maxY = std::max(maxY, row.medianMs);
    }
    if (maxX > 0) {
        plot_->xAxis->setRange(minX / 1.5, maxX * 1.5);
        plot_->yAxis->setRange(minY / 2, maxY * 2);
    }
    plot_->replot();
}

bool BenchmarkDialog::exportCsv(const QString& path, QString* error) const {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error) *error = tr("could not open %1: %2").arg(path, file.errorString());
        return false;
    }
    QTextStream out(&file);
    out << "size,kernel,backend,mode,median_ms,kernel_ms,error\n";
    for (const Row& r : rows_)
        out << r.size << ',' << r.kernel << ',' << r.mode.section('/', 0, 0) << ',' << r.mode.section('/', 1) << ','
            << (r.error.isEmpty() ? QString::number(r.medianMs, 'f', 4) : QString()) << ','
            << (r.kernelMs >= 0 ? QString::number(r.kernelMs, 'f', 4) : QString()) << ",\"" << r.error << "\"\n";
    out.flush();
    if (!file.commit()) {
        if (error) *error = tr("could not write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

}  // namespace fs::ui
