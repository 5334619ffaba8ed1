#include "launch_controller.hpp"

#include <exception>

#include "filter_runner.hpp"
#include "fs/widgets/launch_panel.hpp"
#include "transfer_knobs.hpp"

namespace fs::ui {

LaunchController::LaunchController(FilterRunner* runner, widgets::LaunchPanel* panel, QObject* parent)
    : QObject(parent), runner_(runner), panel_(panel) {
    connect(panel_, &widgets::LaunchPanel::configChanged, this, [this] {
        describe();
        emit launchChanged();
    });
    connect(panel_, &widgets::LaunchPanel::autotuneRequested, this, &LaunchController::autotune);
    connect(panel_, &widgets::LaunchPanel::cancelTuneRequested, this, &LaunchController::cancelTuning);
    connect(panel_, &widgets::LaunchPanel::resetTuningRequested, this, &LaunchController::resetTuning);
    connect(panel_, &widgets::LaunchPanel::transfersChanged, this, [this](bool serial, int budgetMB, bool pinned) {
        TransferKnobs knobs;
        knobs.transfers = serial ? Transfers::Serial : Transfers::Overlapped;
        knobs.deviceBudgetBytes = static_cast<std::size_t>(budgetMB) << 20;
        knobs.host = pinned ? HostMemory::Pinned : HostMemory::Pageable;
        const std::string why = applyTransferKnobs(knobs);
        if (why.empty()) runner_->setGpuHostMemory(knobs.host);
        panel_->setMessage(!why.empty() ? QString::fromStdString(why)
                                        : tr("CUDA runs from now on: %1 transfers, %2 host memory, device memory %3")
                                              .arg(QString::fromLatin1(transfersName(knobs.transfers)),
                                                   QString::fromLatin1(hostMemoryName(knobs.host)),
                                                   budgetMB ? tr("%1 MB").arg(budgetMB) : tr("the engine's own")));
        if (why.empty()) emit launchChanged();  // the next run shows the new times
    });
    panel_->setDisabledReason(tr("Open an image to see how the filter launches."));
}

LaunchController::~LaunchController() { cancelTuning(); }

void LaunchController::setContext(const QString& backendId, const QString& mode, const FilterSpec& spec,
                                  std::shared_ptr<const Image> input) {
    backendId_ = backendId;
    mode_ = mode;
    spec_ = spec;
    input_ = std::move(input);
    panel_->setDisabledReason(disabledReason());
    emit explanationChanged({});  // until describe() has this context's
    describe();
}

Backend* LaunchController::launchBackend() const {
    Backend* b = runner_->find(backendId_);
    return b && b->hasLaunchConfig() && b->available() ? b : nullptr;
}

QString LaunchController::disabledReason() const {
    const Backend* b = runner_->find(backendId_);
    if (!b) return tr("No backend is chosen.");
    const QString name = QString::fromStdString(b->displayName());
    if (!b->hasLaunchConfig()) {
        QString why = tr("%1 has no launch configuration: block shape, outputs per thread, halo loading and radius path "
                         "are knobs of GPU kernels.")
                          .arg(name);
        for (const auto& other : runner_->backends()) {
            if (!other->hasLaunchConfig()) continue;
            const QString otherName = QString::fromStdString(other->displayName());
            why += '\n' + (other->available() ? tr("Choose a %1 mode to use this panel.").arg(otherName)
                                              : tr("%1 has one but is unavailable: %2")
                                                    .arg(otherName, QString::fromStdString(other->unavailableReason())));
        }
        return why;
    }
    if (!b->available()) return tr("%1 is unavailable: %2").arg(name, QString::fromStdString(b->unavailableReason()));
    if (!input_) return tr("Open an image to see how the filter launches.");
    return {};
}

LaunchConfig LaunchController::launchFor(const QString& backendId) const {
    return backendId == backendId_ && launchBackend() && input_ ? panel_->config() : LaunchConfig{};
}

void LaunchController::describe() {
    Backend* backend = launchBackend();
    if (!backend || !input_) return;
    if (describing_) {  // one describe in flight at a time; the last context wins
        describeAgain_ = true;
        return;
    }
    describing_ = true;
    const FilterSpec spec = spec_;
    const int width = input_->width(), height = input_->height(), channels = input_->channels();
    const Depth depth = input_->depth();
    const std::string mode = mode_.toStdString();
    const LaunchConfig config = panel_->config();
    runner_->runExclusive([this, backend, spec, width, height, depth, channels, mode, config] {
        LaunchReport report;
        Explanation explanation;
        try {
            report = backend->describeLaunch(spec, width, height, depth, channels, mode, config);
            explanation = backend->explain(spec, width, height, depth, channels, mode);
        } catch (const std::exception& e) {
            report.error = std::string("describeLaunch threw: ") + e.what();
        }
        const QString sentence = explanation.ok() && !explanation.mode.empty()
                                     ? QString::fromStdString(explanation.sentence())
                                     : QString();
        QMetaObject::invokeMethod(
            this,
            [this, report, sentence] {
                describing_ = false;
                if (describeAgain_) {
                    describeAgain_ = false;
                    describe();
                    return;
                }
                if (launchBackend() && input_) {
                    panel_->setReport(report);
                    emit explanationChanged(sentence);
                }
                emit describeFinished();
            },
            Qt::QueuedConnection);
    });
}

void LaunchController::autotune() {
    Backend* backend = launchBackend();
    if (tuning_) return;
    if (!backend || !input_) {
        panel_->setMessage(disabledReason());
        return;
    }
    tuning_ = true;
    panel_->setTuning(true);
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    const auto cancel = cancel_;
    const FilterSpec spec = spec_;
    const std::shared_ptr<const Image> input = input_;  // kept alive while tuning
    const std::string mode = mode_.toStdString();
    runner_->runExclusive([this, backend, spec, input, mode, cancel] {
        TuneOptions options;
        options.useCache = false;  // the button asks for timings now; the cache serves the auto mode
        const TuneProgress progress = [this, cancel](int done, int total) {
            QMetaObject::invokeMethod(
                this, [this, done, total] { panel_->setTuneProgress(done, total); }, Qt::QueuedConnection);
            return !cancel->load();
        };
        TuneResult result;
        try {
            result = backend->tune(spec, input->cview(), mode, options, progress);
        } catch (const std::exception& e) {
            result = TuneResult{};
            result.error = std::string("tune threw: ") + e.what();
        }
        QMetaObject::invokeMethod(
            this,
            [this, result] {
                tuning_ = false;
                panel_->setTuning(false);
                panel_->setTuneResult(result);
                emit tuneFinished();
            },
            Qt::QueuedConnection);
    });
}

void LaunchController::cancelTuning() {
    if (cancel_) cancel_->store(true);
}

void LaunchController::resetTuning() {
    Backend* backend = launchBackend();
    if (!backend) {
        panel_->setMessage(disabledReason());
        return;
    }
    runner_->runExclusive([this, backend] {
        std::string why;
        try {
            why = backend->resetTuning();
        } catch (const std::exception& e) {
            why = std::string("resetTuning threw: ") + e.what();
        }
        QMetaObject::invokeMethod(
            this,
            [this, why] {
                panel_->setMessage(why.empty() ? tr("Tuning forgotten: the auto mode uses its defaults until tuned again.")
                                               : tr("Reset tuning failed: %1").arg(QString::fromStdString(why)));
                emit resetFinished();
            },
            Qt::QueuedConnection);
    });
}

}  // namespace fs::ui
