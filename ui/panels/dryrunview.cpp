#include "panels/dryrunview.h"

#include "config_dry_run.h"
#include "arithmetic/decimal.h"
#include "arithmetic/nanos.h"
#include "replay/dry_run_diff.h"
#include "traffic/traffic_warnings.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <utility>

namespace ratelab::ui {


namespace {

const char* const kConfigFilter = "Configurations (*.conf *.yaml *.yml *.toml *.json);;All files (*)";

} // namespace

DryRunView::DryRunView(QWidget* parent)
    : QWidget(parent)
    , m_summary(new QLabel)
    , m_rules(new QTableWidget(0, 5))
    , m_config(new QPushButton(tr("&Dry run a config\u2026")))
    , m_against(new QPushButton(tr("A&gainst a proposed one\u2026")))
{
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_config->setToolTip(tr("What a gateway's configuration (nginx, Traefik, Envoy, Kong, Spring, express-rate-limit, "
                            "a managed service or a RateLab scenario) would deny on this log, rule by rule"));
    m_against->setToolTip(tr("Compare a proposed configuration with the one run: the requests and keys only one denies"));
    m_rules->setHorizontalHeaderLabels({tr("Rule"), tr("Requests"), tr("Denied"), tr("Keys denied"), tr("Worst hour")});
    m_rules->verticalHeader()->hide();
    m_rules->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_rules->setAccessibleName(tr("Requests and denials by rule"));
    m_rules->setTabKeyNavigation(false); // Tab leaves the table (the arrows move in it)
    m_rules->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_rules->horizontalHeader()->setStretchLastSection(true);
    m_rules->hide();
    connect(m_config, &QPushButton::clicked, this, [this] { chooseAndRun(false); });
    connect(m_against, &QPushButton::clicked, this, [this] { chooseAndRun(true); });
    connect(&m_watcher, &QFutureWatcher<Result>::finished, this, [this] {
        Result r = m_watcher.result();
        if (r.generation == m_generation)
            show(std::move(r));
        if (std::optional<Source> next = std::exchange(m_next, std::nullopt))
            start(*next, std::nullopt);
    });
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_config);
    buttons->addWidget(m_against);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_summary);
    layout->addWidget(m_rules, 1);
    setTraffic(nullptr);
}

DryRunView::~DryRunView() { m_watcher.waitForFinished(); }

void DryRunView::setTraffic(std::shared_ptr<const Traffic> traffic, const std::string& key, const QString& log)
{
    m_watcher.waitForFinished();
    ++m_generation;
    m_next.reset();
    m_traffic = std::move(traffic);
    m_key = key;
    m_log = log;
    m_current.reset();
    m_report.reset();
    m_rules->hide();
    m_config->setEnabled(m_traffic != nullptr);
    m_against->setEnabled(false);
    m_summary->setText(m_traffic ? tr("Dry run a gateway's configuration on this log: who it would deny, rule by rule.")
                                 : QString());
}

void DryRunView::chooseAndRun(bool against)
{
    const QString folder = m_current && !m_current->path.isEmpty() ? QFileInfo(m_current->path).absolutePath() : QString();
    const QString path = QFileDialog::getOpenFileName(this, against ? tr("The proposed configuration") : tr("Dry run a configuration"),
                                                      folder, tr(kConfigFilter));
    if (path.isEmpty())
        return;
    if (against && m_current)
        start(*m_current, Source{path, {}, {}});
    else
        start(Source{path, {}, {}}, std::nullopt);
}

QString DryRunView::Source::fileName() const { return path.isEmpty() ? name : QFileInfo(path).fileName(); }

bool DryRunView::run(const QString& config, const QString& against)
{
    return start(Source{config, {}, {}}, against.isEmpty() ? std::nullopt : std::optional(Source{against, {}, {}}));
}

bool DryRunView::runText(const QString& name, const QByteArray& config)
{
    if (m_traffic && m_watcher.isRunning()) {
        m_next = Source{{}, name, config};
        m_summary->setText(tr("%1 runs once the run in progress is shown\u2026").arg(name));
        return true;
    }
    return start(Source{{}, name, config}, std::nullopt);
}

std::shared_ptr<const DryRunConfig> DryRunView::read(const Source& source) const
{
    if (!source.path.isEmpty())
        return std::make_shared<const DryRunConfig>(io::dryRunConfigFile(source.path, m_key));
    try {
        return std::make_shared<const DryRunConfig>(io::dryRunConfigText(source.text, m_key));
    } catch (const InputError& e) {
        throw InputError(source.name.toStdString() + ": " + e.what());
    }
}

bool DryRunView::start(const Source& current, const std::optional<Source>& proposed)
{
    if (!m_traffic || m_watcher.isRunning())
        return false;
    Result read;
    read.generation = m_generation;
    try {
        read.current = this->read(current);
        if (proposed)
            read.proposed = this->read(*proposed);
    } catch (const InputError& e) {
        read.error = QString::fromStdString(e.what());
        show(std::move(read));
        return false;
    }
    m_current = current;
    m_proposed = proposed;
    m_config->setEnabled(false);
    m_against->setEnabled(false);
    m_summary->setText(tr("Running %1 on the log\u2026").arg(current.fileName()));
    m_watcher.setFuture(QtConcurrent::run([traffic = m_traffic, read]() mutable {
        try {
            read.a = dryRun(*traffic, *read.current);
            if (read.proposed) {
                read.b = dryRun(*traffic, *read.proposed);
                read.diff = diffDryRuns(*traffic, *read.current, read.a, *read.proposed, read.b);
                read.summary = QString::fromStdString(diffSummary(*traffic, *read.diff));
            }
        } catch (const InputError& e) {
            read.error = QString::fromStdString(e.what());
        }
        return read;
    }));
    return true;
}

void DryRunView::waitForResult()
{
    if (m_watcher.isRunning() || !m_watcher.isFinished()) {
        m_watcher.waitForFinished();
        QCoreApplication::processEvents();
    }
}

QString DryRunView::summary() const { return m_summary->text(); }

void DryRunView::keepReport(Result r)
{
    DryRunReport report;
    report.log = m_log.toStdString();
    report.traffic = m_traffic;
    report.warnings = trafficWarnings(*m_traffic);
    report.current = {m_current->fileName().toStdString(), *r.current, std::move(r.a)};
    if (r.proposed) {
        report.proposed = DryRunSide{m_proposed->fileName().toStdString(), *r.proposed, std::move(r.b)};
        report.diff = std::move(r.diff);
    }
    m_report = std::move(report);
}

QString DryRunView::refusedText(const Result& r) const
{
    const QString current = m_current ? m_current->fileName() : QString();
    for (const auto& [config, file] : {std::pair(r.current, current), std::pair(r.proposed, QString())}) {
        if (config && m_traffic)
            if (const std::string why = dryRunPathProblem(*config, *m_traffic); !why.empty())
                return tr("%1: %2").arg(file.isEmpty() ? tr("The proposed configuration") : file, QString::fromStdString(why));
        if (!config || replayedRules(*config) > 0)
            continue;
        return tr("%1: %2").arg(file.isEmpty() ? tr("The proposed configuration") : file,
                                QString::fromStdString(dryRunRefusal(*config)));
    }
    return {};
}

QString DryRunView::summaryText(const Result& r) const
{
    const QLocale locale;
    const std::int64_t requests = std::int64_t(m_traffic->times.size());
    // What was not replayed comes first, above the counts: a partial result never reads as whole.
    QString text;
    const auto partial = [&](const DryRunConfig& config, const DryRunResult& result, const QString& side) {
        if (!dryRunComplete(config))
            text += side + QString::fromStdString(dryRunHeadline(config, result, requests)) + "\n";
    };
    partial(*r.current, r.a, r.proposed ? tr("Current: ") : QString());
    if (r.proposed)
        partial(*r.proposed, r.b, tr("Proposed: "));
    text += tr("%1 (%2) denies %3 of %4 requests.")
                .arg(m_current->fileName(), QString::fromStdString(r.current->product))
                .arg(locale.toString(qlonglong(r.a.denied)), locale.toString(qlonglong(requests)));
    if (r.proposed)
        text += " " + tr("Proposed: %1 denied. %2").arg(locale.toString(qlonglong(r.b.denied)), r.summary);
    for (const std::string& why : r.current->notReplayed)
        text += "\n" + tr("Not replayed: %1").arg(QString::fromStdString(why));
    if (r.proposed)
        for (const std::string& why : r.proposed->notReplayed)
            text += "\n" + tr("Proposed, not replayed: %1").arg(QString::fromStdString(why));
    for (const std::string& why : r.current->assumed)
        text += "\n" + tr("Assumed: %1").arg(QString::fromStdString(why));
    return text;
}

void DryRunView::addRules(const DryRunConfig& config, const DryRunResult& result, const QString& side)
{
    const QLocale locale;
    for (std::size_t i = 0; i < config.rules.size(); ++i) {
        const DryRunRuleReport& rep = result.rules[i];
        const int row = m_rules->rowCount();
        m_rules->insertRow(row);
        const QString hour = rep.worstHour < 0 ? QString("-")
                                               : QString::fromStdString(formatEpoch(rep.worstHour * 3600 * kNanosPerSecond));
        const QStringList cells{side + QString::fromStdString(config.rules[i].name),
                                config.mapped[i] ? locale.toString(qlonglong(rep.requests)) : tr("not replayed"),
                                locale.toString(qlonglong(rep.denied)), locale.toString(qlonglong(rep.keysDenied)), hour};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setTextAlignment(c == 0 ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
            m_rules->setItem(row, c, item);
        }
    }
}

void DryRunView::show(Result r)
{
    m_report.reset();
    m_config->setEnabled(m_traffic != nullptr);
    m_against->setEnabled(m_traffic != nullptr && m_current.has_value());
    if (!r.error.isEmpty()) {
        m_summary->setText(r.error);
        emit finished();
        return;
    }
    // Nothing replayed: no count to show, only why.
    if (const QString refused = refusedText(r); !refused.isEmpty()) {
        m_summary->setText(refused);
        m_rules->setRowCount(0);
        m_rules->hide();
        emit finished();
        return;
    }
    m_summary->setText(summaryText(r));
    m_rules->setRowCount(0);
    addRules(*r.current, r.a, r.proposed ? tr("current: ") : QString());
    if (r.proposed)
        addRules(*r.proposed, r.b, tr("proposed: "));
    m_rules->show();
    keepReport(std::move(r)); // its results move into the report: no copy of a large run on the GUI thread
    emit finished();
}

} // namespace ratelab::ui
