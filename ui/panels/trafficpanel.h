// TrafficPanel: a real access log in the app. It reads a log (in the background, with
// progress and cancel), lists its busiest keys with their denials under the document's policy
// (every key its own limiter), shows one key's traffic in the rows as explicit arrivals when it
// is clicked, and sweeps the limit over the log: clicking a point of the chart sets that limit in
// the document (one undo step). The log itself never enters the document.
#pragma once

#include "replay/sweep.h"
#include "traffic/traffic_log.h"

#include <QFutureWatcher>
#include <QWidget>

#include <atomic>
#include <memory>

class QChartView;
class QLabel;
class QProgressBar;
class QPushButton;
class QDialog;
class QTableWidget;

namespace ratelab::ui {

class AdviseView;
class DryRunView;
class ScenarioDocument;

class TrafficPanel : public QWidget {
    Q_OBJECT
public:
    static constexpr int kSweepPoints = 20;
    static constexpr int kKeysShown = 50;

    explicit TrafficPanel(ScenarioDocument* document, QWidget* parent = nullptr);
    ~TrafficPanel() override;

    // chooseLog asks for a file and opens it.
    void chooseLog();
    // openLog reads the log (progress and cancel shown) and returns whether it was read; a
    // refusal is shown in the panel's status line.
    bool openLog(const QString& path);
    // setTraffic shows traffic already read (tests, the examples).
    void setTraffic(std::shared_ptr<const Traffic> traffic, const QString& name);

    // showKey puts the key in row `row` of the table into the document as explicit arrivals.
    bool showKey(int row);
    // showLimit replaces the document with a config's model (as File > Import reads it) over the
    // requests of the log's key `key` (-1: every request), titled `title`: an advised limit's
    // rows over the log (one undo step). What the import or the rows refuse is the document's
    // refused(), and false. letByPath, when given, leaves out the requests the config lets by
    // (advise --pass-path), as letByProduct's config reads a path: the rows are those the limit counts.
    bool showLimit(const QString& title, const QByteArray& config, qint64 key, const QString& letByPath = {},
                   const QString& letByProduct = QStringLiteral("nginx"));
    // pickLimit sets the sweep point nearest to `limit` in the document: limit L, capacity L and
    // rate L / window, as the sweep ran it (one undo step).
    bool pickLimit(double limit);

    QTableWidget* keysTable() const { return m_keys; }
    // dryRun is a gateway's config on the open log: rules, denials, and a proposed config's diff.
    DryRunView* dryRun() const { return m_dryRun; }
    AdviseView* adviseView() const { return m_advise; }
    // showAdvice opens the window that advises a limit from the log (AdviseView); its "Dry run
    // this limit" runs in this panel's dry run.
    void showAdvice();
    bool hasTraffic() const { return m_traffic != nullptr; }
    QString status() const;
    const SweepResult* sweep() const { return m_sweep.get(); }

signals:
    // sweepFinished is emitted when a sweep's result is shown.
    void sweepFinished();

protected:
    void changeEvent(QEvent* event) override; // a theme's palette: the chart follows it

private:
    // Requests are some of the log's, as explicit arrivals: their times and costs.
    struct Requests {
        std::vector<Nanos> times;
        std::vector<std::int64_t> costs;
    };
    // requestsOf are the requests of the log's key `key`, or every request for -1, at their time
    // since a whole `period` of the clock (a second, or a day); those `leftOut` marks (per request,
    // when not empty) are not.
    Requests requestsOf(qint64 key, const std::vector<std::uint8_t>& leftOut = {}, Nanos period = kNanosPerSecond) const;
    void refreshKeys();
    void startSweep();
    void cancelSweep();
    void showSweep();

    ScenarioDocument* m_document;
    QLabel* m_status;
    DryRunView* m_dryRun;
    AdviseView* m_advise;
    QDialog* m_adviceWindow = nullptr; // made on first showAdvice
    QTableWidget* m_keys;
    QChartView* m_chart;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    std::shared_ptr<const Traffic> m_traffic;
    std::vector<std::uint32_t> m_shownKeys; // the table's rows
    std::shared_ptr<const SweepResult> m_sweep;
    QFutureWatcher<std::shared_ptr<const SweepResult>> m_sweepWatcher;
    std::shared_ptr<std::atomic<bool>> m_sweepCancel;
    std::shared_ptr<std::atomic<int>> m_sweepDone;
    QString m_sweepKey; // what the shown sweep was run for (window, algorithms, nginx)
};

} // namespace ratelab::ui
