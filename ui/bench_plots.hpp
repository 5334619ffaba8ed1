#pragma once
// The benchmark presets' two plots (time vs size, log-log; speed-up vs size),
// drawn with QCustomPlot into the Benchmark dialog and into PNG files for
// `filterstudio-cli bench --plots`. Readable at the dialog's default size:
// the legend beside the plot, one colour per contender, one line style per
// mask (or batch shape), ticks at the tested sizes.
#include <QString>
#include <string>
#include <vector>

#include "bench_presets.hpp"

class QCustomPlot;

namespace fs::ui {

void drawTimePlot(QCustomPlot& plot, const std::vector<bench::BenchRecord>& records);
void drawSpeedupPlot(QCustomPlot& plot, const std::vector<bench::BenchRecord>& records, const std::string& baseline);

// Writes DIR/PRESET-time.png and DIR/PRESET-speedup.png (replacing them),
// drawing offscreen; makes a QApplication on the offscreen platform when the
// process has none. Each is titled with benchPlotHeading. False with `error`
// set when a file cannot be written.
bool writeBenchPlots(const std::vector<bench::BenchRecord>& records, const std::string& preset,
                     const std::string& baseline, const std::string& dir, std::vector<std::string>& written,
                     std::string& error, const std::string& title = {});
// "course-table1: TITLE" over "MACHINE, DATE": the preset and what it rebuilds, the CPU and devices the
// records ran on, and today's date.
QString benchPlotHeading(const std::vector<bench::BenchRecord>& records, const std::string& preset,
                         const std::string& title);

}  // namespace fs::ui
