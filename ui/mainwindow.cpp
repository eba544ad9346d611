#include "mainwindow.h"

#include "chartstack.h"
#include "controlpanel.h"
#include "dashboard.h"
#include "exportdialog.h"
#include "pipeline.h"
#include "settings.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QToolBar>

namespace ratelab::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_settings(std::make_unique<Settings>())
    , m_controls(new ControlPanel)
    , m_dashboard(new Dashboard)
    , m_pipeline(new Pipeline(this))
    , m_splitter(new QSplitter(Qt::Horizontal))
{
    setWindowTitle("RateLab");
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_controls);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(m_controls->sizeHint().width() + 20);
    m_splitter->addWidget(scroll);
    m_splitter->addWidget(m_dashboard);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setChildrenCollapsible(false);
    setCentralWidget(m_splitter);
    createActions();

    connect(m_controls, &ControlPanel::scenarioChanged, this, &MainWindow::requestFrame);
    connect(m_dashboard->charts(), &ChartStack::rangeRequested, this, [this](TimeRange range) {
        m_requestedRange = range;
        requestFrame();
    });
    connect(m_pipeline, &Pipeline::frameReady, this, &MainWindow::showFrame);

    if (const auto last = m_settings->lastScenario())
        m_controls->setScenario(*last);
    if (!restoreGeometry(m_settings->geometry()))
        resize(screen()->availableGeometry().size() * 0.9);
    m_splitter->restoreState(m_settings->splitterState("main"));
    m_dashboard->restoreSplitter(m_settings->splitterState("dashboard"));
    requestFrame();
}

MainWindow::~MainWindow() = default;

void MainWindow::openScenario(const Scenario& scenario)
{
    m_controls->setScenario(scenario);
    m_requestedRange = {};
    requestFrame();
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu("&File");
    QAction* exportAction = file->addAction(QIcon::fromTheme("document-save-as"), "&Export image…", this,
                                            &MainWindow::exportImage);
    exportAction->setShortcut(QKeySequence("Ctrl+E"));
    exportAction->setToolTip("Export the charts and summary as a PNG image (Ctrl+E)");
    QAction* copyAction = file->addAction(QIcon::fromTheme("edit-copy"), "&Copy image", this, &MainWindow::copyImage);
    copyAction->setShortcut(QKeySequence("Ctrl+Shift+C"));
    copyAction->setToolTip("Copy the charts and summary to the clipboard (Ctrl+Shift+C)");
    file->addSeparator();
    QAction* quit = file->addAction("&Quit", this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu("&View");
    ChartStack* charts = m_dashboard->charts();
    QAction* zoomIn = view->addAction("Zoom &in", this, [this, charts] {
        const TimeRange r = charts->range();
        charts->zoom(secondsAsDouble(r.from + (r.to - r.from) / 2), 0.5);
    });
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    QAction* zoomOut = view->addAction("Zoom &out", this, [this, charts] {
        const TimeRange r = charts->range();
        charts->zoom(secondsAsDouble(r.from + (r.to - r.from) / 2), 2.0);
    });
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    QAction* reset = view->addAction(QIcon::fromTheme("zoom-original"), "&Reset zoom", charts, &ChartStack::resetZoom);
    reset->setShortcut(QKeySequence("Ctrl+0"));
    reset->setToolTip("Show the whole scenario again (Ctrl+0); zoom with the wheel, pan by dragging");

    QMenu* help = menuBar()->addMenu("&Help");
    help->addAction("&About RateLab", this, [this] {
        QMessageBox::about(this, "About RateLab",
                           "<b>RateLab</b><p>Seven rate limiters side by side over the same simulated traffic, "
                           "with exact integer-nanosecond arithmetic.</p><p>Wheel: zoom the time axis. Drag: pan. "
                           "Hover a mark: that request's decision.</p>");
    });

    QToolBar* bar = addToolBar("Main");
    bar->setObjectName("mainToolBar");
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(exportAction);
    bar->addAction(copyAction);
    bar->addSeparator();
    bar->addAction(reset);
}

void MainWindow::requestFrame()
{
    try {
        m_pipeline->request(m_controls->scenario(), m_requestedRange, m_dashboard->charts()->columns());
    } catch (const std::exception& e) {
        statusBar()->showMessage(QString::fromUtf8(e.what()));
    }
}

void MainWindow::showFrame(const Frame& frame)
{
    if (!frame.error.isEmpty()) {
        statusBar()->showMessage(frame.error); // the last good charts stay up
        return;
    }
    m_dashboard->setFrame(frame);
    const auto n = frame.trace->arrivals.size();
    statusBar()->showMessage(QString("%1 request%2 · wheel to zoom, drag to pan, hover a mark for its decision")
                                 .arg(QLocale().toString(qulonglong(n)))
                                 .arg(n == 1 ? "" : "s"));
}

void MainWindow::exportImage()
{
    const QString defaultPath = QDir::home().filePath("ratelab.png");
    ExportDialog dialog(m_settings->exportSize(), m_settings->exportScale(), defaultPath, this);
    if (dialog.exec() != QDialog::Accepted || dialog.path().isEmpty())
        return;
    m_settings->setExport(dialog.imageSize(), dialog.scale());
    QString error;
    try {
        const TimeRange range = m_dashboard->charts()->isZoomed() ? m_dashboard->charts()->range() : TimeRange{};
        error = writeImage(renderOffscreen(m_controls->scenario(), dialog.imageSize(), dialog.scale(), range), dialog.path());
    } catch (const std::exception& e) {
        error = QString::fromUtf8(e.what());
    }
    if (!error.isEmpty())
        QMessageBox::warning(this, "Export failed", error);
    else
        statusBar()->showMessage("Saved " + dialog.path(), 5000);
}

void MainWindow::copyImage()
{
    QApplication::clipboard()->setImage(m_dashboard->render(devicePixelRatioF()));
    statusBar()->showMessage("Image copied to the clipboard", 3000);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    m_settings->setGeometry(saveGeometry());
    m_settings->setSplitterState("main", m_splitter->saveState());
    m_settings->setSplitterState("dashboard", m_dashboard->splitter()->saveState());
    try {
        m_settings->setLastScenario(m_controls->scenario());
    } catch (const std::exception&) {
    }
    event->accept();
}

} // namespace ratelab::ui
