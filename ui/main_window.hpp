#pragma once
#include <QMainWindow>
#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "display_mapping.hpp"
#include "filter_runner.hpp"
#include "preview_frames.hpp"
#include "fs/backend.hpp"

class QAction;
class QActionGroup;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QMenu;
class QSlider;
class QSplitter;
class QToolBar;
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

namespace fs::ui {

class LaunchController;

using BackendFactory = std::function<std::vector<std::unique_ptr<Backend>>()>;
// Shows an error to the user; tests replace it so nothing blocks.
using ErrorReporter = std::function<void(const QString& title, const QString& message)>;
// Asks a yes/no question whose yes is `acceptText` ("Overwrite", "Run on CPU instead");
// true means accepted. Tests replace it so nothing blocks.
using Confirmer = std::function<bool(const QString& title, const QString& question, const QString& acceptText)>;

// Thin: builds the widgets, wires their signals, and hands runs to the
// FilterRunner. Everything long runs off the GUI thread.
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

    bool sweeping() const { return sweepTotal_ > 0; }  // runEveryMode() has modes left or in flight
    std::shared_ptr<const RunOutcome> lastOutcome() const { return lastOutcome_; }
    std::shared_ptr<const Image> input() const { return input_; }
    widgets::ImageView* imageView() const { return view_; }
    widgets::KernelEditor* kernelEditor() const { return editor_; }
    widgets::TimingChart* timingChart() const { return chart_; }
    widgets::BackendChooser* backendChooser() const { return chooser_; }
    widgets::PixelInspector* pixelInspector() const { return inspector_; }
    widgets::PipelineEditor* pipelineEditor() const { return pipelineEditor_; }
    widgets::LaunchPanel* launchPanel() const { return launchPanel_; }
    LaunchController* launchController() const { return launch_; }
    widgets::SpeedStrip* speedStrip() const { return strip_; }
    QToolBar* viewBar() const { return viewBar_; }
    bool presentation() const { return presentation_; }
    // Below this window height the default layout puts the timings in the right column, not under the image.
    static constexpr int kTimingsBelowMinHeight = 860;
    FilterRunner* runner() const { return runner_; }
    // The live preview (CUDA-GL interop builds): whether the shown image is kept
    // on the GPU, and the newest whole frame (kernel, map, texture and draw).
    bool inputOnDevice() const;
    const TimingRecord& lastPreviewFrame() const { return lastFrame_; }
    // The filter as the window runs it: the designer's kernels with the output controls' settings.
    FilterSpec currentSpec() const;
    // The display mapping set in the output controls (|v| and scale).
    DisplayMapping displayMapping() const;
    // Sets the output controls' |v| and scale as one undoable step of the kernel designer's undo stack.
    void setDisplayMapping(const DisplayMapping& mapping, const QString& why);

public slots:
    void runNow();
    void cancelOpening();  // the open in progress returns false and changes nothing
    void openDialog();
    void saveDialog(bool eightBit = false);
    void showBenchmark();
    void showBatch();
    // Times every available mode on the current filter and image, one after the other on the
    // runner's thread: each after one untimed warm-up, the median of the chart's repeat count.
    // The selected mode runs last, so the view ends on it.
    void runEveryMode();
    // Runs the pipeline editor's pipeline on the current image with the chosen backend and mode.
    void runPipeline();
    // The Presentation layout (View menu, F11): the image and a large timing strip, no docks. Off puts
    // back the layout it replaced.
    void setPresentation(bool on);
    // Every dock where it starts, sized for the window's current size.
    void applyDefaultLayout();

signals:
    void resultShown(quint64 generation);
    void openingCancelled();
    void runFailed(const QString& message);

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void buildActions();
    QWidget* buildOutputControls();
    void scheduleRun();
    void updateLaunchContext();
    quint64 submit(const QString& key, bool withCompare, int repeats = 1, int warmups = 0);
    void onOutcome(const std::shared_ptr<const RunOutcome>& outcome);
    bool runThroughInterop(const FilterSpec& spec);
    void onPreviewFrameShown(double textureMs, double drawMs);
    void keepInputOnDevice();  // uploads the input once in the background (CUDA-GL interop builds)
    bool ensureHostResult();
    void prepareInput();
    void addRecent(const QString& path);
    void onPresetApplied(const FilterSpec& spec);
    void showDisplayMapping(const DisplayMapping& mapping);  // controls and the view's note; no undo step
    void refreshMappingNote();
    void rebuildRecentMenu();
    void openSample(const QString& resource);
    void showPipelineOutcome(const std::shared_ptr<const RunOutcome>& outcome);
    void inspectPixel(QPoint pixel);
    void error(const QString& title, const QString& message);
    void offerCpuInstead(const QString& message);
    QString imageLabel() const;
    void recordRun(const TimingRecord& timing, const FilterSpec& spec, int repeats, int warmups);
    void endSweep();
    void continueSweep();

    BackendFactory factory_;
    FilterRunner* runner_;
    ErrorReporter reportError_;
    Confirmer confirm_;
    std::shared_ptr<const Image> loaded_;  // as read from the file
    std::shared_ptr<const Image> input_;   // after channel handling: what the filter sees
    QString currentPath_;
    std::shared_ptr<const RunOutcome> lastOutcome_;
    quint64 shownGeneration_ = 0;
    QPoint inspectedPixel_{-1, -1};
    QStringList modeQueue_;  // runEveryMode() work still to do
    int sweepTotal_ = 0;     // modes in the running sweep; 0 when none
    int sweepRepeats_ = 1;
    quint64 sweepGeneration_ = 0;  // the sweep's run in flight: an older run's result must not advance it
    QString lastRunError_;  // the last run failure shown in a dialog
    quint64 imageSerial_ = 0;  // counts inputs: times of two inputs never compare
    struct Interop;  // CUDA-GL state; exists only in builds with interop, same layout for all
    std::unique_ptr<Interop> interop_;

    widgets::ImageView* view_;
    widgets::KernelEditor* editor_;
    widgets::TimingChart* chart_;
    widgets::BackendChooser* chooser_;
    widgets::PixelInspector* inspector_;
    widgets::PipelineEditor* pipelineEditor_;
    widgets::LaunchPanel* launchPanel_;
    LaunchController* launch_;
    quint64 pipelineGeneration_ = 0;  // the pipeline run in flight, 0 when none
    QComboBox* borderCombo_;
    QDoubleSpinBox* borderValueSpin_;
    QCheckBox* absCheck_;
    QLabel* mappingNote_;  // says when the studio chose |v| and the scale
    QDoubleSpinBox* scaleSpin_;
    QCheckBox* floatCheck_;
    QCheckBox* filterAlphaCheck_;
    QComboBox* channelsCombo_;
    QCheckBox* liveCheck_;
    QSlider* splitSlider_;
    QToolBar* viewBar_;
    QSplitter* centreSplit_;
    widgets::SpeedStrip* strip_;
    QAction* presentationAction_;
    bool presentation_ = false;
    QByteArray workingState_;  // the dock layout the presentation replaced
    static constexpr int kLayoutVersion = 2;  // saved layouts of other versions are not restored
    QActionGroup* viewModes_;
    QMenu* recentMenu_;
    QLabel* imageInfo_;
    QLabel* runInfo_;
    QLabel* pixelInfo_;
    QLabel* frameInfo_;  // live preview: frames per second and the last frame's time
    QTimer* runTimer_;
    PreviewFrameMeter frames_;
    FilterSpec frameSpec_;      // what the frame being drawn filtered
    TimingRecord lastFrame_;    // the newest whole frame, charted at most a few times a second
    QTimer* frameChartTimer_;
    bool opening_ = false;  // an image is being decoded
    // The mapping a zero-sum preset chose, and what was set before it: a later preset that is not zero-sum
    // puts the earlier mapping back while the chosen one is still in place.
    std::optional<DisplayMapping> autoMapping_;
    DisplayMapping mappingBeforeAuto_;
};

}  // namespace fs::ui
