// ControlPanel is the side panel of settings (limits, traffic, algorithms) over the document.
//
// It shows the document's exact scenario and turns each touch of a control into one edit of the
// document, of that control's value only (and, while capacity and rate follow limit and window,
// of those two). It never rebuilds the scenario from the state of its widgets, so a value no
// control can show (a limit of 500, a window of 0.0025 s, a rate of 3/7) stays exactly as it is.
#pragma once

#include "scenario/scenario.h"

#include <QWidget>

#include <functional>
#include <map>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;

namespace ratelab::ui {

class ClientsGroup;
class ClusterGroup;
class ProductGroup;
class ServerGroup;
class ThrottleGroup;
class DocumentFields;
class LayersGroup;
class ScenarioDocument;
class SliderValue;

class ControlPanel : public QWidget {
    Q_OBJECT
public:
    explicit ControlPanel(ScenarioDocument* document, QWidget* parent = nullptr);

    // addRequests sends `count` requests by hand at time t: they join the scenario's arrivals.
    void addRequests(Nanos t, int count);
    // clearAddedRequests removes every request sent by hand.
    void clearAddedRequests();
    // linked reports whether capacity and rate follow limit and window.
    bool linked() const;

    SliderValue* limit() const { return m_limit; }
    SliderValue* window() const { return m_window; }
    SliderValue* capacity() const { return m_capacity; }
    SliderValue* rate() const { return m_rate; }
    SliderValue* delay() const { return m_delay; }
    SliderValue* requests() const { return m_requests; }
    SliderValue* seed() const { return m_seed; }
    SliderValue* cost() const { return m_cost; }
    SliderValue* nginxBurst() const { return m_burst; }
    QCheckBox* nodelay() const { return m_nodelay; }
    LayersGroup* layers() const { return m_layers; }
    ProductGroup* products() const { return m_products; }
    ClusterGroup* cluster() const { return m_cluster; }
    ClientsGroup* clients() const { return m_clients; }
    ServerGroup* server() const { return m_server; }
    ThrottleGroup* throttle() const { return m_throttle; }
    QComboBox* pattern() const { return m_pattern; }
    QCheckBox* linkBox() const { return m_link; }
    QCheckBox* startEmptyBox() const { return m_startEmpty; }
    QCheckBox* algorithmBox(Algorithm a) const { return m_algorithms.at(a); }

private:
    void bind(SliderValue* control, const QString& what, std::function<void(Scenario&, const std::string&)> apply,
              std::function<std::pair<QString, double>(const Scenario&)> show);
    void showPatternChoice(const Scenario& s);
    void showLimitsNote(const Scenario& s);
    void bindFields();
    // describeControls gives the limits' and traffic's controls their steps and tooltips;
    // connectChoices connects the check boxes and the pattern, which bindFields does not bind.
    void describeControls();
    void connectChoices();
    void bindLimitFields();
    void bindTrafficFields();
    void bindNginxFields();
    void showDocument();
    void showPatternPage(int index);
    QWidget* limitsGroup();
    QWidget* trafficGroup();
    QWidget* algorithmsGroup();

    ScenarioDocument* m_document;
    DocumentFields* m_fields;
    SliderValue* m_limit;
    SliderValue* m_window;
    QCheckBox* m_link;
    SliderValue* m_capacity;
    SliderValue* m_rate;
    QCheckBox* m_startEmpty;
    QComboBox* m_pattern;
    QLabel* m_arrivalsNote;
    QLabel* m_limitsNote; // which product rows read their own options, not these
    std::vector<QWidget*> m_patternPages; // per PatternKind
    SliderValue* m_requests;
    SliderValue* m_delay;
    SliderValue* m_burstSize;
    SliderValue* m_period;
    SliderValue* m_lambda;
    SliderValue* m_seed;
    SliderValue* m_gap;
    SliderValue* m_start;
    SliderValue* m_cost;
    SliderValue* m_burst;
    QCheckBox* m_nodelay;
    SliderValue* m_nginxDelay;
    QWidget* m_nginxOptions = nullptr;
    LayersGroup* m_layers = nullptr;
    ProductGroup* m_products = nullptr;
    ClusterGroup* m_cluster = nullptr;
    ClientsGroup* m_clients = nullptr;
    ServerGroup* m_server = nullptr;
    ThrottleGroup* m_throttle = nullptr;
    std::map<Algorithm, QCheckBox*> m_algorithms;
};

} // namespace ratelab::ui
