// ServerGroup is the settings group for the server behind the limiter: ticked, every
// row's admitted attempts are served by W workers with a queue and timeouts (server.h), and each
// concurrency limiter in its list is a row of its own (gate.h); unticked, the scenario has none.
// Every touch is one undoable edit of the document, as the other settings groups make.
// ThrottleGroup is the client throttle's own group: a throttle runs inside the clients, before
// the limiter, and means something with or without a server (client-throttle-under-limit has none).
#pragma once

#include "scenario/scenario.h"

#include <QGroupBox>

class QComboBox;
class QLineEdit;
class QListWidget;
class QListWidgetItem;
class QPushButton;
class QSpinBox;

namespace ratelab::ui {

class DocumentFields;
class ScenarioDocument;
class SliderValue;

class ServerGroup : public QGroupBox {
    Q_OBJECT
public:
    explicit ServerGroup(ScenarioDocument* document, QWidget* parent = nullptr);
    QSpinBox* workers() const { return m_workers; }
    QComboBox* service() const { return m_service; }
    SliderValue* serviceTime() const { return m_serviceTime; }
    SliderValue* sigma() const { return m_sigma; }
    SliderValue* queue() const { return m_queue; }
    SliderValue* queueTimeout() const { return m_queueTimeout; }
    SliderValue* clientTimeout() const { return m_clientTimeout; }
    QListWidget* gates() const { return m_gates; }
    QComboBox* gateKind() const { return m_gateKind; }
    QPushButton* addGate() const { return m_add; }
    QPushButton* removeGate() const { return m_remove; }
    // layeredGate is the concurrency limiter after the layered policy's layers (--layered-gate):
    // its spec, typed; enabled while the scenario has layers.
    QLineEdit* layeredGate() const { return m_layeredGate; }

private:
    void setUpControls();
    void layOut();
    void bindFields();
    void connectEdits();
    void showDocument();
    void gateEdited(QListWidgetItem* item);
    ScenarioDocument* m_document;
    DocumentFields* m_fields;
    QWidget* m_body;
    QSpinBox* m_workers;
    QComboBox* m_service;
    SliderValue* m_serviceTime;
    SliderValue* m_sigma;
    SliderValue* m_queue;
    SliderValue* m_queueTimeout;
    SliderValue* m_clientTimeout;
    QListWidget* m_gates;
    QComboBox* m_gateKind;
    QPushButton* m_add;
    QPushButton* m_remove;
    QLineEdit* m_layeredGate;
    bool m_showing = false;
};

class ThrottleGroup : public QGroupBox {
    Q_OBJECT
public:
    explicit ThrottleGroup(ScenarioDocument* document, QWidget* parent = nullptr);
    QLineEdit* throttle() const { return m_throttle; }

private:
    void showDocument();
    ScenarioDocument* m_document;
    QLineEdit* m_throttle;
};

} // namespace ratelab::ui
