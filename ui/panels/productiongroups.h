// The settings groups for what production adds, each a small widget over the document with one
// job: ClusterGroup (several servers sharing a store), ClientsGroup (clients that retry, keys)
// and LayersGroup (a layered policy, edited in a table). Each is a checkable group box: ticked,
// the scenario has that feature; unticked, it has none and the group folds away.
#pragma once

#include "scenario/scenario.h"

#include <QGroupBox>

class QCheckBox;
class QComboBox;
class QLayout;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace ratelab::ui {

class DocumentFields;
class ScenarioDocument;
class SliderValue;

class ClusterGroup : public QGroupBox {
    Q_OBJECT
public:
    explicit ClusterGroup(ScenarioDocument* document, QWidget* parent = nullptr);
    SliderValue* nodes() const { return m_nodes; }
    QComboBox* coordination() const { return m_coordination; }
    QCheckBox* outage() const { return m_outage; }
    SliderValue* outageFrom() const { return m_outageFrom; }
    SliderValue* outageTo() const { return m_outageTo; }
    QComboBox* fallback() const { return m_fallback; }
    QCheckBox* autoscale() const { return m_autoscale; }
    SliderValue* minNodes() const { return m_minNodes; }
    SliderValue* scaleAt() const { return m_scaleAt; }

private:
    void setUpControls();
    void layOut();
    void bindFields();
    void connectEdits();
    void showDocument();
    ScenarioDocument* m_document;
    DocumentFields* m_fields;
    QWidget* m_body;
    SliderValue* m_nodes;
    QComboBox* m_balancer;
    QComboBox* m_coordination;
    SliderValue* m_latency;
    SliderValue* m_sync;
    SliderValue* m_skew;
    QCheckBox* m_outage;
    SliderValue* m_outageFrom;
    SliderValue* m_outageTo;
    QComboBox* m_fallback;
    QLayout* m_fallbackRow = nullptr;
    QCheckBox* m_autoscale;
    SliderValue* m_minNodes;
    SliderValue* m_scaleAt;
};

class ClientsGroup : public QGroupBox {
    Q_OBJECT
public:
    explicit ClientsGroup(ScenarioDocument* document, QWidget* parent = nullptr);
    SliderValue* clients() const { return m_clients; }
    QComboBox* retry() const { return m_retry; }
    QComboBox* jitter() const { return m_jitter; }
    QLineEdit* cohorts() const { return m_cohorts; }

private:
    void setUpControls();
    void layOut();
    void bindFields();
    void connectEdits();
    void showDocument();
    ScenarioDocument* m_document;
    DocumentFields* m_fields;
    QWidget* m_body;
    SliderValue* m_clients;
    QComboBox* m_key;
    QComboBox* m_retry;
    SliderValue* m_retryDelay;
    SliderValue* m_maxRetries;
    SliderValue* m_backoffBase;
    SliderValue* m_backoffCap;
    QComboBox* m_jitter;
    QLineEdit* m_cohorts;
    QLayout* m_jitterRow = nullptr;
    QLayout* m_retryRow = nullptr;
    QString cohortsText() const;
};

class LayersGroup : public QGroupBox {
    Q_OBJECT
public:
    explicit LayersGroup(ScenarioDocument* document, QWidget* parent = nullptr);
    QTableWidget* table() const { return m_table; }

private:
    void showDocument();
    void cellEdited(int row, int column);
    ScenarioDocument* m_document;
    QWidget* m_body;
    QTableWidget* m_table;
    QPushButton* m_add;
    QPushButton* m_remove;
    bool m_showing = false;
};

} // namespace ratelab::ui
