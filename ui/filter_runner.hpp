#pragma once
#include <QImage>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "fs/backend.hpp"
#include "fs/pipeline.hpp"
#include "fs/run_control.hpp"
#include "image_convert.hpp"
#include "transfer_knobs.hpp"

namespace fs::ui {

struct RunRequest {
    std::shared_ptr<const Image> input;
    FilterSpec spec;
    QString backend;         // "cpu"
    QString mode;            // "parallel"
    QString compareBackend;  // empty: no comparison run
    QString compareMode;
    LaunchConfig launch;  // non-default: Backend::runWithLaunch (GPU backends)
    // Timing runs: `warmups` untimed runs first (first-use costs such as OpenCL kernel compilation),
    // then `repeats` timed runs; the outcome keeps the run of median total time.
    int warmups = 0;
    int repeats = 1;
    // Set: run this pipeline (spec unused, no comparison) with the backend's pipeline runner.
    std::optional<Pipeline> pipeline;
};

struct RunOutcome {
    quint64 generation = 0;
    RunRequest request;
    RunResult result;
    QImage display;  // result converted for the view, made off the GUI thread
    std::optional<RunResult> compare;
    Difference difference;  // valid when compare ran and both succeeded
    // Pipeline runs: result holds the last step's output and the summed time.
    std::vector<StepReport> steps;
    std::optional<long long> objectCount;
    std::vector<double> totalsMs;  // every timed run's total, in run order (repeats > 1)
};

// The status bar's line for a filter run: mode, times, the comparison's error and the repeats' range.
QString describeOutcome(const RunOutcome& outcome);
// "vs cpu/reference: max abs error 0, 0 values differ"
QString differenceCaption(const RunOutcome& outcome);
// Writes the outcome's image: as computed, or as 8 bits (a label image as the colours the view shows).
bool saveOutcome(const RunOutcome& outcome, const QString& path, bool eightBit, std::string* why);

// Runs filters on one worker thread, latest wins: while a run is going, newer
// requests replace the waiting one, so dragging a slider queues at most one
// run and the GUI thread never waits. Results come back through finished().
// Each request runs under its own fs::RunControl: cancel() stops it within one
// unit of the backend's work, and a new request stops a run whose result
// nobody would see (another image, another mode, a timing run, or one that has
// already taken longer than a live edit can wait). A stopped run reports nothing.
class FilterRunner : public QObject {
    Q_OBJECT
public:
    explicit FilterRunner(std::vector<std::unique_ptr<Backend>> backends, QObject* parent = nullptr);
    ~FilterRunner() override;

    // Read-only use from the GUI thread (ids, modes); runs happen on the worker.
    const std::vector<std::unique_ptr<Backend>>& backends() const { return backends_; }
    quint64 submit(RunRequest request);
    quint64 latestGeneration() const { return generation_.load(); }
    bool busy() const;
    void dropPending();  // forget the queued request; the one in flight finishes its current run
    void cancel();       // forget the queued request and stop the one in flight
    // The run in flight: how far it is (0..1; 0 also when the backend cannot tell), and how many seconds
    // the runner has been busy without a pause (0 when idle).
    double progress() const;
    double busySeconds() const;
    void waitForIdle();
    Backend* find(const QString& backendId) const;
    // Runs `job` on the worker thread, after the run in flight and never beside one:
    // backend calls other than run (describeLaunch, tune, resetTuning) go through here.
    void runExclusive(std::function<void()> job);
    // GPU runs (backends with a launch configuration) read the image from
    // page-locked memory, a copy made once per image, or as it is.
    void setGpuHostMemory(HostMemory host) { gpuHost_.store(host); }

signals:
    void finished(std::shared_ptr<const fs::ui::RunOutcome> outcome);
    void busyChanged(bool busy);

private:
    void workLoop();
    RunResult runOne(const std::shared_ptr<const Image>& input, const FilterSpec& spec, const QString& backend,
                     const QString& mode, const LaunchConfig& launch = {});
    // Warm-ups then repeats of one request; the result is the median run's (its output: the last run's).
    // Nothing when a newer request or dropPending() came meanwhile: its result would be outdated.
    std::optional<RunResult> runRepeated(const RunRequest& request, std::vector<double>& totalsMs);
    bool superseded() const;
    bool stopsInFlight(const RunRequest& next) const;  // mutex_ held
    void runPipeline(const RunRequest& request, RunOutcome& outcome);

    std::vector<std::unique_ptr<Backend>> backends_;
    QThreadPool pool_;
    mutable std::mutex mutex_;
    std::optional<RunRequest> pending_;
    quint64 pendingGeneration_ = 0;
    bool working_ = false;
    bool dropped_ = false;  // dropPending() since the request in flight was taken
    std::atomic<quint64> generation_{0};
    // The request in flight (mutex_): its stop switch, and what a newer request is compared with.
    std::shared_ptr<RunControl> control_;
    std::shared_ptr<const Image> inFlightInput_;
    QString inFlightKey_;  // "cpu/reference", "pipeline:cpu/parallel"
    bool inFlightTimed_ = false;
    std::chrono::steady_clock::time_point inFlightSince_, busySince_;
    std::atomic<HostMemory> gpuHost_{HostMemory::Pageable};
    // Worker thread only: the pinned copy of the last image a GPU run read.
    std::shared_ptr<const Image> pinnedSource_;
    HostInput pinned_;
};

}  // namespace fs::ui

Q_DECLARE_METATYPE(std::shared_ptr<const fs::ui::RunOutcome>)
