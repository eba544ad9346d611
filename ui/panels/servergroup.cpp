#include "panels/servergroup.h"

#include "arithmetic/decimal.h"
#include "model/scenariodocument.h"
#include "panels/documentfields.h"
#include "panels/groupparts.h"
#include "panels/slidervalue.h"
#include "server/client_throttle.h"
#include "server/gate.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>
#include <functional>

namespace ratelab::ui {

namespace {

// editServer applies f to the scenario's server options and validates them (ServerConfig::make).
template <typename F>
void editServer(Scenario& s, F f)
{
    ServerOptions o = s.server.value_or(ServerConfig{}).options();
    f(o);
    s.server = ServerConfig::make(o);
}

ServerOptions optionsOf(const Scenario& s) { return s.server.value_or(ServerConfig{}).options(); }

// timeoutField shows a timeout: "none" (the slider at its end) or its exact seconds.
std::pair<QString, double> timeoutField(Nanos t)
{
    if (t == kNoTimeout)
        return {QStringLiteral("none"), 1e9};
    return secondsField(t);
}

// parseTimeout reads "none" (or "inf") or seconds more than 0.
Nanos parseTimeout(const std::string& text)
{
    if (text == "none" || text == "inf")
        return kNoTimeout;
    return positiveSeconds(text);
}

const ServiceKind kKinds[] = {ServiceKind::Constant, ServiceKind::Exponential, ServiceKind::Lognormal};

// gateProduct names the product a gate kind is transcribed from (docs/concurrency-limits.md,
// fairness.md, load-shedding.md), for the kind's tooltip.
QString gateProduct(std::string_view kind)
{
    static const std::pair<std::string_view, const char*> products[] = {
        {"fixed", QT_TRANSLATE_NOOP("ServerGroup", "a fixed in-flight cap: Stripe's concurrent-requests limiter, "
                                                   "Netflix concurrency-limits' FixedLimit (limit=N)")},
        {"aimd", QT_TRANSLATE_NOOP("ServerGroup", "Netflix concurrency-limits' AIMDLimit: +1 per response in time, "
                                                  "times backoff_ratio per slow or dropped one")},
        {"vegas", QT_TRANSLATE_NOOP("ServerGroup", "Netflix concurrency-limits' VegasLimit: the queue estimated "
                                                   "from RTT against the least RTT seen")},
        {"gradient2", QT_TRANSLATE_NOOP("ServerGroup", "Netflix concurrency-limits' Gradient2Limit: short against "
                                                       "long-term average RTT (grows under a standing queue, #134)")},
        {"envoy", QT_TRANSLATE_NOOP("ServerGroup", "Envoy's adaptive_concurrency filter: the gradient controller, "
                                                   "minRTT windows, sqrt headroom")},
        {"bulkhead", QT_TRANSLATE_NOOP("ServerGroup", "cockatiel's Bulkhead: max_parallel in flight, a queue of max_queue")},
        {"apf", QT_TRANSLATE_NOOP("ServerGroup", "Kubernetes API Priority and Fairness, one priority level: seats, "
                                                 "shuffle-sharded fair queues per client")},
        {"stripe", QT_TRANSLATE_NOOP("ServerGroup", "Stripe's fleet-usage load shedder: capacity kept for critical requests")},
        {"none", QT_TRANSLATE_NOOP("ServerGroup", "no limit: the server alone")},
    };
    for (const auto& [id, text] : products)
        if (id == kind)
            return QCoreApplication::translate("ServerGroup", text);
    return {};
}

// gateKindsTip lists every gate kind with its product, one a line.
QString gateKindsTip()
{
    QStringList lines;
    for (std::string_view kind : gateKinds())
        lines << QStringLiteral("%1: %2").arg(qstr(kind), gateProduct(kind));
    return lines.join('\n');
}

// markSpec shows a spec field as refused (red, the reason as its tooltip) or not (`tip`).
void markSpec(QLineEdit* field, const QString& why, const QString& tip)
{
    field->setStyleSheet(why.isEmpty() ? QString() : QStringLiteral("color: red"));
    field->setToolTip(why.isEmpty() ? tip : why);
}

// applySpec turns the spec typed in `field` (KIND:key=value,...; empty for none) into one
// undoable change of `member`, "what" naming it for the banner and, with the spec, Edit > Undo. A
// spec Spec::parse refuses (an InputError naming the key) changes nothing: the field keeps it,
// red, and the banner says why.
template <typename Spec>
void applySpec(ScenarioDocument* document, QLineEdit* field, const QString& what, const QString& tip, Spec Scenario::*member)
{
    const std::string text = field->text().trimmed().toStdString();
    if (text == (document->scenario().*member).text()) {
        markSpec(field, {}, tip);
        return;
    }
    Spec spec;
    try {
        if (!text.empty())
            spec = Spec::parse(text);
    } catch (const InputError& e) {
        const QString why = QString::fromUtf8(e.what());
        markSpec(field, why, tip);
        document->refuse(QStringLiteral("%1: %2").arg(what, why));
        return;
    }
    markSpec(field, {}, tip);
    document->refuse({});
    // Named with the spec, so each one typed is an undo step of its own (same names merge).
    document->change(text.empty() ? QCoreApplication::translate("ServerGroup", "%1 off").arg(what)
                                  : QStringLiteral("%1 %2").arg(what, QString::fromStdString(text)),
                     [&](Scenario& s) { s.*member = spec; });
}

// layeredGateTip is the layered gate field's tooltip.
QString layeredGateTip()
{
    return QCoreApplication::translate(
               "ServerGroup",
               "A concurrency limiter after the Layered policy's layers, in front of the server (--layered-gate, "
               "\"layered_gate\"): the layered row then admits an attempt only when every layer and this limiter "
               "do. KIND:key=value,..., Enter applies; empty: none.\n%1")
        .arg(gateKindsTip());
}

// throttleTip is the client throttle's tooltip.
QString throttleTip()
{
    return QCoreApplication::translate(
        "ServerGroup",
        "A client throttle every client runs, holding each call back before it reaches the limiter (--throttle): "
        "with or without a server, with or without the Clients group (then one client).\n"
        "bottleneck: npm Bottleneck 2.19.5 (max_concurrent, min_time, reservoir, reservoir_refresh_interval, "
        "reservoir_refresh_amount, high_water, ...)\n"
        "p-queue: npm p-queue 10.0.0 (concurrency, interval, interval_cap, ...)\n"
        "KIND:key=value,... (p-queue:interval=1s,interval_cap=5), Enter applies; empty or none: no throttle");
}

// showSpec shows the document's spec in `field`, unless a person is typing another one there.
void showSpec(QLineEdit* field, const std::string& spec, const QString& tip)
{
    if (field->hasFocus() && field->text().trimmed().toStdString() != spec)
        return;
    field->setText(QString::fromStdString(spec));
    markSpec(field, {}, tip);
}

} // namespace

ServerGroup::ServerGroup(ScenarioDocument* document, QWidget* parent)
    : QGroupBox(tr("Server behind the limiter"), parent)
    , m_document(document)
    , m_fields(new DocumentFields(document, this))
    , m_body(groupBody(this))
    , m_workers(new QSpinBox)
    , m_service(new QComboBox)
    , m_serviceTime(new SliderValue(tr("Service"), 0.001, 10, 3, " s", SliderValue::Scale::Log))
    , m_sigma(new SliderValue(tr("Sigma"), 0.05, 2, 2, ""))
    , m_queue(new SliderValue(tr("Queue"), 0, 1000, 0, ""))
    , m_queueTimeout(new SliderValue(tr("Queue wait"), 0.01, 60, 3, " s", SliderValue::Scale::Log))
    , m_clientTimeout(new SliderValue(tr("Timeout"), 0.01, 60, 3, " s", SliderValue::Scale::Log))
    , m_gates(new QListWidget)
    , m_gateKind(new QComboBox)
    , m_add(new QPushButton(tr("Add")))
    , m_remove(new QPushButton(tr("Remove")))
    , m_layeredGate(new QLineEdit)
{
    setUpControls();
    layOut();
    bindFields();
    connectEdits();
    connect(m_document, &ScenarioDocument::changed, this, &ServerGroup::showDocument);
    showDocument();
}

// setUpControls gives each control its range, items and tip.
void ServerGroup::setUpControls()
{
    setCheckable(true);
    setToolTip(tr("Serve every admitted request on a server with workers, a queue and timeouts: shows what "
                  "the limit protects (goodput, latency, wasted work)"));
    m_workers->setRange(0, int(ServerConfig::kMaxWorkers));
    m_workers->setSpecialValueText(tr("unbounded"));
    m_workers->setKeyboardTracking(false); // one edit when typing is done, not one per digit
    m_workers->setToolTip(tr("Requests in service at once; 0: unbounded (every request served at once)"));
    m_service->addItems({tr("constant"), tr("exponential: mean"), tr("lognormal: median")});
    m_service->setToolTip(tr("How long a worker takes per request: drawn from the seed and the request, so "
                             "every row serves a request in the same time"));
    m_serviceTime->setToolTip(tr("The service time: the constant, the exponential's mean or the lognormal's median"));
    m_sigma->setToolTip(tr("The lognormal's shape (sigma of the underlying normal): the larger, the longer its tail"));
    m_sigma->setStep(0.05);
    m_queue->setStep(1);
    m_queue->setToolTip(tr("The waiting room for a free worker; a request finding it full is refused (503)"));
    m_queueTimeout->setToolTip(tr("A request waiting this long leaves the queue unserved; type none for never"));
    m_clientTimeout->setToolTip(tr("The client gives up this long after its request reached the server and, by "
                                   "its retry policy, retries; the server still serves the abandoned one "
                                   "(wasted work). Type none for never"));
    for (std::string_view kind : gateKinds()) {
        m_gateKind->addItem(qstr(kind));
        m_gateKind->setItemData(m_gateKind->count() - 1, gateProduct(kind), Qt::ToolTipRole);
    }
    m_gateKind->setToolTip(tr("The kind of concurrency limiter Add puts in the list:\n%1").arg(gateKindsTip()));
    m_gates->setToolTip(tr("Concurrency limiters, each a row of its own in front of the server: "
                           "double-click to edit the spec (kind:key=value,...), Enter to apply (docs/server.md)"));
    m_gates->setMaximumHeight(90);
    m_gates->setAccessibleName(tr("Concurrency limiters"));

}

void ServerGroup::layOut()
{
    auto* layout = new QVBoxLayout(m_body);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* workersRow = new QHBoxLayout;
    auto* workersLabel = new QLabel(tr("Workers"));
    workersLabel->setMinimumWidth(70);
    workersLabel->setBuddy(m_workers);
    workersRow->addWidget(workersLabel);
    workersRow->addWidget(m_workers, 1);
    layout->addLayout(workersRow);
    layout->addLayout(labelled(tr("Service time"), m_service));
    layout->addWidget(m_serviceTime);
    layout->addWidget(m_sigma);
    layout->addWidget(m_queue);
    layout->addWidget(m_queueTimeout);
    layout->addWidget(m_clientTimeout);
    layout->addWidget(new QLabel(tr("Concurrency limiters (a row each):")));
    layout->addWidget(m_gates);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_gateKind, 1);
    buttons->addWidget(m_add);
    buttons->addWidget(m_remove);
    layout->addLayout(buttons);
    auto* layeredRow = new QHBoxLayout;
    auto* layeredLabel = new QLabel(tr("After layers"));
    layeredLabel->setMinimumWidth(70);
    layeredLabel->setBuddy(m_layeredGate);
    layeredRow->addWidget(layeredLabel);
    layeredRow->addWidget(m_layeredGate, 1);
    layout->addLayout(layeredRow);

}

// bindFields binds each slider's typed value to its field of the server's options.
void ServerGroup::bindFields()
{
    m_fields->bind(m_serviceTime, tr("Service time"), [](Scenario& s, const std::string& t) {
        editServer(s, [&](ServerOptions& o) { o.service.nanos = positiveSeconds(t); });
    }, [](const Scenario& s) { return secondsField(optionsOf(s).service.nanos); });
    m_fields->bind(m_sigma, tr("Sigma"), [](Scenario& s, const std::string& t) {
        editServer(s, [&](ServerOptions& o) {
            bool ok = false;
            o.service.sigma = QString::fromStdString(t).toDouble(&ok);
            if (!ok || !std::isfinite(o.service.sigma))
                throw InputError("sigma: not a number (got " + t + ")");
        });
    }, [](const Scenario& s) {
        const double sigma = optionsOf(s).service.sigma;
        return std::pair(QString::number(sigma), sigma);
    });
    m_fields->bind(m_queue, tr("Queue"), [](Scenario& s, const std::string& t) {
        editServer(s, [&](ServerOptions& o) { o.queue = parseIntegerIn(t, 0, ServerConfig::kMaxQueue); });
    }, [](const Scenario& s) { return countField(optionsOf(s).queue); });
    m_fields->bind(m_queueTimeout, tr("Queue timeout"), [](Scenario& s, const std::string& t) {
        editServer(s, [&](ServerOptions& o) { o.queueTimeout = parseTimeout(t); });
    }, [](const Scenario& s) { return timeoutField(optionsOf(s).queueTimeout); });
    m_fields->bind(m_clientTimeout, tr("Client timeout"), [](Scenario& s, const std::string& t) {
        editServer(s, [&](ServerOptions& o) { o.clientTimeout = parseTimeout(t); });
    }, [](const Scenario& s) { return timeoutField(optionsOf(s).clientTimeout); });

}

// connectEdits makes each other control's edit one undoable change of the document.
void ServerGroup::connectEdits()
{
    connect(this, &QGroupBox::toggled, this, [this](bool on) {
        m_document->change(on ? tr("Server on") : tr("Server off"), [on](Scenario& s) {
            if (on) { // two workers, 100 ms each, a small queue: a server a burst can overload
                s.server = ServerConfig::make({2, {ServiceKind::Exponential, kNanosPerSecond / 10, 0}, 10,
                                               kNoTimeout, kNanosPerSecond});
                return;
            }
            s.server.reset(); // a concurrency limiter needs the server: its rows go with it
            s.concurrency.clear();
            s.layeredGate = {};
        });
    });
    connect(m_workers, &QSpinBox::valueChanged, this, [this](int n) {
        m_document->change(tr("Workers"), [n](Scenario& s) { editServer(s, [n](ServerOptions& o) { o.workers = n; }); });
    });
    connect(m_service, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i < 0)
            return;
        m_document->change(tr("Service time"), [i](Scenario& s) {
            editServer(s, [i](ServerOptions& o) {
                o.service.kind = kKinds[i];
                if (o.service.kind != ServiceKind::Lognormal)
                    o.service.sigma = 0;
                else {
                    o.service.sigma = o.service.sigma > 0 ? o.service.sigma : 0.5;
                    o.service.nanos = std::clamp<Nanos>(o.service.nanos, 1, ServerConfig::kMaxMedianService);
                }
            });
        });
    });
    connect(m_add, &QPushButton::clicked, this, [this] {
        // Read inside the change: a kind with a required key (bulkhead, stripe) is refused in the
        // banner, naming the key, and the document is left as it was.
        const std::string kind = m_gateKind->currentText().toStdString();
        m_document->change(tr("Add %1").arg(m_gateKind->currentText()),
                           [kind](Scenario& s) { s.concurrency.push_back(GateSpec::parse(kind)); });
    });
    connect(m_remove, &QPushButton::clicked, this, [this] {
        const int row = m_gates->currentRow() >= 0 ? m_gates->currentRow() : m_gates->count() - 1;
        m_document->change(tr("Remove concurrency limiter"), [row](Scenario& s) {
            if (row >= 0 && std::size_t(row) < s.concurrency.size())
                s.concurrency.erase(s.concurrency.begin() + row);
        });
    });
    connect(m_gates, &QListWidget::itemChanged, this, &ServerGroup::gateEdited);
    connect(m_layeredGate, &QLineEdit::editingFinished, this, [this] {
        if (!m_layeredGate->isEnabled())
            return;
        applySpec(m_document, m_layeredGate, tr("Concurrency limiter after the layers"), layeredGateTip(),
                  &Scenario::layeredGate);
    });
}

void ServerGroup::gateEdited(QListWidgetItem* item)
{
    if (m_showing)
        return;
    const int row = m_gates->row(item);
    try {
        const GateSpec spec = GateSpec::parse(item->text().trimmed().toStdString()); // the refusal names the key
        m_document->refuse({});
        m_document->change(tr("Concurrency limiter %1").arg(row + 1), [&](Scenario& s) {
            if (row >= 0 && std::size_t(row) < s.concurrency.size())
                s.concurrency[std::size_t(row)] = spec;
        });
    } catch (const InputError& e) {
        // The item keeps what was typed, marked, until it is fixed; the document is unchanged.
        const QString why = QString::fromUtf8(e.what());
        const QSignalBlocker block(m_gates);
        item->setForeground(Qt::red);
        item->setToolTip(why);
        m_document->refuse(tr("Concurrency limiter %1: %2").arg(row + 1).arg(why));
    }
}

void ServerGroup::showDocument()
{
    const Scenario& s = m_document->scenario();
    {
        const QSignalBlocker block(this);
        setChecked(s.server.has_value());
    }
    m_body->setVisible(s.server.has_value());
    m_fields->showAll();
    const ServerOptions o = optionsOf(s);
    {
        const QSignalBlocker w(m_workers), k(m_service);
        m_workers->setValue(int(o.workers));
        m_service->setCurrentIndex(int(std::find(std::begin(kKinds), std::end(kKinds), o.service.kind) - std::begin(kKinds)));
    }
    m_sigma->setVisible(o.service.kind == ServiceKind::Lognormal);
    m_showing = true;
    {
        const QSignalBlocker block(m_gates);
        const int current = m_gates->currentRow();
        m_gates->clear();
        for (const GateSpec& spec : s.concurrency) {
            auto* item = new QListWidgetItem(QString::fromStdString(spec.text()), m_gates);
            item->setFlags(item->flags() | Qt::ItemIsEditable);
        }
        m_gates->setCurrentRow(std::min(current, m_gates->count() - 1));
    }
    m_remove->setEnabled(!s.concurrency.empty());
    // The gate after the layers needs layers (rows.cpp refuses it without): off until they exist.
    m_layeredGate->setEnabled(!s.layers.empty());
    m_layeredGate->setPlaceholderText(s.layers.empty() ? tr("needs the Layered policy's layers") : tr("none"));
    showSpec(m_layeredGate, s.layeredGate.text(), layeredGateTip());
    m_showing = false;
}

ThrottleGroup::ThrottleGroup(ScenarioDocument* document, QWidget* parent)
    : QGroupBox(tr("Client throttle"), parent), m_document(document), m_throttle(new QLineEdit)
{
    setToolTip(throttleTip());
    QStringList kinds;
    for (std::string_view kind : clientThrottleKinds())
        kinds << qstr(kind);
    m_throttle->setPlaceholderText(tr("none (%1)").arg(kinds.join(", ")));
    auto* row = new QHBoxLayout(this);
    auto* label = new QLabel(tr("Throttle"));
    label->setMinimumWidth(70);
    label->setBuddy(m_throttle);
    row->addWidget(label);
    row->addWidget(m_throttle, 1);
    connect(m_throttle, &QLineEdit::editingFinished, this, [this] {
        if (m_throttle->text().trimmed() == QStringLiteral("none")) // as --throttle none: no throttle
            m_throttle->clear();
        applySpec(m_document, m_throttle, tr("Throttle"), throttleTip(), &Scenario::throttle);
    });
    connect(m_document, &ScenarioDocument::changed, this, &ThrottleGroup::showDocument);
    showDocument();
}

void ThrottleGroup::showDocument() { showSpec(m_throttle, m_document->scenario().throttle.text(), throttleTip()); }

} // namespace ratelab::ui
