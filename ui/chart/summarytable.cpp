#include "chart/summarytable.h"
#include "limiters/algorithm_facts.h"
#include "limiters/products/own_limit.h"
#include "limiters/products/product.h"
#include "scenario/rows.h"
#include "view/row_extras.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "engine/clients.h"
#include "report/explain.h"
#include "report/report_run.h"

#include <QHeaderView>
#include <QtConcurrent/QtConcurrentRun>
#include <QScrollBar>
#include <QLocale>

namespace ratelab::ui {

namespace {
enum Column {
    kAttempts = 7, kAmplification, kP99, kPerNode, kGoodput, kWasted,
    // What the server made of a row's attempts, and of each client's requests: shown beside the
    // attempts (moved there in the header's visual order, their indices kept).
    kInTime, kLate, kTimedOut, kRefused, kRejected, kByClient, kColumns
};
// kRateColumns are what a rate limiter decides: denied, delayed, max in a window, overshoot and
// its state's memory, which a row of a concurrency limiter alone does not have.
constexpr int kRateColumns[] = {2, 3, 4, 5, 6};

// gateOnly is true for a row with a server and no rate limiter in front: a concurrency limiter
// (or none) deciding alone, whose outcomes are the server's, not admissions and denials.
bool gateOnly(const AlgorithmTrace& r) { return r.engine && r.engine->run.server && r.engine->setup.layers.empty(); }

// MeasureOnce holds the columns' widths while a table's cells are set and fits them to their
// contents once at the end: a header that resizes to contents measures every cell again for
// each cell set (7 rows x 7 columns: every cell measured 49 times a frame, where once will do).
class MeasureOnce {
public:
    explicit MeasureOnce(QHeaderView* header) : m_header(header) { m_header->setSectionResizeMode(QHeaderView::Fixed); }
    ~MeasureOnce() { m_header->setSectionResizeMode(QHeaderView::ResizeToContents); }
    MeasureOnce(const MeasureOnce&) = delete;
    MeasureOnce& operator=(const MeasureOnce&) = delete;

private:
    QHeaderView* m_header;
};

// ownGiven is true for a product row given its own options: measured against its own limit.
bool ownGiven(Algorithm a, const LimiterConfig& c) { return isProduct(a) && ProductParams(a, c).given(); }
} // namespace

SummaryTable::SummaryTable(QWidget* parent)
    : QTableWidget(parent)
{
    connect(&m_maxWatcher, &QFutureWatcherBase::finished, this, &SummaryTable::maxSoFarReady);
    setColumnCount(kColumns);
    setHorizontalHeaderLabels({tr("Algorithm"), tr("Allowed"), tr("Denied"), tr("Delayed"), tr("Max in a window"),
                               tr("Overshoot"), tr("Memory/key"), tr("Attempts"), tr("Amplification"),
                               tr("p99 to success"), tr("Per node"), tr("Goodput"), tr("Wasted work"), tr("In time"),
                               tr("Late"), tr("Timed out"), tr("Refused"), tr("Rejected"), tr("In time by client")});
    for (int k = 0; k < kByClient - kInTime; ++k) // after the attempts, before the p99
        horizontalHeader()->moveSection(kInTime + k, kP99 + k);
    horizontalHeaderItem(kInTime)->setToolTip(tr("Attempts the server served while their client still waited"));
    horizontalHeaderItem(kLate)->setToolTip(tr("Attempts served after their client had given up: wasted work"));
    horizontalHeaderItem(kTimedOut)->setToolTip(tr("Attempts that waited in the server's queue longer than its queue timeout"));
    horizontalHeaderItem(kRefused)->setToolTip(tr("Attempts refused with a 503 because the server's queue was full"));
    horizontalHeaderItem(kRejected)->setToolTip(tr("Attempts the concurrency limiter rejected with a 503"));
    horizontalHeaderItem(kByClient)->setToolTip(tr("Each client's requests served in time, of its requests: client 0 first"));
    horizontalHeaderItem(kGoodput)->setToolTip(tr("Requests the server served while their client still waited, a second "
                                                  "(from 0 s to the last departure)"));
    horizontalHeaderItem(kWasted)->setToolTip(tr("Service the server gave to requests whose client had already given up"));
    horizontalHeaderItem(kAttempts)->setToolTip(tr("Attempts decided: first attempts and retries"));
    horizontalHeaderItem(kAmplification)->setToolTip(tr("Attempts per request: what retries add to the load"));
    horizontalHeaderItem(kP99)->setToolTip(tr("99th percentile of the time from a request's first attempt to its "
                                              "admitted one, over the requests that succeeded"));
    horizontalHeaderItem(kPerNode)->setToolTip(tr("Requests each node admitted"));
    horizontalHeaderItem(4)->setToolTip(tr("The most requests admitted within any window of length W, (t - W, t], over "
                                           "the whole scenario: where a limiter lets through more than its limit (a "
                                           "product given its own options: within its own window)"));
    horizontalHeaderItem(5)->setToolTip(tr("Max in a window divided by the limit L: 1.00x keeps the limit exactly, 2.00x "
                                           "admits twice it (the fixed window at a boundary); a product given its own "
                                           "options is measured against its own limit"));
    horizontalHeaderItem(6)->setToolTip(tr("State the limiter holds for one client key at the end, 8 bytes a stored "
                                           "field: the log grows with the limit, the others stay constant"));
    verticalHeader()->hide();
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 3);
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    // Numbers take what they need; the names column gets the rest.
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(true);
    setEditTriggers(NoEditTriggers);
    setSelectionMode(NoSelection);
    setFocusPolicy(Qt::NoFocus);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded); // with clients' columns it may not fit
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void SummaryTable::setFrame(const Frame& frame)
{
    if (!frame.trace)
        return;
    const auto& results = frame.trace->results;
    if (frame.trace != m_trace) { // a zoom or a resize keeps the trace, and what was counted of it
        m_maxSoFar.clear();
        m_maxFor.reset();
    }
    m_trace = frame.trace;
    fill(results);
    blankFigures();
    fitLastColumn();
    updateGeometry();
}

void SummaryTable::setCell(int r, int c, const QString& text)
{
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(c == 0 ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
    setItem(r, c, item);
}

void SummaryTable::fill(const std::vector<AlgorithmTrace>& results)
{
    const MeasureOnce measure(horizontalHeader());
    setRowCount(int(results.size()));
    clearContents(); // a column this frame leaves empty keeps no figure of the last one
    bool clients = false, nodes = false, server = false;
    std::vector<bool> shown(kColumns, false); // the server's columns some row has a figure in
    for (int r = 0; r < int(results.size()); ++r) {
        const AlgorithmTrace& result = results[r];
        setCell(r, 0, QString::fromStdString(result.title.empty() ? std::string(algorithmTitle(result.algorithm)) : result.title));
        const QLocale locale;
        if (result.clients) {
            const ClientStats& k = *result.clients;
            clients = true;
            setCell(r, kAttempts, locale.toString(k.attempts));
            setCell(r, kAmplification, QString::number(k.amplification, 'f', 2) + "x");
            setCell(r, kP99, k.succeeded ? QString::fromStdString(explainSeconds(k.latency.p99)) + " s" : tr("none succeeded"));
        }
        if (result.engine && result.engine->run.server) { // the server behind the limiter
            server = true;
            fillServer(r, result, shown);
        }
        if (!result.perNodeAllowed.empty()) {
            nodes = true;
            QStringList perNode;
            for (std::int64_t n : result.perNodeAllowed)
                perNode << locale.toString(n);
            setCell(r, kPerNode, perNode.join(" / "));
        }
        fillLimitColumns(r, result);
    }
    hideEmptyColumns(results, clients, nodes, server, shown);
}

void SummaryTable::fillLimitColumns(int r, const AlgorithmTrace& result)
{
    const Metrics& m = result.metrics;
    const QLocale locale;
    setCell(r, 1, locale.toString(m.allowed));
    setCell(r, 2, locale.toString(m.denied));
    setCell(r, 3, locale.toString(m.delayed));
    setCell(r, 4, locale.toString(m.maxInWindow));
    setCell(r, 5, QString::number(m.overshoot, 'f', 2) + "x");
    const bool own = ownGiven(result.algorithm, m_trace->config) && !result.kind.layered;
    const LimitWindow limit = measuredAgainst(result.algorithm, m_trace->config);
    if (own) { // what its row is measured against: the product's own limit, not the Limits'
        const std::string_view title = algorithmTitle(result.algorithm);
        const QString name = QString::fromUtf8(title.data(), qsizetype(title.size()));
        const QString tip = limit.windowNanos == kMaxNanos // no window: that many in all
                                ? tr("Against %1's own limit: %2 in all").arg(name).arg(limit.limit)
                                : tr("Against %1's own limit: %2 per %3 s")
                                      .arg(name)
                                      .arg(limit.limit)
                                      .arg(QString::fromStdString(formatSeconds(limit.windowNanos)));
        for (int c : {4, 5})
            item(r, c)->setToolTip(tip);
    }
    // With costs the limit counts units: the overshoot (core's, m.overshoot) is the units in a
    // window over L (a product given its own options: over its own limit), said in the tip.
    if (!m_trace->costs.empty() && !result.kind.layered) {
        const UnitsOvershoot o = unitsOvershoot(*m_trace, std::size_t(r));
        setCell(r, 5, QString::number(o.overshoot, 'f', 2) + "x");
        item(r, 5)->setToolTip(tr("%1 units admitted in one window (requests weighted by their cost) of a quota of %2")
                                   .arg(o.units).arg(qint64(o.quota)));
    }
    if (result.kind.layered) // each layer holds its own
        setCell(r, 6, tr("per layer"));
    else
        setCell(r, 6, QString("%1 B (%2 %3)").arg(m.memory.bytes).arg(m.memory.entries).arg(m.memory.entries == 1 ? "entry" : "entries"));
    if (gateOnly(result))
        for (int c : kRateColumns) {
            setCell(r, c, QStringLiteral("—"));
            item(r, c)->setToolTip(tr("No rate limiter on this row: what became of its attempts is in the server's columns"));
        }
}

void SummaryTable::hideEmptyColumns(const std::vector<AlgorithmTrace>& results, bool clients, bool nodes, bool server,
                                    const std::vector<bool>& shown)
{
    // A table of concurrency limiters alone shows their outcomes, not a rate limiter's columns
    // of zeros (their allowed count is the attempts, when that column is shown).
    const bool gatesAlone = !results.empty() && std::all_of(results.begin(), results.end(), gateOnly);
    for (int c : kRateColumns)
        setColumnHidden(c, gatesAlone);
    setColumnHidden(1, gatesAlone && clients);
    for (int c = kInTime; c <= kByClient; ++c)
        setColumnHidden(c, !shown[std::size_t(c)]);
    for (int c : {kAttempts, kAmplification})
        setColumnHidden(c, !clients);
    setColumnHidden(kP99, !clients && !server);
    setColumnHidden(kGoodput, !server);
    setColumnHidden(kWasted, !server);
    setColumnHidden(kPerNode, !nodes);
}

void SummaryTable::fillServer(int r, const AlgorithmTrace& result, std::vector<bool>& shown)
{
    const QLocale locale;
    const auto cell = [this, &shown](int r, int c, const QString& text, bool show = true) {
        auto* item = new QTableWidgetItem(text);
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        setItem(r, c, item);
        shown[std::size_t(c)] = shown[std::size_t(c)] || show;
    };
    const ServerFigures& f = *result.engine->run.server;
    const ClientStats& k = result.engine->run.clients;
    const double span = double(f.end) / 1e9; // as compare's goodput_per_s
    cell(r, kGoodput, tr("%1/s").arg(locale.toString(span > 0 ? double(f.inTime) / span : 0.0, 'g', 4)));
    cell(r, kWasted, QString::fromStdString(explainSeconds(f.wastedNanos)) + " s");
    cell(r, kP99, k.succeeded ? QString::fromStdString(explainSeconds(k.latency.p99)) + " s" : tr("none succeeded"));
    // Each outcome the server gave some attempt (a column of zeros in every row is left out).
    const std::pair<int, std::int64_t> outcomes[] = {
        {kInTime, f.inTime}, {kLate, f.late}, {kTimedOut, f.queueTimeouts}, {kRefused, f.refused}, {kRejected, f.rejected}};
    for (const auto& [column, count] : outcomes)
        cell(r, column, locale.toString(count), count > 0 || column == kInTime);
    // A few clients' shares: where a noisy one crowds the quiet ones out.
    if (const QString shares = inTimeByClient(servedByClient(result.engine->run)); !shares.isEmpty())
        cell(r, kByClient, shares);
}

QString SummaryTable::inTimeByClient(const std::vector<ClientServed>& byClient)
{
    if (byClient.size() < 2 || byClient.size() > kMostClientsListed)
        return {};
    const QLocale locale;
    QStringList shares;
    for (const ClientServed& c : byClient)
        shares << QStringLiteral("%1/%2").arg(locale.toString(c.inTime), locale.toString(c.requests));
    return shares.join(QStringLiteral(" · "));
}

void SummaryTable::fitLastColumn()
{
    // Measured here, once: the header sizes its sections to their text only later.
    QHeaderView* header = horizontalHeader();
    int need = 0;
    for (int c = 0; c < columnCount(); ++c)
        if (!isColumnHidden(c))
            need += std::max(sizeHintForColumn(c), header->sectionSizeHint(c));
    header->setStretchLastSection(need <= viewport()->width());
}

void SummaryTable::resizeEvent(QResizeEvent* event)
{
    QTableWidget::resizeEvent(event);
    fitLastColumn();
}

void SummaryTable::setCounts(const RunningCounts& counts, std::optional<Nanos> upTo)
{
    const MeasureOnce measure(horizontalHeader());
    const QLocale locale;
    for (int r = 0; r < rowCount(); ++r) {
        const Counts& c = counts.row(std::size_t(r));
        item(r, 1)->setText(locale.toString(c.admitted));
        if (m_trace && r < int(m_trace->results.size()) && gateOnly(m_trace->results[std::size_t(r)]))
            continue; // no rate limiter: no denials, delays or window to count
        item(r, 2)->setText(locale.toString(c.denied));
        item(r, 3)->setText(locale.toString(c.delayed));
    }
    const QString soFar = upTo ? tr(" so far") : QString();
    horizontalHeaderItem(1)->setText(tr("Allowed") + soFar);
    horizontalHeaderItem(2)->setText(tr("Denied") + soFar);
    horizontalHeaderItem(3)->setText(tr("Delayed") + soFar);
    horizontalHeaderItem(4)->setText(tr("Max in a window") + soFar);
    // Max in a window follows the playhead too: the most admitted in a window among the
    // decisions shown (replaced by the totals again at the end).
    m_shown.reset();
    if (upTo) {
        m_shown.emplace();
        for (int r = 0; r < rowCount(); ++r) {
            const Counts& c = counts.row(std::size_t(r));
            m_shown->push_back(std::size_t(c.admitted + c.denied));
        }
    }
    // Max in a window so far: core's maxUnitsSoFar, made once a trace when the playhead first
    // leaves the end (a drag, which always shows the end, never pays for it).
    if (upTo && m_trace && m_maxSoFar.empty() && m_maxFor != m_trace) {
        m_maxFor = m_trace;
        m_maxWatcher.setFuture(QtConcurrent::run(simulationPool(), [trace = m_trace] {
            MaxSoFar rows;
            for (std::size_t r = 0; r < trace->results.size(); ++r)
                rows.push_back(maxUnitsSoFar(*trace, r));
            return rows;
        }));
    }
    setMaxColumn();
    const QString when = upTo ? tr("up to the playhead at %1 s").arg(QString::fromStdString(explainSeconds(*upTo)))
                              : tr("over the whole scenario");
    for (int c = 1; c <= 3; ++c)
        horizontalHeaderItem(c)->setToolTip(tr("Requests %1").arg(when));
    blankFigures();
}

void SummaryTable::setMaxColumn()
{
    const QLocale locale;
    for (int r = 0; r < rowCount() && m_trace && r < int(m_trace->results.size()); ++r) {
        const AlgorithmTrace& result = m_trace->results[std::size_t(r)];
        if (gateOnly(result))
            continue;
        if (!m_shown || result.kind.layered)
            item(r, 4)->setText(locale.toString(result.metrics.maxInWindow));
        else if (m_maxSoFar.size() <= std::size_t(r))
            item(r, 4)->setText(QStringLiteral("…")); // being counted
        else { // units, as max_in_window counts them
            const std::vector<std::uint32_t>& most = m_maxSoFar[std::size_t(r)];
            item(r, 4)->setText(locale.toString(qint64(most.at(std::min((*m_shown)[std::size_t(r)], most.size() - 1)))));
        }
    }
    blankFigures();
}

void SummaryTable::maxSoFarReady()
{
    if (m_maxWatcher.future().isCanceled() || m_maxFor != m_trace)
        return; // of a trace no longer shown
    m_maxSoFar = m_maxWatcher.future().takeResult();
    const MeasureOnce measure(horizontalHeader());
    setMaxColumn();
}

void SummaryTable::setVeiled(bool veiled)
{
    m_veiled = veiled;
    blankFigures();
}

void SummaryTable::blankFigures()
{
    if (!m_veiled)
        return;
    for (int r = 0; r < rowCount(); ++r)
        for (int c = 1; c < columnCount(); ++c)
            if (QTableWidgetItem* cell = item(r, c)) {
                cell->setText(QStringLiteral("?"));
                cell->setToolTip(tr("Hidden until the decisions are revealed"));
            }
}

QSize SummaryTable::sizeHint() const
{
    int h = horizontalHeader()->height() + 2 * frameWidth();
    for (int r = 0; r < rowCount(); ++r)
        h += rowHeight(r);
    if (horizontalScrollBar()->isVisible())
        h += horizontalScrollBar()->sizeHint().height();
    return {QTableWidget::sizeHint().width(), h};
}

} // namespace ratelab::ui
