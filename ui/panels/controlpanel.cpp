#include "panels/controlpanel.h"
#include "panels/productgroup.h"
#include "limiters/algorithm_facts.h"
#include "limiters/products/product.h"

#include "arithmetic/decimal.h"
#include "panels/documentfields.h"
#include "panels/productiongroups.h"
#include "panels/servergroup.h"
#include "model/scenariodocument.h"
#include "panels/slidervalue.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace ratelab::ui {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

QWidget* page(std::initializer_list<QWidget*> widgets)
{
    auto* w = new QWidget;
    auto* layout = new QVBoxLayout(w);
    layout->setContentsMargins(0, 0, 0, 0);
    for (QWidget* child : widgets)
        layout->addWidget(child);
    return w;
}

// follow sets capacity and rate to limit and limit / window.
void follow(Scenario& s)
{
    s.config = s.config.withLimits(s.config.limit(), s.config.windowNanos());
}

// usePattern drops explicit arrival times (from a file), with the clients and costs they name,
// when a pattern is chosen: the pattern's requests replace them, as a pattern option does on
// the command line.
void usePattern(Scenario& s)
{
    s.explicitArrivals.reset();
    s.explicitClients.clear();
    s.explicitCosts.clear();
    s.explicitService.clear(); // the file's service and priority columns go with its lines
    s.explicitCritical.clear();
    s.explicitPriority.clear();
    if (s.pattern.kind == PatternKind::Worst && !s.algorithms.empty())
        s.pattern.worstOf = s.algorithms.front(); // the worst pattern is the first row's
}

// kFileItem is the pattern box's last item, there only while the arrivals come from a file.
constexpr int kFileItem = 5;

// checkTraffic refuses a pattern that would not simulate (too many requests, past the end of
// time), without generating it.
void checkTraffic(const Scenario& s)
{
    if (!s.explicitArrivals && s.pattern.kind != PatternKind::Poisson)
        checkPattern(s.pattern, s.config);
}

std::pair<QString, double> rateField(Rate r) { return {q(r.exactText()), r.perSecond()}; }

} // namespace

ControlPanel::ControlPanel(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_fields(new DocumentFields(document, this))
    , m_limit(new SliderValue("&Limit", 1, 100, 0, ""))
    , m_window(new SliderValue("&Window", 0.1, 60, 3, " s"))
    , m_link(new QCheckBox("Capacity and rate follow l&imit, window"))
    , m_capacity(new SliderValue("&Capacity", 1, 100, 0, ""))
    , m_rate(new SliderValue("&Rate", 0.01, 1000, 3, " /s", SliderValue::Scale::Log))
    , m_startEmpty(new QCheckBox(tr("Buckets start empty")))
    , m_pattern(new QComboBox)
    , m_arrivalsNote(new QLabel)
    , m_limitsNote(new QLabel)
    , m_requests(new SliderValue("Re&quests", 1, 1'000'000, 0, "", SliderValue::Scale::Log))
    , m_delay(new SliderValue("&Delay", 0, 5, 3, " s"))
    , m_burstSize(new SliderValue("Burst si&ze", 1, 100, 0, ""))
    , m_period(new SliderValue("Perio&d", 0, 60, 3, " s"))
    , m_lambda(new SliderValue("Lam&bda", 0.01, 1000, 2, " /s", SliderValue::Scale::Log))
    , m_seed(new SliderValue("See&d", 0, 1000, 0, ""))
    , m_gap(new SliderValue("&Gap", 0, 10, 3, " s"))
    , m_start(new SliderValue("S&tart", 0, 60, 3, " s"))
    , m_cost(new SliderValue("C&ost", 1, 100, 0, "", SliderValue::Scale::Log))
    , m_burst(new SliderValue("B&urst", 0, 100, 0, ""))
    , m_nodelay(new QCheckBox("&nodelay: admitted requests never wait"))
    , m_nginxDelay(new SliderValue("dela&y=", 0, 100, 0, ""))
{
    describeControls();
    m_arrivalsNote->setWordWrap(true);
    m_limitsNote->setWordWrap(true);
    m_arrivalsNote->setToolTip(tr("Changing the traffic settings replaces these times with the pattern's (Edit > Undo brings them back)"));

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(limitsGroup());
    layout->addWidget(trafficGroup());
    layout->addWidget(algorithmsGroup());
    layout->addWidget(m_products = new ProductGroup(document));
    layout->addWidget(m_layers = new LayersGroup(document));
    layout->addWidget(m_cluster = new ClusterGroup(document));
    layout->addWidget(m_clients = new ClientsGroup(document));
    layout->addWidget(m_throttle = new ThrottleGroup(document)); // the clients' own, before the limiter
    layout->addWidget(m_server = new ServerGroup(document));
    layout->addStretch();

    bindFields();
    connectChoices();
    connect(m_document, &ScenarioDocument::changed, this, &ControlPanel::showDocument);
    showDocument();
}

void ControlPanel::describeControls()
{
    m_cost->setToolTip(tr("What every request costs in tokens or slots (1: one request, one unit)"));
    m_burst->setToolTip(tr("nginx limit_req burst=B: requests beyond the rate it queues (default capacity - 1)"));
    m_nginxDelay->setToolTip(tr("nginx limit_req delay=D: the first D excess requests pass at once, the rest wait"));
    m_window->setStep(0.1);
    m_delay->setStep(0.01);
    m_period->setStep(0.1);
    m_start->setStep(0.1);
    m_gap->setStep(0.001);
    m_rate->setStep(0.001);
    m_limit->setToolTip("Requests allowed per window (window limiters)");
    m_window->setToolTip("Window length in seconds");
    m_capacity->setToolTip("Bucket size: the largest burst the buckets and GCRA admit");
    m_rate->setToolTip("Refill (token) or drain (leaky) rate, requests per second");
    m_startEmpty->setToolTip(tr("Token and leaky buckets, GCRA and nginx start with no credit, not full: at 0 s, when a "
                                "node joins, when a node falls back to its own limiter"));
    m_requests->setToolTip("Number of requests in the scenario");
    m_delay->setToolTip("Time between two requests");
    m_start->setToolTip("Time of the first request, against the window boundary at 0 s");
    m_gap->setToolTip("How long before the window boundary the first burst comes");
}

void ControlPanel::connectChoices()
{
    connect(m_startEmpty, &QCheckBox::toggled, this, [this](bool on) {
        m_document->change(on ? tr("Buckets start empty") : tr("Buckets start full"),
                           [on](Scenario& s) { s.bucketsStartEmpty = on; });
    });
    connect(m_link, &QCheckBox::toggled, this, [this](bool on) {
        m_document->setFollows(on, on ? tr("Capacity and rate follow limit and window")
                                      : tr("Capacity and rate set by hand"));
        showDocument();
    });
    connect(m_pattern, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i < 0 || i >= kFileItem)
            return;
        m_document->change(tr("Pattern"), [i](Scenario& s) {
            s.pattern.kind = PatternKind(i);
            usePattern(s);
        });
    });
}

void ControlPanel::bind(SliderValue* control, const QString& what, DocumentFields::Apply apply, DocumentFields::Show show)
{
    m_fields->bind(control, what, std::move(apply), std::move(show));
}

void ControlPanel::bindFields()
{
    bindLimitFields();
    bindTrafficFields();
    bind(m_cost, tr("Cost"), [](Scenario& s, const std::string& t) { s.cost = parseIntegerIn(t, 1, kMaxCost); },
         [](const Scenario& s) { return countField(s.cost); });
    bindNginxFields();
}

void ControlPanel::bindLimitFields()
{
    const auto limits = [](const std::string& t) { return parseIntegerIn(t, 1, LimiterConfig::kMaxLimit); };
    bind(m_limit, tr("Limit"), [this, limits](Scenario& s, const std::string& t) {
        const LimiterConfig& c = s.config;
        s.config = c.withLimits(limits(t), c.windowNanos(), c.capacity(), c.rate());
        if (m_document->follows())
            follow(s);
        checkTraffic(s);
    }, [](const Scenario& s) { return countField(s.config.limit()); });
    bind(m_window, tr("Window"), [this](Scenario& s, const std::string& t) {
        const LimiterConfig& c = s.config;
        s.config = c.withLimits(c.limit(), positiveSeconds(t), c.capacity(), c.rate());
        if (m_document->follows())
            follow(s);
        checkTraffic(s);
    }, [](const Scenario& s) { return secondsField(s.config.windowNanos()); });
    bind(m_capacity, tr("Capacity"), [limits](Scenario& s, const std::string& t) {
        const LimiterConfig& c = s.config;
        s.config = c.withLimits(c.limit(), c.windowNanos(), limits(t), c.rate());
    }, [](const Scenario& s) { return countField(s.config.capacity()); });
    bind(m_rate, tr("Rate"), [](Scenario& s, const std::string& t) {
        const LimiterConfig& c = s.config;
        s.config = c.withLimits(c.limit(), c.windowNanos(), c.capacity(), parseRate(t));
    }, [](const Scenario& s) { return rateField(s.config.rate()); });
}

void ControlPanel::bindTrafficFields()
{
    // Traffic: each setting changes the pattern and asks for it (explicit times give way).
    const auto traffic = [this](SliderValue* control, const QString& what, auto set, auto get) {
        bind(control, what, [set](Scenario& s, const std::string& t) {
            set(s.pattern, t);
            usePattern(s);
            checkTraffic(s);
        }, [get](const Scenario& s) { return get(s.pattern); });
    };
    traffic(m_requests, tr("Requests"), [](Pattern& p, const std::string& t) { p.count = parseIntegerIn(t, 0, kMaxArrivals); },
            [](const Pattern& p) { return countField(p.count); });
    traffic(m_delay, tr("Delay"), [](Pattern& p, const std::string& t) { p.delayNanos = nonNegativeSeconds(t); },
            [](const Pattern& p) { return secondsField(p.delayNanos); });
    traffic(m_start, tr("Start"), [](Pattern& p, const std::string& t) { p.startNanos = nonNegativeSeconds(t); },
            [](const Pattern& p) { return secondsField(p.startNanos); });
    traffic(m_burstSize, tr("Burst size"), [](Pattern& p, const std::string& t) { p.burstSize = parseIntegerIn(t, 1, kMaxArrivals); },
            [](const Pattern& p) { return countField(p.burstSize); });
    traffic(m_period, tr("Period"), [](Pattern& p, const std::string& t) { p.periodNanos = nonNegativeSeconds(t); },
            [](const Pattern& p) { return secondsField(p.periodNanos); });
    traffic(m_lambda, tr("Lambda"), [](Pattern& p, const std::string& t) { p.lambda = parseRate(t); },
            [](const Pattern& p) { return rateField(p.lambda); });
    traffic(m_seed, tr("Seed"), [](Pattern& p, const std::string& t) { p.seed = parseSeed(t); },
            [](const Pattern& p) { return std::pair<QString, double>{QString::number(p.seed), double(p.seed)}; });
    traffic(m_gap, tr("Gap"), [](Pattern& p, const std::string& t) { p.gapNanos = nonNegativeSeconds(t); },
            [](const Pattern& p) { return secondsField(p.gapNanos); });
}

void ControlPanel::bindNginxFields()
{
    // nginx options reach layers too: a nginx_limit_req layer reads them.
    const auto setNginx = [](Scenario& s, const NginxOptions& n) {
        s.config = s.config.withNginx(n);
        for (Layer& layer : s.layers)
            layer.config = layer.config.withNginx(n);
    };
    const auto whole = [](const std::string& t) { return parseIntegerIn(t, 0, LimiterConfig::kMaxLimit); };
    bind(m_burst, tr("nginx burst"), [=](Scenario& s, const std::string& t) {
        NginxOptions n = s.config.nginx();
        n.burst = whole(t);
        setNginx(s, n);
    }, [](const Scenario& s) { return countField(s.config.nginxBurst()); });
    bind(m_nginxDelay, tr("nginx delay"), [=](Scenario& s, const std::string& t) {
        NginxOptions n = s.config.nginx();
        n.delay = whole(t);
        n.nodelay = n.nodelay && n.delay == 0; // delay= and nodelay exclude each other, as in nginx
        setNginx(s, n);
    }, [](const Scenario& s) { return countField(s.config.nginx().delay); });
    connect(m_nodelay, &QCheckBox::toggled, this, [this, setNginx](bool on) {
        m_document->change(tr("nginx nodelay"), [&](Scenario& s) {
            NginxOptions n = s.config.nginx();
            n.nodelay = on;
            if (on)
                n.delay = 0;
            setNginx(s, n);
        });
    });
}

QWidget* ControlPanel::limitsGroup()
{
    auto* box = new QGroupBox("Limits");
    auto* layout = new QVBoxLayout(box);
    for (QWidget* w : std::initializer_list<QWidget*>{m_limitsNote, m_limit, m_window, m_link, m_capacity, m_rate, m_startEmpty})
        layout->addWidget(w);
    return box;
}

QWidget* ControlPanel::trafficGroup()
{
    auto* box = new QGroupBox("Traffic");
    auto* layout = new QVBoxLayout(box);
    auto* patternRow = new QHBoxLayout;
    auto* patternLabel = new QLabel("Pa&ttern");
    patternLabel->setMinimumWidth(70);
    patternLabel->setBuddy(m_pattern);
    patternRow->addWidget(patternLabel);
    patternRow->addWidget(m_pattern, 1);
    m_pattern->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_pattern->setMinimumContentsLength(14);
    m_pattern->addItem("Uniform: evenly spaced");
    m_pattern->addItem("Bursts: groups at one instant");
    m_pattern->addItem("Poisson: random arrivals");
    m_pattern->addItem("Edge: bursts around a window boundary");
    m_pattern->addItem(tr("Worst case of the first row's algorithm"));
    layout->addLayout(patternRow);
    layout->addWidget(m_arrivalsNote);
    layout->addWidget(m_requests);
    // Each pattern's own settings, in the pattern enum's order; only the chosen one's are shown
    // (hidden widgets take no room: no gap where another pattern's settings were).
    m_patternPages = {page({m_delay}), page({m_burstSize, m_period}), page({m_lambda, m_seed}), page({m_gap})};
    for (QWidget* w : m_patternPages)
        layout->addWidget(w);
    layout->addWidget(m_start);
    layout->addWidget(m_cost);
    return box;
}

QWidget* ControlPanel::algorithmsGroup()
{
    auto* box = new QGroupBox("Algorithms");
    auto* layout = new QVBoxLayout(box);
    for (Algorithm a : kEveryAlgorithm) {
        auto* check = new QCheckBox(QString::fromUtf8(algorithmTitle(a).data()));
        check->setChecked(true);
        connect(check, &QCheckBox::toggled, this, [this, a](bool on) {
            m_document->change(on ? tr("Show %1").arg(QString::fromUtf8(algorithmTitle(a).data()))
                                  : tr("Hide %1").arg(QString::fromUtf8(algorithmTitle(a).data())),
                               [a, on](Scenario& s) {
                                   std::vector<Algorithm> next;
                                   for (Algorithm b : kEveryAlgorithm) // keep the table's order
                                       if (b == a ? on : std::find(s.algorithms.begin(), s.algorithms.end(), b) != s.algorithms.end())
                                           next.push_back(b);
                                   s.algorithms = next;
                                   // The worst pattern is the first row's, as its box says: it
                                   // follows when that row is unticked or another comes first.
                                   if (s.pattern.kind == PatternKind::Worst && !s.explicitArrivals && !next.empty())
                                       s.pattern.worstOf = next.front();
                               });
        });
        m_algorithms[a] = check;
        layout->addWidget(check);
    }
    // nginx's own limit_req parameters, under its box.
    m_nginxOptions = page({m_burst, m_nodelay, m_nginxDelay});
    m_nginxOptions->setContentsMargins(16, 0, 0, 0);
    layout->addWidget(m_nginxOptions);
    return box;
}

void ControlPanel::showPatternPage(int index)
{
    // Only the current page takes space: the panel does not keep room for the tallest one.
    for (std::size_t i = 0; i < m_patternPages.size(); ++i)
        m_patternPages[i]->setVisible(int(i) == index);
}

void ControlPanel::addRequests(Nanos t, int count)
{
    if (count <= 0)
        return;
    m_document->change(count == 1 ? tr("Send a request") : tr("Send a burst"), [t, count](Scenario& s) {
        s.addedArrivals.insert(std::upper_bound(s.addedArrivals.begin(), s.addedArrivals.end(), t), std::size_t(count), t);
    });
}

void ControlPanel::clearAddedRequests()
{
    m_document->change(tr("Clear requests sent by hand"), [](Scenario& s) { s.addedArrivals.clear(); });
}

bool ControlPanel::linked() const { return m_document->follows(); }

void ControlPanel::showDocument()
{
    const Scenario& s = m_document->scenario();
    m_fields->showAll();
    // Capacity and rate stay editable while they follow: typing one unticks the box in the same
    // undo step, so a lesson's "try rate 1" works as written.
    {
        const QSignalBlocker block(m_link), empty(m_startEmpty);
        m_link->setChecked(m_document->follows());
        m_startEmpty->setChecked(s.bucketsStartEmpty);
    }
    showPatternChoice(s);
    for (auto& [a, check] : m_algorithms) {
        const QSignalBlocker block(check);
        check->setChecked(std::find(s.algorithms.begin(), s.algorithms.end(), a) != s.algorithms.end());
    }
    m_nginxOptions->setVisible(m_algorithms.at(Algorithm::NginxLimitReq)->isChecked());
    {
        const QSignalBlocker block(m_nodelay);
        m_nodelay->setChecked(s.config.nginx().nodelay);
    }
    m_nginxDelay->setEnabled(!s.config.nginx().nodelay);
    m_cost->setEnabled(s.explicitCosts.empty() || !s.explicitArrivals);
    showLimitsNote(s);
}

// showPatternChoice shows the pattern box, its page and the note of arrival times from a file.
void ControlPanel::showPatternChoice(const Scenario& s)
{
    // Arrival times from a file replace the pattern: the pattern's settings do not apply and are
    // not shown; choosing a pattern in the box replaces the times (one undo step).
    const bool fromFile = s.explicitArrivals.has_value();
    {
        const QSignalBlocker block(m_pattern);
        const std::size_t n = fromFile ? s.explicitArrivals->size() : 0;
        const QString fileItem = n == 1 ? tr("From the file: 1 time")
                                        : tr("From the file: %1 times").arg(QLocale().toString(qulonglong(n)));
        if (fromFile && m_pattern->count() == kFileItem)
            m_pattern->addItem(fileItem);
        else if (!fromFile && m_pattern->count() > kFileItem)
            m_pattern->removeItem(kFileItem);
        if (fromFile)
            m_pattern->setItemText(kFileItem, fileItem);
        m_pattern->setCurrentIndex(fromFile ? kFileItem : int(s.pattern.kind));
    }
    showPatternPage(fromFile ? -1 : int(s.pattern.kind));
    m_requests->setVisible(!fromFile);
    m_start->setVisible(!fromFile);
    m_requests->setEnabled(s.pattern.kind != PatternKind::Edge && s.pattern.kind != PatternKind::Worst);
    m_arrivalsNote->setVisible(fromFile);
    if (fromFile)
        m_arrivalsNote->setText(tr("%1 arrival times from the file. Choose a pattern above to replace them.")
                                    .arg(QLocale().toString(qulonglong(s.explicitArrivals->size()))));
    const QString worst = s.pattern.kind == PatternKind::Worst
                              ? tr("Worst case of the %1").arg(QString::fromUtf8(facts(s.pattern.worstOf).phrase.data(),
                                                                                 qsizetype(facts(s.pattern.worstOf).phrase.size())))
                              : tr("Worst case of the first row's algorithm");
    if (m_pattern->itemText(int(PatternKind::Worst)) != worst) // a new text lays the panel out again
        m_pattern->setItemText(int(PatternKind::Worst), worst);
}

// showLimitsNote says when the Limits apply to no row: no algorithm ticked, or products that read
// options of their own.
void ControlPanel::showLimitsNote(const Scenario& s)
{
    QStringList own;
    for (Algorithm a : s.algorithms)
        if (isProduct(a) && ProductParams(a, s.config).given())
            own << QString::fromUtf8(algorithmTitle(a).data());
    m_limitsNote->setVisible(!own.isEmpty() || s.algorithms.empty());
    if (s.algorithms.empty()) // the server presets: concurrency rows (and layers) keep their own limits
        m_limitsNote->setText(tr("No algorithm is ticked: these Limits apply to none of the rows. Tick one under "
                                 "Algorithms to compare it."));
    else if (!own.isEmpty())
        m_limitsNote->setText((own.size() == 1 ? tr("%1 decides with its own options (Product options, below), not these Limits.")
                                           : tr("%1 decide with their own options (Product options, below), not these Limits."))
                              .arg(QLocale().createSeparatedList(own)));
}

} // namespace ratelab::ui
