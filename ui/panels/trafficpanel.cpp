#include "panels/trafficpanel.h"
#include "panels/adviseview.h"
#include "panels/dryrunview.h"

#include "advise/let_by.h"
#include "arithmetic/decimal.h"
#include "config_import.h"
#include "replay/replay.h"
#include "scenario/rows.h"
#include "model/scenariodocument.h"
#include "chart/theme.h"

#include <QChart>
#include <QChartView>
#include <QEventLoop>
#include <QScreen>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QProgressBar>
#include <QProgressDialog>
#include <QPushButton>
#include <QTableWidget>
#include <QDialog>
#include <QTimer>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <algorithm>
#include <numeric>
#include <optional>

namespace ratelab::ui {

namespace {

// sweepLimits are the limits the chart sweeps: 20 steps of max(1, 2L / 20), up to about twice the
// document's limit L.
std::vector<std::int64_t> sweepLimits(std::int64_t limit)
{
    const std::int64_t step = std::max<std::int64_t>(1, 2 * limit / TrafficPanel::kSweepPoints);
    std::vector<std::int64_t> out;
    for (int k = 1; k <= TrafficPanel::kSweepPoints; ++k)
        out.push_back(std::min<std::int64_t>(step * k, LimiterConfig::kMaxLimit));
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

} // namespace

TrafficPanel::TrafficPanel(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_status(new QLabel(tr("No traffic log open: File > Open Traffic Log.")))
    , m_dryRun(new DryRunView)
    , m_advise(new AdviseView(this))
    , m_keys(new QTableWidget(0, 3))
    , m_chart(new QChartView)
    , m_progress(new QProgressBar)
    , m_cancel(new QPushButton(tr("Cancel")))
{
    m_status->setWordWrap(true);
    m_keys->setHorizontalHeaderLabels({tr("Key"), tr("Requests"), tr("Denied")});
    m_keys->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_keys->verticalHeader()->hide();
    m_keys->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_keys->setAccessibleName(tr("Busiest keys"));
    m_keys->setTabKeyNavigation(false); // Tab leaves the table (the arrows move in it)
    m_keys->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_keys->setToolTip(tr("The busiest keys, each its own limiter of the first shown algorithm. Click one to show its "
                          "traffic in the rows."));
    m_chart->setMinimumHeight(220);
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setToolTip(tr("Share of requests denied against the limit (capacity and rate follow it). Click a point "
                           "to set that limit."));
    m_progress->hide();
    m_cancel->hide();
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addWidget(m_keys, 1);
    layout->addWidget(m_chart, 1);
    layout->addWidget(m_dryRun, 1);
    m_advise->hide(); // shown in its window (showAdvice)
    connect(m_advise, &AdviseView::dryRunRequested, m_dryRun, &DryRunView::runText);
    connect(m_advise, &AdviseView::rowsRequested, this, &TrafficPanel::showLimit);
    auto* row = new QHBoxLayout;
    row->addWidget(m_progress, 1);
    row->addWidget(m_cancel);
    layout->addLayout(row);
    connect(m_keys, &QTableWidget::cellClicked, this, [this](int r, int) { showKey(r); });
    connect(m_cancel, &QPushButton::clicked, this, &TrafficPanel::cancelSweep);
    connect(&m_sweepWatcher, &QFutureWatcher<std::shared_ptr<const SweepResult>>::finished, this, &TrafficPanel::showSweep);
    // A slider drag changes the document every frame: the keys (one replay of the whole log) are
    // counted again once it rests.
    auto* settle = new QTimer(this);
    settle->setSingleShot(true);
    settle->setInterval(150);
    connect(settle, &QTimer::timeout, this, [this] {
        refreshKeys();
        startSweep();
    });
    connect(m_document, &ScenarioDocument::changed, settle, qOverload<>(&QTimer::start));
    auto* poll = new QTimer(this); // the sweep's progress, read from the workers' counter
    connect(poll, &QTimer::timeout, this, [this] {
        if (m_sweepDone && m_sweepWatcher.isRunning())
            m_progress->setValue(m_sweepDone->load());
    });
    poll->start(100);
}

TrafficPanel::~TrafficPanel()
{
    cancelSweep();
    m_sweepWatcher.waitForFinished();
}

QString TrafficPanel::status() const { return m_status->text(); }

void TrafficPanel::showAdvice()
{
    // A window of its own: its table, chart and config need more room than the dock beside the
    // charts has on a small screen, and it stays open while the dock shows the dry run it asks for.
    if (!m_adviceWindow) {
        m_adviceWindow = new QDialog(this);
        m_adviceWindow->setWindowTitle(tr("Advise a limit from the traffic log"));
        auto* layout = new QVBoxLayout(m_adviceWindow);
        layout->addWidget(m_advise);
        m_advise->show();
        // Nine tenths of the screen, up to what the table, chart and config use: a projector's
        // 720 rows and a desk's 1000 both show the front's rows with the chart.
        const QRect room = screen()->availableGeometry();
        m_adviceWindow->resize(std::min(900, room.width() * 9 / 10), std::min(960, room.height() * 9 / 10));
    }
    m_adviceWindow->show();
    m_adviceWindow->raise();
    m_adviceWindow->activateWindow();
}

void TrafficPanel::chooseLog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Traffic Log"), {},
                                                      tr("Access logs (*.log *.gz *.json *.jsonl *.csv *.txt);;All files (*)"));
    if (!path.isEmpty())
        openLog(path);
}

bool TrafficPanel::openLog(const QString& path)
{
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    auto bytes = std::make_shared<std::atomic<std::int64_t>>(0);
    QProgressDialog dialog(tr("Reading %1…").arg(QFileInfo(path).fileName()), tr("Cancel"), 0, 0, this);
    dialog.setMinimumDuration(300);
    connect(&dialog, &QProgressDialog::canceled, this, [cancel] { *cancel = true; });
    QFutureWatcher<std::shared_ptr<const Traffic>> watcher;
    QString error;
    const std::string file = path.toStdString();
    watcher.setFuture(QtConcurrent::run([file, cancel, bytes, &error]() -> std::shared_ptr<const Traffic> {
        TrafficOptions o;
        o.keepPaths = true; // a dry run of a gateway's config selects its rules by the path
        o.cancel = cancel.get();
        o.progress = [bytes](std::int64_t n) { *bytes = n; };
        try {
            return std::make_shared<const Traffic>(readTrafficLog(file, o));
        } catch (const InputError& e) {
            error = QString::fromStdString(e.what());
        } catch (const TrafficCancelled&) {
            error = QObject::tr("Reading cancelled.");
        }
        return nullptr;
    }));
    QEventLoop loop;
    connect(&watcher, &QFutureWatcher<std::shared_ptr<const Traffic>>::finished, &loop, &QEventLoop::quit);
    QTimer tick;
    connect(&tick, &QTimer::timeout, &dialog, [&] { dialog.setLabelText(tr("Reading… %1 MB").arg(*bytes / 1'000'000)); });
    tick.start(100);
    if (!watcher.isFinished())
        loop.exec();
    const std::shared_ptr<const Traffic> traffic = watcher.result();
    if (!traffic) {
        m_status->setText(error);
        return false;
    }
    setTraffic(traffic, QFileInfo(path).fileName());
    return true;
}

void TrafficPanel::setTraffic(std::shared_ptr<const Traffic> traffic, const QString& name)
{
    cancelSweep();
    m_traffic = std::move(traffic);
    m_sweep.reset();
    m_sweepKey.clear();
    QString text = tr("%1: %2 requests from %3 keys, from %4.")
                       .arg(name)
                       .arg(m_traffic->times.size())
                       .arg(m_traffic->keyNames.size())
                       .arg(QString::fromStdString(formatEpoch(m_traffic->startEpochNanos)));
    if (m_traffic->wholeSeconds)
        text += tr(" Whole seconds: every second is one instant.");
    if (m_traffic->unreadable > 0)
        text += tr(" %1 unreadable lines skipped (the first: line %2).")
                    .arg(m_traffic->unreadable)
                    .arg(m_traffic->firstErrors.front().line);
    m_status->setText(text);
    m_dryRun->setTraffic(m_traffic, "ip", name);
    m_advise->setTraffic(m_traffic, "ip");
    refreshKeys();
    startSweep();
}

void TrafficPanel::refreshKeys()
{
    m_keys->setRowCount(0);
    m_shownKeys.clear();
    if (!m_traffic)
        return;
    const Scenario& s = m_document->scenario();
    const std::vector<std::int64_t> requests = attemptsPerKey(*m_traffic);
    std::vector<std::uint32_t> order(requests.size());
    std::iota(order.begin(), order.end(), 0u);
    const std::size_t shown = std::min<std::size_t>(order.size(), kKeysShown);
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(shown), order.end(),
                      [&](std::uint32_t a, std::uint32_t b) { return requests[a] != requests[b] ? requests[a] > requests[b] : a < b; });
    order.resize(shown);
    // The denied column is the first rate-limit row's; a scenario of concurrency rows alone (the
    // server presets) has none, and its keys show their requests only.
    const std::optional<ReplayRow> row =
        s.algorithms.empty() ? std::nullopt : std::optional(replayOne(*m_traffic, s.algorithms.front(), s.config, s.cost));
    m_keys->setRowCount(int(shown));
    for (std::size_t i = 0; i < shown; ++i) {
        const std::uint32_t k = order[i];
        m_keys->setItem(int(i), 0, new QTableWidgetItem(QString::fromStdString(m_traffic->keyNames[k])));
        m_keys->setItem(int(i), 1, new QTableWidgetItem(QString::number(requests[k])));
        m_keys->setItem(int(i), 2, new QTableWidgetItem(row ? QString::number(row->deniedPerKey[k]) : QStringLiteral("—")));
    }
    m_keys->horizontalHeaderItem(2)->setText(row ? tr("Denied (%1)").arg(QString::fromUtf8(algorithmId(s.algorithms.front()).data()))
                                                 : tr("Denied (no rate-limit row)"));
    m_shownKeys = std::move(order);
}

TrafficPanel::Requests TrafficPanel::requestsOf(qint64 key, const std::vector<std::uint8_t>& leftOut, Nanos period) const
{
    // The rows' t = 0 is a whole period of the clock, the log's start need not be: each request
    // keeps its place within the period, so the windows a product counts on the clock (limiter.h's
    // onTheClock: Spring's seconds, Kong's minutes, Cloudflare's periods...) and nginx's
    // milliseconds fall where the log put them.
    const Nanos lead = m_traffic->startEpochNanos % period;
    Requests out;
    for (std::size_t i = 0; i < m_traffic->times.size(); ++i)
        if ((key < 0 || qint64(m_traffic->keys[i]) == key) && (leftOut.empty() || !leftOut[i])) {
            out.times.push_back(lead + m_traffic->times[i]);
            if (!m_traffic->costs.empty())
                out.costs.push_back(m_traffic->costs[i]);
        }
    return out;
}

namespace {

// showRequests makes the scenario's traffic these requests alone.
void showRequests(Scenario& s, std::vector<Nanos> times, std::vector<std::int64_t> costs)
{
    s.explicitArrivals = std::move(times);
    s.explicitCosts = std::move(costs);
    s.explicitService.clear(); // a log's traffic has no service or priority column
    s.explicitCritical.clear();
    s.explicitPriority.clear();
    s.addedArrivals.clear();
    s.clients.reset();
    s.explicitClients.clear();
    s.cluster.reset();
}

} // namespace

bool TrafficPanel::showKey(int row)
{
    if (!m_traffic || row < 0 || row >= int(m_shownKeys.size()))
        return false;
    const std::uint32_t key = m_shownKeys[std::size_t(row)];
    Requests r = requestsOf(key);
    const QString name = QString::fromStdString(m_traffic->keyNames[key]);
    return m_document->change(tr("Traffic of %1").arg(name),
                              [&](Scenario& s) { showRequests(s, std::move(r.times), std::move(r.costs)); });
}

bool TrafficPanel::showLimit(const QString& title, const QByteArray& config, qint64 key, const QString& letByPath,
                             const QString& letByProduct)
{
    if (!m_traffic || key < -1 || key >= qint64(m_traffic->keyNames.size()))
        return false;
    std::vector<std::uint8_t> letBy;
    try {
        letBy = letByOf(*m_traffic, LetBy{letByPath.toStdString(), {}, letByProduct.toStdString()});
    } catch (const InputError& e) {
        m_document->refuse(tr("%1: %2").arg(title, QString::fromUtf8(e.what())));
        return false;
    }
    Scenario s;
    QString whose;
    try {
        const io::ImportedConfig imported = io::importConfiguration(config);
        s = imported.scenario;
        // A product that counts on the clock sees the requests at their time of day: every period
        // it offers (a second to a day) divides a day, so its windows fall where the log's did.
        const bool clocked = std::any_of(s.algorithms.begin(), s.algorithms.end(), onTheClock)
                             || std::any_of(s.layers.begin(), s.layers.end(), [](const Layer& l) { return onTheClock(l.algorithm); });
        Requests r = requestsOf(key, letBy, clocked ? kNanosPerDay : kNanosPerSecond);
        whose = key < 0 ? tr("all %1 requests of the log").arg(r.times.size())
                        : tr("the %1 requests of %2 in the log")
                              .arg(r.times.size())
                              .arg(QString::fromStdString(m_traffic->keyNames[std::size_t(key)]));
        if (!letBy.empty())
            whose += tr(" that the config counts (it lets by those whose path matches %1)")
                         .arg(QString::fromStdString(ratelab::quoted(letByPath.toStdString())));
        showRequests(s, std::move(r.times), std::move(r.costs));
        s.title = title.toStdString();
        s.lesson = tr("%1, over %2. The rows show what the limit denies; its config's dry-run form, where the "
                      "gateway has one, would only log it.\n\n%3")
                       .arg(title, whose, QString::fromStdString(io::whatYouGet(imported)))
                       .toStdString();
        checkScenario(s);
    } catch (const InputError& e) {
        m_document->refuse(tr("%1: %2").arg(title, QString::fromUtf8(e.what())));
        return false;
    }
    m_document->replace(title, s);
    return true;
}

bool TrafficPanel::pickLimit(double limit)
{
    if (!m_sweep || m_sweep->axes.empty())
        return false;
    const std::vector<std::int64_t>& limits = m_sweep->axes.front().values;
    const auto nearest = std::min_element(limits.begin(), limits.end(), [&](std::int64_t a, std::int64_t b) {
        return std::abs(double(a) - limit) < std::abs(double(b) - limit);
    });
    const std::int64_t chosen = *nearest;
    return m_document->change(tr("Limit"), [&](Scenario& s) {
        s.config = s.config.withLimits(chosen, s.config.windowNanos());
    });
}

void TrafficPanel::cancelSweep()
{
    if (m_sweepCancel)
        *m_sweepCancel = true;
    m_progress->hide();
    m_cancel->hide();
}

void TrafficPanel::startSweep()
{
    if (!m_traffic)
        return;
    const Scenario& s = m_document->scenario();
    if (s.algorithms.empty()) // nothing to sweep: the scenario has concurrency rows alone
        return;
    // Limits move with a click on the chart: the sweep stays until the window or algorithms change.
    QString key = QString::fromStdString(formatSeconds(s.config.windowNanos()));
    for (Algorithm a : s.algorithms)
        key += "," + QString::number(int(a));
    if (key == m_sweepKey)
        return;
    cancelSweep();
    m_sweepWatcher.waitForFinished(); // the cancelled one returns at its next block of requests
    m_sweepKey = key;
    SweepBase base;
    base.limit = s.config.limit();
    base.windowNanos = s.config.windowNanos();
    base.nginx = s.config.nginx();
    base.algorithms = s.algorithms;
    base.cost = s.cost;
    SweepAxis axis;
    axis.parameter = SweepParameter::Limit;
    axis.values = sweepLimits(s.config.limit());
    const auto cancel = std::make_shared<std::atomic<bool>>(false);
    const auto done = std::make_shared<std::atomic<int>>(0);
    m_sweepCancel = cancel;
    m_sweepDone = done;
    m_progress->setRange(0, int(axis.values.size() * base.algorithms.size()));
    m_progress->setValue(0);
    m_progress->show();
    m_cancel->show();
    const std::shared_ptr<const Traffic> traffic = m_traffic;
    m_sweepWatcher.setFuture(QtConcurrent::run([traffic, base, axis, cancel, done]() -> std::shared_ptr<const SweepResult> {
        try {
            return std::make_shared<const SweepResult>(runSweep(
                *traffic, base, {axis}, std::max(1, QThread::idealThreadCount()), cancel.get(),
                [done](std::size_t n, std::size_t) { *done = int(n); }));
        } catch (const SweepCancelled&) {
        } catch (const InputError&) {
        }
        return nullptr;
    }));
}

void TrafficPanel::showSweep()
{
    m_progress->hide();
    m_cancel->hide();
    std::shared_ptr<const SweepResult> result = m_sweepWatcher.result();
    if (!result) {
        m_sweepKey.clear(); // cancelled or refused: the next change tries again
        return;
    }
    m_sweep = std::move(result);
    auto* chart = new QChart;
    followPalette(chart, palette());
    chart->setTitle(tr("Share of requests denied"));
    auto* x = new QValueAxis;
    x->setTitleText(tr("limit per %1 s").arg(QString::fromStdString(formatSeconds(m_document->scenario().config.windowNanos()))));
    auto* y = new QValueAxis;
    y->setRange(0, 100);
    y->setLabelFormat("%d%%");
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    const SweepAxis& axis = m_sweep->axes.front();
    x->setRange(double(axis.values.front()), double(std::max(axis.values.back(), axis.values.front() + 1)));
    for (std::size_t a = 0; a < m_sweep->algorithms.size(); ++a) {
        auto* series = new QLineSeries;
        series->setName(QString::fromUtf8(algorithmId(m_sweep->algorithms[a]).data()));
        series->setPointsVisible(true);
        for (std::size_t i = 0; i < axis.size(); ++i)
            series->append(double(axis.values[i]), 100 * m_sweep->cell(i, 0, a).deniedShare());
        chart->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
        connect(series, &QLineSeries::clicked, this, [this](const QPointF& p) { pickLimit(p.x()); });
    }
    QChart* old = m_chart->chart();
    m_chart->setChart(chart);
    delete old;
    emit sweepFinished();
}

void TrafficPanel::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        followPalette(m_chart->chart(), palette());
}

} // namespace ratelab::ui
