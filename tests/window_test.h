// WindowTest is the shared fixture of the widget tests: a main window on the offscreen
// platform, settings in a scratch directory, and a wait for the pipeline's latest frame.
#pragma once

#include "chart/chartstack.h"
#include "chart/dashboard.h"
#include "window/mainwindow.h"
#include "model/pipeline.h"
#include "chart/rowchart.h"

#include <QApplication>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>
#include <memory>

class WindowTest : public QObject {
protected:
    QTemporaryDir m_config;
    std::unique_ptr<ratelab::ui::MainWindow> m_window;

    // useScratchSettings sends QSettings to a scratch directory, so a test neither reads nor
    // leaves user state. Call it before the first window is made.
    void useScratchSettings() { qputenv("XDG_CONFIG_HOME", m_config.path().toUtf8()); }

    // openWindow makes a fresh 1280x720 window showing `scenario` and waits for its frame.
    void openWindow(const ratelab::Scenario& scenario)
    {
        m_window = std::make_unique<ratelab::ui::MainWindow>();
        m_window->resize(1280, 720);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->openScenario(scenario);
        settle();
    }

    // settle waits until the pipeline has delivered the frame of the controls' latest state.
    void settle()
    {
        QTRY_VERIFY_WITH_TIMEOUT(m_window->pipeline()->isIdle(), 20000);
        QCoreApplication::processEvents();
    }

    // messageShownBy runs f and returns the text of the message box it opens (closing it), or an
    // empty string when none opened.
    static QString messageShownBy(const std::function<void()>& f)
    {
        QString shown;
        QTimer closer;
        QObject::connect(&closer, &QTimer::timeout, [&] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                shown = box->text();
                box->close();
            }
        });
        closer.start(10);
        f();
        return shown;
    }

    const ratelab::ui::Frame& frame() const { return m_window->stage()->frame(); }
    ratelab::ui::ChartStack* charts() const { return m_window->dashboard()->charts(); }

    // rowOf returns the chart row of algorithm a, or null when no row shows it.
    ratelab::ui::RowChart* rowOf(ratelab::Algorithm a) const
    {
        for (int i = 0; i < charts()->rowCount(); ++i)
            if (charts()->row(i)->algorithm() == a)
                return charts()->row(i);
        return nullptr;
    }

    // resultIndex returns the index of a's trace in the latest frame, or the number of traces
    // when none is a's.
    std::size_t resultIndex(ratelab::Algorithm a) const
    {
        const auto& results = frame().trace->results;
        for (std::size_t i = 0; i < results.size(); ++i)
            if (results[i].algorithm == a)
                return i;
        return results.size();
    }
};
