#include "controlpanel.h"

#include "decimal.h"
#include "slidervalue.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QLabel>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ratelab::ui {

namespace {

// nanos converts a spin box value in seconds (at most 3 decimals) to exact nanoseconds.
Nanos nanos(const SliderValue* v) { return parseSeconds(v->text().toStdString()); }
double seconds(Nanos t) { return secondsAsDouble(t); }

QWidget* page(std::initializer_list<QWidget*> widgets)
{
    auto* w = new QWidget;
    auto* layout = new QVBoxLayout(w);
    layout->setContentsMargins(0, 0, 0, 0);
    for (QWidget* child : widgets)
        layout->addWidget(child);
    return w;
}

} // namespace

ControlPanel::ControlPanel(QWidget* parent)
    : QWidget(parent)
    , m_limit(new SliderValue("&Limit", 1, 100, 0, ""))
    , m_window(new SliderValue("&Window", 0.1, 60, 3, " s"))
    , m_link(new QCheckBox("Capacity and rate &follow limit, window"))
    , m_capacity(new SliderValue("&Capacity", 1, 100, 0, ""))
    , m_rate(new SliderValue("&Rate", 0.01, 1000, 3, " /s", SliderValue::Scale::Log))
    , m_pattern(new QComboBox)
    , m_patternPages(new QStackedWidget)
    , m_requests(new SliderValue("Re&quests", 1, 1'000'000, 0, "", SliderValue::Scale::Log))
    , m_delay(new SliderValue("&Delay", 0, 5, 3, " s"))
    , m_burstSize(new SliderValue("Burst si&ze", 1, 100, 0, ""))
    , m_period(new SliderValue("&Period", 0, 60, 3, " s"))
    , m_lambda(new SliderValue("Lam&bda", 0.01, 1000, 2, " /s", SliderValue::Scale::Log))
    , m_seed(new SliderValue("S&eed", 1, 1000, 0, ""))
    , m_gap(new SliderValue("&Gap", 0, 10, 3, " s"))
    , m_start(new SliderValue("S&tart", 0, 60, 3, " s"))
{
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
    m_requests->setToolTip("Number of requests in the scenario");
    m_delay->setToolTip("Time between two requests");
    m_start->setToolTip("Time of the first request, against the window boundary at 0 s");
    m_gap->setToolTip("How long before the window boundary the first burst comes");

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(limitsGroup());
    layout->addWidget(trafficGroup());
    layout->addWidget(algorithmsGroup());
    layout->addStretch();

    for (SliderValue* v : {m_limit, m_window, m_capacity, m_rate, m_requests, m_delay, m_burstSize, m_period, m_lambda,
                           m_seed, m_gap, m_start})
        connect(v, &SliderValue::valueChanged, this, [this] {
            syncLinked();
            changed();
        });
    connect(m_link, &QCheckBox::toggled, this, [this] {
        syncLinked();
        changed();
    });
    connect(m_pattern, &QComboBox::currentIndexChanged, this, [this](int i) {
        showPatternPage(i);
        m_requests->setEnabled(i != int(PatternKind::Edge));
        changed();
    });
    setScenario(Scenario{});
}

QWidget* ControlPanel::limitsGroup()
{
    auto* box = new QGroupBox("Limits");
    auto* layout = new QVBoxLayout(box);
    for (QWidget* w : std::initializer_list<QWidget*>{m_limit, m_window, m_link, m_capacity, m_rate})
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
    layout->addLayout(patternRow);
    layout->addWidget(m_requests);
    m_patternPages->addWidget(page({m_delay}));
    m_patternPages->addWidget(page({m_burstSize, m_period}));
    m_patternPages->addWidget(page({m_lambda, m_seed}));
    m_patternPages->addWidget(page({m_gap}));
    layout->addWidget(m_patternPages);
    layout->addWidget(m_start);
    return box;
}

QWidget* ControlPanel::algorithmsGroup()
{
    auto* box = new QGroupBox("Algorithms");
    auto* layout = new QVBoxLayout(box);
    for (Algorithm a : kAllAlgorithms) {
        auto* check = new QCheckBox(QString::fromUtf8(algorithmTitle(a).data()));
        check->setChecked(true);
        connect(check, &QCheckBox::toggled, this, &ControlPanel::changed);
        m_algorithms[a] = check;
        layout->addWidget(check);
    }
    return box;
}

void ControlPanel::showPatternPage(int index)
{
    // Only the current page takes space: the panel does not keep room for the tallest one.
    for (int i = 0; i < m_patternPages->count(); ++i)
        m_patternPages->widget(i)->setSizePolicy(QSizePolicy::Preferred,
                                                 i == index ? QSizePolicy::Preferred : QSizePolicy::Ignored);
    m_patternPages->setCurrentIndex(index);
    m_patternPages->adjustSize();
}

void ControlPanel::addRequests(Nanos t, int count)
{
    m_addedArrivals.insert(m_addedArrivals.end(), std::size_t(std::max(count, 0)), t);
    std::sort(m_addedArrivals.begin(), m_addedArrivals.end());
    changed();
}

void ControlPanel::clearAddedRequests()
{
    if (m_addedArrivals.empty())
        return;
    m_addedArrivals.clear();
    changed();
}

bool ControlPanel::linked() const { return m_link->isChecked(); }

void ControlPanel::setLinked(bool linked)
{
    const QSignalBlocker block(m_link);
    m_link->setChecked(linked);
    syncLinked();
}

void ControlPanel::syncLinked()
{
    const bool on = m_link->isChecked();
    m_capacity->setEnabled(!on);
    m_rate->setEnabled(!on);
    if (on) {
        m_capacity->setValue(m_limit->value());
        m_rate->setValue(m_limit->value() / m_window->value());
    }
}

void ControlPanel::changed()
{
    try {
        emit scenarioChanged(scenario());
    } catch (const InputError&) {
        // The controls are range-limited; a combination they cannot express is simply not run.
    }
}

Scenario ControlPanel::scenario() const
{
    Scenario s;
    const auto limit = std::int64_t(m_limit->value());
    if (m_link->isChecked())
        s.config = LimiterConfig::make(limit, nanos(m_window));
    else
        s.config = LimiterConfig::make(limit, nanos(m_window), std::int64_t(m_capacity->value()),
                                       parseRate(m_rate->text().toStdString()));
    s.algorithms.clear();
    for (Algorithm a : kAllAlgorithms)
        if (m_algorithms.at(a)->isChecked())
            s.algorithms.push_back(a);
    Pattern& p = s.pattern;
    p.kind = PatternKind(m_pattern->currentIndex());
    p.count = std::int64_t(m_requests->value());
    p.delayNanos = nanos(m_delay);
    p.startNanos = nanos(m_start);
    p.burstSize = std::int64_t(m_burstSize->value());
    p.periodNanos = nanos(m_period);
    p.lambda = parseRate(m_lambda->text().toStdString());
    p.seed = std::uint64_t(m_seed->value());
    p.gapNanos = nanos(m_gap);
    if (m_hasExplicitArrivals)
        s.explicitArrivals = m_explicitArrivals;
    s.addedArrivals = m_addedArrivals;
    s.title = m_title;
    s.lesson = m_lesson;
    return s;
}

void ControlPanel::setScenario(const Scenario& s)
{
    const LimiterConfig& c = s.config;
    const QSignalBlocker block(this);
    m_limit->setValue(double(c.limit()));
    m_window->setValue(seconds(c.windowNanos()));
    const bool linked = c.capacity() == c.limit() && c.rate() == Rate::reduced(c.limit(), c.windowNanos());
    {
        const QSignalBlocker blockLink(m_link);
        m_link->setChecked(linked);
    }
    m_capacity->setValue(double(c.capacity()));
    m_rate->setValue(c.rate().perSecond());
    syncLinked();
    {
        const QSignalBlocker blockPattern(m_pattern);
        m_pattern->setCurrentIndex(int(s.pattern.kind));
        showPatternPage(int(s.pattern.kind));
        m_requests->setEnabled(s.pattern.kind != PatternKind::Edge);
    }
    const Pattern& p = s.pattern;
    m_requests->setValue(double(p.count));
    m_delay->setValue(seconds(p.delayNanos));
    m_start->setValue(seconds(p.startNanos));
    m_burstSize->setValue(double(p.burstSize));
    m_period->setValue(seconds(p.periodNanos));
    m_lambda->setValue(p.lambda.perSecond());
    m_seed->setValue(double(p.seed));
    m_gap->setValue(seconds(p.gapNanos));
    for (auto& [a, check] : m_algorithms) {
        const QSignalBlocker blockCheck(check);
        check->setChecked(std::find(s.algorithms.begin(), s.algorithms.end(), a) != s.algorithms.end());
    }
    m_hasExplicitArrivals = s.explicitArrivals.has_value();
    m_explicitArrivals = s.explicitArrivals.value_or(std::vector<Nanos>{});
    m_addedArrivals = s.addedArrivals;
    m_title = s.title;
    m_lesson = s.lesson;
}

} // namespace ratelab::ui
