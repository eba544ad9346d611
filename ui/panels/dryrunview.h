// DryRunView is a gateway's config on the open traffic log, in the Traffic panel:
// each rule of the config with the requests it met, denied and the keys it denied, and, with a
// proposed config beside the current one, what changes between them. Core decides
// (core/replay/dry_run.h, dry_run_diff.h) off the GUI thread; the view only shows.
#pragma once

#include "replay/dry_run.h"
#include "replay/dry_run_diff.h"
#include "replay/dry_run_report.h"
#include "traffic/traffic_log.h"

#include <QFutureWatcher>
#include <QWidget>

#include <memory>
#include <optional>

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
    void setTraffic(std::shared_ptr<const Traffic> traffic, const std::string& key = "ip", const QString& log = {});
    // run reads `config` (and `against`, a proposed config, unless empty) and shows what each
    // would deny on the log; a refusal is shown in the view. It reports whether both were read.
    bool run(const QString& config, const QString& against = {});
    // runText runs a config written for this run (the Advise view's), named `name`, as run does a
    // file's; asked while a run is in progress, it runs once that one is shown (the last asked).
    bool runText(const QString& name, const QByteArray& config);
    // waitForResult returns once a run in progress is shown (tests).
    void waitForResult();

    QTableWidget* rules() const { return m_rules; }
    QString summary() const;
    // report is the run shown, for File > Export dry run as web page; none before a run, after a
    // refusal, or when no rule could be replayed (finished() says when it changes).
    const DryRunReport* report() const { return m_report ? &*m_report : nullptr; }

signals:
    void finished(); // a run's result (or refusal) is shown

private:
    // Source is a config: a file (path), or text written for the run, with its name.
    struct Source {
        QString path;
        QString name;
        QByteArray text;
        QString fileName() const;
    };
    struct Result {
        QString error;
        std::shared_ptr<const DryRunConfig> current, proposed;
        DryRunResult a, b;
        std::optional<DryRunDiff> diff; // with a proposed config
        QString summary;
        int generation = 0; // the log it ran on (m_generation then)
    };
    bool start(const Source& current, const std::optional<Source>& proposed);
    std::shared_ptr<const DryRunConfig> read(const Source& source) const;
    void keepReport(Result r);
    void chooseAndRun(bool against);
    void show(Result r);
    // refusedText is why a side replayed no rule (empty: both replayed some), as the command
    // line refuses it.
    QString refusedText(const Result& r) const;
    // summaryText is the run's summary: what was not replayed first, then the counts and notes.
    QString summaryText(const Result& r) const;
    // addRules adds a row per rule of one side, its name after `side`.
    void addRules(const DryRunConfig& config, const DryRunResult& result, const QString& side);

    QLabel* m_summary;
    QTableWidget* m_rules;
    QPushButton* m_config;
    QPushButton* m_against;
    std::shared_ptr<const Traffic> m_traffic;
    std::string m_key;
    std::optional<Source> m_current; // the config last run, which "Against" compares with
    std::optional<Source> m_proposed; // the proposed config last run beside it, or none
    QString m_log;     // the log's name, as the report names it
    std::optional<DryRunReport> m_report;
    std::optional<Source> m_next; // the text runText was asked to run while a run was in progress
    int m_generation = 0; // counts the logs set: a run finishing after the next log is set is dropped
    QFutureWatcher<Result> m_watcher;
};

} // namespace ratelab::ui
