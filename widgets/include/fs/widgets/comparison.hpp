#pragma once
#include <QString>
#include <QVector>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"
#include "fs/timing.hpp"

namespace fs::widgets {

// "512x480 3ch u8": an image's shape as the chart writes it.
QString shapeLabel(int width, int height, int channels, Depth depth);

// What a run computed: the filter (kernels, combine, output mapping), its border and the input image.
// Times compare only between runs with equal keys, so a speed-up never divides one filter's time by another's.
struct ComparisonKey {
    QString filterFingerprint;  // hash of kernels, combine and output mapping
    QString filterName;         // "gaussian:15 (15x15)"
    QString borderName;         // "reflect101", "constant 0"
    QString imageId;            // identity of the input: another image, even of the same size, is another key
    QString imageName;          // "fruits.jpg"; shown only
    int width = 0;
    int height = 0;
    int channels = 0;
    Depth depth = Depth::U8;
    // Weights read per output pixel: every kernel as a 2-D loop (k² for a k x k kernel), and the same with
    // each rank-1 kernel split into a column pass and a row pass (2k). Equal when nothing splits.
    int denseTaps = 0;
    int separableTaps = 0;

    static ComparisonKey of(const FilterSpec& spec, int width, int height, int channels, Depth depth,
                            const QString& imageId, const QString& imageName);
    QString imageLabel() const;  // "512x480 3ch u8"
    QString title() const;       // "gaussian:15 (15x15) on fruits.jpg 512x480 3ch u8, border reflect101"
    // Names are shown only: equal fingerprints, borders, image identities and shapes make equal keys.
    bool operator==(const ComparisonKey& o) const;
    bool operator!=(const ComparisonKey& o) const { return !(*this == o); }
};

// A mode's role, taken from its ModeInfo flags, never from its name.
struct ModeRole {
    bool isReference = false;  // the single-thread reference
    bool isDefault = false;    // its backend's default mode
    bool onCpu = false;        // a mode of the backend that holds the reference: a "fastest CPU" candidate
};

// One bar: a mode's time for one key. A median of several runs keeps the breakdown of the median run.
struct Measurement {
    QString mode;  // "cpu/parallel", "cuda/tiled [16x16 / 2x2]": a bar per value
    ComparisonKey key;
    TimingRecord timing;
    ModeRole role;
    int repeats = 1;  // timed runs the median was taken of
    int warmups = 0;  // untimed runs before them
    double totalMs() const;     // the run's wall clock, else the sum of its parts
    double transferMs() const;  // upload + download + interop map; 0 when none
};

// A speed-up over the single-thread reference taken apart into what gave it, so a class sees how much came
// from the algorithm and how much from the hardware: total = algorithm x cpu x gpu, each factor 1 when absent.
// - algorithm: dense taps / separable taps. Every CPU mode but the reference splits rank-1 kernels (cpu/src:
//   parallel, opencv-exact, opencv-native), so this is the gain of running fewer taps, not of any hardware.
// - cpu: the rest of the fastest CPU mode's gain: its threads and SIMD.
// - gpu: a GPU mode's time against that fastest CPU mode.
struct SpeedupStory {
    QString mode;
    double total = 1.0;
    double algorithm = 1.0;
    double cpu = 1.0;
    double gpu = 1.0;
    QString cpuMode;   // the fastest CPU mode the gpu factor is taken against (GPU modes)
    int denseTaps = 0;
    int separableTaps = 0;
    // "×113 = ×7.5 separable (30 taps, not 225) × ×15 threads and SIMD"
    QString text() const;
};

struct ComparisonGroup {
    int id = 0;  // 1, 2, ... in order of creation
    ComparisonKey key;
    QVector<Measurement> bars;  // in order of first measurement; a mode measured again replaces its bar
    int indexOf(const QString& mode) const;
};

// A ratio of two times: how many times faster `mode` ran than `baselineMode`.
struct Speedup {
    enum class Baseline { Reference, FastestCpu };
    Baseline baseline = Baseline::Reference;
    QString mode;
    ComparisonKey key;
    double ms = 0.0;
    QString baselineMode;
    ComparisonKey baselineKey;
    double baselineMs = 0.0;
    double value = 0.0;  // baselineMs / ms
};

// Every measured bar, grouped by what ran. Qt widgets only draw it.
class ComparisonBoard {
public:
    explicit ComparisonBoard(int maxGroups = 32);

    // Puts `m` into the group of `key` (made when new) and makes that group current; returns its id.
    // Going back to a filter and image measured earlier joins their group again.
    int add(const ComparisonKey& key, Measurement m);
    void clear();

    const QVector<ComparisonGroup>& groups() const { return groups_; }
    const ComparisonGroup* group(int id) const;
    const ComparisonGroup* current() const { return group(currentId_); }
    int currentId() const { return currentId_; }

    // The baselines of a group; null when not measured in it.
    static const Measurement* reference(const ComparisonGroup& g);
    static const Measurement* fastestCpu(const ComparisonGroup& g);
    // Every bar of the group against each baseline measured in the same group.
    static QVector<Speedup> speedups(const ComparisonGroup& g);
    // The reference's gain taken apart (SpeedupStory) for the fastest CPU mode, then the fastest other
    // mode when it beat it; empty without a reference or a faster mode.
    static QVector<SpeedupStory> stories(const ComparisonGroup& g);
    // "1 cold run", "1 run", "median of 5": how a bar was measured.
    static QString runsLabel(const Measurement& m);
    // Empty when every bar was measured alike; else a sentence saying that they were not.
    static QString mixedRunsNote(const ComparisonGroup& g);

private:
    QVector<ComparisonGroup> groups_;
    int maxGroups_;
    int nextId_ = 1;
    int currentId_ = 0;
};

}  // namespace fs::widgets
