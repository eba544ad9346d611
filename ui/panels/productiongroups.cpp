#include "panels/productiongroups.h"

#include "arithmetic/decimal.h"
#include "panels/documentfields.h"
#include "panels/groupparts.h"
#include "model/scenariodocument.h"
#include "panels/slidervalue.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ratelab::ui {

namespace {

// --- the clients ---------------------------------------------------------------------------------

template <typename F>
void editClients(Scenario& s, F f)
{
    ClientOptions o = s.clients.value_or(ClientConfig{}).options();
    f(o);
    s.clients = ClientConfig::make(o);
}

const char* const kRetryNames[] = {"none: give up at once", "immediate: retry after a fixed delay",
                                   "retry_after: wait exactly as told", "retry_after_header: whole seconds, rounded up",
                                   "backoff: exponential, with jitter"};

const char* const kJitterNames[] = {"full: anywhere up to the delay", "equal: half, plus up to half",
                                    "decorrelated: up to 3x the last", "none: exactly the delay"};

} // namespace

ClientsGroup::ClientsGroup(ScenarioDocument* document, QWidget* parent)
    : QGroupBox(tr("Clie&nts that retry"), parent)
    , m_document(document)
    , m_fields(new DocumentFields(document, this))
    , m_body(groupBody(this))
    , m_clients(new SliderValue(tr("Clients"), 1, ClientConfig::kMaxClients, 0, "", SliderValue::Scale::Log))
    , m_key(new QComboBox)
    , m_retry(new QComboBox)
    , m_retryDelay(new SliderValue(tr("Retry delay"), 0, 5, 3, " s"))
    , m_maxRetries(new SliderValue(tr("Max retries"), 0, ClientConfig::kMaxRetries, 0, ""))
    , m_backoffBase(new SliderValue(tr("Backoff base"), 0.001, 10, 3, " s", SliderValue::Scale::Log))
    , m_backoffCap(new SliderValue(tr("Backoff cap"), 0.01, 100, 2, " s", SliderValue::Scale::Log))
    , m_jitter(new QComboBox)
    , m_cohorts(new QLineEdit)
{
    setUpControls();
    layOut();
    bindFields();
    connectEdits();
    connect(m_document, &ScenarioDocument::changed, this, &ClientsGroup::showDocument);
    showDocument();
}

void ClientsGroup::setUpControls()
{
    setCheckable(true);
    setToolTip(tr("Requests belong to clients (request i to client i mod K) that retry a denied attempt"));
    m_retryDelay->setStep(0.01);
    m_key->addItems({tr("one limit per client"), tr("one limit for all (global)")});
    for (const char* name : kRetryNames)
        m_retry->addItem(tr(name));
    for (const char* name : kJitterNames)
        m_jitter->addItem(tr(name));
    m_jitter->setToolTip(tr("How each client spreads its backoff delay (its own draws, from the seed)"));
    m_cohorts->setPlaceholderText(tr("e.g. 9:retry_after; 1:immediate:retry_delay=0.1"));
    m_cohorts->setToolTip(tr("Groups of clients, each with its own retry policy, separated by ';': K:POLICY[:key=value,...] "
                             "with retry_delay, max_retries, backoff_base, backoff_cap, jitter. Clients are numbered "
                             "cohort by cohort; empty: every client retries as set above. Enter applies."));
}

void ClientsGroup::layOut()
{
    auto* layout = new QVBoxLayout(m_body);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_clients);
    layout->addLayout(labelled(tr("Key"), m_key));
    layout->addLayout(m_retryRow = labelled(tr("Retry"), m_retry));
    layout->addWidget(m_retryDelay);
    layout->addWidget(m_maxRetries);
    layout->addWidget(m_backoffBase);
    layout->addWidget(m_backoffCap);
    layout->addLayout(m_jitterRow = labelled(tr("Jitter"), m_jitter));
    auto* cohortsLabel = new QLabel(tr("C&ohorts (each its own policy):"));
    cohortsLabel->setBuddy(m_cohorts);
    layout->addWidget(cohortsLabel);
    layout->addWidget(m_cohorts);
}

void ClientsGroup::bindFields()
{
    m_fields->bind(m_clients, tr("Clients"), [](Scenario& s, const std::string& t) {
        editClients(s, [&](ClientOptions& o) { o.clients = parseIntegerIn(t, 1, ClientConfig::kMaxClients); });
        if (!s.explicitClients.empty())
            for (std::int64_t c : s.explicitClients)
                if (c >= s.clients->clients())
                    throw InputError("the arrivals name client " + std::to_string(c) + ": at least "
                                     + std::to_string(c + 1) + " clients");
    }, [](const Scenario& s) { return countField(s.clients ? s.clients->clients() : 1); });
    m_fields->bind(m_retryDelay, tr("Retry delay"), [](Scenario& s, const std::string& t) {
        editClients(s, [&](ClientOptions& o) { o.retryDelayNanos = nonNegativeSeconds(t); });
    }, [](const Scenario& s) { return secondsField(s.clients.value_or(ClientConfig{}).options().retryDelayNanos); });
    m_fields->bind(m_maxRetries, tr("Max retries"), [](Scenario& s, const std::string& t) {
        editClients(s, [&](ClientOptions& o) { o.maxRetries = parseIntegerIn(t, 0, ClientConfig::kMaxRetries); });
    }, [](const Scenario& s) { return countField(s.clients.value_or(ClientConfig{}).options().maxRetries); });
    m_fields->bind(m_backoffBase, tr("Backoff base"), [](Scenario& s, const std::string& t) {
        editClients(s, [&](ClientOptions& o) { o.backoffBaseNanos = positiveSeconds(t); });
    }, [](const Scenario& s) { return secondsField(s.clients.value_or(ClientConfig{}).options().backoffBaseNanos); });
    m_fields->bind(m_backoffCap, tr("Backoff cap"), [](Scenario& s, const std::string& t) {
        editClients(s, [&](ClientOptions& o) { o.backoffCapNanos = positiveSeconds(t); });
    }, [](const Scenario& s) { return secondsField(s.clients.value_or(ClientConfig{}).options().backoffCapNanos); });
}

void ClientsGroup::connectEdits()
{
    connect(m_cohorts, &QLineEdit::editingFinished, this, [this] {
        const QString text = m_cohorts->text().trimmed();
        if (text == cohortsText())
            return;
        m_document->change(tr("Cohorts"), [text](Scenario& s) {
            std::vector<Cohort> cohorts;
            for (const QString& part : text.split(';', Qt::SkipEmptyParts))
                if (!part.trimmed().isEmpty())
                    cohorts.push_back(parseCohort(part.trimmed().toStdString()));
            ClientOptions o = s.clients.value_or(ClientConfig{}).options();
            s.clients = ClientConfig::make(withCohorts(o, std::move(cohorts)));
        });
    });
    connect(this, &QGroupBox::toggled, this, [this](bool on) {
        m_document->change(on ? tr("Clients on") : tr("Clients off"), [on](Scenario& s) {
            if (!on) {
                s.clients.reset();
                s.explicitClients.clear();
            } else { // one client honouring Retry-After: every retry lands as a slot opens
                ClientOptions o;
                o.retry = RetryPolicy::RetryAfter;
                s.clients = ClientConfig::make(o);
            }
        });
    });
    connect(m_key, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_document->change(tr("Key"), [i](Scenario& s) {
            editClients(s, [i](ClientOptions& o) { o.key = i == 0 ? KeyMode::Client : KeyMode::Global; });
        });
    });
    connect(m_retry, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_document->change(tr("Retry"), [i](Scenario& s) {
            editClients(s, [i](ClientOptions& o) { o.retry = kAllRetryPolicies[i]; });
        });
    });
    connect(m_jitter, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_document->change(tr("Jitter"), [i](Scenario& s) {
            editClients(s, [i](ClientOptions& o) { o.jitter = kAllJitters[i]; });
        });
    });
}

QString ClientsGroup::cohortsText() const
{
    const Scenario& s = m_document->scenario();
    QStringList parts;
    if (s.clients)
        for (const Cohort& c : s.clients->options().cohorts)
            parts << QString::fromStdString(cohortText(c));
    return parts.join("; ");
}

void ClientsGroup::showDocument()
{
    const Scenario& s = m_document->scenario();
    {
        const QSignalBlocker block(this);
        setChecked(s.clients.has_value());
    }
    m_body->setVisible(s.clients.has_value());
    m_fields->showAll();
    const ClientOptions o = s.clients.value_or(ClientConfig{}).options();
    {
        const QSignalBlocker a(m_key), b(m_retry), j(m_jitter);
        m_key->setCurrentIndex(o.key == KeyMode::Client ? 0 : 1);
        m_retry->setCurrentIndex(int(o.retry));
        m_jitter->setCurrentIndex(int(o.jitter));
    }
    // With cohorts each client's policy is its cohort's: the one policy above does not apply.
    const bool one = o.cohorts.empty();
    m_clients->setEnabled(one); // the cohorts' sizes add up to the clients
    setRowVisible(m_retryRow, one);
    m_retryDelay->setVisible(one && o.retry == RetryPolicy::Immediate);
    m_maxRetries->setVisible(one && o.retry != RetryPolicy::None);
    m_backoffBase->setVisible(one && o.retry == RetryPolicy::Backoff);
    m_backoffCap->setVisible(one && o.retry == RetryPolicy::Backoff);
    setRowVisible(m_jitterRow, one && o.retry == RetryPolicy::Backoff);
    if (!m_cohorts->hasFocus())
        m_cohorts->setText(cohortsText());
}

// --- layers ----------------------------------------------------------------------------------------

namespace {

enum LayerColumn { kAlgorithm, kLimit, kWindow, kCapacity, kRate, kColumns };

// layerTextOf writes a table row in the layer grammar, the algorithm from its box.
std::string layerTextOf(QTableWidget* table, int row)
{
    auto* box = qobject_cast<QComboBox*>(table->cellWidget(row, kAlgorithm));
    std::string text = box ? box->currentData().toString().toStdString() : std::string("token_bucket");
    const char* keys[] = {"", "limit", "window", "capacity", "rate"};
    for (int c = kLimit; c < kColumns; ++c) {
        const QTableWidgetItem* item = table->item(row, c);
        text += std::string(c == kLimit ? ":" : ",") + keys[c] + "=" + (item ? item->text().trimmed().toStdString() : "");
    }
    return text;
}

} // namespace

LayersGroup::LayersGroup(ScenarioDocument* document, QWidget* parent)
    : QGroupBox(tr("La&yered policy"), parent)
    , m_document(document)
    , m_body(groupBody(this))
    , m_table(new QTableWidget(0, kColumns))
    , m_add(new QPushButton(tr("Add layer")))
    , m_remove(new QPushButton(tr("Remove")))
{
    setCheckable(true);
    setToolTip(tr("A request must pass every layer, in order: adds the row \"Layered policy\""));
    m_table->setHorizontalHeaderLabels({tr("Algorithm"), tr("Limit"), tr("Window (s)"), tr("Capacity"), tr("Rate (/s)")});
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setMinimumHeight(90);
    m_table->setAccessibleName(tr("Layers"));
    m_table->setTabKeyNavigation(false); // Tab leaves the table (the arrows move in it, Enter edits)
    m_table->setToolTip(tr("Type a value and press Enter: each layer has its own limit, window, capacity and rate"));
    auto* layout = new QVBoxLayout(m_body);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_table);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_add);
    buttons->addWidget(m_remove);
    buttons->addStretch();
    layout->addLayout(buttons);

    connect(this, &QGroupBox::toggled, this, [this](bool on) {
        m_document->change(on ? tr("Layered policy on") : tr("Layered policy off"), [on](Scenario& s) {
            s.layers.clear();
            s.layeredGate = {}; // the concurrency limiter after the layers goes with them
            if (on) { // a burst limiter over a sustained quota, from the scenario's own numbers
                const LimiterConfig& c = s.config;
                s.layers.push_back({Algorithm::TokenBucket, c});
                s.layers.push_back({Algorithm::SlidingWindowCounter,
                                    LimiterConfig::make(c.limit() * 3 > LimiterConfig::kMaxLimit ? c.limit() : c.limit() * 3,
                                                        c.windowNanos() > kMaxNanos / 6 ? c.windowNanos() : c.windowNanos() * 6)
                                        .withNginx(c.nginx())});
            }
        });
    });
    connect(m_add, &QPushButton::clicked, this, [this] {
        m_document->change(tr("Add layer"), [](Scenario& s) { s.layers.push_back({Algorithm::TokenBucket, s.config}); });
    });
    connect(m_remove, &QPushButton::clicked, this, [this] {
        const int row = m_table->currentRow() >= 0 ? m_table->currentRow() : m_table->rowCount() - 1;
        m_document->change(tr("Remove layer"), [row](Scenario& s) {
            if (row >= 0 && std::size_t(row) < s.layers.size())
                s.layers.erase(s.layers.begin() + row);
            if (s.layers.empty())
                s.layeredGate = {}; // the last layer takes the concurrency limiter after it along
        });
    });
    connect(m_table, &QTableWidget::cellChanged, this, &LayersGroup::cellEdited);
    connect(m_document, &ScenarioDocument::changed, this, &LayersGroup::showDocument);
    showDocument();
}

void LayersGroup::cellEdited(int row, int)
{
    if (m_showing)
        return;
    try {
        const Layer layer = parseLayer(layerTextOf(m_table, row), m_document->scenario().config.nginx());
        m_document->change(tr("Layer %1").arg(row + 1), [&](Scenario& s) {
            if (std::size_t(row) < s.layers.size())
                s.layers[std::size_t(row)] = layer;
        });
        m_table->setToolTip(tr("Type a value and press Enter: each layer has its own limit, window, capacity and rate"));
        showDocument(); // an edit back to the value the document holds clears the marks too
    } catch (const InputError& e) {
        // The cell keeps what was typed, marked, until it is fixed; the document is unchanged.
        m_showing = true;
        for (int c = kLimit; c < kColumns; ++c)
            if (QTableWidgetItem* item = m_table->item(row, c)) {
                item->setToolTip(QString::fromUtf8(e.what()));
                item->setForeground(Qt::red);
            }
        m_showing = false;
        m_table->setToolTip(tr("Layer %1: %2").arg(row + 1).arg(QString::fromUtf8(e.what())));
    }
}

void LayersGroup::showDocument()
{
    const Scenario& s = m_document->scenario();
    {
        const QSignalBlocker block(this);
        setChecked(!s.layers.empty());
    }
    m_body->setVisible(!s.layers.empty());
    m_showing = true;
    m_table->setRowCount(int(s.layers.size()));
    for (int r = 0; r < int(s.layers.size()); ++r) {
        const Layer& layer = s.layers[std::size_t(r)];
        auto* box = qobject_cast<QComboBox*>(m_table->cellWidget(r, kAlgorithm));
        if (!box) {
            box = new QComboBox;
            for (Algorithm a : kEveryAlgorithm)
                box->addItem(qstr(algorithmTitle(a)), qstr(algorithmId(a)));
            connect(box, &QComboBox::currentIndexChanged, this, [this, box] {
                for (int row = 0; row < m_table->rowCount(); ++row)
                    if (m_table->cellWidget(row, kAlgorithm) == box)
                        cellEdited(row, kAlgorithm);
            });
            m_table->setCellWidget(r, kAlgorithm, box);
        }
        {
            const QSignalBlocker block(box);
            box->setCurrentIndex(box->findData(qstr(algorithmId(layer.algorithm))));
        }
        const LimiterConfig& c = layer.config;
        const QString cells[] = {QString(), QString::number(c.limit()), qstr(formatSeconds(c.windowNanos())),
                                 QString::number(c.capacity()), qstr(c.rate().exactText())};
        for (int col = kLimit; col < kColumns; ++col) {
            QTableWidgetItem* item = m_table->item(r, col);
            if (!item)
                m_table->setItem(r, col, item = new QTableWidgetItem);
            item->setText(cells[col]);
            item->setToolTip(QString());
            item->setForeground(m_table->palette().text());
        }
    }
    m_showing = false;
}

} // namespace ratelab::ui
