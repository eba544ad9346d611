// ControlPanel is the side panel of settings: limits, traffic, algorithms. Every change emits
// scenarioChanged with the whole scenario the controls now describe.
#pragma once

#include "scenario.h"

#include <QWidget>

#include <map>

class QCheckBox;
class QComboBox;
class QStackedWidget;

namespace ratelab::ui {

class SliderValue;

class ControlPanel : public QWidget {
    Q_OBJECT
public:
    explicit ControlPanel(QWidget* parent = nullptr);

    // scenario builds the scenario the controls describe. It throws InputError if they do not
    // make a valid one (they are range-limited, so this is rare).
    Scenario scenario() const;
    // setScenario shows a scenario in the controls without emitting scenarioChanged.
    void setScenario(const Scenario& s);
    // addRequests sends `count` requests by hand at time t: they join the scenario's arrivals.
    void addRequests(Nanos t, int count);
    // clearAddedRequests removes every request sent by hand.
    void clearAddedRequests();
    // linked reports whether capacity and rate follow limit and window.
    bool linked() const;
    void setLinked(bool linked);

    SliderValue* limit() const { return m_limit; }
    SliderValue* window() const { return m_window; }
    SliderValue* delay() const { return m_delay; }
    SliderValue* requests() const { return m_requests; }
    QComboBox* pattern() const { return m_pattern; }
    QCheckBox* algorithmBox(Algorithm a) const { return m_algorithms.at(a); }

signals:
    void scenarioChanged(const ratelab::Scenario& scenario);

private:
    void changed();
    void syncLinked();
    void showPatternPage(int index);
    QWidget* limitsGroup();
    QWidget* trafficGroup();
    QWidget* algorithmsGroup();

    SliderValue* m_limit;
    SliderValue* m_window;
    QCheckBox* m_link;
    SliderValue* m_capacity;
    SliderValue* m_rate;
    QComboBox* m_pattern;
    QStackedWidget* m_patternPages;
    SliderValue* m_requests;
    SliderValue* m_delay;
    SliderValue* m_burstSize;
    SliderValue* m_period;
    SliderValue* m_lambda;
    SliderValue* m_seed;
    SliderValue* m_gap;
    SliderValue* m_start;
    std::map<Algorithm, QCheckBox*> m_algorithms;
    std::vector<Nanos> m_explicitArrivals; // kept from a loaded scenario
    bool m_hasExplicitArrivals = false;
    std::vector<Nanos> m_addedArrivals;
    std::string m_title, m_lesson;
};

} // namespace ratelab::ui
