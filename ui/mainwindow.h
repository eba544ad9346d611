// MainWindow wires the widgets and actions together; it draws and decides nothing itself.
#pragma once

#include "frame.h"
#include "scenario.h"

#include <QMainWindow>

class QSplitter;

namespace ratelab::ui {

class ControlPanel;
class Dashboard;
class Pipeline;
class Settings;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // openScenario shows a scenario (a preset, a file) in the controls and simulates it.
    void openScenario(const Scenario& scenario);

    ControlPanel* controls() const { return m_controls; }
    Dashboard* dashboard() const { return m_dashboard; }
    Pipeline* pipeline() const { return m_pipeline; }

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void requestFrame();
    void showFrame(const Frame& frame);
    void exportImage();
    void copyImage();

    std::unique_ptr<Settings> m_settings;
    ControlPanel* m_controls;
    Dashboard* m_dashboard;
    Pipeline* m_pipeline;
    QSplitter* m_splitter;
    TimeRange m_requestedRange;
};

} // namespace ratelab::ui
