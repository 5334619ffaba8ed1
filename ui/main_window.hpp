#pragma once
#include <QMainWindow>
#include <QPointer>
#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "display_mapping.hpp"
#include "document.hpp"
#include "filter_runner.hpp"
#include "window_layout.hpp"
#include "fs/backend.hpp"

class QLabel;
class QToolBar;
class QSplitter;
class QTimer;

namespace fs::widgets {
class BackendChooser;
class ImageView;
class KernelEditor;
class LaunchPanel;
class PipelineEditor;
class PixelInspector;
class SpeedStrip;
class TimingChart;
}  // namespace fs::widgets

namespace fs::services {
class PreviewService;
class SweepController;
}  // namespace fs::services

namespace fs::ui {

class BatchDialog;
class BenchmarkDialog;
class ImageOpener;
class LaunchController;
class LivePreview;
class RunStatus;
class OutputControls;
class VideoController;
class ViewBar;

using BackendFactory = std::function<std::vector<std::unique_ptr<Backend>>()>;
// Shows an error to the user; tests replace it so nothing blocks.
using ErrorReporter = std::function<void(const QString& title, const QString& message)>;
// Asks a yes/no question whose yes is `acceptText` ("Overwrite", "Run on CPU instead");
// true means accepted. Tests replace it so nothing blocks.
using Confirmer = std::function<bool(const QString& title, const QString& question, const QString& acceptText)>;

// Thin: builds the widgets, wires their signals, and hands the work to the
// FilterRunner (filter runs), the SweepController (every mode), the
// PreviewService (the live preview on the GPU) and the WindowLayout (docks);
// the Document holds the image and the result. Everything long runs off the
// GUI thread.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(BackendFactory factory, QWidget* parent = nullptr);
    ~MainWindow() override;

    void setErrorReporter(ErrorReporter reporter) { reportError_ = std::move(reporter); }
    void setConfirmer(Confirmer confirmer) { confirm_ = std::move(confirmer); }

    // Decodes off the GUI thread; a slow file shows a progress dialog whose Cancel keeps the current image.
    // Reports failures through the error reporter.
    bool openImage(const QString& path);
    bool saveResult(const QString& path, bool eightBit);
    bool selectMode(const QString& key);  // "cpu/parallel" or just "parallel"
    void copyResultToClipboard();

    bool sweeping() const;  // runEveryMode() has modes left or in flight
    std::shared_ptr<const RunOutcome> lastOutcome() const { return doc_.outcome(); }
    std::shared_ptr<const Image> input() const { return doc_.input(); }
    widgets::ImageView* imageView() const { return view_; }
    widgets::KernelEditor* kernelEditor() const { return editor_; }
    widgets::TimingChart* timingChart() const { return chart_; }
    widgets::BackendChooser* backendChooser() const { return chooser_; }
    widgets::PixelInspector* pixelInspector() const { return inspector_; }
    widgets::PipelineEditor* pipelineEditor() const { return pipelineEditor_; }
    widgets::LaunchPanel* launchPanel() const { return launchPanel_; }
    LaunchController* launchController() const { return launch_; }
    widgets::SpeedStrip* speedStrip() const { return strip_; }
    QToolBar* viewBar() const;
    bool presentation() const { return layout_->presentation(); }
    // Below this window height the default layout puts the timings in the right column, not under the image.
    static constexpr int kTimingsBelowMinHeight = WindowLayout::kTimingsBelowMinHeight;
    FilterRunner* runner() const { return runner_; }
    // Video files and cameras: the transport, the race view and the frames through the filter.
    VideoController* video() const { return video_; }
    void setImageInfo(const QString& text);  // the status bar's line about what is shown
    // The live preview (CUDA-GL interop builds): whether the shown image is kept
    // on the GPU, and the newest whole frame (kernel, map, texture and draw).
    bool inputOnDevice() const;
    const TimingRecord& lastPreviewFrame() const;
    // The filter as the window runs it: the designer's kernels with the output controls' settings.
    FilterSpec currentSpec() const;
    // The display mapping set in the output controls (|v| and scale).
    DisplayMapping displayMapping() const;
    // Sets the output controls' |v| and scale as one undoable step of the kernel designer's undo stack.
    void setDisplayMapping(const DisplayMapping& mapping, const QString& why);

public slots:
    void runNow();
    // A timed run of the current mode on the host path, its bar added to Timings,
    // even where runNow() would show a live frame: what a lesson compares.
    void runMeasured();
    void cancelOpening();  // the open in progress returns false and changes nothing
    void openDialog();
    void openSample(const QString& resource);  // ":/samples/fruits.jpg"
    void showError(const QString& title, const QString& message);  // status bar and the error reporter
    // Tunes the Launch panel's configuration for the current filter; without a GPU to tune, says why.
    void autotune();
    // Stops whatever runs (Escape, the status bar's Cancel): the filter run or "every mode", the pipeline,
    // a tuning, and the Benchmark and Batch dialogs' runs. The view keeps the last result it had.
    void cancelRun();
    // A mode asked for (the command line's --mode) that cannot run here: named in the status bar for good,
    // and once in a notice, with the reason and the mode running instead.
    void noteUnavailableMode(const QString& key);
    void saveDialog(bool eightBit = false);
    void showBenchmark();
    void showBatch();
    // Times every available mode on the current filter and image, one after the other on the
    // runner's thread: each after one untimed warm-up, the median of the chart's repeat count.
    // The selected mode runs last, so the view ends on it.
    void runEveryMode();
    // Runs the pipeline editor's pipeline on the current image with the chosen backend and mode.
    void runPipeline();
    // While a video is open: closes it at the frame shown and makes that frame the image, as Save,
    // Copy, Run every mode and Run pipeline do first. False when no frame has been shown.
    bool stillFromVideo();
    // The Presentation layout (View menu, F11): the image and a large timing strip, no docks. Off puts
    // back the layout it replaced.
    void setPresentation(bool on);
    // Every dock where it starts, sized for the window's current size.
    void applyDefaultLayout() { layout_->applyDefault(); }

signals:
    void resultShown(quint64 generation);
    void openingCancelled();
    void runFailed(const QString& message);

protected:
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    QWidget* buildCentre();
    void buildStatusBar();
    void wire();
    void restoreSettings();
    void scheduleRun();
    void updateLaunchContext();
    quint64 submit(const QString& key, bool withCompare, int repeats = 1, int warmups = 0);
    void run(bool livePreviewAllowed);
    void onOutcome(const std::shared_ptr<const RunOutcome>& outcome);
    void onRunFailed(const RunOutcome& outcome);
    void showOutcome(const std::shared_ptr<const RunOutcome>& outcome);
    bool runThroughPreview(const FilterSpec& spec);
    bool ensureHostResult();
    bool onStill();  // not in a video, or its frame on screen taken as the image
    void prepareInput();
    void showPipelineOutcome(const std::shared_ptr<const RunOutcome>& outcome);
    void pipelineStopped();
    void inspectPixel(QPoint pixel);
    void offerCpuInstead(const QString& backendId, const QString& message);
    QString imageLabel() const;
    void recordRun(const TimingRecord& timing, const FilterSpec& spec, int repeats, int warmups);

    BackendFactory factory_;
    FilterRunner* runner_;
    ErrorReporter reportError_;
    Confirmer confirm_;
    services::Document doc_;
    LivePreview* live_;
    services::SweepController* sweep_;
    VideoController* video_;
    quint64 shownGeneration_ = 0;
    QPoint inspectedPixel_{-1, -1};
    QString lastRunError_;  // the last run failure shown in a dialog
    quint64 pipelineGeneration_ = 0;  // the pipeline run in flight, 0 when none

    widgets::ImageView* view_;
    widgets::KernelEditor* editor_;
    widgets::TimingChart* chart_;
    widgets::BackendChooser* chooser_;
    widgets::PixelInspector* inspector_;
    widgets::PipelineEditor* pipelineEditor_;
    widgets::LaunchPanel* launchPanel_;
    widgets::SpeedStrip* strip_;
    LaunchController* launch_;
    OutputControls* output_;
    ViewBar* viewBar_;
    QSplitter* centreSplit_;
    WindowLayout* layout_;
    ImageOpener* opener_;
    RunStatus* runStatus_;
    QPointer<BenchmarkDialog> benchmark_;
    QPointer<BatchDialog> batch_;
    QLabel* imageInfo_;
    QLabel* runInfo_;
    QLabel* pixelInfo_;
    QTimer* runTimer_;
};

}  // namespace fs::ui
