// DryRunView is a gateway's config on the open traffic log, in the Traffic panel:
// each rule of the config with the requests it met, denied and the keys it denied, and, with a
// proposed config beside the current one, what changes between them. Core decides
// (core/replay/dry_run.h, dry_run_diff.h) off the GUI thread; the view only shows.
#pragma once

#include "replay/dry_run.h"
#include "traffic/traffic_log.h"

#include <QFutureWatcher>
#include <QWidget>

#include <memory>

class QLabel;
class QPushButton;
class QTableWidget;

namespace ratelab::ui {

class DryRunView : public QWidget {
    Q_OBJECT
public:
    explicit DryRunView(QWidget* parent = nullptr);
    ~DryRunView() override;

    // setTraffic is the log the configs run on (it must hold paths), read by `key` (--key), or
    // none.
    void setTraffic(std::shared_ptr<const Traffic> traffic, const std::string& key = "ip");
    // run reads `config` (and `against`, a proposed config, unless empty) and shows what each
    // would deny on the log; a refusal is shown in the view. It reports whether both were read.
    bool run(const QString& config, const QString& against = {});
    // waitForResult returns once a run in progress is shown (tests).
    void waitForResult();

    QTableWidget* rules() const { return m_rules; }
    QString summary() const;

signals:
    void finished(); // a run's result (or refusal) is shown

private:
    struct Result {
        QString error;
        std::shared_ptr<const DryRunConfig> current, proposed;
        DryRunResult a, b;
        QString summary;
    };
    void chooseAndRun(bool against);
    void show(const Result& r);

    QLabel* m_summary;
    QTableWidget* m_rules;
    QPushButton* m_config;
    QPushButton* m_against;
    std::shared_ptr<const Traffic> m_traffic;
    std::string m_key;
    QString m_current; // the config last run, which "Against" compares with
    QFutureWatcher<Result> m_watcher;
};

} // namespace ratelab::ui
