// AdviseView chooses a limit from the open traffic log for a gateway, in a window of the Traffic
// panel's (File > Advise a Limit from the Log), as `ratelab advise` does. For a gateway of a rate
// and a burst (nginx, Envoy, Traefik, Spring Cloud Gateway): the front (for each burst, the lowest
// round rate at which every request of the kept keys passes); for one of a count in a window
// (Kong, express-rate-limit, Cloudflare, AWS WAF, @upstash/ratelimit): each offered window's least
// limit. Either as a table and a chart of what each point denies the other keys, the
// recommendation marked, and the chosen point's config in the product's own syntax, to copy, to
// dry run on the log or to show in the rows. Core decides (core/advise/burst_gateway.h,
// window_gateway.h) off the GUI thread; the view only shows.
#pragma once

#include "advise/burst_gateway.h"
#include "advise/window_gateway.h"
#include "traffic/traffic_log.h"

#include <QFutureWatcher>
#include <QWidget>

#include <memory>
#include <optional>

class QChartView;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QScatterSeries;
class QTableWidget;

namespace ratelab::ui {

class AdviseView : public QWidget {
    Q_OBJECT
public:
    explicit AdviseView(QWidget* parent = nullptr);
    ~AdviseView() override;

    // setTraffic is the log the advice is made on, read by `key`, or none.
    void setTraffic(std::shared_ptr<const Traffic> traffic, const std::string& key = "ip");
    // advise starts the advice for the gateway chosen (a product `advise --for` names) keeping
    // `keepPercent` % of the keys, and the keys whose whole name matches `pass` (an RE2 pattern,
    // `advise --pass`) when it is not empty, capping one key at `cap` (N/T, `advise --cap`) when it
    // is not empty; false when there is no log or a run is in progress.
    // `origin` (N/T, `advise --origin`), when not empty, is the most that may reach the origin in
    // any window of the log.
    bool advise(const QString& product, double keepPercent, const QString& pass = {}, const QString& cap = {},
                const QString& letByPath = {}, const QString& origin = {});
    // waitForResult returns once a run in progress is shown (tests).
    void waitForResult();
    // choose shows the front's row `row`: its config, marked on the chart.
    void choose(int row);
    // showInRows asks for the chosen limit's rows over the requests of the key it denies most
    // (BurstGatewayAdvice::shownKey); false when no limit is chosen.
    bool showInRows();

    QTableWidget* front() const { return m_front; }
    QChartView* chart() const { return m_chart; }
    QString summary() const;
    QString configText() const;
    int chosen() const { return m_chosen; }

signals:
    void finished(); // a run's result (or refusal) is shown
    // dryRunRequested asks the Traffic panel's dry run to run this config on the log.
    void dryRunRequested(const QString& name, const QByteArray& config);
    // rowsRequested asks for this config's rows over the requests of the log's key `key` (-1: the
    // whole log), under `title`.
    // letByProduct is the gateway whose config lets by letByPath, as it reads a path ("nginx").
    void rowsRequested(const QString& title, const QByteArray& config, qint64 key, const QString& letByPath,
                       const QString& letByProduct);

protected:
    void changeEvent(QEvent* event) override; // a theme's palette: the chart follows it

private:
    struct Result {
        QString error;
        std::shared_ptr<const BurstGatewayAdvice> advice;
        std::shared_ptr<const WindowGatewayAdvice> windows; // a window gateway's, in place of advice
        QString product; // as the combo names it
        QString pass;    // the pattern of the keys that must pass, or empty
        QString letBy;   // the path pattern of the requests let by, or empty
        QString gateway; // the product id the advice is for ("traefik"): how its config reads a path
        QString letByMost; // the log key that sends most of those, or empty
        std::optional<WindowCap> cap; // the cap the advice met
        std::optional<WindowCap> origin; // the origin's goal it met
        int generation = 0; // the log it ran on (m_generation then)
    };
    // describeParts gives each part its values, words and names (the gateways, the keep box, ...).
    void describeParts();
    void describeGoals();
    void describeResults();
    // connectParts makes the buttons, boxes, table and the background advice work.
    void connectParts();
    void layOutParts();
    void showGatewayParts();
    void adviseWindows(const QString& product, const QString& name, double keepPercent, const QString& pass,
                       const QString& cap, const QString& origin, const QString& letByPath);
    void showResult(Result r);
    // fillFront lists the front's points (or the windows) in the table, the recommended row named so.
    void fillFront(int recommended);
    void fillWindows(int recommended);
    void showChart();
    // rowCount is how many points the table lists; pointValue is row's height on the chart: the
    // other keys' requests it denies, or for one bucket of every request the burst it needs.
    int rowCount() const;
    double pointValue(int row) const;
    QString summaryText() const;
    QString windowsSummaryText() const;
    QString matchingText(const KeptKeys& a) const; // the keys kept by the pattern besides the share
    QString letByText(const KeptKeys& a) const;    // the requests let by, and who sends most of them

    QComboBox* m_gateway;
    QDoubleSpinBox* m_keep;
    QLineEdit* m_pass;
    QLineEdit* m_letBy; // nginx: the path whose requests the config lets by uncounted
    QLineEdit* m_cap;
    QLineEdit* m_origin; // the most that may reach the origin in any window of the log
    QPushButton* m_advise;
    QLabel* m_summary;
    QTableWidget* m_front;
    QChartView* m_chart;
    QPlainTextEdit* m_config;
    QPushButton* m_copy;
    QPushButton* m_dryRun;
    QPushButton* m_rows;
    QLabel* m_keepLabel;
    QLabel* m_keysLabel;
    QLabel* m_capLabel;
    QLabel* m_originLabel;
    QLabel* m_letByLabel;
    std::shared_ptr<const Traffic> m_traffic;
    std::string m_key = "ip";
    std::shared_ptr<const BurstGatewayAdvice> m_advice;
    std::shared_ptr<const WindowGatewayAdvice> m_windows; // a window gateway's advice, in place of m_advice
    QString m_product;
    QString m_passUsed; // the pattern the shown advice kept keys by
    QString m_letByUsed; // the path pattern the shown advice let requests by
    QString m_gatewayUsed; // the product id of the shown advice
    QString m_letByMost; // the key that sends most of them
    std::optional<WindowCap> m_capUsed; // the cap the shown advice met
    std::optional<WindowCap> m_originUsed; // the origin's goal it met
    int m_chosen = -1;
    int m_generation = 0; // counts the logs set: advice finishing after the next log is set is dropped
    QScatterSeries* m_shown = nullptr; // the chart's mark of the shown point, owned by the chart
    QFutureWatcher<Result> m_watcher;
};

} // namespace ratelab::ui
