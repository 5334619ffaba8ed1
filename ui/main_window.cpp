#include "main_window.hpp"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QEventLoop>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>

#include "batch_dialog.hpp"
#include "benchmark_dialog.hpp"
#include "image_opener.hpp"
#include "launch_controller.hpp"
#include "menus.hpp"
#include "mode_choices.hpp"
#include "output_controls.hpp"
#include "pixel_probe.hpp"
#include "live_preview.hpp"
#include "preview_service.hpp"
#include "run_status.hpp"
#include "sweep_controller.hpp"
#include "video_controller.hpp"
#include "view_bar.hpp"
#include "fs/widgets/backend_chooser.hpp"
#include "fs/widgets/comparison.hpp"
#include "fs/widgets/image_view.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "fs/widgets/launch_panel.hpp"
#include "fs/widgets/pipeline_editor.hpp"
#include "fs/widgets/pixel_inspector.hpp"
#include "fs/widgets/speed_strip.hpp"
#include "fs/widgets/timing_chart.hpp"

// The samples and icon live in fs_ui, a static library: register them explicitly.
static void initResources() { Q_INIT_RESOURCE(samples); }

namespace fs::ui {

MainWindow::MainWindow(BackendFactory factory, QWidget* parent)
    : QMainWindow(parent), factory_(std::move(factory)), runner_(new FilterRunner(factory_(), this)) {
    initResources();
    setWindowTitle(tr("FilterStudio"));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    reportError_ = [this](const QString& title, const QString& message) { QMessageBox::critical(this, title, message); };
    view_ = new widgets::ImageView;
    editor_ = new widgets::KernelEditor;
    chart_ = new widgets::TimingChart;
    chooser_ = new widgets::BackendChooser;
    inspector_ = new widgets::PixelInspector;
    pipelineEditor_ = new widgets::PipelineEditor;
    launchPanel_ = new widgets::LaunchPanel;
    strip_ = new widgets::SpeedStrip;
    output_ = new OutputControls(editor_->undoStack());
    launch_ = new LaunchController(runner_, launchPanel_, this);
    sweep_ = new services::SweepController(
        [this](const QString& key, int repeats, int warmups) { return submit(key, false, repeats, warmups); }, this);
    chooser_->setChoices(choicesOf(runner_->backends()));
    strip_->setUnavailableBackends(chooser_->unavailableBackends());
    setCentralWidget(buildCentre());
    layout_ = new WindowLayout({this, viewBar_, view_, centreSplit_, strip_}, this);
    layout_->addDocks({editor_, pipelineEditor_, {chooser_, output_}, inspector_, chart_, launchPanel_});
    buildStatusBar();
    video_ = new VideoController({this, view_, chooser_, live_->service(), factory_, [this] { return currentSpec(); }}, this);
    opener_ = new ImageOpener(this, buildMenus(*this, viewBar_->displayModes(), viewBar_->presentationAction()));
    confirm_ = [this](const QString& title, const QString& question, const QString& acceptText) {
        return opener_->confirm(title, question, acceptText);
    };
    wire();
    restoreSettings();
    updateLaunchContext();
}

QWidget* MainWindow::buildCentre() {
    // The view with its display controls above and, in the Presentation layout, the speed strip below.
    auto* centre = new QWidget;
    centre->setObjectName(QStringLiteral("centre"));
    auto* centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(0, 0, 0, 0);
    centreLayout->setSpacing(0);
    viewBar_ = new ViewBar(view_);
    centre->addActions(viewBar_->displayModes()->actions());  // keys 1-4 while the view area has focus
    strip_->hide();
    centreSplit_ = new QSplitter(Qt::Vertical);
    centreSplit_->setObjectName(QStringLiteral("centreSplit"));
    centreSplit_->setChildrenCollapsible(false);
    centreSplit_->addWidget(view_);
    centreSplit_->addWidget(strip_);
    centreSplit_->setStretchFactor(0, 3);
    centreSplit_->setStretchFactor(1, 1);
    centreLayout->addWidget(viewBar_);
    centreLayout->addWidget(centreSplit_, 1);
    return centre;
}

void MainWindow::buildStatusBar() {
    imageInfo_ = new QLabel(tr("no image"));
    runInfo_ = new QLabel;
    pixelInfo_ = new QLabel;
    statusBar()->addWidget(imageInfo_);
    statusBar()->addWidget(runInfo_, 1);
    live_ = new LivePreview(view_, statusBar(), this);  // its frame meter left of the pixel readout
    statusBar()->addPermanentWidget(pixelInfo_);
    runStatus_ = new RunStatus(statusBar(), this, [this] {
        RunStatus::Now now;
        const bool dialogs = (benchmark_ && benchmark_->running()) || (batch_ && batch_->running());
        now.running = runner_->busy() || launch_->tuning() || dialogs;
        // Tunings and the dialogs' runs show their own progress: here they only get the Cancel button.
        now.seconds = runner_->busy() ? runner_->busySeconds() : RunStatus::kCancelAfterSeconds;
        now.progress = runner_->busy() && runner_->progress() > 0.0 ? runner_->progress() : -1.0;
        now.mayStart = benchmark_ || batch_;
        return now;
    }, this);
    connect(runStatus_, &RunStatus::cancelRequested, this, &MainWindow::cancelRun);
    runTimer_ = new QTimer(this);
    runTimer_->setSingleShot(true);
    runTimer_->setInterval(0);  // coalesce every change made in one event-loop pass
}

void MainWindow::restoreSettings() {
    // A layout saved for another screen size, or by a version with other docks, is not restored.
    const QSettings settings;
    // Fresh settings start on the fastest exact mode, compared with the reference: live from the first
    // edit, and the Difference view shows something at once.
    if (!settings.contains(QStringLiteral("run/mode")) || !chooser_->select(settings.value(QStringLiteral("run/mode")).toString()))
        chooser_->select(fastestExactKey(chooser_->choices(), runner_->backends()));
    if (!settings.contains(QStringLiteral("run/mode"))) chooser_->selectCompare(referenceKey(chooser_->choices()));
    chart_->setLogScale(settings.value(QStringLiteral("chart/log"), false).toBool());
    // Small enough for a 1024x768 projector; everything else scrolls in its dock.
    setMinimumSize(800, 560);
    layout_->restore(settings);
}

void MainWindow::wire() {
    connect(runTimer_, &QTimer::timeout, this, &MainWindow::runNow);
    connect(runner_, &FilterRunner::finished, this, &MainWindow::onOutcome);
    connect(runner_, &FilterRunner::busyChanged, this, [this](bool busy) {
        if (busy) {
            runStatus_->watch();
            if (!sweeping()) runInfo_->setText(tr("running..."));
            return;
        }
        if (pipelineGeneration_ != 0) pipelineStopped();  // a queued pipeline run replaced by a newer request never reports
        // A sweep whose run was abandoned for another request (saving a GPU-only result) never reports.
        if (sweeping() && !runner_->busy()) sweep_->stop();
    });
    connect(sweep_, &services::SweepController::timing, this, [this](const QString& key, int done, int total, int repeats) {
        chart_->setSweepProgress(done, total);
        runInfo_->setText(tr("timing %1 (%2 of %3), median of %4 after a warm-up...").arg(key).arg(done + 1).arg(total).arg(repeats));
    });
    connect(sweep_, &services::SweepController::ended, this, [this] { chart_->setSweepProgress(0, 0); });
    connect(live_, &LivePreview::frameToChart, this, [this](const TimingRecord& frame) {
        if (doc_.hasImage()) recordRun(frame, doc_.spec(), 1, 0);
    });
    connect(live_->service(), &services::PreviewService::message, statusBar(), &QStatusBar::showMessage);
    connect(live_->service(), &services::PreviewService::inputResident, this, [this] {
        // The image reaching the GPU is no edit: a pipeline's result stays until the next one,
        // and a run in flight (a lesson's measured run, say) is not superseded by a live frame.
        const bool pipelineShown = pipelineGeneration_ != 0 || (doc_.outcome() && doc_.outcome()->request.pipeline);
        if (!pipelineShown && !runner_->busy()) scheduleRun();
    });
    connect(opener_, &ImageOpener::openRequested, this, &MainWindow::openImage);
    connect(editor_, &widgets::KernelEditor::specChanged, this, &MainWindow::scheduleRun);
    connect(editor_, &widgets::KernelEditor::presetApplied, this,
            [this](const FilterSpec& spec) { output_->presetApplied(spec, doc_.input().get()); });
    connect(editor_, &widgets::KernelEditor::errorOccurred, this, &MainWindow::showError);
    connect(editor_, &widgets::KernelEditor::fileLoaded, output_, &OutputControls::setFromFile);
    connect(output_, &OutputControls::changed, this, &MainWindow::scheduleRun);
    connect(output_, &OutputControls::viewNoteChanged, view_, &widgets::ImageView::setNote);
    connect(output_, &OutputControls::channelsChanged, this, [this] {
        prepareInput();
        scheduleRun();
    });
    connect(chart_, &widgets::TimingChart::errorOccurred, this, &MainWindow::showError);
    connect(chart_, &widgets::TimingChart::runEveryModeRequested, this, &MainWindow::runEveryMode);
    connect(chart_, &widgets::TimingChart::measurementsChanged, this, [this] { strip_->setGroup(chart_->board().group(chart_->shownGroupId())); });
    connect(launch_, &LaunchController::launchChanged, this, &MainWindow::scheduleRun);
    connect(launch_, &LaunchController::explanationChanged, chooser_, &widgets::BackendChooser::setFilterExplanation);
    connect(pipelineEditor_, &widgets::PipelineEditor::errorOccurred, this, &MainWindow::showError);
    connect(pipelineEditor_, &widgets::PipelineEditor::runRequested, this, &MainWindow::runPipeline);
    connect(pipelineEditor_, &widgets::PipelineEditor::currentKernelRequested, this,
            [this] { pipelineEditor_->addConvolution(currentSpec()); });
    connect(chooser_, &widgets::BackendChooser::currentChanged, this, &MainWindow::scheduleRun);
    const auto differenceNeedsRun = [this] {
        if (view_->displayMode() == widgets::ImageView::DisplayMode::Difference) scheduleRun();
    };
    connect(chooser_, &widgets::BackendChooser::compareChanged, this, differenceNeedsRun);
    connect(viewBar_, &ViewBar::displayModeChosen, this, differenceNeedsRun);
    connect(viewBar_->presentationAction(), &QAction::toggled, this, &MainWindow::setPresentation);
    connect(view_, &widgets::ImageView::pixelHovered, this, &MainWindow::inspectPixel);
    connect(view_, &widgets::ImageView::pixelClicked, this, &MainWindow::inspectPixel);
    connect(view_, &widgets::ImageView::glError, this, [this](const QString& m) { showError(tr("OpenGL"), m); });
    connect(inspector_, &widgets::PixelInspector::channelChanged, this, [this] { inspectPixel(inspectedPixel_); });
}

QToolBar* MainWindow::viewBar() const { return viewBar_; }

void MainWindow::setPresentation(bool on) {
    if (on == layout_->presentation()) return;
    const QSignalBlocker block(viewBar_->presentationAction());
    viewBar_->presentationAction()->setChecked(on);
    if (on) strip_->setGroup(chart_->board().group(chart_->shownGroupId()));
    chart_->setLargeText(on);
    video_->setLargeText(on);
    layout_->setPresentation(on);
    // Fit again once the new layout has its size, and follow the window from then on.
    QTimer::singleShot(0, view_, &widgets::ImageView::zoomToFit);
}

MainWindow::~MainWindow() {
    // Closing mid-run: stop the run in flight and join it (a tuning stops after its current candidate).
    launch_->cancelTuning();
    runner_->cancel();
    runner_->waitForIdle();
    // Unregister the GL buffer from CUDA while the view's GL context still exists.
    live_->shutdown();
}

void MainWindow::autotune() {
    if (auto* launchDock = findChild<QDockWidget*>(QStringLiteral("launchDock"))) launchDock->raise();
    const widgets::ModeChoice* choice = chooser_->current();
    if (const QString why = whyNoAutotune(runner_->backends(), choice ? choice->backendId : QString()); !why.isEmpty())
        statusBar()->showMessage(tr("Autotune cannot run: %1").arg(why), 10000);
    launch_->autotune();  // the Launch panel says why too, or tunes
    runStatus_->watch();
}

void MainWindow::cancelRun() {
    sweep_->stop();
    runTimer_->stop();
    runner_->cancel();
    launch_->cancelTuning();
    if (benchmark_ && benchmark_->running()) benchmark_->cancel();
    if (batch_ && batch_->running()) batch_->cancel();
    runInfo_->setText(tr("cancelled: the view keeps the last result"));
    runStatus_->refresh();
}

void MainWindow::noteUnavailableMode(const QString& key) {
    const QString why = whyUnavailable(chooser_->choices(), key), text = tr("%1 is unavailable here (%2); running %3 instead")
                                                                          .arg(key, why, chooser_->currentKey());
    auto* note = new QLabel(QStringLiteral("<span style='color:#a51d2d'>%1</span>").arg(tr("%1 unavailable").arg(key).toHtmlEscaped()));
    note->setToolTip(text);  // the short form fits a 1024-wide status bar; the notice and this tip say why
    statusBar()->addWidget(note);
    auto* box = new QMessageBox(QMessageBox::Information, tr("Mode unavailable"), text, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();  // once, without blocking the start
}

DisplayMapping MainWindow::displayMapping() const { return output_->displayMapping(); }

void MainWindow::setDisplayMapping(const DisplayMapping& mapping, const QString& why) { output_->setDisplayMapping(mapping, why); }

void MainWindow::showError(const QString& title, const QString& message) {
    statusBar()->showMessage(title + ": " + message, 8000);
    if (reportError_) reportError_(title, message);
}

FilterSpec MainWindow::currentSpec() const {
    editor_->setSaveContext(output_->border(), output_->mapping());
    FilterSpec spec = editor_->spec();
    spec.filterAlpha = output_->filterAlpha();
    return spec;
}

// As the chart writes a filter run's image ("512x480 3ch u8"), so both kinds of run read alike in its CSV.
QString MainWindow::imageLabel() const {
    const Image* in = doc_.input().get();
    return in ? widgets::shapeLabel(in->width(), in->height(), in->channels(), in->depth()) : QString();
}

void MainWindow::recordRun(const TimingRecord& timing, const FilterSpec& spec, int repeats, int warmups) {
    const Image& in = *doc_.input();
    const auto key = widgets::ComparisonKey::of(spec, in.width(), in.height(), in.channels(), in.depth(),
                                                QString::number(doc_.serial()), doc_.fileName());
    const widgets::ModeRole role =
        roleOf(chooser_->choices(), QString::fromStdString(timing.backend), QString::fromStdString(timing.mode));
    chart_->addRun(timing, key, role, repeats, warmups);
}

void MainWindow::prepareInput() {
    if (!doc_.loaded()) return;
    try {
        doc_.setInput(output_->luminanceOnly() ? std::make_shared<const Image>(toLuminance(doc_.loaded()->cview())) : doc_.loaded());
    } catch (const std::exception& e) {
        showError(tr("Out of memory"), QString::fromUtf8(e.what()));
        doc_.setInput(doc_.loaded());
    }
    const Image& in = *doc_.input();
    view_->setOriginal(toDisplayImage(in.cview()));
    inspector_->setChannelCount(in.channels());
    output_->refit(currentSpec(), &in);  // a scale fitted to the previous image is fitted to this one
    imageInfo_->setText(QStringLiteral("%1  %2").arg(doc_.fileName(), describe(in.cview())));
    updateLaunchContext();
    live_->setInput(doc_.input());  // kept on the GPU where the live preview runs there
}

bool MainWindow::inputOnDevice() const { return live_->inputOnDevice(); }

const TimingRecord& MainWindow::lastPreviewFrame() const { return live_->lastFrame(); }

void MainWindow::setImageInfo(const QString& text) { imageInfo_->setText(text); }

bool MainWindow::openImage(const QString& path) {
    QString why;
    std::optional<Image> image = opener_->load(path, &why);
    if (!image) {
        if (why.isEmpty()) statusBar()->showMessage(tr("Opening %1 cancelled").arg(QFileInfo(path).fileName()), 5000);
        else showError(tr("Cannot open image"), why);
        return false;
    }
    video_->close();  // a still replaces the video
    doc_.setLoaded(std::make_shared<const Image>(std::move(*image)), path);
    chart_->clearPipeline();  // the steps timed were of the previous image
    prepareInput();
    opener_->opened(path);
    setWindowTitle(tr("FilterStudio - %1").arg(QFileInfo(path).fileName()));
    runNow();
    return true;
}

bool MainWindow::stillFromVideo() {
    std::optional<VideoController::Still> still = video_->takeFrame();
    if (!still) return false;
    doc_.setLoaded(std::move(still->image), QString());
    chart_->clearPipeline();
    prepareInput();
    setWindowTitle(tr("FilterStudio - %1").arg(still->name));
    statusBar()->showMessage(tr("%1 is the image now; File > Open video plays the video again").arg(still->name), 8000);
    runNow();
    return true;
}

// The tools that work on a still take the video's frame on screen first.
bool MainWindow::onStill() { return !video_->active() || stillFromVideo(); }

void MainWindow::cancelOpening() { opener_->cancel(); }

void MainWindow::openDialog() {
    if (const QString path = opener_->askOpenPath(); !path.isEmpty()) openImage(path);
}

void MainWindow::openSample(const QString& resource) {
    QString why;
    if (const QString copy = opener_->sampleCopy(resource, &why); !copy.isEmpty()) openImage(copy);
    else showError(tr("Cannot open sample"), why);
}

void MainWindow::scheduleRun() {
    updateLaunchContext();
    if (video_->active()) return video_->filterChanged();  // frames take the filter: no still to run
    if (output_->live() && doc_.hasImage()) runTimer_->start();
}

void MainWindow::updateLaunchContext() {
    const widgets::ModeChoice* choice = chooser_->current();
    launch_->setContext(choice ? choice->backendId : QString(), choice ? QString::fromStdString(choice->mode.id) : QString(),
                        currentSpec(), doc_.input());
}

bool MainWindow::selectMode(const QString& key) { return chooser_->select(modeKeyFor(chooser_->choices(), key)); }

void MainWindow::runNow() { run(true); }

void MainWindow::runMeasured() { run(false); }

void MainWindow::run(bool livePreviewAllowed) {
    runTimer_->stop();
    if (video_->active()) return video_->filterChanged();
    if (!doc_.hasImage()) return;
    const widgets::ModeChoice* choice = chooser_->current();
    if (!choice) {
        showError(tr("No backend"), tr("no backend mode is available"));
        return;
    }
    sweep_->stop();  // a new change outdates a running sweep
    // An approximate mode (fft, tensor) runs beside the compare mode, so its measured error shows next to its
    // time; that needs host pixels of both, so it takes the host path rather than the live preview.
    const bool measureError = choice->mode.approximate;
    doc_.setSpec(currentSpec());
    if (livePreviewAllowed && choice->backendId == services::PreviewService::backendId() && !measureError &&
        runThroughPreview(doc_.spec()))
        return;
    submit(choice->key(), measureError || view_->displayMode() == widgets::ImageView::DisplayMode::Difference);
}

quint64 MainWindow::submit(const QString& key, bool withCompare, int repeats, int warmups) {
    RunRequest request;
    request.input = doc_.input();
    request.spec = currentSpec();
    request.backend = backendOf(key);
    request.mode = modeOf(key);
    request.launch = launch_->launchFor(request.backend);
    request.repeats = repeats;
    request.warmups = warmups;
    if (withCompare) {
        request.compareBackend = backendOf(chooser_->compareKey());
        request.compareMode = modeOf(chooser_->compareKey());
    }
    return runner_->submit(std::move(request));
}

bool MainWindow::sweeping() const { return sweep_->running(); }

void MainWindow::runEveryMode() {
    if (!onStill()) return;
    if (!doc_.hasImage()) {
        showError(tr("No image"), tr("open an image first"));
        return;
    }
    runTimer_->stop();
    QStringList available;
    for (const widgets::ModeChoice& c : chooser_->choices())
        if (c.mode.available) available << c.key();
    // One untimed warm-up each, then the median of the chart's repeat count, all on the runner's thread.
    sweep_->start(available, chooser_->currentKey(), chart_->repeats());
}

void MainWindow::runPipeline() {
    if (!onStill()) return;
    const widgets::ModeChoice* choice = chooser_->current();
    const QString why = !doc_.hasImage() ? tr("open an image first") : !choice ? tr("no backend mode is available")
                                                                                : pipelineEditor_->problem();
    if (!why.isEmpty()) {
        showError(tr("Pipeline cannot run"), why);
        return;
    }
    runTimer_->stop();
    sweep_->stop();
    RunRequest request;
    request.input = doc_.input();
    request.backend = choice->backendId;
    request.mode = QString::fromStdString(choice->mode.id);
    request.pipeline = pipelineEditor_->pipeline();
    for (PipelineStep& step : request.pipeline->steps) step.filter.filterAlpha = output_->filterAlpha();
    pipelineEditor_->setRunning(true);
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("pipelineDock"))) dock->raise();  // its times and count
    pipelineGeneration_ = runner_->submit(std::move(request));
}

void MainWindow::pipelineStopped() {
    pipelineGeneration_ = 0;
    pipelineEditor_->setRunning(false);
}

void MainWindow::showPipelineOutcome(const std::shared_ptr<const RunOutcome>& outcome) {
    if (outcome->generation == pipelineGeneration_) pipelineStopped();
    const QString failure = QString::fromStdString(outcome->result.error);
    pipelineEditor_->showResult(outcome->steps, outcome->objectCount, failure);
    QVector<widgets::TimingChart::Step> steps;
    for (const StepReport& s : outcome->steps) steps.push_back({QString::fromStdString(s.label), s.timing});
    if (!steps.isEmpty())
        chart_->addPipelineRun(QString::fromStdString(outcome->request.pipeline->name), outcome->result.timing, steps,
                               imageLabel());
    QString info = tr("pipeline on %1/%2: ").arg(outcome->request.backend, outcome->request.mode);
    if (!failure.isEmpty()) {
        runInfo_->setText(info + tr("failed: %1").arg(failure));
        emit runFailed(failure);
        showError(tr("Pipeline failed"), failure);
        return;
    }
    doc_.setOutcome(outcome);
    view_->setResult(outcome->display);
    info += tr("%1 steps, %2 ms").arg(outcome->steps.size()).arg(outcome->result.timing.totalMs.value_or(0.0), 0, 'f', 3);
    if (outcome->objectCount) info += tr(", %1 objects").arg(*outcome->objectCount);
    runInfo_->setText(info);
    if (inspectedPixel_.x() >= 0) inspectPixel(inspectedPixel_);
    emit resultShown(outcome->generation);
}

bool MainWindow::runThroughPreview(const FilterSpec& spec) {
    // The difference view needs host pixels of both results: take the host path.
    if (view_->displayMode() == widgets::ImageView::DisplayMode::Difference || !view_->glReady()) return false;
    const std::string mode = chooser_->current()->mode.id;
    QString failure;
    const std::optional<services::PreviewService::Frame> frame =
        live_->run(spec, mode, launch_->launchFor(services::PreviewService::backendId()), &failure);
    if (!failure.isEmpty()) statusBar()->showMessage(tr("CUDA-GL interop failed (%1); using the upload path").arg(failure), 8000);
    if (!frame) return false;
    if (frame->releasedForMemory)
        statusBar()->showMessage(tr("GPU memory is short: the image is no longer kept on the GPU, frames upload it"), 8000);
    doc_.setOutcome(nullptr);  // no host pixels: ensureHostResult() makes them when needed
    // Runs submitted before this frame (the first run after opening, say) are older: the last
    // request wins, so their results must not replace it when they arrive.
    shownGeneration_ = runner_->latestGeneration() + 1;
    runInfo_->setText(tr("%1/%2 through CUDA-GL interop%3: %4")
                          .arg(services::PreviewService::backendId(), QString::fromStdString(mode),
                               frame->resident && !frame->releasedForMemory ? tr(", image on the GPU") : QString(),
                               QString::fromStdString(frame->timing.toString())));
    emit resultShown(runner_->latestGeneration());
    return true;
}

bool MainWindow::ensureHostResult() {
    if (doc_.outcome() && doc_.outcome()->result.ok()) return true;
    const widgets::ModeChoice* choice = chooser_->current();
    if (!doc_.hasImage() || !choice) return false;
    // The shown result lives only on the GPU (interop): compute host pixels once.
    RunRequest request;
    request.input = doc_.input();
    request.spec = currentSpec();
    request.backend = choice->backendId;
    request.mode = QString::fromStdString(choice->mode.id);
    QEventLoop loop;  // its connections end with it
    const quint64 wanted = runner_->submit(std::move(request));
    connect(this, &MainWindow::resultShown, &loop, [&](quint64 g) {
        if (g >= wanted) loop.quit();
    });
    connect(this, &MainWindow::runFailed, &loop, &QEventLoop::quit);
    // A result dropped because the image changed meanwhile never arrives: do not wait forever.
    connect(runner_, &FilterRunner::busyChanged, &loop, [&](bool busy) {
        if (!busy) QTimer::singleShot(0, &loop, &QEventLoop::quit);
    });
    loop.exec();
    return doc_.outcome() && doc_.outcome()->result.ok();
}

void MainWindow::onOutcome(const std::shared_ptr<const RunOutcome>& outcome) {
    // A result for an image no longer shown, or older than one already shown (a live frame
    // included), is dropped.
    if (outcome->request.input != doc_.input() || outcome->generation < shownGeneration_) {
        if (outcome->generation == pipelineGeneration_) pipelineStopped();
        return;
    }
    shownGeneration_ = outcome->generation;
    if (outcome->request.pipeline) showPipelineOutcome(outcome);
    else if (!outcome->result.ok()) onRunFailed(*outcome);
    else {
        showOutcome(outcome);
        sweep_->resultArrived(outcome->generation);
        emit resultShown(outcome->generation);
    }
}

void MainWindow::onRunFailed(const RunOutcome& outcome) {
    const QString message = QString::fromStdString(outcome.result.error);
    runInfo_->setText(tr("failed: %1").arg(message));
    // Live editing re-runs on every change: say a failure once, not per keystroke.
    const bool firstTime = message != lastRunError_;
    lastRunError_ = message;
    emit runFailed(message);
    if (sweep_->owns(outcome.generation)) {
        if (firstTime) showError(tr("Filter failed"), message);
        sweep_->resultArrived(outcome.generation);
    } else if (!outcome.request.launch.isDefault()) {
        // A refused launch configuration: the Launch panel shows why in red; no dialog per knob change.
        statusBar()->showMessage(tr("%1/%2 with launch %3 failed: %4")
                                     .arg(outcome.request.backend, outcome.request.mode,
                                          QString::fromStdString(outcome.request.launch.shortLabel()), message),
                                 8000);
    } else if (firstTime && outcome.request.backend != backendOf(referenceKey(chooser_->choices()))) {
        offerCpuInstead(outcome.request.backend, message);  // a GPU (or OpenCL) failure
    } else if (firstTime) {
        showError(tr("Filter failed"), message);
    }
}

void MainWindow::showOutcome(const std::shared_ptr<const RunOutcome>& outcome) {
    doc_.setOutcome(outcome);
    lastRunError_.clear();
    view_->setResult(outcome->display);
    recordRun(outcome->result.timing, outcome->request.spec, std::max(1, outcome->request.repeats), outcome->request.warmups);
    if (outcome->compare && outcome->compare->ok() && outcome->difference.error.isEmpty())
        view_->setDifference(outcome->difference.visual, differenceCaption(*outcome));
    runInfo_->setText(describeOutcome(*outcome));
    if (inspectedPixel_.x() >= 0) inspectPixel(inspectedPixel_);
}

void MainWindow::offerCpuInstead(const QString& backendId, const QString& message) {
    // A GPU failure (out of device memory, driver fault) should not end the lesson: the CPU runs the same spec.
    const QString failed = tr("%1 run failed").arg(backendId.toUpper());
    statusBar()->showMessage(failed + ": " + message, 8000);
    if (!confirm_ || !confirm_(failed, tr("%1\n\nRun this filter on the CPU instead?").arg(message), tr("Run on CPU instead")))
        return;
    // The CPU is the backend that holds the reference mode: its default mode, else the reference itself.
    const QString cpuDefault = cpuDefaultKey(chooser_->choices()), reference = referenceKey(chooser_->choices());
    if ((!cpuDefault.isEmpty() && selectMode(cpuDefault)) || (!reference.isEmpty() && selectMode(reference))) runNow();
    else showError(tr("No CPU mode"), tr("no CPU mode is available"));
}

void MainWindow::inspectPixel(QPoint pixel) {
    const std::shared_ptr<const Image> input = doc_.input();
    if (!input || pixel.x() < 0 || pixel.x() >= input->width() || pixel.y() >= input->height()) {
        pixelInfo_->clear();
        return;
    }
    inspectedPixel_ = pixel;
    const int channel = std::min(inspector_->channel(), input->channels() - 1);
    // A pipeline's output is not what this kernel gives at the pixel: the inspector compares only filter results.
    const std::shared_ptr<const RunOutcome> shown = doc_.outcome();
    const bool filterResult = shown && shown->result.ok() && shown->request.input == input && !shown->request.pipeline;
    const widgets::PixelProbe p = pixelProbe(currentSpec(), *input, pixel, channel, filterResult ? &shown->result.output : nullptr);
    inspector_->setProbe(p);
    pixelInfo_->setText(tr("(%1, %2) input %3%4")
                            .arg(pixel.x())
                            .arg(pixel.y())
                            .arg(sampleValue(input->cview(), pixel.x(), pixel.y(), channel), 0, 'g', 6)
                            .arg(p.hasShown ? tr(" result %1").arg(p.shown, 0, 'g', 6) : QString()));
}

bool MainWindow::saveResult(const QString& path, bool eightBit) {
    if (!onStill()) return false;
    const QFileInfo target(path), source(doc_.path());
    if (!doc_.path().isEmpty() && target.exists() && target.canonicalFilePath() == source.canonicalFilePath() &&
        (!confirm_ || !confirm_(tr("Overwrite the input image?"),
                                tr("%1 is the image open as input. Saving the result there replaces the original.")
                                    .arg(QDir::toNativeSeparators(path)),
                                tr("Overwrite")))) {
        statusBar()->showMessage(tr("not saved: %1 is the input image").arg(path), 5000);
        return false;
    }
    if (!ensureHostResult()) {
        showError(tr("Nothing to save"), tr("there is no result yet: open an image first"));
        return false;
    }
    if (std::string why; !saveOutcome(*doc_.outcome(), path, eightBit, &why)) {
        showError(tr("Cannot save result"), QString::fromStdString(why));
        return false;
    }
    statusBar()->showMessage(tr("saved %1").arg(path), 5000);
    return true;
}

void MainWindow::saveDialog(bool eightBit) {
    if (!onStill()) return;
    if (!doc_.hasImage()) {
        showError(tr("Nothing to save"), tr("open an image first"));
        return;
    }
    const bool isFloat = doc_.outcome() && doc_.outcome()->result.output.depth() == Depth::F32 && !eightBit;
    if (const QString path = opener_->askSavePath(doc_.path(), isFloat, eightBit); !path.isEmpty()) saveResult(path, eightBit);
}

void MainWindow::copyResultToClipboard() {
    if (!onStill()) return;
    if (!ensureHostResult()) {
        showError(tr("Nothing to copy"), tr("there is no result yet"));
        return;
    }
    QApplication::clipboard()->setImage(doc_.outcome()->display);
    statusBar()->showMessage(tr("result copied to the clipboard"), 3000);
}

void MainWindow::showBenchmark() {
    auto* dialog = new BenchmarkDialog(factory_, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &BenchmarkDialog::errorOccurred, this, &MainWindow::showError);
    benchmark_ = dialog;  // Escape and the status bar's Cancel stop its run too
    dialog->show();
    runStatus_->watch();
}

void MainWindow::showBatch() {
    auto* dialog = new BatchDialog(factory_, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setDesignerKernelSource([this] { return currentSpec(); });
    dialog->selectMode(chooser_->currentKey());
    if (!doc_.path().isEmpty() && !doc_.path().startsWith(QDir::tempPath())) dialog->setInputs({doc_.path()});
    batch_ = dialog;  // Escape and the status bar's Cancel stop its run too
    dialog->show();
    runStatus_->watch();
}

void MainWindow::closeEvent(QCloseEvent* e) {
    QSettings settings;
    layout_->save(settings);
    settings.setValue(QStringLiteral("run/mode"), chooser_->currentKey());
    settings.setValue(QStringLiteral("chart/log"), chart_->logScale());
    e->accept();
}

void MainWindow::showEvent(QShowEvent* e) {
    QMainWindow::showEvent(e);
    // The frame (title bar included) is known once the window is on screen.
    QTimer::singleShot(0, layout_, &WindowLayout::fitShownWindow);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (!ImageOpener::droppedFile(e->mimeData()).isEmpty()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    if (const QString path = ImageOpener::droppedFile(e->mimeData()); !path.isEmpty()) {
        e->acceptProposedAction();
        if (VideoController::isVideoFile(path)) video_->openVideo(path);
        else openImage(path);
    }
}

}  // namespace fs::ui
