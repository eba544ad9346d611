// File > Import configuration in the app: a product's configuration becomes the
// document's scenario as one undoable step, with the explanation `ratelab import` prints as its
// lesson; a file that is not one leaves the document as it was and says why.
#include "panels/controlpanel.h"
#include "window/documentactions.h"
#include "panels/lessonpanel.h"
#include "window/mainwindow.h"
#include "panels/productgroup.h"
#include "limiters/products/product.h"

#include <QLabel>
#include <QLineEdit>
#include "model/scenariodocument.h"
#include "panels/slidervalue.h"
#include "window_test.h"

#include <QTemporaryDir>
#include <QUndoStack>

using namespace ratelab;
using namespace ratelab::ui;

namespace {

QString data(const QString& name) { return QStringLiteral(RATELAB_TESTDATA "/import/") + name; }

} // namespace

class TestImportApp : public WindowTest {
    Q_OBJECT

private slots:
    void initTestCase() { useScratchSettings(); }
    void init() { openWindow(Scenario{}); }
    void cleanup() { m_window.reset(); }

    // Each product's file sets its model: Traefik's average 6 per 1m with burst 1 is one token
    // every 10 s in a bucket of 1; nginx's 50r/s with burst=8 nodelay; express's limit in windowMs.
    void importsEachKindAsOneUndoStep_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("algorithm");
        QTest::addColumn<QString>("product");
        QTest::newRow("traefik yaml") << "traefik.yaml" << int(Algorithm::Traefik) << "Traefik";
        QTest::newRow("traefik toml") << "traefik.toml" << int(Algorithm::Traefik) << "Traefik";
        QTest::newRow("nginx") << "nginx.conf" << int(Algorithm::NginxLimitReq) << "nginx";
        QTest::newRow("envoy") << "envoy.yaml" << int(Algorithm::EnvoyLocal) << "Envoy";
        QTest::newRow("spring") << "spring.yml" << int(Algorithm::SpringGateway) << "Spring";
        QTest::newRow("kong yaml") << "kong.yaml" << int(Algorithm::Kong) << "Kong";
        QTest::newRow("kong json") << "kong.json" << int(Algorithm::Kong) << "Kong";
        QTest::newRow("express") << "express.json" << int(Algorithm::ExpressRateLimit) << "express";
    }
    void importsEachKindAsOneUndoStep()
    {
        QFETCH(QString, file);
        QFETCH(int, algorithm);
        QFETCH(QString, product);
        const Scenario before = m_window->document()->scenario();
        const int steps = m_window->document()->undoStack()->count();
        QVERIFY(m_window->documents()->importConfiguration(data(file)));
        const Scenario& now = m_window->document()->scenario();
        QCOMPARE(now.algorithms.size(), std::size_t(1));
        QCOMPARE(int(now.algorithms.front()), algorithm);
        QVERIFY2(QString::fromStdString(now.title).startsWith("Imported: " + product), now.title.c_str());
        QCOMPARE(now.explicitArrivals->size(), std::size_t(27)); // the page load the explanation starts with
        // The lesson panel shows the explanation, the one `ratelab import` prints.
        const QString lesson = m_window->lesson()->lesson();
        QVERIFY2(lesson.contains("What you wrote") && lesson.contains("What you get"),
                 qPrintable(lesson));
        QVERIFY(lesson.startsWith("Read from " + file));
        QCOMPARE(m_window->document()->undoStack()->count(), steps + 1);
        QVERIFY(m_window->isWindowModified());
        settle();
        QCOMPARE(frame().trace->arrivals.size(), std::size_t(27));
        m_window->document()->undoStack()->undo();
        QVERIFY(m_window->document()->scenario() == before);
    }

    // Traefik's "6 per 1m, burst 1": of the page load's 27 requests in 52 ms one passes.
    void theImportedRowShowsTheSurprise()
    {
        QVERIFY(m_window->documents()->importConfiguration(data("traefik.yaml")));
        settle();
        QCOMPARE(frame().trace->results.size(), std::size_t(1));
        QCOMPARE(frame().trace->results.front().metrics.allowed, std::int64_t(1));
    }

    // Typing in the textbook Limits never rewrites the imported configuration (a Limit
    // typed dropped Traefik's average, period and burst, and the row became "10 per 10 s"). The
    // Limits keep their own value for the rows that read them; Traefik's row still admits one.
    void typingALimitKeepsTheImportedConfiguration()
    {
        QVERIFY(m_window->documents()->importConfiguration(data("traefik.yaml")));
        settle();
        const std::vector<ProductOption> imported = m_window->document()->scenario().config.productOptions();
        QVERIFY(!imported.empty());
        for (auto* field : {m_window->controls()->limit(), m_window->controls()->window(), m_window->controls()->capacity(),
                            m_window->controls()->rate()}) {
            field->type("7");
            settle();
            QVERIFY(m_window->document()->scenario().config.productOptions() == imported);
        }
        QCOMPARE(m_window->document()->scenario().config.limit(), std::int64_t(7));
        QCOMPARE(frame().trace->results.front().metrics.allowed, std::int64_t(1));
    }

    // The product row's own options are shown and edited in the product's names:
    // Traefik's average 6, period 1m, burst 1 as imported. A burst of 3 lets three of the page
    // load's 27 requests through (52 ms is far from the next token, 10 s away); a burst the
    // product refuses stays in its box, marked, and the document does not change; Undo brings
    // back the imported burst. The Limits say that Traefik does not read them.
    void theProductOptionsAreEditedInTheProductsNames()
    {
        QVERIFY(m_window->documents()->importConfiguration(data("traefik.yaml")));
        settle();
        ProductGroup* group = m_window->controls()->products();
        QVERIFY(group->isVisible());
        QCOMPARE(group->field(Algorithm::Traefik, "average")->text(), QString("6"));
        QCOMPARE(group->field(Algorithm::Traefik, "period")->text(), QString("1m"));
        QLineEdit* burst = group->field(Algorithm::Traefik, "burst");
        QCOMPARE(burst->text(), QString("1"));
        bool noted = false;
        for (const QLabel* l : m_window->controls()->findChildren<QLabel*>())
            noted = noted || (l->isVisible() && l->text().startsWith("Traefik rateLimit decides with its own options"));
        QVERIFY(noted);

        burst->setText("3");
        emit burst->editingFinished();
        settle();
        QCOMPARE(productOptionText(Algorithm::Traefik, m_window->document()->scenario().config, "burst"),
                 std::optional<std::string>("3"));
        QCOMPARE(frame().trace->results.front().metrics.allowed, std::int64_t(3));

        const Scenario before = m_window->document()->scenario();
        burst->setText("-2");
        emit burst->editingFinished();
        QVERIFY(m_window->document()->scenario() == before);
        QVERIFY2(burst->toolTip().contains("burst"), qPrintable(burst->toolTip()));

        m_window->document()->undoStack()->undo();
        settle();
        QCOMPARE(burst->text(), QString("1"));
        QCOMPARE(frame().trace->results.front().metrics.allowed, std::int64_t(1));
    }

    void aFileThatIsNoConfigurationChangesNothing()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("notes.yaml");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("just: text\n");
        f.close();
        const Scenario before = m_window->document()->scenario();
        bool imported = true;
        const QString shown = messageShownBy([&] { imported = m_window->documents()->importConfiguration(path); });
        QVERIFY(!imported);
        QVERIFY2(shown.contains("no rate limit found"), qPrintable(shown));
        QVERIFY(m_window->document()->scenario() == before);
        QCOMPARE(m_window->document()->undoStack()->count(), 0);
    }
};

QTEST_MAIN(TestImportApp)
#include "tst_import_app.moc"
