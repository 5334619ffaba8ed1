#include "main_window.hpp"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QEventLoop>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressDialog>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSlider>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QTimer>
#include <QToolBar>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <QFutureWatcher>
#include <chrono>

#include <algorithm>

#include "batch_dialog.hpp"
#include "display_mapping.hpp"
#include "benchmark_dialog.hpp"
#include "launch_controller.hpp"
#include "fs/io/image_io.hpp"
#include "fs/widgets/backend_chooser.hpp"
#include "fs/widgets/comparison.hpp"
#include "fs/widgets/image_view.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "fs/widgets/launch_panel.hpp"
#include "fs/widgets/pipeline_editor.hpp"
#include "fs/widgets/pixel_inspector.hpp"
#include "fs/widgets/speed_strip.hpp"
#include "fs/widgets/timing_chart.hpp"
#ifdef FS_HAVE_CUDA_INTEROP
#include "fs/gpu/gl_interop.hpp"
#endif

// The samples and icon live in fs_ui, a static library: register them explicitly.
static void initResources() { Q_INIT_RESOURCE(samples); }

namespace fs::ui {

namespace {

// The CUDA backend's id, for interop and the CPU fallback offer (empty without interop).
QString cudaBackendId() {
#ifdef FS_HAVE_CUDA_INTEROP
    return QString::fromStdString(gpu::GlPixelBufferInterop::backendId());
#else
    return {};
#endif
}

constexpr int kMaxRecent = 8;
const char* kImageFilter =
    QT_TRANSLATE_NOOP("MainWindow", "Images (*.png *.jpg *.jpeg *.bmp *.tif *.tiff *.pgm *.ppm *.pnm *.webp *.pfm);;All files (*)");

QVector<widgets::ModeChoice> choicesOf(const std::vector<std::unique_ptr<Backend>>& backends) {
    QVector<widgets::ModeChoice> choices;
    for (const auto& b : backends) {
        const std::string backendReason = b->unavailableReason();
        for (ModeInfo m : b->modes()) {
            if (!backendReason.empty()) {
                m.available = false;
                m.unavailableReason = backendReason;
            }
            choices.push_back({QString::fromStdString(b->id()), QString::fromStdString(b->displayName()), m});
        }
    }
    return choices;
}

QString backendOf(const QString& key) { return key.section('/', 0, 0); }
QString modeOf(const QString& key) { return key.section('/', 1); }

// The chart's roles come from ModeInfo flags. The CPU baseline is the backend that holds the reference mode.
widgets::ModeRole roleOf(const QVector<widgets::ModeChoice>& choices, const QString& backendId, const QString& modeId) {
    widgets::ModeRole role;
    for (const widgets::ModeChoice& c : choices) {
        if (c.backendId != backendId) continue;
        role.onCpu |= c.mode.isReference;
        if (QString::fromStdString(c.mode.id) == modeId) {
            role.isReference = c.mode.isReference;
            role.isDefault = c.mode.isDefault;
        }
    }
    return role;
}

}  // namespace

#ifdef FS_HAVE_CUDA_INTEROP
namespace {
struct UploadedImage {
    gpu::DeviceImageHandle handle;
    std::string error;
    double ms = 0.0;
};
}  // namespace
#endif

struct MainWindow::Interop {
#ifdef FS_HAVE_CUDA_INTEROP
    gpu::GlPixelBufferInterop buffer;
    std::shared_ptr<const Image> pinned;  // kept alive while page-locked
    // The shown input kept on the device: each frame runs only the kernel.
    std::shared_ptr<const Image> resident;
    gpu::DeviceImageHandle handle;
    QList<QFutureWatcher<UploadedImage>*> uploads;  // in flight, newest last

    void releaseResident() {
        if (handle) gpu::Engine::instance().release(handle);
        handle = {};
        resident.reset();
    }
    ~Interop() {
        // Uploads still running would hand back device images nobody releases.
        for (QFutureWatcher<UploadedImage>* job : uploads) {
            job->disconnect();
            job->waitForFinished();
            if (const UploadedImage up = job->result(); up.handle) gpu::Engine::instance().release(up.handle);
        }
        releaseResident();
    }
#endif
};

MainWindow::MainWindow(BackendFactory factory, QWidget* parent)
    : QMainWindow(parent), factory_(std::move(factory)), runner_(new FilterRunner(factory_(), this)) {
    initResources();
    setWindowTitle(tr("FilterStudio"));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    reportError_ = [this](const QString& title, const QString& message) { QMessageBox::critical(this, title, message); };
    confirm_ = [this](const QString& title, const QString& question, const QString& acceptText) {
        QMessageBox box(QMessageBox::Warning, title, question, QMessageBox::Cancel, this);
        QPushButton* accept = box.addButton(acceptText, QMessageBox::AcceptRole);
        box.setDefaultButton(QMessageBox::Cancel);  // never overwrite or switch on a stray Enter
        box.exec();
        return box.clickedButton() == accept;
    };

    view_ = new widgets::ImageView;
    editor_ = new widgets::KernelEditor;
    chart_ = new widgets::TimingChart;
    chooser_ = new widgets::BackendChooser;
    inspector_ = new widgets::PixelInspector;
    pipelineEditor_ = new widgets::PipelineEditor;
    launchPanel_ = new widgets::LaunchPanel;
    launch_ = new LaunchController(runner_, launchPanel_, this);
    chooser_->setChoices(choicesOf(runner_->backends()));

    // Centre: the view with its display controls above and, in the Presentation layout, the speed strip below.
    auto* centre = new QWidget;
    centre->setObjectName(QStringLiteral("centre"));
    auto* centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(0, 0, 0, 0);
    centreLayout->setSpacing(0);
    viewBar_ = new QToolBar;
    viewBar_->setObjectName(QStringLiteral("viewBar"));
    viewBar_->setToolButtonStyle(Qt::ToolButtonTextOnly);
    viewModes_ = new QActionGroup(this);
    const QString modeNames[] = {tr("Original"), tr("Result"), tr("Split"), tr("Difference")};
    for (int i = 0; i < 4; ++i) {
        QAction* a = viewBar_->addAction(modeNames[i]);
        a->setCheckable(true);
        a->setData(i);
        a->setShortcut(QKeySequence(Qt::Key_1 + i));
        // Digits belong to the kernel grid and spin boxes elsewhere: only while the view area has focus.
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        a->setToolTip(tr("%1 (%2)").arg(modeNames[i]).arg(i + 1));
        viewModes_->addAction(a);
    }
    viewModes_->actions()[1]->setChecked(true);
    // Zoom and the layout switch come before the split slider: a narrow bar hides the slider first.
    viewBar_->addSeparator();
    QAction* fit = viewBar_->addAction(tr("Fit"), view_, &widgets::ImageView::zoomToFit);
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    fit->setToolTip(tr("Fit the image to the window, and keep fitting it when the window changes (Ctrl+0)"));
    QAction* oneToOne = viewBar_->addAction(tr("1:1"), view_, &widgets::ImageView::zoomOneToOne);
    oneToOne->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    oneToOne->setToolTip(tr("One image pixel per screen pixel (Ctrl+1)"));
    presentationAction_ = new QAction(tr("Presentation"), this);
    presentationAction_->setObjectName(QStringLiteral("presentationAction"));
    presentationAction_->setCheckable(true);
    presentationAction_->setShortcut(QKeySequence(Qt::Key_F11));
    presentationAction_->setToolTip(tr("Presentation layout for a projector: the image and a large timing strip (F11)"));
    viewBar_->addAction(presentationAction_);
    splitSlider_ = new QSlider(Qt::Horizontal);
    splitSlider_->setRange(0, 1000);
    splitSlider_->setValue(500);
    splitSlider_->setMaximumWidth(160);
    splitSlider_->setToolTip(tr("Split position (or drag the yellow line)"));
    viewBar_->addSeparator();
    viewBar_->addWidget(new QLabel(tr(" split ")));
    viewBar_->addWidget(splitSlider_);
    centre->addActions(viewModes_->actions());
    strip_ = new widgets::SpeedStrip;
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
    setCentralWidget(centre);

    // Docks: each scrolls rather than forcing the window wider or taller than a 1024x768 projector.
    const auto scrolled = [](QWidget* content) {
        auto* scroll = new QScrollArea;
        scroll->setWidget(content);
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        return scroll;
    };
    const auto makeDock = [this](const QString& title, const char* name, QWidget* content) {
        auto* dock = new QDockWidget(title, this);
        dock->setObjectName(QString::fromLatin1(name));
        dock->setWidget(content);
        return dock;
    };
    auto* right = new QWidget;
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->addWidget(chooser_);
    rightLayout->addWidget(buildOutputControls());
    rightLayout->addStretch(1);
    makeDock(tr("Kernel designer"), "kernelDock", scrolled(editor_));
    makeDock(tr("Pipeline"), "pipelineDock", scrolled(pipelineEditor_));
    makeDock(tr("Backend and output"), "backendDock", scrolled(right));
    makeDock(tr("Pixel inspector"), "inspectorDock", scrolled(inspector_));
    makeDock(tr("Timings"), "chartDock", scrolled(chart_));
    makeDock(tr("Launch (GPU)"), "launchDock", scrolled(launchPanel_));  // a short dock scrolls instead of squeezing the chart

    imageInfo_ = new QLabel(tr("no image"));
    runInfo_ = new QLabel;
    pixelInfo_ = new QLabel;
    frameInfo_ = new QLabel;
    frameInfo_->setObjectName(QStringLiteral("liveFrameMeter"));
    frameInfo_->setToolTip(tr("Live preview through CUDA-GL interop: frames shown in the last second, and the last "
                              "frame from the filter's start to the end of its draw (glFinish)"));
    statusBar()->addWidget(imageInfo_);
    statusBar()->addWidget(runInfo_, 1);
    statusBar()->addPermanentWidget(frameInfo_);
    statusBar()->addPermanentWidget(pixelInfo_);
    frameChartTimer_ = new QTimer(this);
    frameChartTimer_->setSingleShot(true);
    frameChartTimer_->setInterval(250);  // a chart replot per frame would cost more than the frame
    connect(frameChartTimer_, &QTimer::timeout, this, [this] {
        if (input_) recordRun(lastFrame_, frameSpec_, 1, 0);
    });

    runTimer_ = new QTimer(this);
    runTimer_->setSingleShot(true);
    runTimer_->setInterval(0);  // coalesce every change made in one event-loop pass
    connect(runTimer_, &QTimer::timeout, this, &MainWindow::runNow);

    buildActions();

    // Wiring.
    connect(runner_, &FilterRunner::finished, this, &MainWindow::onOutcome);
    connect(runner_, &FilterRunner::busyChanged, this, [this](bool busy) {
        if (busy) {
            if (!sweeping()) runInfo_->setText(tr("running..."));
            return;
        }
        if (pipelineGeneration_ != 0) {  // a queued pipeline run replaced by a newer request never reports
            pipelineGeneration_ = 0;
            pipelineEditor_->setRunning(false);
        }
        // A sweep whose run was abandoned for another request (saving a GPU-only result) never reports.
        if (sweeping() && !runner_->busy()) endSweep();
    });
    connect(editor_, &widgets::KernelEditor::specChanged, this, &MainWindow::scheduleRun);
    connect(editor_, &widgets::KernelEditor::presetApplied, this, &MainWindow::onPresetApplied);
    connect(editor_, &widgets::KernelEditor::errorOccurred, this, &MainWindow::error);
    connect(editor_, &widgets::KernelEditor::fileLoaded, this, [this](const FilterSpec& spec) {
        const QSignalBlocker b1(borderCombo_), b2(borderValueSpin_), b3(absCheck_), b4(scaleSpin_), b5(floatCheck_);
        borderCombo_->setCurrentIndex(static_cast<int>(spec.border.mode));
        borderValueSpin_->setValue(spec.border.value);
        absCheck_->setChecked(spec.output.absolute);
        scaleSpin_->setValue(spec.output.scale);
        floatCheck_->setChecked(spec.output.floatOutput);
        autoMapping_.reset();  // the file chose its own mapping
        refreshMappingNote();
        scheduleRun();
    });
    connect(chart_, &widgets::TimingChart::errorOccurred, this, &MainWindow::error);
    connect(chart_, &widgets::TimingChart::runEveryModeRequested, this, &MainWindow::runEveryMode);
    connect(launch_, &LaunchController::launchChanged, this, &MainWindow::scheduleRun);
    connect(pipelineEditor_, &widgets::PipelineEditor::errorOccurred, this, &MainWindow::error);
    connect(pipelineEditor_, &widgets::PipelineEditor::runRequested, this, &MainWindow::runPipeline);
    connect(pipelineEditor_, &widgets::PipelineEditor::currentKernelRequested, this,
            [this] { pipelineEditor_->addConvolution(currentSpec()); });
    connect(chooser_, &widgets::BackendChooser::currentChanged, this, &MainWindow::scheduleRun);
    connect(chooser_, &widgets::BackendChooser::compareChanged, this, [this] {
        if (view_->displayMode() == widgets::ImageView::DisplayMode::Difference) scheduleRun();
    });
    connect(viewModes_, &QActionGroup::triggered, this, [this](QAction* a) {
        view_->setDisplayMode(static_cast<widgets::ImageView::DisplayMode>(a->data().toInt()));
        if (view_->displayMode() == widgets::ImageView::DisplayMode::Difference) scheduleRun();
    });
    connect(splitSlider_, &QSlider::valueChanged, this, [this](int v) { view_->setSplitPosition(v / 1000.0); });
    connect(view_, &widgets::ImageView::splitPositionChanged, this, [this](double f) {
        const QSignalBlocker block(splitSlider_);
        splitSlider_->setValue(static_cast<int>(f * 1000.0));
    });
    connect(view_, &widgets::ImageView::displayModeChanged, this, [this](widgets::ImageView::DisplayMode m) {
        viewModes_->actions()[static_cast<int>(m)]->setChecked(true);
    });
    connect(view_, &widgets::ImageView::pixelHovered, this, &MainWindow::inspectPixel);
    connect(view_, &widgets::ImageView::pixelClicked, this, &MainWindow::inspectPixel);
    connect(view_, &widgets::ImageView::glError, this, [this](const QString& m) { error(tr("OpenGL"), m); });
    connect(view_, &widgets::ImageView::pixelBufferFrameShown, this, &MainWindow::onPreviewFrameShown);
    connect(inspector_, &widgets::PixelInspector::channelChanged, this, [this] { inspectPixel(inspectedPixel_); });

    connect(chart_, &widgets::TimingChart::measurementsChanged, this,
            [this] { strip_->setGroup(chart_->board().group(chart_->shownGroupId())); });
    connect(presentationAction_, &QAction::toggled, this, &MainWindow::setPresentation);

    // Preferences. A layout saved by a version with other docks is not restored (its version differs).
    QSettings settings;
    if (settings.contains(QStringLiteral("run/mode"))) chooser_->select(settings.value(QStringLiteral("run/mode")).toString());
    chart_->setLogScale(settings.value(QStringLiteral("chart/log"), false).toBool());
    rebuildRecentMenu();
    // Small enough for a 1024x768 projector; everything else scrolls in its dock.
    setMinimumSize(800, 560);
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray())) {
        // A smaller real screen gets the window at its size; a virtual one smaller than any projector (the
        // offscreen platform's 800x600) does not.
        const QScreen* screen = QGuiApplication::primaryScreen();
        const QSize room = screen ? screen->availableGeometry().size() : QSize();
        const bool realScreen = room.width() >= 1024 && room.height() >= 700;
        resize(realScreen ? std::min(1400, room.width()) : 1400, realScreen ? std::min(900, room.height()) : 900);
    }
    applyDefaultLayout();
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray(), kLayoutVersion);
    updateLaunchContext();
}

void MainWindow::applyDefaultLayout() {
    QDockWidget* kernelDock = findChild<QDockWidget*>(QStringLiteral("kernelDock"));
    QDockWidget* pipelineDock = findChild<QDockWidget*>(QStringLiteral("pipelineDock"));
    QDockWidget* backendDock = findChild<QDockWidget*>(QStringLiteral("backendDock"));
    QDockWidget* inspectorDock = findChild<QDockWidget*>(QStringLiteral("inspectorDock"));
    QDockWidget* chartDock = findChild<QDockWidget*>(QStringLiteral("chartDock"));
    QDockWidget* launchDock = findChild<QDockWidget*>(QStringLiteral("launchDock"));
    // The right column stops above the timings, which take the full width: wide bars carry shorter labels.
    setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
    // From scratch: a split beside a dock that is already tabbed would only add another tab.
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        removeDockWidget(dock);
        dock->setFloating(false);
    }
    addDockWidget(Qt::RightDockWidgetArea, kernelDock);
    splitDockWidget(kernelDock, backendDock, Qt::Vertical);
    tabifyDockWidget(kernelDock, pipelineDock);
    tabifyDockWidget(backendDock, inspectorDock);
    tabifyDockWidget(backendDock, launchDock);  // GPU only, and wide: it scrolls there rather than take height
    // A short window has no room for a chart under the image: the timings join the right column's tabs
    // (and the Presentation layout shows them large).
    const bool compact = height() < kTimingsBelowMinHeight;
    if (compact) tabifyDockWidget(backendDock, chartDock);
    else addDockWidget(Qt::BottomDockWidgetArea, chartDock);
    for (QDockWidget* dock : findChildren<QDockWidget*>()) dock->show();
    kernelDock->raise();
    backendDock->raise();
    // The column's controls need about 350 pixels; a wide window gives it a share, up to 440.
    resizeDocks({kernelDock}, {std::clamp(width() * 23 / 100, width() < 1200 ? 350 : 320, 440)}, Qt::Horizontal);
    resizeDocks({kernelDock, backendDock}, {height() * 55 / 100, height() * 45 / 100}, Qt::Vertical);
    if (!compact) resizeDocks({chartDock}, {std::clamp(height() * 25 / 100, 210, 320)}, Qt::Vertical);
}

void MainWindow::setPresentation(bool on) {
    if (on == presentation_) return;
    presentation_ = on;
    const QSignalBlocker block(presentationAction_);
    presentationAction_->setChecked(on);
    if (on) {
        workingState_ = saveState(kLayoutVersion);
        for (QDockWidget* dock : findChildren<QDockWidget*>()) dock->hide();
        statusBar()->hide();
        strip_->setGroup(chart_->board().group(chart_->shownGroupId()));
        strip_->show();
        // Larger words on the view's bar and caption, for the back of the room.
        QFont large = font();
        large.setPointSizeF(large.pointSizeF() * 1.35);
        viewBar_->setFont(large);
        view_->setFont(large);
        const int h = centreSplit_->height();
        centreSplit_->setSizes({h * 7 / 10, h * 3 / 10});
    } else {
        strip_->hide();
        viewBar_->setFont(QFont());
        view_->setFont(QFont());
        viewBar_->setAttribute(Qt::WA_SetFont, false);
        view_->setAttribute(Qt::WA_SetFont, false);
        statusBar()->show();
        restoreState(workingState_, kLayoutVersion);
    }
    // Fit again once the new layout has its size, and follow the window from then on.
    QTimer::singleShot(0, view_, &widgets::ImageView::zoomToFit);
}

MainWindow::~MainWindow() {
    // Closing mid-run: drop the queued run and join the one in flight (backends cannot be interrupted;
    // a tuning stops after its current candidate).
    launch_->cancelTuning();
    runner_->dropPending();
    runner_->waitForIdle();
    // Unregister the GL buffer from CUDA while the view's GL context still exists.
    if (interop_ && view_->glReady()) {
        view_->fillResultThroughPixelBuffer(1, 1, [this](unsigned, unsigned, int, int, bool*) {
            interop_.reset();
            return QStringLiteral("closing");
        });
    }
    interop_.reset();
}

QWidget* MainWindow::buildOutputControls() {
    auto* box = new QGroupBox(tr("Border, output and channels"));
    auto* form = new QFormLayout(box);
    borderCombo_ = new QComboBox;
    for (BorderMode m : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Constant, BorderMode::Wrap})
        borderCombo_->addItem(QString::fromLatin1(borderModeName(m)));
    borderCombo_->setCurrentIndex(static_cast<int>(BorderMode::Reflect101));
    borderCombo_->setToolTip(tr("What the kernel reads outside the image"));
    borderValueSpin_ = new QDoubleSpinBox;
    borderValueSpin_->setRange(-65535, 65535);
    borderValueSpin_->setEnabled(false);
    borderValueSpin_->setToolTip(tr("Value read outside the image for the constant border"));
    absCheck_ = new QCheckBox(tr("absolute value |v|"));
    absCheck_->setToolTip(tr("Edge kernels give negative responses: |v| shows both directions"));
    scaleSpin_ = new QDoubleSpinBox;
    scaleSpin_->setRange(-1000, 1000);
    scaleSpin_->setDecimals(4);
    scaleSpin_->setValue(1.0);
    scaleSpin_->setSingleStep(0.1);
    scaleSpin_->setToolTip(tr("v = scale * sum + offset (offset is in the kernel designer), then |v| if checked"));
    floatCheck_ = new QCheckBox(tr("float output (raw, no rounding)"));
    filterAlphaCheck_ = new QCheckBox(tr("filter alpha too"));
    filterAlphaCheck_->setToolTip(tr("Images with alpha: filter it like the colours. Off: the result keeps the "
                                     "image's own alpha (an edge filter would otherwise make it transparent)"));
    channelsCombo_ = new QComboBox;
    channelsCombo_->addItem(tr("all channels"));
    channelsCombo_->addItem(tr("luminance only"));
    channelsCombo_->setToolTip(tr("Filter every channel independently, or a gray version of the image"));
    mappingNote_ = new QLabel;
    mappingNote_->setObjectName(QStringLiteral("mappingNote"));
    mappingNote_->setWordWrap(true);
    mappingNote_->setStyleSheet(QStringLiteral("color:#1a5fb4"));
    mappingNote_->hide();
    liveCheck_ = new QCheckBox(tr("re-run on every change"));
    liveCheck_->setChecked(true);
    // Names for tests and style sheets.
    borderCombo_->setObjectName(QStringLiteral("borderCombo"));
    borderValueSpin_->setObjectName(QStringLiteral("borderValue"));
    absCheck_->setObjectName(QStringLiteral("absoluteCheck"));
    scaleSpin_->setObjectName(QStringLiteral("scaleSpin"));
    floatCheck_->setObjectName(QStringLiteral("floatOutputCheck"));
    filterAlphaCheck_->setObjectName(QStringLiteral("filterAlphaCheck"));
    channelsCombo_->setObjectName(QStringLiteral("channelsCombo"));
    liveCheck_->setObjectName(QStringLiteral("liveCheck"));
    form->addRow(tr("Border"), borderCombo_);
    form->addRow(tr("Constant"), borderValueSpin_);
    form->addRow(tr("Scale"), scaleSpin_);
    form->addRow(QString(), absCheck_);
    form->addRow(QString(), mappingNote_);
    form->addRow(QString(), floatCheck_);
    form->addRow(QString(), filterAlphaCheck_);
    form->addRow(tr("Channels"), channelsCombo_);
    form->addRow(QString(), liveCheck_);
    connect(borderCombo_, &QComboBox::currentIndexChanged, this, [this](int i) {
        borderValueSpin_->setEnabled(i == static_cast<int>(BorderMode::Constant));
        scheduleRun();
    });
    connect(borderValueSpin_, &QDoubleSpinBox::valueChanged, this, &MainWindow::scheduleRun);
    connect(absCheck_, &QCheckBox::toggled, this, [this] {
        refreshMappingNote();
        scheduleRun();
    });
    connect(scaleSpin_, &QDoubleSpinBox::valueChanged, this, [this] {
        refreshMappingNote();
        scheduleRun();
    });
    connect(floatCheck_, &QCheckBox::toggled, this, &MainWindow::scheduleRun);
    connect(filterAlphaCheck_, &QCheckBox::toggled, this, &MainWindow::scheduleRun);
    connect(channelsCombo_, &QComboBox::currentIndexChanged, this, [this] {
        prepareInput();
        scheduleRun();
    });
    connect(liveCheck_, &QCheckBox::toggled, this, [this](bool on) {
        if (on) scheduleRun();
    });
    return box;
}

void MainWindow::buildActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::openDialog);
    recentMenu_ = file->addMenu(tr("Open &recent"));
    QMenu* samples = file->addMenu(tr("Open &sample"));
    const QDir sampleDir(QStringLiteral(":/samples"));
    for (const QString& name : sampleDir.entryList(QDir::Files, QDir::Name))
        samples->addAction(name, this, [this, name] { openSample(QStringLiteral(":/samples/") + name); });
    QMenu* kernels = file->addMenu(tr("Open &kernel example"));
    for (const QString& name : QDir(QStringLiteral(":/kernels")).entryList(QDir::Files, QDir::Name))
        kernels->addAction(QFileInfo(name).completeBaseName(), this, [this, name] {
            QFile f(QStringLiteral(":/kernels/") + name);
            QString why;
            if (!f.open(QIODevice::ReadOnly)) why = f.errorString();
            else editor_->loadJson(f.readAll(), &why);
            if (!why.isEmpty()) error(tr("Cannot load kernel example"), why);
        });
    file->addSeparator();
    file->addAction(tr("&Save result..."), QKeySequence::Save, this, [this] { saveDialog(false); });
    file->addAction(tr("Save result as &8-bit..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this,
                    [this] { saveDialog(true); });
    file->addAction(tr("&Copy result"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this,
                    &MainWindow::copyResultToClipboard);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = editor_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = editor_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addAction(tr("&Normalize kernel"), QKeySequence(Qt::CTRL | Qt::Key_N), editor_, &widgets::KernelEditor::normalize);

    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    viewMenu->addActions(viewModes_->actions());
    viewMenu->addSeparator();
    viewMenu->addAction(presentationAction_);
    viewMenu->addAction(tr("&Default layout"), this, [this] {
        setPresentation(false);
        applyDefaultLayout();
    })->setToolTip(tr("Put every panel back where it starts, sized for this window"));
    viewMenu->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>()) viewMenu->addAction(dock->toggleViewAction());

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    tools->addAction(tr("&Run now"), QKeySequence(Qt::Key_F5), this, &MainWindow::runNow);
    tools->addAction(tr("Run &every mode"), QKeySequence(Qt::SHIFT | Qt::Key_F5), this, &MainWindow::runEveryMode);
    tools->addAction(tr("Run &pipeline"), QKeySequence(Qt::CTRL | Qt::Key_R), this, &MainWindow::runPipeline);
    QMenu* pipelines = tools->addMenu(tr("Open pipeline e&xample"));
    for (const QString& name : QDir(QStringLiteral(":/pipelines")).entryList(QDir::Files, QDir::Name))
        pipelines->addAction(QFileInfo(name).completeBaseName(), this, [this, name] {
            QFile f(QStringLiteral(":/pipelines/") + name);
            QString why;
            if (!f.open(QIODevice::ReadOnly)) why = f.errorString();
            else pipelineEditor_->loadJson(f.readAll(), &why);
            if (!why.isEmpty()) error(tr("Cannot load pipeline example"), why);
        });
    tools->addAction(tr("&Autotune launch"), QKeySequence(Qt::CTRL | Qt::Key_T), this, [this, launchDock = findChild<QDockWidget*>(QStringLiteral("launchDock"))] {
        if (launchDock) launchDock->raise();
        launch_->autotune();
    });
    tools->addSeparator();
    tools->addAction(tr("&Benchmark / compare..."), QKeySequence(Qt::CTRL | Qt::Key_B), this, &MainWindow::showBenchmark);
    tools->addAction(tr("B&atch: images x kernels..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B), this, &MainWindow::showBatch);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About"), this, [this] {
        QMessageBox::about(this, tr("About FilterStudio"),
                           tr("<b>FilterStudio %1</b><br>Convolution filters on CPU and CUDA, side by side.<br>"
                              "Qt %2, QCustomPlot, OpenCV.")
                               .arg(QApplication::applicationVersion(), QString::fromLatin1(qVersion())));
    });
}

namespace {

// One change of the output controls' |v| and scale, on the kernel designer's undo stack beside the kernel
// edits, so Ctrl+Z takes back a mapping the studio chose as it takes back a preset.
class MappingCommand : public QUndoCommand {
public:
    MappingCommand(std::function<void(const DisplayMapping&)> show, DisplayMapping before, DisplayMapping after,
                   const QString& text)
        : QUndoCommand(text), show_(std::move(show)), before_(before), after_(after) {}
    void undo() override { show_(before_); }
    void redo() override { show_(after_); }

private:
    std::function<void(const DisplayMapping&)> show_;
    DisplayMapping before_, after_;
};

QString scaleText(double scale) { return QString::number(scale, 'g', 4); }

}  // namespace

DisplayMapping MainWindow::displayMapping() const { return {absCheck_->isChecked(), scaleSpin_->value()}; }

void MainWindow::showDisplayMapping(const DisplayMapping& mapping) {
    {
        const QSignalBlocker b1(absCheck_), b2(scaleSpin_);
        absCheck_->setChecked(mapping.absolute);
        scaleSpin_->setValue(mapping.scale);
    }
    refreshMappingNote();
    scheduleRun();
}

void MainWindow::setDisplayMapping(const DisplayMapping& mapping, const QString& why) {
    if (mapping == displayMapping()) return;
    editor_->undoStack()->push(new MappingCommand([this](const DisplayMapping& m) { showDisplayMapping(m); },
                                                  displayMapping(), mapping, why));
}

void MainWindow::onPresetApplied(const FilterSpec& spec) {
    const DisplayMapping now = displayMapping();
    // An offset in the designer is the user's own way of showing signed values: leave it alone.
    const std::optional<DisplayMapping> suggested = spec.output.offset == 0.0f ? zeroSumMapping(spec, input_.get()) : std::nullopt;
    if (suggested) {
        if (*suggested == now) return;
        if (!autoMapping_ || *autoMapping_ != now) mappingBeforeAuto_ = now;
        autoMapping_ = suggested;
        // Said in the view's caption and beside the controls (refreshMappingNote), and named in Edit > Undo.
        setDisplayMapping(*suggested, tr("show |v| × %1 (zero-sum kernel)").arg(scaleText(suggested->scale)));
    } else if (autoMapping_ && *autoMapping_ == now) {
        autoMapping_.reset();
        setDisplayMapping(mappingBeforeAuto_, tr("raw values (kernel is not zero-sum)"));
    }
}

void MainWindow::refreshMappingNote() {
    const DisplayMapping m = displayMapping();
    QString note;
    if (m.absolute || m.scale != 1.0) {
        note = m.absolute ? (m.scale != 1.0 ? tr("|v| × %1").arg(scaleText(m.scale)) : tr("|v|")) : tr("× %1").arg(scaleText(m.scale));
        if (autoMapping_ && *autoMapping_ == m) note += tr(" for the zero-sum kernel (Ctrl+Z: raw values)");
    }
    view_->setNote(note);
    mappingNote_->setText(autoMapping_ && *autoMapping_ == m
                              ? tr("Chosen for the zero-sum kernel so its edges show; Ctrl+Z gives the raw values.")
                              : QString());
    mappingNote_->setVisible(!mappingNote_->text().isEmpty());
}

void MainWindow::error(const QString& title, const QString& message) {
    statusBar()->showMessage(title + ": " + message, 8000);
    if (reportError_) reportError_(title, message);
}

FilterSpec MainWindow::currentSpec() const {
    Border border;
    border.mode = static_cast<BorderMode>(borderCombo_->currentIndex());
    border.value = static_cast<float>(borderValueSpin_->value());
    OutputMapping mapping;
    mapping.scale = static_cast<float>(scaleSpin_->value());
    mapping.absolute = absCheck_->isChecked();
    mapping.floatOutput = floatCheck_->isChecked();
    editor_->setSaveContext(border, mapping);
    FilterSpec spec = editor_->spec();
    spec.filterAlpha = filterAlphaCheck_->isChecked();
    return spec;
}

// As the chart writes a filter run's image ("512x480 3ch u8"), so both kinds of run read alike in its CSV.
QString MainWindow::imageLabel() const {
    return input_ ? widgets::shapeLabel(input_->width(), input_->height(), input_->channels(), input_->depth()) : QString();
}

void MainWindow::recordRun(const TimingRecord& timing, const FilterSpec& spec, int repeats, int warmups) {
    const auto key = widgets::ComparisonKey::of(spec, input_->width(), input_->height(), input_->channels(), input_->depth(),
                                                QString::number(imageSerial_), QFileInfo(currentPath_).fileName());
    const widgets::ModeRole role =
        roleOf(chooser_->choices(), QString::fromStdString(timing.backend), QString::fromStdString(timing.mode));
    chart_->addRun(timing, key, role, repeats, warmups);
}

void MainWindow::prepareInput() {
    if (!loaded_) return;
    try {
        input_ = channelsCombo_->currentIndex() == 1 ? std::make_shared<const Image>(toLuminance(loaded_->cview())) : loaded_;
    } catch (const std::exception& e) {
        error(tr("Out of memory"), QString::fromUtf8(e.what()));
        input_ = loaded_;
    }
    view_->setOriginal(toDisplayImage(input_->cview()));
    ++imageSerial_;
    lastOutcome_.reset();
    inspector_->setChannelCount(input_->channels());
    // A scale the studio fitted to the previous image is fitted again to this one.
    if (autoMapping_ && *autoMapping_ == displayMapping())
        if (const std::optional<DisplayMapping> refit = zeroSumMapping(currentSpec(), input_.get()); refit && *refit != *autoMapping_) {
            autoMapping_ = refit;
            showDisplayMapping(*refit);
        }
    imageInfo_->setText(QStringLiteral("%1  %2").arg(QFileInfo(currentPath_).fileName(), describe(input_->cview())));
    updateLaunchContext();
    keepInputOnDevice();
}

bool MainWindow::inputOnDevice() const {
#ifdef FS_HAVE_CUDA_INTEROP
    return interop_ && interop_->handle && interop_->resident == input_;
#else
    return false;
#endif
}

void MainWindow::keepInputOnDevice() {
#ifdef FS_HAVE_CUDA_INTEROP
    frames_.reset();
    if (interop_) interop_->releaseResident();  // a new image releases the old one
    if (!input_ || !gpu::GlPixelBufferInterop::unavailableReason().empty()) return;
    if (!interop_) interop_ = std::make_unique<Interop>();
    const std::shared_ptr<const Image> image = input_;
    auto* job = new QFutureWatcher<UploadedImage>(this);
    interop_->uploads.push_back(job);
    connect(job, &QFutureWatcherBase::finished, this, [this, job, image] {
        const UploadedImage up = job->result();
        job->deleteLater();
        if (!interop_) return;
        interop_->uploads.removeOne(job);
        const bool wanted = input_ == image && !interop_->handle;
        if (!up.handle) {
            if (wanted)
                statusBar()->showMessage(
                    tr("The image stays in host memory (%1): each preview frame uploads it").arg(QString::fromStdString(up.error)),
                    8000);
            return;
        }
        if (!wanted) {  // another image was opened meanwhile
            gpu::Engine::instance().release(up.handle);
            return;
        }
        interop_->handle = up.handle;
        interop_->resident = image;
        // Frames no longer upload the image: its page-locked copy is not needed.
        interop_->buffer.unpinInput();
        interop_->pinned.reset();
        statusBar()->showMessage(tr("Image kept on the GPU (uploaded once, %1 ms): each edit re-runs only the kernel")
                                     .arg(up.ms, 0, 'f', 1),
                                 5000);
        scheduleRun();
    });
    // Off the GUI thread: an 8K upload takes longer than a frame.
    job->setFuture(QtConcurrent::run([image] {
        UploadedImage up;
        TimingRecord timing;
        up.handle = gpu::Engine::instance().upload(image->cview(), up.error, &timing);
        up.ms = timing.uploadMs.value_or(0.0);
        return up;
    }));
#endif
}

namespace {
// Decoding runs on a pool of its own: Qt's raster engine spreads large fills over the global pool and waits
// for them, so a decode of several seconds there (one cancelled, still running) froze the window's painting.
QThreadPool& decodePool() {
    static QThreadPool pool;
    return pool;
}

// fs_io reads files, so bundled sample bytes go through a temporary copy here.
QTemporaryDir& samplesTempDir() {
    static QTemporaryDir dir;
    return dir;
}
}  // namespace

bool MainWindow::openImage(const QString& path) {
    if (opening_) return false;  // one open at a time: the dialog of the first is up
    // Large photographs take seconds to decode: off the GUI thread, which keeps drawing and can cancel.
    QFutureWatcher<io::LoadResult> watcher;
    QEventLoop wait;
    connect(&watcher, &QFutureWatcherBase::finished, &wait, &QEventLoop::quit);
    watcher.setFuture(QtConcurrent::run(&decodePool(), [file = path.toStdString()] { return io::loadImage(file); }));
    bool cancelled = false;
    if (!watcher.isFinished()) {
        QProgressDialog progress(tr("Opening %1...").arg(QFileInfo(path).fileName()), tr("Cancel"), 0, 0, this);
        progress.setWindowModality(Qt::WindowModal);
        progress.setMinimumDuration(300);
        connect(&progress, &QProgressDialog::canceled, &wait, [&] {
            cancelled = true;
            wait.quit();
        });
        opening_ = true;
        connect(this, &MainWindow::openingCancelled, &wait, [&] {
            cancelled = true;
            wait.quit();
        });
        wait.exec();
        opening_ = false;
    }
    if (cancelled && !watcher.isFinished()) {
        // The decoder cannot be interrupted: it finishes in the background and its image is dropped.
        statusBar()->showMessage(tr("Opening %1 cancelled").arg(QFileInfo(path).fileName()), 5000);
        return false;
    }
    io::LoadResult loaded = watcher.future().takeResult();
    if (!loaded.ok()) {
        error(tr("Cannot open image"), QString::fromStdString(loaded.error));
        return false;
    }
    loaded_ = std::make_shared<const Image>(std::move(loaded.image));
    currentPath_ = path;
    prepareInput();
    // Bundled samples open from a private temporary copy: not worth remembering.
    if (!path.startsWith(samplesTempDir().path() + QLatin1Char('/'))) {
        addRecent(path);
        QSettings().setValue(QStringLiteral("files/lastDir"), QFileInfo(path).absolutePath());
    }
    setWindowTitle(tr("FilterStudio - %1").arg(QFileInfo(path).fileName()));
    runNow();
    return true;
}

void MainWindow::cancelOpening() {
    if (opening_) emit openingCancelled();
}

void MainWindow::openDialog() {
    const QString dir = QSettings().value(QStringLiteral("files/lastDir"), QDir::homePath()).toString();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open image"), dir, tr(kImageFilter));
    if (!path.isEmpty()) openImage(path);
}

void MainWindow::openSample(const QString& resource) {
    const QString target = samplesTempDir().filePath(QFileInfo(resource).fileName());
    if (!QFile::exists(target) && !QFile::copy(resource, target)) {
        error(tr("Cannot open sample"), tr("could not copy %1 to %2").arg(resource, target));
        return;
    }
    openImage(target);
}

void MainWindow::addRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("files/recent")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent) recent.removeLast();
    settings.setValue(QStringLiteral("files/recent"), recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    const QStringList recent = QSettings().value(QStringLiteral("files/recent")).toStringList();
    for (const QString& path : recent) recentMenu_->addAction(path, this, [this, path] { openImage(path); });
    recentMenu_->setEnabled(!recent.isEmpty());
}

void MainWindow::scheduleRun() {
    updateLaunchContext();
    if (liveCheck_->isChecked() && input_) runTimer_->start();
}

void MainWindow::updateLaunchContext() {
    const widgets::ModeChoice* choice = chooser_->current();
    launch_->setContext(choice ? choice->backendId : QString(), choice ? QString::fromStdString(choice->mode.id) : QString(),
                        currentSpec(), input_);
}

bool MainWindow::selectMode(const QString& key) {
    QString full = key;
    if (!key.contains('/')) {  // a bare mode id: the first backend that has it
        for (const widgets::ModeChoice& c : chooser_->choices())
            if (QString::fromStdString(c.mode.id) == key) {
                full = c.key();
                break;
            }
    }
    return chooser_->select(full);
}

void MainWindow::runNow() {
    runTimer_->stop();
    if (!input_) return;
    const widgets::ModeChoice* choice = chooser_->current();
    if (!choice) {
        error(tr("No backend"), tr("no backend mode is available"));
        return;
    }
    endSweep();  // a new change outdates a running sweep
    // An approximate mode (fft, tensor) runs beside the compare mode, so its measured error shows next to its
    // time; that needs host pixels of both, so it takes the host path rather than the interop preview.
    const bool measureError = choice->mode.approximate;
    if (choice->backendId == cudaBackendId() && !measureError && runThroughInterop(currentSpec())) return;
    submit(choice->key(), measureError || view_->displayMode() == widgets::ImageView::DisplayMode::Difference);
}

quint64 MainWindow::submit(const QString& key, bool withCompare, int repeats, int warmups) {
    RunRequest request;
    request.input = input_;
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

void MainWindow::runEveryMode() {
    if (!input_) {
        error(tr("No image"), tr("open an image first"));
        return;
    }
    runTimer_->stop();
    QStringList queue;
    for (const widgets::ModeChoice& c : chooser_->choices())
        if (c.mode.available && c.key() != chooser_->currentKey()) queue << c.key();
    queue << chooser_->currentKey();  // last, so the view ends on the chosen mode
    // The first run of a mode pays one-time costs (OpenCL compiles its kernel, caches fill): one
    // untimed warm-up each, then the median of the chosen count, all on the runner's thread.
    sweepRepeats_ = chart_->repeats();
    sweepTotal_ = static_cast<int>(queue.size());
    const QString first = queue.takeFirst();
    modeQueue_ = queue;
    chart_->setSweepProgress(0, sweepTotal_);
    runInfo_->setText(tr("timing %1 (1 of %2), median of %3 after a warm-up...").arg(first).arg(sweepTotal_).arg(sweepRepeats_));
    sweepGeneration_ = submit(first, false, sweepRepeats_, 1);
}

void MainWindow::endSweep() {
    modeQueue_.clear();
    if (sweepTotal_ == 0) return;
    sweepTotal_ = 0;
    chart_->setSweepProgress(0, 0);
}

// The next mode of a running sweep, or its end.
void MainWindow::continueSweep() {
    if (modeQueue_.isEmpty()) {
        endSweep();
        return;
    }
    const QString next = modeQueue_.takeFirst();
    const int done = sweepTotal_ - static_cast<int>(modeQueue_.size()) - 1;
    chart_->setSweepProgress(done, sweepTotal_);
    runInfo_->setText(tr("timing %1 (%2 of %3), median of %4 after a warm-up...").arg(next).arg(done + 1).arg(sweepTotal_).arg(sweepRepeats_));
    sweepGeneration_ = submit(next, false, sweepRepeats_, 1);
}

void MainWindow::runPipeline() {
    if (!input_) {
        error(tr("No image"), tr("open an image first"));
        return;
    }
    if (const QString why = pipelineEditor_->problem(); !why.isEmpty()) {
        error(tr("Pipeline cannot run"), why);
        return;
    }
    const widgets::ModeChoice* choice = chooser_->current();
    if (!choice) {
        error(tr("No backend"), tr("no backend mode is available"));
        return;
    }
    runTimer_->stop();
    endSweep();
    RunRequest request;
    request.input = input_;
    request.backend = choice->backendId;
    request.mode = QString::fromStdString(choice->mode.id);
    request.pipeline = pipelineEditor_->pipeline();
    for (PipelineStep& step : request.pipeline->steps) step.filter.filterAlpha = filterAlphaCheck_->isChecked();
    pipelineEditor_->setRunning(true);
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("pipelineDock"))) dock->raise();  // its times and count
    pipelineGeneration_ = runner_->submit(std::move(request));
}

void MainWindow::showPipelineOutcome(const std::shared_ptr<const RunOutcome>& outcome) {
    if (outcome->generation == pipelineGeneration_) {
        pipelineGeneration_ = 0;
        pipelineEditor_->setRunning(false);
    }
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
        error(tr("Pipeline failed"), failure);
        return;
    }
    lastOutcome_ = outcome;
    view_->setResult(outcome->display);
    info += tr("%1 steps, %2 ms").arg(outcome->steps.size()).arg(outcome->result.timing.totalMs.value_or(0.0), 0, 'f', 3);
    if (outcome->objectCount) info += tr(", %1 objects").arg(*outcome->objectCount);
    runInfo_->setText(info);
    if (inspectedPixel_.x() >= 0) inspectPixel(inspectedPixel_);
    emit resultShown(outcome->generation);
}

bool MainWindow::runThroughInterop(const FilterSpec& spec) {
#ifdef FS_HAVE_CUDA_INTEROP
    // The difference view needs host pixels of both results: take the host path.
    if (view_->displayMode() == widgets::ImageView::DisplayMode::Difference || !view_->glReady()) return false;
    if (const std::string why = gpu::GlPixelBufferInterop::unavailableReason(); !why.empty()) return false;
    if (!interop_) interop_ = std::make_unique<Interop>();
    const LaunchConfig launch = launch_->launchFor(cudaBackendId());
    const bool resident = inputOnDevice();
    // Until the image is on the device, and for launch configurations (the host path knows only the
    // default), each frame uploads it: from page-locked memory, so without a staging copy.
    if (!resident && !launch.isDefault()) return false;
    if (!resident && interop_->pinned != input_) {
        interop_->buffer.unpinInput();
        interop_->pinned.reset();
        if (interop_->buffer.pinInput(input_->cview()).empty()) interop_->pinned = input_;
    }
    TimingRecord timing;
    const std::string mode = chooser_->current()->mode.id;
    bool releasedForMemory = false;
    const auto started = std::chrono::steady_clock::now();
    const QString failure = view_->fillResultThroughPixelBuffer(
        input_->width(), input_->height(), [&](unsigned buffer, unsigned texture, int w, int h, bool* textureFilled) {
            const std::size_t bytes = static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 4;
            // The frame goes into the texture on the CUDA side: GL's unpack of the buffer is far slower.
            interop_->buffer.copyIntoTexture(texture);
            *textureFilled = true;
            const auto fromHost = [&] {
                return interop_->buffer.runIntoPixelBuffer(buffer, bytes, spec, input_->cview(), mode, &timing);
            };
            if (!resident) return QString::fromStdString(fromHost());
            const std::string onDevice = interop_->buffer.runIntoPixelBuffer(buffer, bytes, spec, interop_->handle, mode, &timing, launch);
            if (onDevice.empty() || !launch.isDefault()) return QString::fromStdString(onDevice);
            // If the host image goes through where the resident one did not, device memory is short:
            // free the resident image and the engine's caches, and carry on from host memory.
            timing = TimingRecord{};
            if (!fromHost().empty()) return QString::fromStdString(onDevice);
            interop_->releaseResident();
            gpu::Engine::instance().trimCaches();
            releasedForMemory = true;
            return QString();
        });
    if (!failure.isEmpty()) {
        statusBar()->showMessage(tr("CUDA-GL interop failed (%1); using the upload path").arg(failure), 8000);
        return false;
    }
    if (releasedForMemory)
        statusBar()->showMessage(tr("GPU memory is short: the image is no longer kept on the GPU, frames upload it"), 8000);
    timing.backend = gpu::GlPixelBufferInterop::backendId();
    timing.mode = mode;
    timing.launch = "live frame";  // its own bar, beside the same mode's readback runs
    lastOutcome_.reset();  // no host pixels: ensureHostResult() makes them when needed
    // Runs submitted before this frame (the first run after opening, say) are older: the last
    // request wins, so their results must not replace it when they arrive.
    shownGeneration_ = runner_->latestGeneration() + 1;
    frameSpec_ = spec;
    frames_.filled(timing, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
    runInfo_->setText(tr("cuda/%1 through CUDA-GL interop%2: %3")
                          .arg(QString::fromStdString(mode), resident && !releasedForMemory ? tr(", image on the GPU") : QString(),
                               QString::fromStdString(timing.toString())));
    emit resultShown(runner_->latestGeneration());
    return true;
#else
    (void)spec;
    return false;
#endif
}

void MainWindow::onPreviewFrameShown(double textureMs, double drawMs) {
    const std::optional<TimingRecord> frame = frames_.shown(textureMs, drawMs);
    if (!frame) return;
    lastFrame_ = *frame;
    frameInfo_->setText(tr("live %1 fps, frame %2 ms (kernel %3, map %4, texture+draw %5)")
                            .arg(frames_.framesPerSecond())
                            .arg(frame->totalMs.value_or(0.0), 0, 'f', 2)
                            .arg(frame->kernelMs.value_or(0.0), 0, 'f', 2)
                            .arg(frame->mapMs.value_or(0.0), 0, 'f', 2)
                            .arg(frame->displayMs.value_or(0.0), 0, 'f', 2));
    if (!frameChartTimer_->isActive()) frameChartTimer_->start();
}

bool MainWindow::ensureHostResult() {
    if (lastOutcome_ && lastOutcome_->result.ok()) return true;
    if (!input_) return false;
    // The shown result lives only on the GPU (interop): compute host pixels once.
    const widgets::ModeChoice* choice = chooser_->current();
    if (!choice) return false;
    RunRequest request;
    request.input = input_;
    request.spec = currentSpec();
    request.backend = choice->backendId;
    request.mode = QString::fromStdString(choice->mode.id);
    QEventLoop loop;
    const quint64 wanted = runner_->submit(std::move(request));
    auto connection = connect(this, &MainWindow::resultShown, &loop, [&](quint64 g) {
        if (g >= wanted) loop.quit();
    });
    auto failed = connect(this, &MainWindow::runFailed, &loop, &QEventLoop::quit);
    // A result dropped because the image changed meanwhile never arrives: do not wait forever.
    auto dropped = connect(runner_, &FilterRunner::busyChanged, &loop, [&](bool busy) {
        if (!busy) QTimer::singleShot(0, &loop, &QEventLoop::quit);
    });
    loop.exec();
    disconnect(dropped);
    disconnect(connection);
    disconnect(failed);
    return lastOutcome_ && lastOutcome_->result.ok();
}

void MainWindow::onOutcome(const std::shared_ptr<const RunOutcome>& outcome) {
    // A result for an image no longer shown, or older than one already shown (a live frame
    // included), is dropped.
    if (outcome->request.input != input_ || outcome->generation < shownGeneration_) {
        if (outcome->generation == pipelineGeneration_) {
            pipelineGeneration_ = 0;
            pipelineEditor_->setRunning(false);
        }
        return;
    }
    shownGeneration_ = outcome->generation;
    if (outcome->request.pipeline) {
        showPipelineOutcome(outcome);
        return;
    }
    if (!outcome->result.ok()) {
        const QString message = QString::fromStdString(outcome->result.error);
        runInfo_->setText(tr("failed: %1").arg(message));
        // Live editing re-runs on every change: say a failure once, not per keystroke.
        const bool firstTime = message != lastRunError_;
        lastRunError_ = message;
        emit runFailed(message);
        if (sweeping() && outcome->generation == sweepGeneration_) {
            if (firstTime) error(tr("Filter failed"), message);
            continueSweep();
        } else if (!outcome->request.launch.isDefault()) {
            // A refused launch configuration: the Launch panel shows why in red; no dialog per knob change.
            statusBar()->showMessage(tr("%1/%2 with launch %3 failed: %4")
                                         .arg(outcome->request.backend, outcome->request.mode,
                                              QString::fromStdString(outcome->request.launch.shortLabel()), message),
                                     8000);
        } else if (firstTime && outcome->request.backend == cudaBackendId()) {
            offerCpuInstead(message);
        } else if (firstTime) {
            error(tr("Filter failed"), message);
        }
        return;
    }
    lastOutcome_ = outcome;
    lastRunError_.clear();
    view_->setResult(outcome->display);
    recordRun(outcome->result.timing, outcome->request.spec, std::max(1, outcome->request.repeats), outcome->request.warmups);
    QString info = QStringLiteral("%1/%2: %3")
                       .arg(outcome->request.backend, outcome->request.mode,
                            QString::fromStdString(outcome->result.timing.toString()));
    if (outcome->compare) {
        if (!outcome->compare->ok()) {
            info += tr("; compare run failed: %1").arg(QString::fromStdString(outcome->compare->error));
        } else if (!outcome->difference.error.isEmpty()) {
            info += "; " + outcome->difference.error;
        } else {
            const QString caption = tr("vs %1/%2: max abs error %3, %4 values differ")
                                        .arg(outcome->request.compareBackend, outcome->request.compareMode)
                                        .arg(outcome->difference.maxAbs, 0, 'g', 6)
                                        .arg(outcome->difference.differingValues);
            view_->setDifference(outcome->difference.visual, caption);
            info += "; " + caption;
        }
    }
    if (outcome->totalsMs.size() > 1) {
        const auto [fastest, slowest] = std::minmax_element(outcome->totalsMs.begin(), outcome->totalsMs.end());
        info += tr("; median of %1 runs after %2 warm-up, range %3..%4 ms")
                    .arg(outcome->totalsMs.size())
                    .arg(outcome->request.warmups)
                    .arg(*fastest, 0, 'f', 3)
                    .arg(*slowest, 0, 'f', 3);
    }
    runInfo_->setText(info);
    if (inspectedPixel_.x() >= 0) inspectPixel(inspectedPixel_);
    if (sweeping() && outcome->generation == sweepGeneration_) continueSweep();
    emit resultShown(outcome->generation);
}

void MainWindow::offerCpuInstead(const QString& message) {
    // A GPU failure (out of device memory, driver fault) should not end the lesson: the CPU runs the same spec.
    statusBar()->showMessage(tr("CUDA run failed: %1").arg(message), 8000);
    if (!confirm_ || !confirm_(tr("CUDA run failed"), tr("%1\n\nRun this filter on the CPU instead?").arg(message),
                               tr("Run on CPU instead")))
        return;
    // The CPU is the backend that holds the reference mode: its default mode, else the reference itself.
    QString cpuDefault, reference;
    for (const widgets::ModeChoice& c : chooser_->choices())
        if (c.mode.isReference) reference = c.key();
    for (const widgets::ModeChoice& c : chooser_->choices())
        if (c.mode.isDefault && c.backendId == backendOf(reference)) cpuDefault = c.key();
    if ((!cpuDefault.isEmpty() && selectMode(cpuDefault)) || (!reference.isEmpty() && selectMode(reference))) runNow();
    else error(tr("No CPU mode"), tr("no CPU mode is available"));
}

void MainWindow::inspectPixel(QPoint pixel) {
    if (!input_ || pixel.x() < 0 || pixel.x() >= input_->width() || pixel.y() >= input_->height()) {
        pixelInfo_->clear();
        return;
    }
    inspectedPixel_ = pixel;
    const FilterSpec spec = currentSpec();
    const int channel = std::min(inspector_->channel(), input_->channels() - 1);
    const ProbeMath math = probe(spec, input_->cview(), pixel.x(), pixel.y(), channel);
    widgets::PixelProbe p;
    p.pixel = pixel;
    p.channel = channel;
    p.channels = input_->channels();
    p.kernelWidth = spec.kernels.front().width;
    p.kernelHeight = spec.kernels.front().height;
    p.inputs = QVector<double>(math.inputs.begin(), math.inputs.end());
    for (const Kernel& k : spec.kernels) p.weights.push_back(QVector<double>(k.weights.begin(), k.weights.end()));
    p.sums = QVector<double>(math.sums.begin(), math.sums.end());
    if (spec.combine == Combine::Magnitude)
        p.combineText = tr("sqrt(k1² + k2²) = %1").arg(math.combined, 0, 'g', 7);
    p.mappingText = tr("× %1 + %2%3 = %4")
                        .arg(spec.output.scale)
                        .arg(spec.output.offset)
                        .arg(spec.output.absolute ? tr(", then |v|") : QString())
                        .arg(math.mapped, 0, 'g', 7);
    p.expected = math.stored;
    QString shownText;
    // A pipeline's output is not what this kernel gives at the pixel: the inspector compares only filter results.
    if (lastOutcome_ && lastOutcome_->result.ok() && lastOutcome_->request.input == input_ && !lastOutcome_->request.pipeline) {
        const Image& out = lastOutcome_->result.output;
        p.shown = sampleValue(out.cview(), pixel.x(), pixel.y(), channel);
        p.hasShown = true;
        shownText = tr(" result %1").arg(p.shown, 0, 'g', 6);
    }
    inspector_->setProbe(p);
    pixelInfo_->setText(tr("(%1, %2) input %3%4")
                            .arg(pixel.x())
                            .arg(pixel.y())
                            .arg(sampleValue(input_->cview(), pixel.x(), pixel.y(), channel), 0, 'g', 6)
                            .arg(shownText));
}

bool MainWindow::saveResult(const QString& path, bool eightBit) {
    const QFileInfo target(path), source(currentPath_);
    if (!currentPath_.isEmpty() && target.exists() && target.canonicalFilePath() == source.canonicalFilePath() &&
        (!confirm_ || !confirm_(tr("Overwrite the input image?"),
                                tr("%1 is the image open as input. Saving the result there replaces the original.")
                                    .arg(QDir::toNativeSeparators(path)),
                                tr("Overwrite")))) {
        statusBar()->showMessage(tr("not saved: %1 is the input image").arg(path), 5000);
        return false;
    }
    if (!ensureHostResult()) {
        error(tr("Nothing to save"), tr("there is no result yet: open an image first"));
        return false;
    }
    const Image& out = lastOutcome_->result.output;
    // A label image's 8-bit picture is what the view shows: object ids as colours, not ids as grey levels.
    const auto& pipeline = lastOutcome_->request.pipeline;
    const bool labels = pipeline && !pipeline->steps.empty() && pipeline->steps.back().op == StepOp::Label;
    std::string why;
    bool ok = false;
    try {
        if (eightBit && labels) ok = io::saveImage(path.toStdString(), fromDisplayImage(lastOutcome_->display).cview(), &why);
        else if (eightBit && out.depth() != Depth::U8) ok = io::saveImage(path.toStdString(), toEightBit(out.cview()).cview(), &why);
        else ok = io::saveImage(path.toStdString(), out.cview(), &why);
    } catch (const std::exception& e) {
        why = e.what();
    }
    if (!ok) {
        error(tr("Cannot save result"), QString::fromStdString(why));
        return false;
    }
    statusBar()->showMessage(tr("saved %1").arg(path), 5000);
    return true;
}

void MainWindow::saveDialog(bool eightBit) {
    if (!input_) {
        error(tr("Nothing to save"), tr("open an image first"));
        return;
    }
    const QString dir = QSettings().value(QStringLiteral("files/lastDir"), QDir::homePath()).toString();
    const bool isFloat = lastOutcome_ && lastOutcome_->result.output.depth() == Depth::F32 && !eightBit;
    const QString suggested = QDir(dir).filePath(QFileInfo(currentPath_).completeBaseName() + QStringLiteral("-filtered") +
                                                 (isFloat ? QStringLiteral(".tif") : QStringLiteral(".png")));
    const QString path = QFileDialog::getSaveFileName(this, eightBit ? tr("Save result as 8-bit") : tr("Save result"),
                                                      suggested, tr(kImageFilter));
    if (!path.isEmpty()) saveResult(path, eightBit);
}

void MainWindow::copyResultToClipboard() {
    if (!ensureHostResult()) {
        error(tr("Nothing to copy"), tr("there is no result yet"));
        return;
    }
    QApplication::clipboard()->setImage(lastOutcome_->display);
    statusBar()->showMessage(tr("result copied to the clipboard"), 3000);
}

void MainWindow::showBenchmark() {
    auto* dialog = new BenchmarkDialog(factory_, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &BenchmarkDialog::errorOccurred, this, &MainWindow::error);
    dialog->show();
}

void MainWindow::showBatch() {
    auto* dialog = new BatchDialog(factory_, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setDesignerKernelSource([this] { return currentSpec(); });
    dialog->selectMode(chooser_->currentKey());
    if (!currentPath_.isEmpty() && !currentPath_.startsWith(QDir::tempPath())) dialog->setInputs({currentPath_});
    dialog->show();
}

void MainWindow::closeEvent(QCloseEvent* e) {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    // The next start opens in the working layout, not in the presentation.
    settings.setValue(QStringLiteral("window/state"), presentation_ ? workingState_ : saveState(kLayoutVersion));
    settings.setValue(QStringLiteral("run/mode"), chooser_->currentKey());
    settings.setValue(QStringLiteral("chart/log"), chart_->logScale());
    e->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls() && e->mimeData()->urls().front().isLocalFile()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    const QList<QUrl> urls = e->mimeData()->urls();
    if (!urls.isEmpty() && urls.front().isLocalFile()) {
        e->acceptProposedAction();
        openImage(urls.front().toLocalFile());
    }
}

}  // namespace fs::ui
