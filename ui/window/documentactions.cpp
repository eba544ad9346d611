#include "window/documentactions.h"
#include "window/webpage.h"

#include "config_import.h"


#include "chart/chartstack.h"
#include "chart/dashboard.h"
#include "window/exportdialog.h"
#include "outputpath.h"
#include "presets.h"
#include "redis_check.h"
#include "report/report.h"
#include "report/report_run.h"
#include "arithmetic/decimal.h"
#include "model/scenariodocument.h"
#include "scenariofile.h"
#include "server_script.h"
#include "model/settings.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QLocale>
#include <QPainter>
#include <QProgressDialog>
#include <QTimer>
#include <QBuffer>
#include <QSvgGenerator>
#include <QtConcurrent/QtConcurrentRun>

#include <sstream>

namespace ratelab::ui {

DocumentActions::DocumentActions(QWidget* window, Settings& settings, Dashboard* dashboard, ScenarioDocument* document)
    : QObject(window)
    , m_window(window)
    , m_settings(settings)
    , m_dashboard(dashboard)
    , m_document(document)
{
}

void DocumentActions::fillMenu(QMenu* file)
{
    addOpenActions(file);
    file->addSeparator();
    addSaveActions(file);
    file->addSeparator();
    addExportActions(file);
}

void DocumentActions::addOpenActions(QMenu* file)
{
    QAction* open = file->addAction(QIcon::fromTheme("document-open"), "&Open scenario…", this, [this] {
        const QString path = m_document->filePath();
        const QString dir = path.isEmpty() ? QDir::homePath() : QFileInfo(path).absolutePath();
        const QString p = QFileDialog::getOpenFileName(m_window, "Open scenario", dir,
                                                       "RateLab scenarios (*.ratelab.json *.json);;All files (*)");
        if (!p.isEmpty())
            openFile(p);
    });
    open->setShortcut(QKeySequence::Open);
    m_recent = file->addMenu("Open &recent");
    refreshRecent();
    QAction* import = file->addAction(tr("&Import configuration…"), this, [this] {
        const QString path = m_document->filePath();
        const QString dir = path.isEmpty() ? QDir::homePath() : QFileInfo(path).absolutePath();
        const QString p = QFileDialog::getOpenFileName(
            m_window, tr("Import a product's rate-limit configuration"), dir,
            tr("Configurations (*.conf *.yaml *.yml *.toml *.json);;All files (*)"));
        if (!p.isEmpty())
            importConfiguration(p);
    });
    import->setShortcut(QKeySequence("Ctrl+I"));
    import->setToolTip(tr("Read an nginx, Envoy, Traefik, Spring, Kong, express-rate-limit, API Gateway, AWS WAF, "
                          "Cloudflare or Upstash configuration and show what it does (Ctrl+I)"));
    QMenu* presetMenu = file->addMenu("&Presets");
    for (const io::PresetInfo& preset : io::presets())
        presetMenu->addAction(preset.title, this, [this, id = preset.id] { openPreset(id); });
}

void DocumentActions::addSaveActions(QMenu* file)
{
    QAction* save = file->addAction(QIcon::fromTheme("document-save"), "&Save scenario", this, &DocumentActions::save);
    save->setShortcut(QKeySequence::Save);
    QAction* saveAs = file->addAction("Save scenario &as…", this, &DocumentActions::saveAs);
    saveAs->setShortcut(QKeySequence::SaveAs);
    m_revert = file->addAction(QIcon::fromTheme("document-revert"), tr("Re&vert"), this, &DocumentActions::revert);
    m_revert->setToolTip(tr("Drop the unsaved changes: reopen the scenario file or preset"));
    const auto updateRevert = [this] {
        m_revert->setEnabled(m_document->isModified() && (!m_document->filePath().isEmpty() || !m_document->presetId().isEmpty()));
    };
    connect(m_document, &ScenarioDocument::modifiedChanged, this, updateRevert);
    connect(m_document, &ScenarioDocument::identityChanged, this, updateRevert);
    updateRevert();
}

void DocumentActions::addExportActions(QMenu* file)
{
    m_exportImage = file->addAction(QIcon::fromTheme("document-save-as"), "&Export image (PNG)…", this,
                                    &DocumentActions::exportImage);
    m_exportImage->setShortcut(QKeySequence("Ctrl+E"));
    m_exportImage->setToolTip("Export the charts and summary as a PNG image (Ctrl+E)");
    file->addAction("Export SV&G…", this, &DocumentActions::exportSvg);
    QAction* page = file->addAction(tr("Export as &web page…"), this, &DocumentActions::exportPage);
    page->setToolTip(tr("Write the charts as one web page that opens in any browser, without RateLab or a network"));
    file->addAction("E&xport trace as CSV…", this, [this] { exportTrace("csv"); });
    file->addAction("Export trace as &JSON…", this, [this] { exportTrace("json"); });
    m_copyImage = file->addAction(QIcon::fromTheme("edit-copy"), "&Copy image", this, &DocumentActions::copyImage);
    m_copyImage->setShortcut(QKeySequence("Ctrl+Shift+C"));
    m_copyImage->setToolTip("Copy the charts and summary to the clipboard (Ctrl+Shift+C)");
    file->addSeparator();
    m_checkRedis = file->addAction(tr("Check agai&nst Redis"), this, &DocumentActions::checkAgainstRedis);
    m_checkRedis->setToolTip(tr("Run this scenario through the real Lua scripts on a private redis-server and "
                                "compare every decision with the simulation"));
    m_copyRedisScript = file->addAction(tr("Cop&y Redis script"), this, &DocumentActions::copyRedisScript);
    m_copyRedisScript->setToolTip(tr("Copy the Lua script a service deploys (Redis TIME, this config inside) for "
                                     "the layers, or the first algorithm, of this scenario"));
}

void DocumentActions::copyRedisScript()
{
    const Scenario s = m_document->scenario();
    std::vector<Layer> layers = s.layers;
    std::string command = "ratelab lua --server-clock";
    if (layers.empty()) {
        const auto first = std::find_if(s.algorithms.begin(), s.algorithms.end(),
                                        [](Algorithm a) { return a != Algorithm::NginxLimitReq; });
        if (first == s.algorithms.end())
            return failed(tr("Copy Redis script"), tr("nginx_limit_req has no Redis script: tick another algorithm"));
        layers.push_back(Layer{*first, s.config});
    }
    for (const Layer& l : layers)
        command += " --layer " + layerText(l);
    try {
        QApplication::clipboard()->setText(QString::fromStdString(io::serverClockScript(layers, command)));
    } catch (const std::exception& e) {
        return failed(tr("Copy Redis script"), QString::fromUtf8(e.what()));
    }
    emit status(tr("Redis script (%1) copied to the clipboard").arg(QString::fromUtf8(algorithmId(layers.front().algorithm).data())));
}

QString redisWarning(std::size_t decisions)
{
    constexpr std::size_t kQuick = 100'000;
    if (decisions <= kQuick)
        return {};
    const double seconds = double(decisions) * 1e-4; // about 0.1 ms a round trip
    const QString duration = seconds < 90 ? QObject::tr("about %1 seconds").arg(std::max(1, int(std::lround(seconds))))
                                          : QObject::tr("about %1 minutes").arg(int(std::lround(seconds / 60)));
    return QObject::tr("This check makes %1 decisions through Redis, one round trip each: %2. It can be cancelled "
                       "at any time. Check anyway?")
        .arg(QLocale().toString(qulonglong(decisions)), duration);
}

void DocumentActions::checkAgainstRedis()
{
    // A private redis-server starts, and every decision is one round trip: off the GUI thread,
    // with a progress bar that can cancel, and a question first when it will take a while.
    if (m_redisCheck.isRunning())
        return;
    const QString warning = redisWarning(io::redisDecisions(m_document->scenario()));
    if (!warning.isEmpty()
        && QMessageBox::question(m_window, tr("Check against Redis"), warning, QMessageBox::Yes | QMessageBox::Cancel)
               != QMessageBox::Yes)
        return;
    m_checkRedis->setEnabled(false);
    emit status(tr("Checking against Redis…"));
    auto progress = std::make_shared<io::RedisProgress>();
    auto* dialog = new QProgressDialog(tr("Checking every decision against Redis…"), tr("Cancel"), 0, 1000, m_window);
    dialog->setWindowTitle(tr("Check against Redis"));
    dialog->setWindowModality(Qt::WindowModal);
    dialog->setMinimumDuration(400); // a quick check never flashes a dialog
    dialog->setAutoClose(false);
    dialog->setAutoReset(false);
    connect(dialog, &QProgressDialog::canceled, this, [progress] { progress->cancel = true; });
    auto* poll = new QTimer(dialog);
    connect(poll, &QTimer::timeout, dialog, [dialog, progress] {
        const std::size_t total = progress->total.load(), done = progress->done.load();
        if (total > 0) {
            dialog->setValue(int(done * 1000 / total));
            dialog->setLabelText(tr("Checking every decision against Redis: %1 of %2")
                                     .arg(QLocale().toString(qulonglong(done)), QLocale().toString(qulonglong(total))));
        }
    });
    poll->start(100);
    connect(&m_redisCheck, &QFutureWatcher<io::RedisCheck>::finished, this, [this, dialog] {
        dialog->deleteLater();
        m_checkRedis->setEnabled(true);
        const io::RedisCheck r = m_redisCheck.result();
        emit status(r.agreed ? tr("Redis agrees with every decision") : tr("Redis check: see the message"));
        emit redisChecked(r.agreed, r.summary);
        auto* box = new QMessageBox(r.agreed ? QMessageBox::Information : QMessageBox::Warning, tr("Check against Redis"),
                                    r.summary, QMessageBox::Ok, m_window);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open(); // window-modal, never blocking the event loop
    }, Qt::SingleShotConnection);
    m_redisCheck.setFuture(QtConcurrent::run([s = m_document->scenario(), progress] {
        return io::checkAgainstRedis(s, {}, progress.get());
    }));
}

bool DocumentActions::openFile(const QString& path)
{
    const io::LoadResult r = m_document->open(path);
    if (!r.scenario) {
        failed("Cannot open the scenario", r.error); // the current scenario stays as it was
        return false;
    }
    m_settings.addRecentFile(QFileInfo(path).absoluteFilePath());
    refreshRecent();
    emit status(r.notes.isEmpty() ? "Opened " + path : "Opened " + path + " (" + r.notes.join("; ") + ")");
    return true;
}

bool DocumentActions::importConfiguration(const QString& path)
{
    io::ImportedConfig config;
    try {
        config = io::importConfigurationFile(path);
    } catch (const InputError& e) {
        failed(tr("Cannot import the configuration"), QString::fromStdString(e.what()));
        return false;
    }
    emit imported(path); // first: the window frames the new traffic when the document changes
    m_document->replace(tr("Import %1").arg(QFileInfo(path).fileName()), config.scenario);
    emit status(tr("Imported %1 from %2").arg(QString::fromStdString(config.product), path));
    return true;
}

bool DocumentActions::openPreset(const QString& id)
{
    const io::LoadResult r = m_document->openPreset(id);
    if (!r.scenario) {
        failed("Cannot load the preset", r.error);
        return false;
    }
    return true;
}

bool DocumentActions::saveTo(const QString& path)
{
    const QString error = m_document->saveAs(path);
    if (!error.isEmpty()) {
        failed("Cannot save the scenario", error);
        return false;
    }
    m_settings.addRecentFile(QFileInfo(path).absoluteFilePath());
    refreshRecent();
    emit status("Saved " + path);
    return true;
}

bool DocumentActions::revert()
{
    const QString error = m_document->revert();
    if (!error.isEmpty()) {
        failed(tr("Cannot revert"), error);
        return false;
    }
    emit status(tr("Reverted to %1").arg(m_document->displayName()));
    return true;
}

void DocumentActions::save()
{
    if (m_document->filePath().isEmpty())
        saveAs();
    else
        saveTo(m_document->filePath());
}

void DocumentActions::saveAs()
{
    const QString p = askPath("Save scenario", "RateLab scenarios (*.ratelab.json)", ".ratelab.json");
    if (!p.isEmpty())
        saveTo(p);
}

QString DocumentActions::askPath(const QString& title, const QString& filter, const QString& suffix)
{
    const QString path = m_document->filePath();
    const QString dir = path.isEmpty() ? QDir::homePath() : QFileInfo(path).absolutePath();
    QString p = QFileDialog::getSaveFileName(m_window, title, QDir(dir).filePath("ratelab" + suffix), filter);
    if (!p.isEmpty() && !p.endsWith(suffix, Qt::CaseInsensitive) && QFileInfo(p).suffix().isEmpty())
        p += suffix;
    return p;
}

void DocumentActions::exportImage()
{
    ExportDialog dialog(m_settings.exportSize(), m_settings.exportScale(), QDir::home().filePath("ratelab.png"), m_window);
    if (dialog.exec() != QDialog::Accepted || dialog.path().isEmpty())
        return;
    m_settings.setExport(dialog.imageSize(), dialog.scale());
    QString error;
    try {
        ChartStack* charts = m_dashboard->charts();
        const TimeRange range = charts->isZoomed() ? charts->range() : TimeRange{};
        error = writeImage(renderOffscreen(m_document->scenario(), dialog.imageSize(), dialog.scale(), range), dialog.path());
    } catch (const std::exception& e) {
        error = QString::fromUtf8(e.what());
    }
    if (!error.isEmpty())
        failed("Export failed", error);
    else
        emit status("Saved " + dialog.path());
}

void DocumentActions::exportSvg()
{
    const QString p = askPath("Export SVG", "SVG image (*.svg)", ".svg");
    if (p.isEmpty())
        return;
    if (const QString problem = io::outputPathProblem(p); !problem.isEmpty())
        return failed("Export failed", problem);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(m_dashboard->size());
    svg.setViewBox(m_dashboard->rect());
    svg.setTitle(Dashboard::describe(m_document->scenario()));
    QPainter painter(&svg);
    m_dashboard->QWidget::render(&painter);
    painter.end();
    if (const QString error = io::writeFileAtomically(p, bytes); !error.isEmpty())
        return failed("Export failed", error);
    emit status("Saved " + p);
}

QString DocumentActions::exportPageTo(const QString& path)
{
    // What `ratelab export --html` writes for this scenario at the export size, over the zoomed
    // range when the charts are zoomed, in the window's theme.
    const ChartStack* charts = m_dashboard->charts();
    const TimeRange range = charts->isZoomed() ? charts->range() : TimeRange{};
    try {
        return writePage(scenarioPage(m_document->scenario(), m_settings.exportSize(), range), path);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
}

void DocumentActions::exportPage()
{
    const QString p = askPath(tr("Export as web page"), tr("Web page (*.html)"), ".html");
    if (p.isEmpty())
        return;
    if (const QString error = exportPageTo(p); !error.isEmpty())
        return failed(tr("Export failed"), error);
    emit status(tr("Saved %1").arg(p));
}

QString DocumentActions::exportDryRunPageTo(const DryRunReport& report, const QString& path)
{
    try {
        return writePage(dryRunPage(report), path);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
}

void DocumentActions::exportDryRunPage(const DryRunReport& report)
{
    const QString p = askPath(tr("Export the dry run as web page"), tr("Web page (*.html)"), ".html");
    if (p.isEmpty())
        return;
    if (const QString error = exportDryRunPageTo(report, p); !error.isEmpty())
        return failed(tr("Export failed"), error);
    emit status(tr("Saved %1").arg(p));
}

void DocumentActions::exportTrace(const QString& format)
{
    const Frame& frame = m_dashboard->stage()->frame();
    if (!frame.trace)
        return;
    const QString p = askPath("Export trace", format == "csv" ? "CSV (*.csv)" : "JSON (*.json)", "." + format);
    if (p.isEmpty())
        return;
    // The same writer as `ratelab compare`, so the file holds the same bytes for the same scenario.
    std::ostringstream out;
    try {
        writeReport(out, *frame.scenario, format == "csv" ? ReportFormat::Csv : ReportFormat::Json, false);
    } catch (const InputError& e) {
        return failed("Export failed", QString::fromStdString(e.what()));
    }
    if (const QString error = io::writeFileAtomically(p, QByteArray::fromStdString(out.str())); !error.isEmpty())
        return failed("Export failed", error);
    emit status("Saved " + p);
}

void DocumentActions::copyImage()
{
    QApplication::clipboard()->setImage(m_dashboard->render(m_window->devicePixelRatioF()));
    emit status("Image copied to the clipboard");
}

void DocumentActions::refreshRecent()
{
    if (!m_recent)
        return;
    m_recent->clear();
    const QStringList files = m_settings.recentFiles();
    for (const QString& f : files)
        m_recent->addAction(QFileInfo(f).fileName(), this, [this, f] { openFile(f); })->setToolTip(f);
    m_recent->setEnabled(!files.isEmpty());
}

void DocumentActions::failed(const QString& title, const QString& message)
{
    QMessageBox::warning(m_window, title, message);
    emit status(message);
}

} // namespace ratelab::ui
