#include "panels/adviseview.h"

#include "arithmetic/decimal.h"
#include "arithmetic/nanos.h"
#include "arithmetic/text.h"
#include "chart/theme.h"

#include <QApplication>
#include <QBarCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QLegendMarker>
#include <QPen>
#include <QScatterSeries>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cstring>
#include <limits>

namespace ratelab::ui {

namespace {

QString count(std::int64_t n) { return QLocale().toString(qlonglong(n)); }

// frontPen draws the front in the selection's blue, not the theme's first colour (in the dark
// theme, the recommendation ring's green), lighter on a dark window so the line reads.
QPen frontPen(const QPalette& palette)
{
    const bool dark = palette.color(QPalette::Window).lightness() < 128;
    return QPen(palette.color(QPalette::Highlight).lighter(dark ? 150 : 100), 2);
}

// chartLabel is a window's name short enough to stand under its point beside five others:
// "minute+second", "sliding 10 s".
QString chartLabel(const std::string& window)
{
    QString label = QString::fromStdString(window);
    label.replace(QLatin1String(", "), QLatin1String("+<br>"));
    label.replace(QLatin1String("slidingWindow "), QLatin1String("sliding<br>"));
    label.replace(QLatin1String("fixedWindow "), QLatin1String("fixed<br>"));
    return label;
}

// recommendedRow is the front's row of the recommendation (the front holds it in its place).
int recommendedRow(const Advice& a)
{
    for (std::size_t i = 0; i < a.front.size(); ++i)
        if (a.front[i].step == a.recommended.step && a.front[i].burst == a.recommended.burst)
            return int(i);
    return -1;
}

const QColor kRecommendedGreen(0x2e, 0x9e, 0x44);

// recommendedMark is the recommended point: a ring drawn over the others, so the square of the
// point shown stays visible inside it when they are the same point (as they are at first).
QScatterSeries* recommendedMark()
{
    auto* recommended = new QScatterSeries;
    recommended->setName(AdviseView::tr("recommended"));
    recommended->setMarkerSize(20);
    recommended->setBrush(Qt::NoBrush);
    recommended->setPen(QPen(kRecommendedGreen, 3));
    return recommended;
}

// windowMarks are a window gateway's windows: dots in the front's colour.
QScatterSeries* windowMarks(const QPalette& palette)
{
    auto* windows = new QScatterSeries;
    windows->setName(AdviseView::tr("the windows"));
    windows->setMarkerSize(9);
    windows->setColor(frontPen(palette).color());
    windows->setBorderColor(frontPen(palette).color());
    return windows;
}

// shownMark is the point whose config is shown: an orange square.
QScatterSeries* shownMark()
{
    auto* shown = new QScatterSeries;
    shown->setName(AdviseView::tr("shown"));
    shown->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    shown->setMarkerSize(10);
    shown->setColor(QColor(0xf0, 0x9a, 0x0e));
    shown->setBorderColor(QColor(0xf0, 0x9a, 0x0e));
    return shown;
}

// appendRow adds a row of cells to the table: the first (what the row is) to the left, the
// figures to the right.
void appendRow(QTableWidget* table, const QStringList& cells)
{
    const int row = table->rowCount();
    table->insertRow(row);
    for (int c = 0; c < cells.size(); ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        item->setTextAlignment(c == 0 ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
        table->setItem(row, c, item);
    }
}

} // namespace

AdviseView::AdviseView(QWidget* parent)
    : QWidget(parent)
    , m_gateway(new QComboBox)
    , m_keep(new QDoubleSpinBox)
    , m_pass(new QLineEdit)
    , m_letBy(new QLineEdit)
    , m_cap(new QLineEdit)
    , m_origin(new QLineEdit)
    , m_advise(new QPushButton(tr("Advise a li&mit")))
    , m_summary(new QLabel)
    , m_front(new QTableWidget(0, 7))
    , m_chart(new QChartView)
    , m_config(new QPlainTextEdit)
    , m_copy(new QPushButton(tr("Copy config te&xt")))
    , m_dryRun(new QPushButton(tr("&Dry run this limit")))
    , m_rows(new QPushButton(tr("Show in the &rows")))
    , m_keepLabel(new QLabel(tr("&keep every request of")))
    , m_keysLabel(new QLabel(tr("of keys, and of those matching the pa&ttern")))
    , m_capLabel(new QLabel(tr("c&ap one key at")))
    , m_originLabel(new QLabel(tr("&origin at most")))
    , m_letByLabel(new QLabel(tr("let &by the path")))
{
    describeParts();
    connectParts();
    connect(m_gateway, &QComboBox::currentIndexChanged, this, &AdviseView::showGatewayParts);
    layOutParts();
    setTraffic(nullptr);
}

// showGatewayParts shows the goals the chosen gateway can be given. Envoy's filter keeps one
// bucket for every request: no key to keep, all of them pass, and its cap is the bucket's.
// Traefik has no exact bound for a cap (advise --cap refuses it), and a window gateway's limit is
// a count in a window already; only nginx's config is written with a map that lets a path by
// (advise --pass-path).
void AdviseView::showGatewayParts()
{
    const QString product = m_gateway->currentData().toString();
    const bool perKey = product != "envoy";
    for (QWidget* w : std::initializer_list<QWidget*>{m_keepLabel, m_keep, m_keysLabel, m_pass})
        w->setVisible(perKey);
    m_capLabel->setText(perKey ? tr("c&ap one key at") : tr("c&ap one Envoy at"));
    const bool capped = capProblem(product.toStdString()).empty();
    m_capLabel->setVisible(capped);
    m_cap->setVisible(capped);
    const bool letBy = letByProblem(LetBy{"/", {}, product.toStdString()}).empty(); // its config can route a path by
    m_letByLabel->setVisible(letBy);
    m_letBy->setVisible(letBy);
}

// layOutParts: two short rows (the gateway, its cap, the path let by and the button; then whose
// requests must pass), the summary, the front's table, and the chart beside the chosen point's
// config and its buttons, not under it: on a projector's 720 rows the table keeps room for its
// rows.
void AdviseView::layOutParts()
{
    m_keepLabel->setBuddy(m_keep);
    m_keysLabel->setBuddy(m_pass);
    m_capLabel->setBuddy(m_cap);
    m_originLabel->setBuddy(m_origin);
    m_letByLabel->setBuddy(m_letBy);
    auto* controls = new QHBoxLayout;
    for (QWidget* w : std::initializer_list<QWidget*>{m_gateway, m_capLabel, m_cap, m_originLabel, m_origin, m_letByLabel, m_letBy,
                                                            m_advise})
        controls->addWidget(w);
    controls->addStretch();
    auto* goal = new QHBoxLayout;
    goal->addWidget(m_keepLabel);
    goal->addWidget(m_keep);
    goal->addWidget(m_keysLabel);
    goal->addWidget(m_pass, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_copy);
    buttons->addWidget(m_dryRun);
    buttons->addWidget(m_rows);
    buttons->addStretch();
    auto* chosen = new QVBoxLayout;
    chosen->addWidget(m_config, 1);
    chosen->addLayout(buttons);
    auto* below = new QHBoxLayout;
    below->addWidget(m_chart, 1);
    below->addLayout(chosen, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addLayout(goal);
    layout->addWidget(m_summary);
    layout->addWidget(m_front, 1);
    layout->addLayout(below, 1);
}

AdviseView::~AdviseView() { m_watcher.waitForFinished(); }

void AdviseView::connectParts()
{
    connect(m_advise, &QPushButton::clicked, this,
            [this] {
                const QString product = m_gateway->currentData().toString();
                const bool capped = capProblem(product.toStdString()).empty();
                advise(product, m_keep->value(), m_pass->text(), capped ? m_cap->text() : QString(),
                       m_letBy->isVisibleTo(this) ? m_letBy->text() : QString(), m_origin->text());
            });
    connect(m_pass, &QLineEdit::returnPressed, m_advise, &QPushButton::click);
    connect(m_letBy, &QLineEdit::returnPressed, m_advise, &QPushButton::click);
    connect(m_cap, &QLineEdit::returnPressed, m_advise, &QPushButton::click);
    connect(m_origin, &QLineEdit::returnPressed, m_advise, &QPushButton::click);
    connect(m_front, &QTableWidget::currentCellChanged, this, [this](int row) { choose(row); });
    connect(m_copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(configText()); });
    connect(m_dryRun, &QPushButton::clicked, this, [this] {
        if ((m_advice || m_windows) && m_chosen >= 0)
            emit dryRunRequested(tr("advised limit, row %1").arg(m_chosen + 1), configText().toUtf8());
    });
    connect(m_rows, &QPushButton::clicked, this, &AdviseView::showInRows);
    connect(&m_watcher, &QFutureWatcher<Result>::finished, this, [this] {
        Result r = m_watcher.result();
        if (r.generation == m_generation)
            showResult(std::move(r));
    });
}

void AdviseView::describeParts()
{
    describeGoals();
    describeResults();
}

// describeGoals: the gateway and what the user asks of its limit.
void AdviseView::describeGoals()
{
    // The gateways of a rate and a burst, keyed by the log's client address. An API Gateway usage
    // plan is keyed by an API key no default log field holds: `ratelab advise --key` names it.
    m_gateway->addItem(tr("nginx"), "nginx");
    m_gateway->addItem(tr("Envoy (local_ratelimit)"), "envoy");
    m_gateway->addItem(tr("Traefik"), "traefik");
    m_gateway->addItem(tr("Spring Cloud Gateway"), "spring");
    // The gateways of a count in a window: each offered window's least limit (window_gateway.h).
    m_gateway->addItem(tr("Kong (rate-limiting)"), "kong");
    m_gateway->addItem(tr("express-rate-limit"), "express");
    m_gateway->addItem(tr("Cloudflare (rate limiting rule)"), "cloudflare");
    m_gateway->addItem(tr("AWS WAF (rate-based rule)"), "aws-waf");
    m_gateway->addItem(tr("@upstash/ratelimit"), "upstash");
    m_gateway->setAccessibleName(tr("Gateway"));
    m_gateway->setToolTip(tr("The gateway the limit is written for, in its own syntax"));
    m_keep->setRange(0.1, 100);
    m_keep->setDecimals(1);
    m_keep->setValue(99);
    m_keep->setSuffix(tr(" %"));
    m_keep->setAccessibleName(tr("Keys whose every request must pass"));
    m_keep->setToolTip(tr("Every request of this share of the keys, the least active, must pass (keys with equal "
                          "counts are kept or not together)"));
    m_pass->setPlaceholderText(tr("none"));
    m_pass->setAccessibleName(tr("Keys whose every request must pass, by pattern"));
    m_pass->setToolTip(tr("Every request of the keys whose whole name matches this RE2 pattern must pass too, however "
                          "many they send: a partner, a health check, an office (10\\.1\\..*)"));
    m_letBy->setPlaceholderText(tr("none"));
    m_letBy->setAccessibleName(tr("Requests let by the limit, by path"));
    m_letBy->setToolTip(tr("The requests whose whole path matches this regex are let by uncounted, and the limit is "
                           "advised on the rest: a health check (/health). nginx reads the path as logged, its query "
                           "string included, and keys the zone by a map that gives them an empty key; Traefik and Kong "
                           "read it as they route it, without the query string, and give them a route of their own"));
    m_origin->setPlaceholderText(tr("none"));
    m_origin->setMaximumWidth(m_origin->fontMetrics().horizontalAdvance(QStringLiteral("0000/10m")) * 2);
    m_origin->setAccessibleName(tr("The most that may reach the origin in a window of the log"));
    m_origin->setToolTip(tr("At most this many of the log's requests reach the origin in any window of this length, "
                            "measured at each row on the log (a per-key limit promises nothing across keys): 50/1s. The "
                            "recommendation is the row of lowest rate that meets it and drains in time, else the one "
                            "meeting it that drains soonest; of a product's windows, the one meeting it that denies the "
                            "fewest requests"));
    m_cap->setPlaceholderText(tr("none"));
    m_cap->setMaximumWidth(m_cap->fontMetrics().horizontalAdvance(QStringLiteral("0000/10m")) * 2);
    m_cap->setAccessibleName(tr("The most one key may get through in a window"));
    m_cap->setToolTip(tr("At most this many requests through in any window of this length, whatever one key sends: "
                         "600/1m, 20/1s. The recommendation is the lowest rate that meets it and drains in time, else "
                         "the one meeting it that drains soonest"));
    m_advise->setToolTip(tr("For each burst, the lowest rate at which every request of those keys passes (for a "
                            "gateway that counts in windows, each window's least limit), and what each such limit "
                            "denies the others"));
}

// describeResults: the summary, the front as a table and a chart, and the chosen point's config.
void AdviseView::describeResults()
{
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText); // a pattern typed may hold '<'
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_front->setHorizontalHeaderLabels({tr("Rate"), tr("Burst"), tr("Kept keys' denied"), tr("Others' denied"),
                                        tr("Keys denied"), tr("Most in the cap's window"), tr("At the origin")});
    m_front->verticalHeader()->hide();
    m_front->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_front->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_front->setSelectionMode(QAbstractItemView::SingleSelection);
    m_front->setAccessibleName(tr("The limits advised: for each burst the lowest rate, or each window's least limit"));
    m_front->setTabKeyNavigation(false); // Tab leaves the table (the arrows move in it)
    m_front->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_front->horizontalHeader()->setStretchLastSection(true);
    m_chart->setMinimumHeight(240); // the title and legend take a third of it
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setToolTip(tr("Requests of the other keys each limit denies, against its rate or window. Click a point to "
                           "show its config."));
    m_config->setReadOnly(true);
    m_config->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_config->setAccessibleName(tr("The chosen limit's config"));
    m_config->setLineWrapMode(QPlainTextEdit::NoWrap); // a directive is one line, as the gateway reads it

    m_copy->setToolTip(tr("Copy the config to the clipboard"));
    m_dryRun->setToolTip(tr("Run this config on the log in the Traffic panel's dry run: who it would deny, rule by rule"));
    m_rows->setToolTip(tr("Show this limit in the rows, over the requests of the key it denies most (Envoy's one "
                          "bucket: the whole log); one undo step"));
}

void AdviseView::setTraffic(std::shared_ptr<const Traffic> traffic, const std::string& key)
{
    m_watcher.waitForFinished();
    ++m_generation;
    m_traffic = std::move(traffic);
    m_key = key;
    m_advice.reset();
    m_windows.reset();
    m_chosen = -1;
    m_shown = nullptr;
    m_front->setRowCount(0);
    m_front->hide();
    m_chart->hide();
    m_config->clear();
    m_config->hide();
    m_copy->hide();
    m_dryRun->hide();
    m_rows->hide();
    m_advise->setEnabled(m_traffic != nullptr);
    m_summary->setText(m_traffic ? tr("Choose a limit from this log for a gateway, in its own syntax: the lowest rate "
                                      "for each burst at which the kept keys lose nothing.")
                                 : QString());
}

namespace {

// boxMessage says a refusal of the command's option in the words of this window's box.
QString boxMessage(const QString& error)
{
    const std::pair<const char*, const char*> boxes[] = {{"--pass: ", QT_TRANSLATE_NOOP("AdviseView", "The pattern: %1")},
                                                        {"--cap: ", QT_TRANSLATE_NOOP("AdviseView", "The cap: %1")},
                                                        {"--pass-path: ", QT_TRANSLATE_NOOP("AdviseView", "The path: %1")},
                                                        {"--key: ", QT_TRANSLATE_NOOP("AdviseView", "The log's key: %1")},
                                                        {"--origin: ", QT_TRANSLATE_NOOP("AdviseView", "The origin: %1")}};
    for (const auto& [option, words] : boxes)
        if (error.startsWith(QLatin1String(option)))
            return AdviseView::tr(words).arg(error.mid(int(std::strlen(option))));
    return error;
}

// goalOf reads a goal's box (N/T), nothing when it is empty; a box refused is named in `error`,
// the first one only.
std::optional<WindowCap> goalOf(const std::string& text, const QString& box, QString& error)
{
    try {
        return text.empty() ? std::nullopt : std::optional(parseWindowCap(text));
    } catch (const InputError& e) {
        if (error.isEmpty())
            error = box.arg(QString::fromStdString(e.what()));
        return std::nullopt;
    }
}

// keepOf is a percentage as the command line reads it: a decimal, exactly (tenths here).
std::int64_t keepOf(double percent) { return parseSeconds(QString::number(percent, 'f', 1).toStdString()); }

} // namespace

// adviseWindows runs a window gateway's advice: its windows' least limits, and with a cap or an
// origin goal the window that meets them.
void AdviseView::adviseWindows(const QString& product, const QString& name, double keepPercent, const QString& pass,
                               const QString& cap, const QString& origin, const QString& letByPath)
{
    WindowGatewayTerms terms{product.toStdString(), m_key, keepOf(keepPercent), pass.toStdString(), {}};
    terms.letBy.path = letByPath.trimmed().toStdString();
    m_watcher.setFuture(QtConcurrent::run([traffic = m_traffic, terms, name, cap = cap.trimmed().toStdString(),
                                           origin = origin.trimmed().toStdString(), generation = m_generation]() mutable {
        Result r;
        r.product = name;
        r.gateway = QString::fromStdString(terms.product);
        r.pass = QString::fromStdString(terms.pass);
        r.letBy = QString::fromStdString(terms.letBy.path);
        r.generation = generation;
        terms.cap = goalOf(cap, tr("The cap: %1"), r.error);
        if (const std::optional<WindowCap> most = goalOf(origin, tr("The origin: %1"), r.error))
            terms.origin = OriginGoal{*most, {}};
        if (!r.error.isEmpty())
            return r;
        r.cap = terms.cap;
        if (terms.origin)
            r.origin = terms.origin->most;
        try {
            r.windows = std::make_shared<const WindowGatewayAdvice>(terms, *traffic);
            if (const KeptKeys& a = r.windows->keys(); a.letByRequests > 0)
                r.letByMost = QString::fromStdString(messageText(traffic->keyNames.at(a.letByMostKey)));
        } catch (const InputError& e) {
            r.error = boxMessage(QString::fromStdString(e.what()));
        }
        return r;
    }));
}

bool AdviseView::advise(const QString& product, double keepPercent, const QString& pass, const QString& cap,
                        const QString& letByPath, const QString& origin)
{
    if (!m_traffic || m_watcher.isRunning())
        return false;
    m_advise->setEnabled(false);
    m_summary->setText(tr("Advising on the log\u2026"));
    const int index = m_gateway->findData(product);
    const QString name = index >= 0 ? m_gateway->itemText(index) : product;
    if (isWindowGateway(product.toStdString())) {
        adviseWindows(product, name, keepPercent, pass, cap, origin, letByPath);
        return true;
    }
    BurstGatewayTerms terms;
    terms.product = product.toStdString();
    terms.key = m_key;
    terms.options.keep = keepOf(keepPercent);
    if (terms.product != "envoy") // its one bucket keeps every request; the box is hidden
        terms.pass = pass.toStdString();
    terms.letBy.path = letByPath.trimmed().toStdString();
    m_watcher.setFuture(QtConcurrent::run([traffic = m_traffic, terms, name, cap = cap.trimmed().toStdString(),
                                           origin = origin.trimmed().toStdString(), generation = m_generation]() mutable {
        Result r;
        r.product = name;
        r.pass = QString::fromStdString(terms.pass);
        r.letBy = QString::fromStdString(terms.letBy.path);
        r.gateway = QString::fromStdString(terms.product);
        r.generation = generation;
        terms.options.cap = goalOf(cap, tr("The cap: %1"), r.error);
        if (const std::optional<WindowCap> most = goalOf(origin, tr("The origin: %1"), r.error))
            terms.options.origin = OriginGoal{*most, {}};
        if (!r.error.isEmpty())
            return r;
        r.cap = terms.options.cap;
        if (terms.options.origin)
            r.origin = terms.options.origin->most;
        try {
            r.advice = std::make_shared<const BurstGatewayAdvice>(terms, *traffic);
            if (const Advice& a = r.advice->advice(); a.letByRequests > 0)
                r.letByMost = QString::fromStdString(messageText(traffic->keyNames.at(a.letByMostKey)));
        } catch (const InputError& e) {
            r.error = boxMessage(QString::fromStdString(e.what())); // the command's options are this window's boxes
        }
        return r;
    }));
    return true;
}

void AdviseView::waitForResult()
{
    if (m_watcher.isRunning() || !m_watcher.isFinished()) {
        m_watcher.waitForFinished();
        QCoreApplication::processEvents();
    }
}

QString AdviseView::summary() const { return m_summary->text(); }

QString AdviseView::configText() const { return m_config->toPlainText(); }

QString AdviseView::summaryText() const
{
    const Advice& a = m_advice->advice();
    const AdvicePoint& r = a.recommended;
    const QString rate = QString::fromStdString(m_advice->family().rateText(r.step));
    const std::int64_t others = a.limitedRequests - a.keptRequests;
    if (m_advice->shared())
        return tr("%1 keeps one bucket for every request: at %2 with burst %3 all %4 of the log's requests pass.")
            .arg(m_product, rate)
            .arg(r.burst)
            .arg(count(a.limitedRequests));
    const QString drain = QString::fromStdString(formatSeconds(AdviceOptions{}.drain));
    QString why = a.drainMet ? tr("the lowest rate whose burst drains within %1 s").arg(drain)
                             : tr("no rate drains its burst within %1 s: the lowest with the least burst").arg(drain);
    if (m_capUsed) {
        const QString most = count(m_capUsed->requests), window = QString::fromStdString(formatSeconds(m_capUsed->window));
        why = a.drainMet ? tr("the lowest rate whose burst drains within %1 s and that lets one key through at most %2 "
                              "in any %3 s")
                               .arg(drain, most, window)
                         : tr("of the rates that let one key through at most %1 in any %2 s, none drains its burst "
                              "within %3 s: the one that drains soonest")
                               .arg(most, window, drain);
    }
    const QString matching = matchingText(a);
    const QString letBy = letByText(a);
    const QString atOrigin =
        !m_originUsed ? QString()
                      : tr(" At the origin, at most %1 in any %2 s of the log (the goal %3: %4).")
                            .arg(count(*r.origin), QString::fromStdString(formatSeconds(m_originUsed->window)),
                                 count(m_originUsed->requests),
                                 a.movedByOrigin ? (a.drainMet ? tr("the row of lowest rate that meets it and drains in time")
                                                               : tr("no row that meets it drains in time, this one soonest"))
                                                 : tr("met by the recommendation made without it"));
    if (m_originUsed && a.movedByOrigin)
        why = tr("chosen for the origin");
    return tr("%1, keeping every request of the %2 with at most %3 each%4. Recommended: %5 with burst %6, "
              "%7: %8 of the other keys' %9 requests denied, %10 capped.%11%12")
        .arg(m_product, QString::fromStdString(counted(a.keptKeys - a.passedKeys, "key")),
             QString::fromStdString(counted(a.keptMost, "request")), matching, rate)
        .arg(r.burst)
        .arg(why, count(r.denied.other), count(others), QString::fromStdString(counted(r.denied.keys, "key")), letBy,
             atOrigin);
}

QString AdviseView::matchingText(const KeptKeys& a) const
{
    return m_passUsed.isEmpty() ? QString()
                                : tr(" and %1 matching %2")
                                      .arg(QString::fromStdString(counted(a.passedKeys, "busier key")),
                                           QString::fromStdString(ratelab::quoted(m_passUsed.toStdString())));
}

// letByText says who sends most of the requests let by: whoever sends that path passes at any limit.
QString AdviseView::letByText(const KeptKeys& a) const
{
    const QString pattern = QString::fromStdString(ratelab::quoted(m_letByUsed.toStdString()));
    return m_letByUsed.isEmpty() ? QString()
           : a.letByRequests == 0 ? tr(" No request's path matches %1: none is let by.").arg(pattern)
           : a.letByRequests == 1
               ? tr(" The 1 request whose path matches %1 is let by uncounted, from %2: whoever sends that path passes "
                    "at any limit.")
                     .arg(pattern, m_letByMost)
               : tr(" The %1 requests whose path matches %2 are let by uncounted, the most (%3) from %4: whoever sends "
                    "that path passes at any limit.")
                     .arg(count(a.letByRequests), pattern, count(a.letByMostRequests), m_letByMost);
}

QString AdviseView::windowsSummaryText() const
{
    const KeptKeys& a = m_windows->keys();
    const WindowRow& r = m_windows->rows().at(m_windows->recommended());
    // What the goals measure at the recommendation, and whether they chose it.
    QString goals;
    if (m_capUsed)
        goals += tr(" One key gets through at most %1 in any %2 s (the cap %3).")
                     .arg(count(*r.mostIn), QString::fromStdString(formatSeconds(m_capUsed->window)), count(m_capUsed->requests));
    if (m_originUsed)
        goals += tr(" At the origin, at most %1 in any %2 s of the log (the goal %3).")
                     .arg(count(*r.origin), QString::fromStdString(formatSeconds(m_originUsed->window)),
                          count(m_originUsed->requests));
    if (m_capUsed || m_originUsed)
        goals += m_windows->movedByGoals() ? tr(" Of the windows that meet %1, the one denying the fewest requests.")
                                                 .arg(m_capUsed && m_originUsed ? tr("both") : tr("it"))
                                           : tr(" Met by the recommendation made without %1.")
                                                 .arg(m_capUsed && m_originUsed ? tr("them") : tr("it"));
    return tr("%1, keeping every request of the %2 with at most %3 each%4: for each window, the least limit at which "
              "they all pass. Recommended: %5, %6 of the other keys' %7 requests denied, %8 capped.%9%10")
        .arg(m_product, QString::fromStdString(counted(a.keptKeys - a.passedKeys, "key")),
             QString::fromStdString(counted(a.keptMost, "request")), matchingText(a), QString::fromStdString(r.point),
             count(r.denied.other), count(a.limitedRequests - a.keptRequests),
             QString::fromStdString(counted(r.denied.keys, "key")), letByText(a), goals);
}

void AdviseView::showResult(Result r)
{
    m_advise->setEnabled(m_traffic != nullptr);
    const bool failed = !r.error.isEmpty();
    for (QWidget* part : std::initializer_list<QWidget*>{m_front, m_chart, m_config, m_copy, m_dryRun, m_rows})
        part->setVisible(!failed);
    if (failed) {
        m_advice.reset();
        m_windows.reset();
        m_summary->setText(r.error);
        emit finished();
        return;
    }
    m_advice = std::move(r.advice);
    m_windows = std::move(r.windows);
    m_product = r.product;
    m_passUsed = r.pass;
    m_letByUsed = r.letBy;
    m_gatewayUsed = r.gateway;
    m_letByMost = r.letByMost;
    m_capUsed = r.cap;
    m_originUsed = r.origin;
    m_summary->setText(m_windows ? windowsSummaryText() : summaryText());
    const int recommended = m_windows ? int(m_windows->recommended()) : recommendedRow(m_advice->advice());
    fillFront(recommended);
    m_chosen = -1;
    showChart();
    choose(recommended >= 0 ? recommended : 0);
    emit finished();
}

void AdviseView::fillFront(int recommended)
{
    if (m_windows) {
        fillWindows(recommended);
        return;
    }
    const Advice& a = m_advice->advice();
    QSignalBlocker block(m_front);
    m_front->setRowCount(0);
    m_front->horizontalHeaderItem(0)->setText(tr("Rate"));
    m_front->horizontalHeaderItem(1)->setText(tr("Burst"));
    // One bucket for every request (Envoy's): every request is kept, none is another key's.
    const bool shared = m_advice->shared();
    m_front->horizontalHeaderItem(2)->setText(shared ? tr("Requests denied") : tr("Kept keys' denied"));
    m_front->setColumnHidden(3, shared);
    m_front->setColumnHidden(4, shared);
    m_front->setColumnHidden(5, !m_capUsed);
    m_front->setColumnHidden(6, !m_originUsed);
    if (m_originUsed)
        m_front->horizontalHeaderItem(6)->setText(
            tr("At the origin in %1 s").arg(QString::fromStdString(formatSeconds(m_originUsed->window))));
    if (m_capUsed)
        m_front->horizontalHeaderItem(5)->setText(
            tr("Most in %1 s").arg(QString::fromStdString(formatSeconds(m_capUsed->window))));
    for (std::size_t i = 0; i < a.front.size(); ++i) {
        const AdvicePoint& p = a.front[i];
        QString rate = QString::fromStdString(m_advice->family().rateText(p.step));
        if (int(i) == recommended)
            rate += tr(" (recommended)");
        QStringList cells{rate, count(p.burst), count(p.denied.kept), count(p.denied.other), count(p.denied.keys)};
        if (m_capUsed) {
            const std::int64_t most = *m_advice->family().mostIn(p.step, p.burst, m_capUsed->window);
            cells << (most == std::numeric_limits<std::int64_t>::max() ? tr("no limit") : count(most));
        } else {
            cells << QString();
        }
        if (m_originUsed)
            cells << count(*p.origin);
        appendRow(m_front, cells);
    }
}

// fillWindows lists a window gateway's windows, each with its least limit, in the product's words.
void AdviseView::fillWindows(int recommended)
{
    QSignalBlocker block(m_front);
    m_front->setRowCount(0);
    m_front->horizontalHeaderItem(0)->setText(QString::fromStdString(m_windows->windowName()));
    m_front->horizontalHeaderItem(1)->setText(QString::fromStdString(m_windows->limitName()));
    m_front->horizontalHeaderItem(2)->setText(tr("Kept keys' denied"));
    m_front->setColumnHidden(3, false);
    m_front->setColumnHidden(4, false);
    m_front->setColumnHidden(5, !m_capUsed);
    if (m_capUsed)
        m_front->horizontalHeaderItem(5)->setText(
            tr("Most in %1 s").arg(QString::fromStdString(formatSeconds(m_capUsed->window))));
    m_front->setColumnHidden(6, !m_originUsed);
    if (m_originUsed)
        m_front->horizontalHeaderItem(6)->setText(
            tr("At the origin in %1 s").arg(QString::fromStdString(formatSeconds(m_originUsed->window))));
    const std::vector<WindowRow>& rows = m_windows->rows();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const WindowRow& w = rows[i];
        const QString window = QString::fromStdString(w.window) + (int(i) == recommended ? tr(" (recommended)") : QString());
        QStringList cells{window, QString::fromStdString(w.limit), count(w.denied.kept), count(w.denied.other),
                          count(w.denied.keys), m_capUsed ? count(*w.mostIn) : QString()};
        if (m_originUsed)
            cells << count(*w.origin);
        appendRow(m_front, cells);
    }
}

int AdviseView::rowCount() const
{
    return m_windows ? int(m_windows->rows().size()) : m_advice ? int(m_advice->advice().front.size()) : 0;
}

void AdviseView::choose(int row)
{
    if (row < 0 || row >= rowCount() || row == m_chosen)
        return;
    m_chosen = row;
    {
        QSignalBlocker block(m_front);
        m_front->selectRow(row);
        m_front->setCurrentCell(row, 0);
    }
    m_config->setPlainText(QString::fromStdString(m_windows ? m_windows->config(std::size_t(row))
                                                            : m_advice->config(m_advice->advice().front[std::size_t(row)])));
    // The chart stays (a click on it may be what chose): only its mark of the shown point moves.
    if (m_shown)
        m_shown->replace(QList<QPointF>{QPointF(double(row), pointValue(row))});
}

bool AdviseView::showInRows()
{
    if (m_chosen < 0 || m_chosen >= rowCount())
        return false;
    if (m_windows) {
        const std::optional<std::size_t> key = m_windows->shownKey(std::size_t(m_chosen));
        const QString title = tr("Advised for %1: %2")
                                  .arg(m_product, QString::fromStdString(m_windows->rows()[std::size_t(m_chosen)].point));
        emit rowsRequested(title, configText().toUtf8(), key ? qint64(*key) : -1, m_letByUsed, m_gatewayUsed);
        return true;
    }
    const AdvicePoint& p = m_advice->advice().front[std::size_t(m_chosen)];
    const std::optional<std::size_t> key = m_advice->shownKey(p);
    const QString title = tr("Advised for %1: %2, burst %3")
                              .arg(m_product, QString::fromStdString(m_advice->family().rateText(p.step)))
                              .arg(p.burst);
    emit rowsRequested(title, configText().toUtf8(), key ? qint64(*key) : -1, m_letByUsed, m_gatewayUsed);
    return true;
}

double AdviseView::pointValue(int row) const
{
    if (m_windows)
        return double(m_windows->rows().at(std::size_t(row)).denied.other);
    const AdvicePoint& p = m_advice->advice().front.at(std::size_t(row));
    return double(m_advice->shared() ? p.burst : p.denied.other);
}

void AdviseView::showChart()
{
    auto* chart = new QChart;
    followPalette(chart, palette());
    const bool shared = m_advice && m_advice->shared();
    chart->setTitle(m_windows ? tr("Other keys' requests denied, by window")
                    : shared  ? tr("The burst every request needs, by rate")
                              : tr("Other keys' requests denied, by rate"));
    chart->legend()->setAlignment(Qt::AlignBottom);
    auto* x = new QBarCategoryAxis;
    auto* y = new QValueAxis;
    std::int64_t most = 4; // an axis of whole counts even when no point denies any
    // The front is a line (a rate and the burst it needs, rising step by step); the windows are
    // points apart: an Upstash slidingWindow of a minute is no neighbour of its fixedWindow of a second.
    QXYSeries* front = m_windows ? static_cast<QXYSeries*>(windowMarks(palette())) : new QLineSeries;
    if (!m_windows) {
        front->setName(tr("the front"));
        front->setPointsVisible(true);
        front->setPen(frontPen(palette()));
    }
    auto* recommended = recommendedMark();
    auto* shown = shownMark();
    const int rec = m_windows ? int(m_windows->recommended()) : recommendedRow(m_advice->advice());
    for (int i = 0; i < rowCount(); ++i) {
        const QString label = m_windows ? chartLabel(m_windows->rows()[std::size_t(i)].window)
                                        : QString::fromStdString(m_advice->family().rateText(m_advice->advice().front[std::size_t(i)].step));
        x->append(label + (i == rec ? QString("*") : QString()));
        front->append(double(i), pointValue(i));
        most = std::max(most, std::int64_t(pointValue(i)));
        if (i == rec)
            recommended->append(double(i), pointValue(i));
    }
    y->setRange(0, double(most) * 1.1);
    y->applyNiceNumbers(); // ticks at round counts
    if (rowCount() > 6 || (m_windows && rowCount() > 4)) { // more points side by side are cut short at the text's size
        QFont small = x->labelsFont();
        small.setPointSizeF(small.pointSizeF() * 0.75);
        x->setLabelsFont(small);
    }
    y->setLabelFormat("%.0f"); // no axis title: the chart's title names what it counts, and the rates need the room
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QXYSeries* s : {front, static_cast<QXYSeries*>(shown), static_cast<QXYSeries*>(recommended)}) {
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
        connect(s, &QXYSeries::clicked, this, [this](const QPointF& p) { choose(qRound(p.x())); });
    }
    for (QLegendMarker* marker : chart->legend()->markers(recommended))
        marker->setBrush(kRecommendedGreen); // the ring's own brush is none: its legend shows its colour
    QChart* old = m_chart->chart();
    m_chart->setChart(chart);
    delete old;
    m_shown = shown;
}

void AdviseView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        followPalette(m_chart->chart(), palette());
        for (QAbstractSeries* s : m_chart->chart()->series())
            if (auto* line = qobject_cast<QLineSeries*>(s))
                line->setPen(frontPen(palette()));
            else if (auto* windows = qobject_cast<QScatterSeries*>(s); windows && windows->name() == tr("the windows")) {
                windows->setColor(frontPen(palette()).color());
                windows->setBorderColor(frontPen(palette()).color());
            }
    }
}

} // namespace ratelab::ui
