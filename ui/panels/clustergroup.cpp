// ClusterGroup (productiongroups.h): several servers behind a balancer, sharing (or not) a store,
// and what the store does when it goes down.
#include "panels/productiongroups.h"

#include "arithmetic/decimal.h"
#include "panels/documentfields.h"
#include "panels/groupparts.h"
#include "model/scenariodocument.h"
#include "panels/slidervalue.h"

#include <QCheckBox>
#include <QComboBox>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace ratelab::ui {

namespace {

// editCluster applies f to every option of the scenario's cluster (those this group does not
// show too: joins and leaves from a file or the command line are kept) and validates them.
template <typename F>
void editCluster(Scenario& s, F f)
{
    ClusterConfig::Options o = s.cluster.value_or(ClusterConfig{}).options();
    f(o);
    s.cluster = ClusterConfig::make(o);
}

const char* const kCoordinationNames[] = {
    "local: each server its own limiter", "split: each server L / N", "shared: one atomic store",
    "racy: read, then write later", "hybrid: local, synced every period"};

const char* const kFallbackNames[] = {"open: admit everything", "closed: deny until it is back",
                                      "local: each server its own limiter"};

bool hasStore(Coordination c) { return c != Coordination::Local && c != Coordination::Split; }

} // namespace

ClusterGroup::ClusterGroup(ScenarioDocument* document, QWidget* parent)
    : QGroupBox(tr("Cl&uster: several servers"), parent)
    , m_document(document)
    , m_fields(new DocumentFields(document, this))
    , m_body(groupBody(this))
    , m_nodes(new SliderValue(tr("Nodes"), 1, ClusterConfig::kMaxNodes, 0, ""))
    , m_balancer(new QComboBox)
    , m_coordination(new QComboBox)
    , m_latency(new SliderValue(tr("Latency"), 0, 1, 3, " s"))
    , m_sync(new SliderValue(tr("Sync"), 0.001, 10, 3, " s", SliderValue::Scale::Log))
    , m_skew(new SliderValue(tr("Skew"), 0, 5, 3, " s"))
    , m_outage(new QCheckBox(tr("The store goes &down")))
    , m_outageFrom(new SliderValue(tr("Down from"), 0, 60, 2, " s"))
    , m_outageTo(new SliderValue(tr("Back at"), 0, 60, 2, " s"))
    , m_fallback(new QComboBox)
    , m_autoscale(new QCheckBox(tr("&Autoscale by load")))
    , m_minNodes(new SliderValue(tr("Fewest"), 1, ClusterConfig::kMaxNodes, 0, ""))
    , m_scaleAt(new SliderValue(tr("Scale at"), 0.1, 10000, 2, " /s", SliderValue::Scale::Log))
{
    setUpControls();
    layOut();
    bindFields();
    connectEdits();
    connect(m_document, &ScenarioDocument::changed, this, &ClusterGroup::showDocument);
    showDocument();
}

// setUpControls gives each control its tip, step and items.
void ClusterGroup::setUpControls()
{
    setCheckable(true);
    setToolTip(tr("Run every limiter on several servers behind a load balancer, sharing (or not) a store"));
    m_latency->setToolTip(tr("racy: the store round trip; a decision sees only writes older than this"));
    m_sync->setToolTip(tr("hybrid: how often each server pulls the store's state"));
    m_skew->setToolTip(tr("How far the last server's clock runs ahead (the others in proportion)"));
    m_outage->setToolTip(tr("The shared store is unreachable for a while; the servers fall back meanwhile"));
    m_fallback->setToolTip(tr("What each server does while the store is down"));
    m_autoscale->setToolTip(tr("At each whole second the servers up are the last second's attempts / Scale at, from "
                               "Fewest to Nodes; a server that comes up is new"));
    m_scaleAt->setToolTip(tr("The attempts a second one server takes before another is started"));
    m_latency->setStep(0.001);
    m_skew->setStep(0.01);
    m_outageFrom->setStep(0.1);
    m_outageTo->setStep(0.1);
    m_balancer->addItems({tr("round robin"), tr("random"), tr("hash of the client")});
    for (const char* name : kCoordinationNames)
        m_coordination->addItem(tr(name));
    for (const char* name : kFallbackNames)
        m_fallback->addItem(tr(name));
}

void ClusterGroup::layOut()
{
    auto* layout = new QVBoxLayout(m_body);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_nodes);
    layout->addLayout(labelled(tr("Balancer"), m_balancer));
    layout->addLayout(labelled(tr("Store"), m_coordination));
    layout->addWidget(m_latency);
    layout->addWidget(m_sync);
    layout->addWidget(m_skew);
    layout->addWidget(m_outage);
    layout->addWidget(m_outageFrom);
    layout->addWidget(m_outageTo);
    layout->addLayout(m_fallbackRow = labelled(tr("Fallback"), m_fallback));
    layout->addWidget(m_autoscale);
    layout->addWidget(m_minNodes);
    layout->addWidget(m_scaleAt);
}

// bindFields binds each slider's typed value to its field of the cluster's options.
void ClusterGroup::bindFields()
{
    m_fields->bind(m_minNodes, tr("Fewest nodes"), [](Scenario& s, const std::string& t) {
        editCluster(s, [&](ClusterConfig::Options& o) { o.autoscaleMin = int(parseIntegerIn(t, 1, ClusterConfig::kMaxNodes)); });
    }, [](const Scenario& s) { return countField(s.cluster ? std::max(1, s.cluster->options().autoscaleMin) : 1); });
    m_fields->bind(m_scaleAt, tr("Scale at"), [](Scenario& s, const std::string& t) {
        editCluster(s, [&](ClusterConfig::Options& o) { o.scaleAt = parseRate(t); });
    }, [](const Scenario& s) {
        const Rate r = s.cluster ? s.cluster->options().scaleAt : Rate{};
        return std::pair(QString::fromStdString(r.exactText()), r.perSecond());
    });
    m_fields->bind(m_nodes, tr("Nodes"), [](Scenario& s, const std::string& t) {
        editCluster(s, [&](ClusterConfig::Options& o) {
            o.nodes = int(parseIntegerIn(t, 1, ClusterConfig::kMaxNodes));
            if (o.autoscaleMax > 0) { // autoscaling runs up to the nodes
                o.autoscaleMax = o.nodes;
                o.autoscaleMin = std::min(o.autoscaleMin, o.nodes);
            }
        });
    }, [](const Scenario& s) { return countField(s.cluster ? s.cluster->nodes() : 1); });
    m_fields->bind(m_latency, tr("Latency"), [](Scenario& s, const std::string& t) {
        editCluster(s, [&](ClusterConfig::Options& o) { o.latencyNanos = nonNegativeSeconds(t); });
    }, [](const Scenario& s) { return secondsField(s.cluster ? s.cluster->latencyNanos() : 0); });
    m_fields->bind(m_sync, tr("Sync"), [](Scenario& s, const std::string& t) {
        editCluster(s, [&](ClusterConfig::Options& o) { o.syncNanos = positiveSeconds(t); });
    }, [](const Scenario& s) { return secondsField(s.cluster ? s.cluster->syncNanos() : 0); });
    m_fields->bind(m_skew, tr("Skew"), [](Scenario& s, const std::string& t) {
        editCluster(s, [&](ClusterConfig::Options& o) { o.skewNanos = nonNegativeSeconds(t); });
    }, [](const Scenario& s) { return secondsField(s.cluster ? s.cluster->skewNanos() : 0); });
    // An outage runs from a time to a later one: each end is checked against the other.
    m_fields->bind(m_outageFrom, tr("Outage start"), [](Scenario& s, const std::string& t) {
        editCluster(s, [&](ClusterConfig::Options& o) { o.outageFromNanos = nonNegativeSeconds(t); });
        if (!s.cluster->hasOutage())
            throw InputError("the store must come back after it goes down: type an earlier time than "
                             + formatSeconds(s.cluster->options().outageToNanos) + " s");
    }, [](const Scenario& s) { return secondsField(s.cluster ? s.cluster->options().outageFromNanos : 0); });
    m_fields->bind(m_outageTo, tr("Outage end"), [](Scenario& s, const std::string& t) {
        editCluster(s, [&](ClusterConfig::Options& o) { o.outageToNanos = nonNegativeSeconds(t); });
        if (!s.cluster->hasOutage())
            throw InputError("the store must come back after it goes down: type a later time than "
                             + formatSeconds(s.cluster->options().outageFromNanos) + " s");
    }, [](const Scenario& s) { return secondsField(s.cluster ? s.cluster->options().outageToNanos : 0); });
}

// connectEdits makes each other control's edit one undoable change of the document.
void ClusterGroup::connectEdits()
{
    connect(m_autoscale, &QCheckBox::toggled, this, [this](bool on) {
        m_document->change(on ? tr("Autoscale on") : tr("Autoscale off"), [on](Scenario& s) {
            editCluster(s, [&](ClusterConfig::Options& o) {
                o.autoscaleMin = on ? 1 : 0;
                o.autoscaleMax = on ? o.nodes : 0;
                o.joins.clear(); // the autoscaler decides who is up
                o.leaves.clear();
            });
        });
    });
    connect(this, &QGroupBox::toggled, this, [this](bool on) {
        m_document->change(on ? tr("Cluster on") : tr("Cluster off"), [on](Scenario& s) {
            if (!on)
                s.cluster.reset();
            else // two servers with in-memory limiters: the first lesson
                s.cluster = ClusterConfig::make({2, Balancer::RoundRobin, Coordination::Local, 0, 0, 0, 1});
        });
    });
    connect(m_balancer, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_document->change(tr("Balancer"), [i](Scenario& s) {
            editCluster(s, [i](ClusterConfig::Options& o) { o.balancer = kAllBalancers.at(std::size_t(i)); });
        });
    });
    connect(m_coordination, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_document->change(tr("Store"), [i](Scenario& s) {
            editCluster(s, [i](ClusterConfig::Options& o) {
                o.coordination = kAllCoordinations.at(std::size_t(i));
                // Latency is racy's and sync hybrid's own: another mode has neither.
                if (o.coordination != Coordination::Racy)
                    o.latencyNanos = 0;
                if (o.coordination != Coordination::Hybrid)
                    o.syncNanos = 0;
                else if (o.syncNanos == 0)
                    o.syncNanos = kNanosPerSecond / 10;
            });
        });
    });
    connect(m_outage, &QCheckBox::toggled, this, [this](bool on) {
        m_document->change(on ? tr("Store outage on") : tr("Store outage off"), [on](Scenario& s) {
            editCluster(s, [&](ClusterConfig::Options& o) {
                // A new outage takes the middle third of the traffic, or of one window.
                Nanos span = s.config.windowNanos();
                if (const std::vector<Nanos> t = resolveArrivals(s); !t.empty() && t.back() > 0)
                    span = t.back();
                o.outageFromNanos = on ? span / 3 : 0;
                o.outageToNanos = on ? span / 3 + std::max<Nanos>(span / 3, 1) : 0;
            });
        });
    });
    connect(m_fallback, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_document->change(tr("Fallback"), [i](Scenario& s) {
            editCluster(s, [i](ClusterConfig::Options& o) { o.fallback = kAllFallbacks.at(std::size_t(i)); });
        });
    });
}

void ClusterGroup::showDocument()
{
    const Scenario& s = m_document->scenario();
    {
        const QSignalBlocker block(this);
        setChecked(s.cluster.has_value());
    }
    m_body->setVisible(s.cluster.has_value());
    m_fields->showAll();
    const ClusterConfig c = s.cluster.value_or(ClusterConfig{});
    {
        const QSignalBlocker a(m_balancer), b(m_coordination), f(m_fallback), o(m_outage), as(m_autoscale);
        m_autoscale->setChecked(c.hasAutoscale());
        m_balancer->setCurrentIndex(int(c.balancer()));
        m_coordination->setCurrentIndex(int(c.coordination()));
        m_fallback->setCurrentIndex(int(c.options().fallback));
        m_outage->setChecked(c.hasOutage());
    }
    m_latency->setVisible(c.coordination() == Coordination::Racy);
    m_sync->setVisible(c.coordination() == Coordination::Hybrid);
    // Only a store can go down: local and split keep their state on each server.
    const bool store = hasStore(c.coordination());
    m_outage->setVisible(store);
    m_minNodes->setVisible(c.hasAutoscale());
    m_scaleAt->setVisible(c.hasAutoscale());
    const bool down = store && c.hasOutage();
    m_outageFrom->setVisible(down);
    m_outageTo->setVisible(down);
    setRowVisible(m_fallbackRow, down);
}

} // namespace ratelab::ui
