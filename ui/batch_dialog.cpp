#include "batch_dialog.hpp"

#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <optional>

#include "fs/kernel_file.hpp"
#include "layer_job.hpp"
#include "layers.hpp"
#include "fs/presets.hpp"
#include "fs/widgets/preset_names.hpp"

namespace fs::ui {

namespace {

const char* const kPresetExamples[] = {"sobel-x", "sobel-y", "sobel-mag", "gaussian:5:1.2", "box:5", "laplacian-4",
                                       "log:9:1.4", "sharpen", "emboss", "scharr-x", "unsharp:5:0:1"};
const char* const kExtensions[] = {"png", "tif", "jpg", "bmp", "webp", "pgm", "ppm", "pfm"};

QString fileName(const std::string& path) { return QFileInfo(QString::fromStdString(path)).fileName(); }

}  // namespace

BatchDialog::BatchDialog(BackendFactory factory, QWidget* parent)
    : QDialog(parent), factory_(std::move(factory)), backends_(factory_()) {
    setWindowTitle(tr("Batch: many images x many kernels"));
    resize(900, 720);
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;

    // Inputs: folders, patterns, files.
    auto* inputBox = new QGroupBox(tr("Inputs (folders, patterns, files)"));
    auto* inputLayout = new QGridLayout(inputBox);
    inputList_ = new QListWidget;
    inputList_->setObjectName(QStringLiteral("batchInputs"));
    inputList_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    auto* addFiles = new QPushButton(tr("Files..."));
    auto* addFolder = new QPushButton(tr("Folder..."));
    patternEdit_ = new QLineEdit;
    patternEdit_->setPlaceholderText(tr("/photos/*.jpg"));
    patternEdit_->setToolTip(tr("A glob pattern with * ? [..]; Enter adds it"));
    auto* addPattern = new QPushButton(tr("Add pattern"));
    auto* removeInput = new QPushButton(tr("Remove"));
    inputLayout->addWidget(inputList_, 0, 0, 1, 4);
    inputLayout->addWidget(addFiles, 1, 0);
    inputLayout->addWidget(addFolder, 1, 1);
    inputLayout->addWidget(removeInput, 1, 3);
    inputLayout->addWidget(patternEdit_, 2, 0, 1, 3);
    inputLayout->addWidget(addPattern, 2, 3);
    top->addWidget(inputBox, 1);

    // Kernels: presets, kernel files, the designer's kernel.
    auto* kernelBox = new QGroupBox(tr("Kernels"));
    auto* kernelLayout = new QGridLayout(kernelBox);
    kernelList_ = new QListWidget;
    kernelList_->setObjectName(QStringLiteral("batchKernels"));
    presetCombo_ = new QComboBox;
    presetCombo_->setObjectName(QStringLiteral("batchPreset"));
    QStringList examples;
    for (const char* p : kPresetExamples) examples << QString::fromLatin1(p);
    widgets::setUpPresetTextBox(presetCombo_, examples, tr("pick or type a preset"));
    presetCombo_->setToolTip(tr("Any preset text, e.g. gaussian:7:2 or sobel-x:5"));
    auto* addPresetButton = new QPushButton(tr("Add preset"));
    auto* addFileButton = new QPushButton(tr("Kernel files..."));
    designerButton_ = new QPushButton(tr("Designer kernel"));
    designerButton_->setToolTip(tr("The kernel designer's current filter, with its border and output"));
    designerButton_->setEnabled(false);
    auto* removeKernel = new QPushButton(tr("Remove"));
    kernelLayout->addWidget(kernelList_, 0, 0, 1, 3);
    kernelLayout->addWidget(presetCombo_, 1, 0, 1, 2);
    kernelLayout->addWidget(addPresetButton, 1, 2);
    kernelLayout->addWidget(addFileButton, 2, 0);
    kernelLayout->addWidget(designerButton_, 2, 1);
    kernelLayout->addWidget(removeKernel, 2, 2);
    top->addWidget(kernelBox, 1);
    inputList_->setMinimumHeight(90);
    kernelList_->setMinimumHeight(90);
    layout->addLayout(top, 2);

    // Output and how to run.
    auto* form = new QFormLayout;
    auto* outRow = new QHBoxLayout;
    outDirEdit_ = new QLineEdit(QSettings().value(QStringLiteral("batch/outDir")).toString());
    outDirEdit_->setPlaceholderText(tr("created when missing"));
    auto* browseOut = new QPushButton(tr("Browse..."));
    outRow->addWidget(outDirEdit_, 1);
    outRow->addWidget(browseOut);
    modeCombo_ = new QComboBox;
    for (const auto& b : backends_) {
        const std::string backendReason = b->unavailableReason();
        for (const ModeInfo& m : b->modes()) {
            const QString key = QString::fromStdString(b->id() + "/" + m.id);
            if (backendReason.empty() && m.available) modeCombo_->addItem(key, key);
        }
    }
    extensionCombo_ = new QComboBox;
    extensionCombo_->addItem(tr("same as each input (tif for float output)"), QString());
    for (const char* e : kExtensions) extensionCombo_->addItem(QString::fromLatin1(e), QString::fromLatin1(e));
    overwriteCheck_ = new QCheckBox(tr("overwrite existing outputs"));
    oneAtATimeCheck_ = new QCheckBox(tr("one backend run per image and kernel (baseline timing)"));
    form->addRow(tr("Output folder"), outRow);
    form->addRow(tr("Run with"), modeCombo_);
    form->addRow(tr("Output format"), extensionCombo_);
    form->addRow(QString(), overwriteCheck_);
    form->addRow(QString(), oneAtATimeCheck_);
    layout->addLayout(form);

    auto* runRow = new QHBoxLayout;
    runButton_ = new QPushButton(tr("Run batch"));
    runButton_->setDefault(true);
    cancelButton_ = new QPushButton(tr("Cancel"));
    progress_ = new QProgressBar;
    // Until a batch runs there is nothing to count: a neutral bar, not "0 of 100 images".
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setFormat(tr("not started"));
    layerButton_ = new QPushButton(tr("Run as layer (N:M:M)..."));
    layerButton_->setToolTip(tr("Each output is the sum over the inputs (in list order) of input n filtered with "
                                "kernel (n, m) of a kernel bank file, as in a convolution layer"));
    runRow->addWidget(runButton_);
    runRow->addWidget(layerButton_);
    runRow->addWidget(cancelButton_);
    runRow->addWidget(progress_, 1);
    layout->addLayout(runRow);
    currentLabel_ = new QLabel;
    layout->addWidget(currentLabel_);
    statusLabel_ = new QLabel;
    statusLabel_->setWordWrap(true);
    layout->addWidget(statusLabel_);
    layout->addWidget(new QLabel(tr("Files that failed:")));
    failureList_ = new QListWidget;
    failureList_->setObjectName(QStringLiteral("batchFailures"));
    failureList_->setMinimumHeight(60);
    layout->addWidget(failureList_, 1);
    summaryLabel_ = new QLabel;
    summaryLabel_->setWordWrap(true);
    summaryLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summaryLabel_);

    // Names for tests and style sheets.
    outDirEdit_->setObjectName(QStringLiteral("batchOutDir"));
    modeCombo_->setObjectName(QStringLiteral("batchMode"));
    extensionCombo_->setObjectName(QStringLiteral("batchExtension"));
    overwriteCheck_->setObjectName(QStringLiteral("batchOverwrite"));
    runButton_->setObjectName(QStringLiteral("batchRun"));
    cancelButton_->setObjectName(QStringLiteral("batchCancel"));

    const auto report = [this](bool ok, const QString& why) {
        if (!ok) setStatus(why, true);
    };
    connect(addFiles, &QPushButton::clicked, this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(this, tr("Input images"), QString(),
                                                                tr("Images (*.png *.jpg *.jpeg *.bmp *.tif *.tiff *.pgm *.ppm *.pnm *.webp *.pfm);;All files (*)"));
        setInputs(inputs() + files);
    });
    connect(addFolder, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder of input images"));
        if (!dir.isEmpty()) setInputs(inputs() << dir);
    });
    const auto addPatternText = [this] {
        const QString pattern = patternEdit_->text().trimmed();
        if (pattern.isEmpty()) return;
        setInputs(inputs() << pattern);
        patternEdit_->clear();
    };
    connect(addPattern, &QPushButton::clicked, this, addPatternText);
    connect(patternEdit_, &QLineEdit::returnPressed, this, addPatternText);
    connect(removeInput, &QPushButton::clicked, this, [this] { qDeleteAll(inputList_->selectedItems()); });
    connect(addPresetButton, &QPushButton::clicked, this, [this, report] {
        QString why;
        report(addPreset(presetCombo_->currentText().trimmed(), &why), why);
    });
    connect(addFileButton, &QPushButton::clicked, this, [this, report] {
        for (const QString& path :
             QFileDialog::getOpenFileNames(this, tr("Kernel files"), QString(), tr("Kernel files (*.json);;All files (*)"))) {
            QString why;
            report(addKernelFile(path, &why), why);
        }
    });
    connect(designerButton_, &QPushButton::clicked, this, [this] {
        if (!designerKernel_) return;
        const FilterSpec spec = designerKernel_();
        addKernel(QString::fromStdString(spec.name.empty() ? std::string("designer") : spec.name), spec);
    });
    connect(removeKernel, &QPushButton::clicked, this, [this] {
        const int row = kernelList_->currentRow();
        if (row < 0 || row >= kernelCount()) return;
        kernels_.erase(kernels_.begin() + row);
        delete kernelList_->takeItem(row);
    });
    connect(browseOut, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Output folder"), outDirEdit_->text());
        if (!dir.isEmpty()) outDirEdit_->setText(dir);
    });
    connect(runButton_, &QPushButton::clicked, this, &BatchDialog::start);
    connect(layerButton_, &QPushButton::clicked, this, [this] {
        const QString bank = QFileDialog::getOpenFileName(this, tr("Kernel bank"), QString(), tr("Kernel banks (*.json)"));
        if (!bank.isEmpty()) startLayer(bank);
    });
    connect(cancelButton_, &QPushButton::clicked, this, &BatchDialog::cancel);
    refreshButtons();
}

BatchDialog::~BatchDialog() {
    cancel_ = true;
    future_.waitForFinished();
}

void BatchDialog::setInputs(const QStringList& inputs) {
    inputList_->clear();
    for (const QString& input : inputs)
        if (!input.trimmed().isEmpty()) inputList_->addItem(input);
}

QStringList BatchDialog::inputs() const {
    QStringList list;
    for (int i = 0; i < inputList_->count(); ++i) list << inputList_->item(i)->text();
    return list;
}

void BatchDialog::addKernel(const QString& name, const FilterSpec& spec) {
    kernels_.push_back({name.toStdString(), spec});
    kernelList_->addItem(name);
}

bool BatchDialog::addPreset(const QString& text, QString* error) {
    FilterSpec spec;
    std::string why;
    if (text.isEmpty() || !makePreset(text.toStdString(), spec, &why)) {
        if (error) *error = text.isEmpty() ? tr("type a preset such as sobel-x") : QString::fromStdString(why);
        return false;
    }
    addKernel(text, spec);
    return true;
}

bool BatchDialog::addKernelFile(const QString& path, QString* error) {
    FilterSpec spec;
    std::string why;
    if (!loadKernelFile(path.toStdString(), spec, &why)) {
        if (error) *error = QString::fromStdString(why);
        return false;
    }
    addKernel(path, spec);  // the file name becomes the <kernel> part of output names
    return true;
}

void BatchDialog::setOutputDir(const QString& dir) { outDirEdit_->setText(dir); }

bool BatchDialog::selectMode(const QString& key) {
    const int at = modeCombo_->findData(key);
    if (at >= 0) modeCombo_->setCurrentIndex(at);
    return at >= 0;
}

void BatchDialog::setExtension(const QString& extension) {
    const int at = extensionCombo_->findData(extension);
    extensionCombo_->setCurrentIndex(at >= 0 ? at : 0);
}

void BatchDialog::setOverwrite(bool on) { overwriteCheck_->setChecked(on); }

void BatchDialog::setDesignerKernelSource(std::function<FilterSpec()> source) {
    designerKernel_ = std::move(source);
    designerButton_->setEnabled(static_cast<bool>(designerKernel_));
}

batch::Options BatchDialog::options() const {
    batch::Options o;
    for (const QString& input : inputs()) o.inputs.push_back(input.toStdString());
    o.kernels = kernels_;
    o.outDir = outDirEdit_->text().trimmed().toStdString();
    o.format = extensionCombo_->currentData().toString().toStdString();
    o.overwrite = overwriteCheck_->isChecked();
    o.oneAtATime = oneAtATimeCheck_->isChecked();
    return o;
}

bool BatchDialog::start() {
    if (running_) return false;
    const QString key = modeCombo_->currentData().toString();
    Backend* backend = nullptr;
    for (const auto& b : backends_)
        if (QString::fromStdString(b->id()) == key.section('/', 0, 0)) backend = b.get();
    if (!backend) {
        setStatus(tr("no backend mode is available"), true);
        return false;
    }
    const batch::Plan plan = batch::validate(options());
    if (!plan.ok()) {
        setStatus(plan.problem == batch::Plan::Problem::Output ? tr("%1: tick 'overwrite existing outputs' to replace them")
                                                                     .arg(QString::fromStdString(plan.error))
                                                               : QString::fromStdString(plan.error),
                  true);
        return false;
    }
    QSettings().setValue(QStringLiteral("batch/outDir"), outDirEdit_->text().trimmed());
    failureList_->clear();
    summaryLabel_->clear();
    summary_ = batch::Summary{};
    progress_->setFormat(tr("%v of %m images"));
    progress_->setRange(0, static_cast<int>(plan.items.size()));
    progress_->setValue(0);
    setStatus(tr("running %1 images x %2 kernels on %3...").arg(plan.items.size()).arg(plan.options.kernels.size()).arg(key), false);
    cancel_ = false;
    running_ = true;
    refreshButtons();
    const std::string mode = key.section('/', 1).toStdString();
    future_ = QtConcurrent::run([this, plan, backend, mode] {
        const batch::Summary summary = batch::run(plan, *backend, mode, [this](const batch::Progress& p) {
            if (hook_) hook_(p);
            const int done = static_cast<int>(p.done), total = static_cast<int>(p.total);
            const QString file = QString::fromStdString(p.currentFile);
            std::optional<batch::FileResult> failed;
            if (p.finished && !p.finished->ok()) failed = *p.finished;
            QMetaObject::invokeMethod(
                this,
                [this, done, total, file, failed] {
                    showProgress(done, total, file);
                    if (failed) addFailure(*failed);
                },
                Qt::QueuedConnection);
            return !cancel_.load();
        });
        QMetaObject::invokeMethod(this, [this, summary] { done(summary); }, Qt::QueuedConnection);
    });
    return true;
}

bool BatchDialog::startLayer(const QString& bankPath) {
    if (running_) return false;
    const QString key = modeCombo_->currentData().toString();
    Backend* backend = nullptr;
    for (const auto& b : backends_)
        if (QString::fromStdString(b->id()) == key.section('/', 0, 0)) backend = b.get();
    std::shared_ptr<LayerRunner> runner = backend ? makeLayerRunner(backend->id()) : nullptr;
    if (!runner) {
        setStatus(tr("%1 has no layer runner; choose a cpu or cuda mode").arg(key.section('/', 0, 0)), true);
        return false;
    }
    batch::LayerOptions o;
    for (const QString& input : inputs()) o.inputs.push_back(input.toStdString());
    o.bankPath = bankPath.toStdString();
    o.outDir = outDirEdit_->text().trimmed().toStdString();
    o.format = extensionCombo_->currentData().toString().toStdString();
    o.overwrite = overwriteCheck_->isChecked();
    o.compare = oneAtATimeCheck_->isChecked();
    const batch::LayerPlan plan = batch::planLayer(o);
    if (!plan.ok()) {
        setStatus(QString::fromStdString(plan.error), true);
        return false;
    }
    failureList_->clear();
    summaryLabel_->clear();
    summary_ = batch::Summary{};
    progress_->setRange(0, 0);  // one step: busy until it ends
    progress_->setFormat(tr("running the layer"));
    setStatus(tr("running the %1 x %2 layer %3 on %4...")
                  .arg(plan.bank.inputs)
                  .arg(plan.bank.outputs)
                  .arg(QString::fromStdString(plan.bank.name), key),
              false);
    cancel_ = false;
    running_ = true;
    refreshButtons();
    const std::string mode = key.section('/', 1).toStdString();
    const int runs = plan.bank.inputs * plan.bank.outputs;
    future_ = QtConcurrent::run([this, plan, backend, runner, mode, runs] {
        // Shared, not copied: the result owns the output images.
        auto result = std::make_shared<const batch::LayerJobResult>(batch::runLayerJob(plan, *runner, *backend, mode));
        QMetaObject::invokeMethod(this, [this, result, runs, key = QString::fromStdString(backend->id() + "/" + mode)] {
            const batch::LayerJobResult& r = *result;
            running_ = false;
            refreshButtons();
            progress_->setRange(0, 1);
            progress_->setValue(r.ok() ? 1 : 0);
            progress_->setFormat(r.ok() ? tr("layer done") : tr("layer failed"));
            if (!r.ok()) {
                setStatus(QString::fromStdString(r.error), true);
            } else {
                setStatus(tr("done: %1 output file(s) written").arg(r.written.size()), false);
                QString text = tr("layer on %1: one launch %2 ms").arg(key).arg(r.layer.timing.totalMs.value_or(0.0), 0, 'f', 3);
                if (r.layer.timing.kernelMs) text += tr(" (kernel %1 ms)").arg(*r.layer.timing.kernelMs, 0, 'f', 3);
                if (r.oneByOne)
                    text += tr("\none by one (%1 runs, added on the host) %2 ms; largest difference %3")
                                .arg(runs)
                                .arg(r.oneByOne->timing.totalMs.value_or(0.0), 0, 'f', 3)
                                .arg(r.largestDifference);
                summaryLabel_->setText(text);
            }
            emit finished();
        }, Qt::QueuedConnection);
    });
    return true;
}

void BatchDialog::cancel() {
    if (!running_) return;
    cancel_ = true;
    setStatus(tr("cancelling after the current image..."), false);
}

void BatchDialog::showProgress(int done, int total, const QString& file) {
    progress_->setRange(0, std::max(total, 1));
    progress_->setValue(done);
    currentLabel_->setText(tr("%1 / %2  %3").arg(done).arg(total).arg(QFileInfo(file).fileName()));
    emit progressed(done, total);
}

void BatchDialog::addFailure(const batch::FileResult& file) {
    const auto add = [&](std::string why) {
        if (why.rfind(file.input + ": ", 0) == 0) why.erase(0, file.input.size() + 2);  // the line names the file already
        QListWidgetItem* item = new QListWidgetItem(tr("%1: %2").arg(fileName(file.input), QString::fromStdString(why)));
        item->setToolTip(QString::fromStdString(file.input));
        failureList_->addItem(item);
    };
    if (!file.loadError.empty()) add(file.loadError);
    for (const std::string& why : file.problems) add(why);
}

void BatchDialog::done(const batch::Summary& s) {
    summary_ = s;
    running_ = false;
    refreshButtons();
    if (!s.error.empty()) {
        setStatus(QString::fromStdString(s.error), true);
    } else {
        setStatus(s.cancelled ? tr("cancelled after %1 of %2 images; files already written stay").arg(s.imagesDone).arg(s.images)
                  : s.failures ? tr("done; %1 input file(s) failed (see Files that failed)").arg(s.failures)
                               : tr("done"),
                  s.cancelled || s.failures > 0);
    }
    summaryLabel_->setText(summaryText());
    emit finished();
}

QStringList BatchDialog::problems() const {
    QStringList lines;
    for (int i = 0; i < failureList_->count(); ++i) lines << failureList_->item(i)->text();
    return lines;
}

QString BatchDialog::summaryText() const {
    const batch::Summary& s = summary_;
    if (!s.error.empty() || s.backend.empty()) return {};
    return tr("%1/%2%3: %4 of %5 images x %6 kernels -> %7 files written, %8 input file(s) failed\n"
              "%9 s in all (load, filter, save): %10 images/s, %11 output MPix/s\n"
              "filtering alone %12 s: %13 images/s, %14 output MPix/s")
        .arg(QString::fromStdString(s.backend), QString::fromStdString(s.mode), s.oneAtATime ? tr(" (one at a time)") : QString())
        .arg(s.imagesDone)
        .arg(s.images)
        .arg(s.kernels)
        .arg(s.outputsWritten)
        .arg(s.failures)
        .arg(s.seconds, 0, 'f', 3)
        .arg(s.imagesPerSecond(), 0, 'f', 2)
        .arg(s.megapixelsPerSecond(), 0, 'f', 2)
        .arg(s.filterSeconds, 0, 'f', 3)
        .arg(s.filterImagesPerSecond(), 0, 'f', 2)
        .arg(s.filterMegapixelsPerSecond(), 0, 'f', 2);
}

QString BatchDialog::statusText() const { return statusLabel_->text(); }

void BatchDialog::setStatus(const QString& text, bool problem) {
    statusLabel_->setText(text);
    statusLabel_->setStyleSheet(problem ? QStringLiteral("color:#c0392b") : QString());
}

void BatchDialog::refreshButtons() {
    runButton_->setEnabled(!running_);
    layerButton_->setEnabled(!running_);
    cancelButton_->setEnabled(running_);
}

void BatchDialog::closeEvent(QCloseEvent* e) {
    // The batch stops after the image in flight; its files stay.
    cancel_ = true;
    future_.waitForFinished();
    e->accept();
}

}  // namespace fs::ui
