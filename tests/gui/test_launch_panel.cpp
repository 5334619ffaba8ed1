// The Launch panel on a test-double GPU backend with deterministic
// launch reports and tuning, so it runs without a device: live reports and
// refusals, runs with the chosen configuration, autotune with its chart, Use
// best, cancel and reset; then the real backends: CPU and (without a device)
// CUDA leave the panel disabled with their reasons.
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>
#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

#include "backends.hpp"
#include "transfer_knobs.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/widgets/launch_panel.hpp"
#include "fs/widgets/timing_chart.hpp"
#include "launch_controller.hpp"
#include "main_window.hpp"

using fs::LaunchConfig;
using fs::ui::LaunchController;
using fs::ui::MainWindow;
using fs::widgets::LaunchPanel;

namespace {

const QString kFruits = QStringLiteral(FS_SAMPLES_DIR "/fruits.jpg");  // 512 x 480, 3 channels

// What the test reads back from the double (the window owns the backend itself).
struct DoubleState {
    std::mutex mutex;
    std::vector<LaunchConfig> runLaunches;  // every run, as asked (default for run())
    int resets = 0;
    std::chrono::milliseconds perCandidate{0};
};

LaunchConfig config(int bx, int by, int px, int py) {
    LaunchConfig c;
    c.blockX = bx, c.blockY = by, c.perThreadX = px, c.perThreadY = py;
    return c;
}

// A GPU backend in arithmetic only: block/outputs resolve to 32x8 / 1x4 by
// default, 24 + 8 registers per output, 65536 registers and 2048 threads per SM.
class GpuDouble : public fs::Backend {
public:
    explicit GpuDouble(std::shared_ptr<DoubleState> state) : state_(std::move(state)) {}
    std::string id() const override { return "gpudouble"; }
    std::string displayName() const override { return "Test GPU"; }
    std::vector<fs::ModeInfo> modes() const override { return {{"tiled", "a tiled test mode", true, {}}}; }
    std::string unavailableReason() const override { return {}; }
    bool hasLaunchConfig() const override { return true; }

    fs::RunResult run(const fs::FilterSpec& spec, fs::ConstImageView input, const std::string& mode) override {
        return runWithLaunch(spec, input, mode, LaunchConfig{});
    }
    fs::RunResult runWithLaunch(const fs::FilterSpec& spec, fs::ConstImageView input, const std::string& mode,
                                const LaunchConfig& launch) override {
        {
            std::lock_guard lock(state_->mutex);
            state_->runLaunches.push_back(launch);
        }
        fs::RunResult r;
        const fs::LaunchReport report = describeLaunch(spec, input.width, input.height, input.depth, input.channels, mode, launch);
        r.timing.backend = id();
        r.timing.mode = mode;
        if (!report.ok()) {
            r.error = report.error;
            return r;
        }
        r.output = fs::cpu::referenceFilter(spec, input);
        r.timing.launch = report.config.shortLabel();
        r.timing.kernelMs = 1.0;
        r.timing.totalMs = 1.5;
        return r;
    }

    static LaunchConfig resolve(LaunchConfig c) {
        if (c.blockX <= 0 || c.blockY <= 0) c.blockX = 32, c.blockY = 8;
        if (c.perThreadX <= 0 || c.perThreadY <= 0) c.perThreadX = 1, c.perThreadY = 4;
        if (c.halo == fs::HaloScheme::Default) c.halo = fs::HaloScheme::Cooperative;
        if (c.radius == fs::RadiusPath::Default) c.radius = fs::RadiusPath::Compiled;
        return c;
    }

    fs::LaunchReport describeLaunch(const fs::FilterSpec& spec, int width, int height, fs::Depth, int, const std::string& mode,
                                    const LaunchConfig& launch) const override {
        fs::LaunchReport r;
        r.mode = mode;
        r.config = resolve(launch);
        const LaunchConfig& c = r.config;
        r.threadsPerBlock = c.blockX * c.blockY;
        r.registersPerThread = 24 + 8 * c.perThreadX * c.perThreadY;
        if (r.threadsPerBlock > 1024) {
            r.error = "block of " + std::to_string(r.threadsPerBlock) + " threads: at most 1024 per block";
            return r;
        }
        if (r.registersPerThread * r.threadsPerBlock > 65536) {
            r.error = "needs " + std::to_string(r.registersPerThread * r.threadsPerBlock) +
                      " registers per block, an SM has 65536";
            return r;
        }
        r.kernel = "tiled r" + std::to_string(spec.maxRadiusX());
        const int tileW = c.blockX * c.perThreadX, tileH = c.blockY * c.perThreadY;
        r.gridX = (width + tileW - 1) / tileW;
        r.gridY = (height + tileH - 1) / tileH;
        r.sharedBytesPerBlock = static_cast<std::size_t>(tileW + 2 * spec.maxRadiusX()) * (tileH + 2 * spec.maxRadiusY()) * 4;
        const int byRegisters = 65536 / (r.registersPerThread * r.threadsPerBlock);
        const int byThreads = 2048 / r.threadsPerBlock;
        r.activeBlocksPerSM = std::min({byRegisters, byThreads, 32});
        r.limiter = r.activeBlocksPerSM == byRegisters ? "registers" : r.activeBlocksPerSM == byThreads ? "threads" : "blocks per SM";
        r.activeWarpsPerSM = r.activeBlocksPerSM * r.threadsPerBlock / 32;
        r.maxWarpsPerSM = 64;
        return r;
    }

    // Candidates in a fixed order with fixed times; 64x4 / 1x4 is the fastest, 32x32 / 4x2 is refused.
    fs::TuneResult tune(const fs::FilterSpec& spec, fs::ConstImageView input, const std::string& mode,
                        const fs::TuneOptions&, const fs::TuneProgress& progress) override {
        const std::vector<std::pair<LaunchConfig, double>> candidates = {
            {config(16, 16, 1, 1), 0.61}, {config(32, 8, 1, 4), 0.40}, {config(32, 8, 1, 2), 0.45},
            {config(64, 4, 1, 4), 0.22},  {config(32, 32, 4, 2), 0.0}, {config(16, 8, 2, 2), 0.52}};
        fs::TuneResult result;
        result.mode = mode;
        result.defaultConfig = resolve(LaunchConfig{});
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            std::this_thread::sleep_for(state_->perCandidate);
            fs::TuneEntry e;
            e.config = resolve(candidates[i].first);
            const fs::LaunchReport report = describeLaunch(spec, input.width, input.height, input.depth, input.channels, mode, e.config);
            if (!report.ok()) e.error = report.error;
            else e.medianMs = candidates[i].second;
            result.entries.push_back(e);
            if (e.error.empty() && (result.bestMs == 0.0 || e.medianMs < result.bestMs)) {
                result.best = e.config;
                result.bestMs = e.medianMs;
            }
            if (e.config == result.defaultConfig) result.defaultMs = e.medianMs;
            if (progress && !progress(static_cast<int>(i + 1), static_cast<int>(candidates.size()))) {
                result.cancelled = true;
                break;
            }
        }
        return result;
    }

    std::string resetTuning() override {
        std::lock_guard lock(state_->mutex);
        ++state_->resets;
        return {};
    }

private:
    std::shared_ptr<DoubleState> state_;
};

// Picks an item of a panel combo as the user would (the panel reacts to activated).
bool choose(LaunchPanel* panel, const char* objectName, const QString& text) {
    auto* combo = panel->findChild<QComboBox*>(QString::fromLatin1(objectName));
    if (!combo) return false;
    const int at = combo->findText(text);
    if (at < 0) return false;
    combo->setCurrentIndex(at);
    emit combo->activated(at);
    return true;
}

QPushButton* button(LaunchPanel* panel, const char* objectName) {
    return panel->findChild<QPushButton*>(QString::fromLatin1(objectName));
}

}  // namespace

class LaunchPanelTest : public QObject {
    Q_OBJECT

    QStringList errors_;
    std::shared_ptr<DoubleState> state_;
    std::unique_ptr<MainWindow> window_;

    void makeWindow() {
        state_ = std::make_shared<DoubleState>();
        window_ = std::make_unique<MainWindow>([state = state_] {
            std::vector<std::unique_ptr<fs::Backend>> v;
            v.push_back(fs::cpu::makeCpuBackend());
            v.push_back(std::make_unique<GpuDouble>(state));
            return v;
        });
        window_->setErrorReporter([this](const QString& t, const QString& m) { errors_ << t + ": " + m; });
        // A failed GPU run offers the CPU in a modal question: declined here, so no dialog waits for a click.
        window_->setConfirmer([](const QString&, const QString&, const QString&) { return false; });
        window_->resize(1400, 900);
        window_->show();
    }

    bool waitFor(const std::function<bool()>& done, int ms = 10000) {
        for (int waited = 0; waited < ms && !done(); waited += 20) QTest::qWait(20);
        return done();
    }

    // Opens the photo on the double and waits until the panel shows its report.
    bool openOnDouble() {
        if (!window_->selectMode(QStringLiteral("gpudouble/tiled"))) return false;
        QSignalSpy described(window_->launchController(), &LaunchController::describeFinished);
        if (!window_->openImage(kFruits)) return false;
        return waitFor([&] { return !described.isEmpty(); });
    }

    // Runs the current settings and waits for that exact result.
    bool runAndWait() {
        window_->runNow();
        const quint64 wanted = window_->runner()->latestGeneration();
        return waitFor([&] { return window_->lastOutcome() && window_->lastOutcome()->generation >= wanted; });
    }

    std::vector<LaunchConfig> runLaunches() {
        std::lock_guard lock(state_->mutex);
        return state_->runLaunches;
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("FilterStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_gui_launch"));
    }

    void init() {
        errors_.clear();
        makeWindow();
    }

    void cleanup() { window_.reset(); }

    void cpuBackendLeavesThePanelDisabledWithTheReason() {
        QVERIFY(window_->selectMode(QStringLiteral("cpu/reference")));
        QVERIFY(window_->openImage(kFruits));
        LaunchPanel* panel = window_->launchPanel();
        const QString why = panel->disabledReason();
        QVERIFY2(why.contains(QStringLiteral("CPU has no launch configuration")), qPrintable(why));
        QVERIFY2(why.contains(QStringLiteral("Choose a Test GPU mode")), qPrintable(why));
        QVERIFY(!button(panel, "launchAutotune")->isEnabled());
        QVERIFY(!panel->findChild<QComboBox*>(QStringLiteral("launchBlock"))->isEnabled());
        QVERIFY(window_->launchController()->launchFor(QStringLiteral("cpu")).isDefault());
        window_->findChild<QDockWidget*>(QStringLiteral("launchDock"))->raise();
        QTest::qWait(50);
        const QString shot = QDir::temp().filePath(QStringLiteral("filterstudio-launch-disabled.png"));
        window_->grab().save(shot);
        qInfo("screenshot: %s", qPrintable(shot));
        // Choosing the GPU enables it.
        QVERIFY(window_->selectMode(QStringLiteral("gpudouble/tiled")));
        QVERIFY(panel->disabledReason().isEmpty());
        QVERIFY(button(panel, "launchAutotune")->isEnabled());
    }

    void transferKnobsReachTheCudaBackendOrSayWhyNot() {
        QVERIFY(openOnDouble());
        LaunchPanel* panel = window_->launchPanel();
        auto* serial = panel->findChild<QCheckBox*>(QStringLiteral("launchSerial"));
        QVERIFY(serial && serial->isEnabled());
        QSignalSpy changed(panel, &LaunchPanel::transfersChanged);
        serial->setChecked(true);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.back().at(0).toBool(), true);
        // A CUDA build takes the knob; one without CUDA says why in the panel.
        const std::vector<std::unique_ptr<fs::Backend>> all = fs::makeAllBackends();
        const bool cuda = fs::findBackend(all, "cuda") != nullptr;
        QVERIFY2(panel->message().contains(cuda ? QStringLiteral("serial transfers") : QStringLiteral("without CUDA")),
                 qPrintable(panel->message()));
        serial->setChecked(false);

        // Pinned host memory: GPU runs read a page-locked copy of the image. Without a
        // usable device the run fails saying so, never with the runtime's own error.
        auto* pinned = panel->findChild<QCheckBox*>(QStringLiteral("launchPinned"));
        QVERIFY(pinned && pinned->isEnabled());
        QSignalSpy failed(window_.get(), &MainWindow::runFailed);
        pinned->setChecked(true);
        QCOMPARE(changed.back().at(2).toBool(), true);
        if (cuda) {
            QVERIFY2(panel->message().contains(QStringLiteral("pinned host memory")), qPrintable(panel->message()));
            if (!fs::findBackend(all, "cuda")->available())
                QVERIFY(waitFor([&] {
                    return !failed.isEmpty() &&
                           failed.back().at(0).toString().contains(QStringLiteral("pinned host memory needs a CUDA device"));
                }));
        } else {
            QVERIFY2(panel->message().contains(QStringLiteral("without CUDA")), qPrintable(panel->message()));
        }
        pinned->setChecked(false);
        QVERIFY(fs::applyTransferKnobs(fs::TransferKnobs{}).empty());
    }

    void layoutChoiceReachesTheLaunch() {
        QVERIFY(openOnDouble());
        LaunchPanel* panel = window_->launchPanel();
        QVERIFY(choose(panel, "launchLayout", QStringLiteral("planar")));
        QCOMPARE(panel->config().layout, fs::ChannelLayout::Planar);
        QVERIFY(choose(panel, "launchPerThread", QStringLiteral("5x5")));
        QCOMPARE(panel->config().perThreadX, 5);
        panel->setConfig(fs::LaunchConfig{});
        QCOMPARE(panel->config().layout, fs::ChannelLayout::Interleaved);
    }

    void reportFollowsTheKnobsAndRunsUseThem() {
        QVERIFY(openOnDouble());
        LaunchPanel* panel = window_->launchPanel();
        // Default: 32x8 threads, 1x4 outputs each, on 512 x 480: 16 x 15 blocks; 56 registers -> 4 blocks of 8 warps.
        QString report = panel->reportText();
        QVERIFY2(report.contains(QStringLiteral("32x8, 256 threads")), qPrintable(report));
        QVERIFY2(report.contains(QStringLiteral("16 x 15 blocks")), qPrintable(report));
        QVERIFY2(report.contains(QStringLiteral("32 of 64 warps per SM (50%), 4 blocks/SM, limited by registers")), qPrintable(report));
        QVERIFY2(report.contains(QStringLiteral("56 per thread")), qPrintable(report));
        QVERIFY(!panel->reportRefused());

        // Too many registers per block: refused, the reason shown.
        QSignalSpy failed(window_.get(), &MainWindow::runFailed);
        QVERIFY(choose(panel, "launchBlock", QStringLiteral("32x32")));
        QVERIFY(choose(panel, "launchPerThread", QStringLiteral("4x2")));
        QVERIFY(waitFor([&] { return panel->reportRefused(); }));
        QVERIFY2(panel->reportText().contains(QStringLiteral("Refused: needs 90112 registers per block")), qPrintable(panel->reportText()));
        // The live re-run with it fails the same way: the status bar says so, no dialog (the panel shows why).
        QVERIFY(waitFor([&] {
            return !failed.isEmpty() && failed.back().at(0).toString().contains(QStringLiteral("90112"));
        }));
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));

        // A configuration the device takes: shown, and the next run uses exactly it.
        QVERIFY(choose(panel, "launchBlock", QStringLiteral("16x16")));
        QVERIFY(choose(panel, "launchPerThread", QStringLiteral("2x2")));
        QVERIFY(waitFor([&] { return !panel->reportRefused() && panel->reportText().contains(QStringLiteral("16x16, 256 threads")); }));
        QVERIFY2(panel->reportText().contains(QStringLiteral("16 x 15 blocks")), qPrintable(panel->reportText()));  // 32x32 tiles
        QVERIFY(runAndWait());
        const auto outcome = window_->lastOutcome();
        QVERIFY2(outcome->result.ok(), outcome->result.error.c_str());
        QVERIFY(runLaunches().back() == config(16, 16, 2, 2));
        QCOMPARE(outcome->result.timing.launch, std::string("16x16 / 2x2"));
        QVERIFY(window_->timingChart()->categories().contains(QStringLiteral("gpudouble/tiled [16x16 / 2x2]")));
        // Defaults again: the run goes through run() with the default configuration.
        for (QPushButton* b : panel->findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Defaults")) b->click();
        QVERIFY(panel->config().isDefault());
        QVERIFY(runAndWait());
        QVERIFY(runLaunches().back().isDefault());
        QVERIFY2(errors_.isEmpty(), qPrintable(errors_.join('\n')));
    }

    void autotuneChartsEveryCandidateAndUseBestApplies() {
        QVERIFY(openOnDouble());
        LaunchPanel* panel = window_->launchPanel();
        QVERIFY(!button(panel, "launchUseBest")->isEnabled());
        QSignalSpy tuned(window_->launchController(), &LaunchController::tuneFinished);
        button(panel, "launchAutotune")->click();
        QVERIFY(window_->launchController()->tuning());
        QVERIFY(!button(panel, "launchAutotune")->isEnabled());
        QVERIFY(button(panel, "launchCancel")->isEnabled());
        QVERIFY(waitFor([&] { return !tuned.isEmpty(); }));

        const fs::TuneResult& result = panel->tuneResult();
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(result.entries.size(), std::size_t{6});
        QCOMPARE(panel->chartedCandidates(), 5);  // the refused one is counted, not charted
        QCOMPARE(panel->bestCandidate(), QStringLiteral("64x4 / 1x4"));
        QCOMPARE(panel->defaultCandidate(), QStringLiteral("32x8 / 1x4"));
        QVERIFY2(panel->message().contains(QStringLiteral("best 64x4 / 1x4: 0.2200 ms, default 32x8 / 1x4: 0.4000 ms (1.82x)")),
                 qPrintable(panel->message()));
        QVERIFY2(panel->message().contains(QStringLiteral("1 refused")), qPrintable(panel->message()));
        QCOMPARE(panel->findChild<QProgressBar*>()->maximum(), 6);

        window_->findChild<QDockWidget*>(QStringLiteral("launchDock"))->raise();
        QTest::qWait(50);
        const QString shot = QDir::temp().filePath(QStringLiteral("filterstudio-launch.png"));
        window_->grab().save(shot);
        qInfo("screenshot: %s", qPrintable(shot));

        // Use best: the knobs show it and the next run uses it.
        QVERIFY(button(panel, "launchUseBest")->isEnabled());
        QSignalSpy shown(window_.get(), &MainWindow::resultShown);
        button(panel, "launchUseBest")->click();
        QVERIFY(panel->config() == GpuDouble::resolve(config(64, 4, 1, 4)));
        QVERIFY(waitFor([&] { return !shown.isEmpty(); }));  // live: the change re-runs
        QVERIFY(runLaunches().back() == GpuDouble::resolve(config(64, 4, 1, 4)));
        QCOMPARE(window_->lastOutcome()->result.timing.launch, std::string("64x4 / 1x4"));
    }

    void autotuneCancels() {
        QVERIFY(openOnDouble());
        state_->perCandidate = std::chrono::milliseconds(150);
        LaunchPanel* panel = window_->launchPanel();
        QSignalSpy tuned(window_->launchController(), &LaunchController::tuneFinished);
        button(panel, "launchAutotune")->click();
        auto* progress = panel->findChild<QProgressBar*>();
        QVERIFY(waitFor([&] { return progress->value() >= 1; }));
        button(panel, "launchCancel")->click();
        QVERIFY(waitFor([&] { return !tuned.isEmpty(); }));
        const fs::TuneResult& result = panel->tuneResult();
        QVERIFY(result.cancelled);
        QVERIFY(result.entries.size() < 6);
        QVERIFY2(panel->message().contains(QStringLiteral("cancelled")), qPrintable(panel->message()));
        QVERIFY(!button(panel, "launchUseBest")->isEnabled());  // a cancelled tuning picks nothing
        QVERIFY(button(panel, "launchAutotune")->isEnabled());
    }

    void resetTuningReachesTheBackend() {
        QVERIFY(openOnDouble());
        LaunchPanel* panel = window_->launchPanel();
        QSignalSpy reset(window_->launchController(), &LaunchController::resetFinished);
        button(panel, "launchReset")->click();
        QVERIFY(waitFor([&] { return !reset.isEmpty(); }));
        QCOMPARE(state_->resets, 1);
        QVERIFY2(panel->message().contains(QStringLiteral("Tuning forgotten")), qPrintable(panel->message()));
    }

    void closingWhileTuningStopsTheTuning() {
        QVERIFY(openOnDouble());
        // Six candidates of a second each: closing waits for the one in flight, not the five after it.
        state_->perCandidate = std::chrono::milliseconds(1000);
        button(window_->launchPanel(), "launchAutotune")->click();
        QTest::qWait(100);
        QElapsedTimer timer;
        timer.start();
        window_.reset();  // cancels, then joins the worker after the current candidate
        QVERIFY2(timer.elapsed() < 3500, qPrintable(QString::number(timer.elapsed())));
    }

    // The real backends of this build: CPU never takes a launch; CUDA without a device says why.
    void realCudaBackendIsDisabledWithItsReason() {
        window_ = std::make_unique<MainWindow>([] { return fs::makeAllBackends(); });
        window_->show();
        fs::Backend* cuda = window_->runner()->find(QStringLiteral("cuda"));
        if (!cuda) QSKIP("this build has no CUDA backend (configured without CUDA)");
        if (cuda->available()) QSKIP("a CUDA device is present here: the panel is enabled");
        QVERIFY2(cuda->hasLaunchConfig(), "the CUDA backend takes launch configurations");
        QVERIFY(window_->selectMode(QStringLiteral("cpu/reference")));
        QVERIFY(window_->openImage(kFruits));
        const QString reason = QString::fromStdString(cuda->unavailableReason());
        QVERIFY(!reason.isEmpty());
        const QString why = window_->launchPanel()->disabledReason();
        QVERIFY2(why.contains(reason), qPrintable(why));
        window_->findChild<QDockWidget*>(QStringLiteral("launchDock"))->raise();
        QTest::qWait(50);
        const QString shot = QDir::temp().filePath(QStringLiteral("filterstudio-launch-cuda.png"));
        window_->grab().save(shot);
        qInfo("screenshot: %s", qPrintable(shot));
        // Asked for directly (a saved cuda mode): disabled, with the same reason.
        window_->launchController()->setContext(QStringLiteral("cuda"), QStringLiteral("auto"), fs::FilterSpec{},
                                                window_->input());
        QVERIFY2(window_->launchPanel()->disabledReason().endsWith(reason), qPrintable(window_->launchPanel()->disabledReason()));
        QVERIFY(!button(window_->launchPanel(), "launchAutotune")->isEnabled());
        QVERIFY(window_->launchController()->launchFor(QStringLiteral("cuda")).isDefault());
    }
};

QTEST_MAIN(LaunchPanelTest)
#include "test_launch_panel.moc"
