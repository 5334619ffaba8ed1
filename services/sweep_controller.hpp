#pragma once
// "Run every mode": times each available mode once after the other, each after one untimed warm-up, the
// median of a repeat count, the chosen mode last so the view ends on it. The controller keeps the queue
// and says where it stands; the caller submits each run and reports the results it gets.
#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>

namespace fs::services {

class SweepController : public QObject {
    Q_OBJECT
public:
    // Submits one timed run of `key` ("cpu/parallel"); returns the run's generation.
    using Submit = std::function<quint64(const QString& key, int repeats, int warmups)>;

    explicit SweepController(Submit submit, QObject* parent = nullptr);

    // Every key of `available` except `current`, then `current`.
    void start(const QStringList& available, const QString& current, int repeats);
    // A result (or failure) of `generation` arrived: the next mode, or the end.
    void resultArrived(quint64 generation);
    void stop();  // forgets the modes left; says ended() when one was running
    bool running() const { return total_ > 0; }
    bool owns(quint64 generation) const { return running() && generation == generation_; }

signals:
    // `key` is being timed, the `done + 1`th of `total`.
    void timing(const QString& key, int done, int total, int repeats);
    void ended();

private:
    void next();

    Submit submit_;
    QStringList queue_;
    int total_ = 0;  // modes in the running sweep; 0 when none
    int repeats_ = 1;
    quint64 generation_ = 0;  // the run in flight: an older run's result must not advance the sweep
};

}  // namespace fs::services
