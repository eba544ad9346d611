// The server and managed-service lessons as a student reads them: a preset's own traffic is not
// "sent by hand", a concurrency limiter's row lists its outcomes (not Denied 0 and Overshoot
// 0.00x), each of its measures has a lane and a named axis of its own, the legend gives each
// colour one meaning, a lesson about clients shows each client's share, and the managed
// services draw their mechanism (a block as a span, a quota as a counter on a calendar axis).
// Every expected figure is derived by hand from the preset's lesson or semantics.md in the
// comment above it.
#include "chart/chartstack.h"
#include "chart/rowchart.h"
#include "chart/summarytable.h"
#include "chart/timeaxis.h"
#include "model/scenariodocument.h"
#include "panels/controlpanel.h"
#include "preset_load.h"
#include "window_test.h"

#include <QHeaderView>
#include <QLocale>

using namespace ratelab;
using namespace ratelab::ui;

class TestLessonRows : public WindowTest {
    Q_OBJECT

    SummaryTable* table() const { return m_window->dashboard()->summary(); }

    // column finds the summary's column by its header, -1 when none has it.
    int column(const QString& header) const
    {
        for (int c = 0; c < table()->columnCount(); ++c)
            if (table()->horizontalHeaderItem(c)->text() == header)
                return c;
        return -1;
    }

    void openPreset(const QString& id)
    {
        QVERIFY(m_window->document()->openPreset(id).scenario.has_value());
        settle();
    }

private slots:
    void initTestCase()
    {
        useScratchSettings();
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); // "1,520", "Jan 20"
    }
    void init() { openWindow(Scenario{}); }
    void cleanup() { m_window.reset(); }

    void aPresetsOwnTrafficIsNotSentByHand()
    {
        // retry-storm-metastable: 1,500 requests 0.02 s apart and its spike, 150 more at 10 s,
        // given in the preset ("added"): part of the lesson, not a click.
        const Scenario s = preset("retry-storm-metastable");
        const QString described = Dashboard::describe(s);
        QVERIFY2(described.endsWith("1,500 requests 0.02 s apart, 150 more at 10 s"), qPrintable(described));
        openPreset("retry-storm-metastable");
        QVERIFY2(!m_window->dashboard()->titleText().contains("by hand"), qPrintable(m_window->dashboard()->titleText()));
        // Five sent by hand at 20 s are the only ones called so.
        m_window->controls()->addRequests(20 * kNanosPerSecond, 5);
        settle();
        QVERIFY2(m_window->dashboard()->titleText().endsWith("150 more at 10 s, 5 sent by hand"),
                 qPrintable(m_window->dashboard()->titleText()));
    }

    void aConcurrencyRowListsItsOutcomes()
    {
        openPreset("retry-storm-metastable");
        // Rows of concurrency limiters alone: no rate limiter denies, delays or keeps a window.
        for (const char* header : {"Denied", "Delayed", "Max in a window", "Overshoot", "Memory/key"})
            QVERIFY2(column(header) >= 0 && table()->isColumnHidden(column(header)), qPrintable(header));
        // fixed:limit=10 (tst_presets_server, from the lesson): every one of the 1,500 normal
        // requests is served in time, and 20 of the spike by 10.4 s: 1,520; the spike's excess is
        // rejected at 10, 10.1, 10.2 and 10.3 s: 145 + 140 + 135 + 130 = 550; none served late.
        const int inTime = column("In time"), rejected = column("Rejected");
        QVERIFY(inTime >= 0 && !table()->isColumnHidden(inTime));
        QVERIFY(rejected >= 0 && !table()->isColumnHidden(rejected));
        QCOMPARE(table()->item(1, inTime)->text(), QString("1,520"));
        QCOMPARE(table()->item(1, rejected)->text(), QString("550"));
        // The row none has no limiter to reject with: 0 there.
        QCOMPARE(table()->item(0, rejected)->text(), QString("0"));
        // Shown beside the attempts, before the p99: each outcome reads next to what it splits.
        const QHeaderView* header = table()->horizontalHeader();
        QVERIFY(header->visualIndex(inTime) > header->visualIndex(column("Attempts")));
        QVERIFY(header->visualIndex(rejected) < header->visualIndex(column("p99 to success")));
    }

    void aRateLimiterKeepsItsColumns()
    {
        // One fixed window and no server: its own columns, and no server's.
        Scenario s;
        s.algorithms = {Algorithm::FixedWindow};
        m_window->openScenario(s);
        settle();
        QVERIFY(!table()->isColumnHidden(column("Denied")));
        QVERIFY(!table()->isColumnHidden(column("Overshoot")));
        QVERIFY(table()->isColumnHidden(column("In time")));
        // Nothing waits in a fixed window: no entry for a mark the picture cannot have.
        QCOMPARE(m_window->dashboard()->legendTexts(), (QStringList{"admitted", "denied"}));
        // token-vs-leaky's queue holds bursts of 4 every 2 s (a bucket of 5 draining 1 a second):
        // the second burst's requests wait, and the legend names them.
        openPreset("token-vs-leaky");
        QCOMPARE(m_window->dashboard()->legendTexts(), (QStringList{"admitted", "admitted after a delay", "denied"}));
    }

    // A row's caption names the hollow marks of retries only where there are some: a throttled
    // client's 20 calls all pass at once (client-throttle-under-limit), tight-retry-loop's 20
    // make 220 attempts.
    void retriesAreNamedWhereTheyAre()
    {
        openPreset("client-throttle-under-limit");
        QCOMPARE(charts()->row(0)->legendText(), QString("20 attempts for 20 requests (1.0x)"));
        openPreset("tight-retry-loop");
        QCOMPARE(charts()->row(0)->legendText(), QString("220 attempts for 20 requests (11.0x) · hollow: a retry"));
    }

    void markColouredByNodeAreNamedSo()
    {
        // two-servers-local (the cluster deck's preset) colours each mark by the node that decided
        // it: the legend's shapes keep the verdict, and the colour is said to be the node's, so
        // no green "admitted" or red "denied" stands beside marks in node colours.
        openPreset("two-servers-local");
        QCOMPARE(m_window->dashboard()->legendTexts(), (QStringList{"admitted", "denied", "colour: the node (each row's key)"}));
        // A deck's question veils the marks, all grey: no colour to name until the reveal, and
        // whether anything waited is hidden too.
        m_window->dashboard()->stage()->setVeiled(true);
        QCOMPARE(m_window->dashboard()->legendTexts(), (QStringList{"admitted", "admitted after a delay", "denied"}));
        m_window->dashboard()->stage()->setVeiled(false);
        QCOMPARE(m_window->dashboard()->legendTexts().size(), 3);
    }

    void eachClientsShareIsCounted()
    {
        // noisy-tenant-apf's lesson: client 0 sends 100 a second and clients 1 to 4 10 each for
        // 5 s (500, then 50 each); with the server alone the quiet ones get 11, 11, 11 and 10 of
        // their 50 in time, under APF all 50 each.
        openPreset("noisy-tenant-apf");
        const int by = column("In time by client");
        QVERIFY(by >= 0 && !table()->isColumnHidden(by));
        const QStringList alone = table()->item(0, by)->text().split(" · ");
        QCOMPARE(alone.size(), 5);
        QVERIFY2(alone[0].endsWith("/500"), qPrintable(alone[0]));
        QCOMPARE(alone.mid(1), (QStringList{"11/50", "11/50", "11/50", "10/50"}));
        const QStringList apf = table()->item(1, by)->text().split(" · ");
        QCOMPARE(apf.mid(1), (QStringList{"50/50", "50/50", "50/50", "50/50"}));
        // The same shares on the picture, where presentation mode (no table) shows them: beside
        // the goodput they make up.
        for (int r : {0, 1}) {
            const QString goodput = charts()->row(r)->serverLanes().at(2).name;
            QVERIFY2(goodput.startsWith("goodput"), qPrintable(goodput));
            QVERIFY2(goodput.endsWith("in time by client: " + table()->item(r, by)->text()), qPrintable(goodput));
        }
        // One client: no shares to compare.
        openPreset("retry-storm-metastable");
        QVERIFY(!charts()->row(0)->serverLanes().at(2).name.contains("by client"));
    }

    void eachMeasureHasALaneAndOneLegend()
    {
        openPreset("retry-storm-metastable");
        // The row none retries (4,809 attempts for 1,650 requests): four lanes, top to bottom,
        // each of its own unit, none overlapping the next, all inside the plot.
        const std::vector<RowChart::ServerLane> lanes = charts()->row(0)->serverLanes();
        QCOMPARE(lanes.size(), std::size_t(4));
        QCOMPARE(lanes[0].name, QString("in the server (requests)"));
        QCOMPARE(lanes[1].unit, QString(" s"));
        QVERIFY(lanes[1].name.startsWith("latency"));
        QCOMPARE(lanes[2].unit, QString("/s"));
        QVERIFY(lanes[2].name.startsWith("goodput"));
        QVERIFY(lanes[3].name.startsWith("attempts"));
        for (std::size_t k = 0; k + 1 < lanes.size(); ++k)
            QVERIFY(lanes[k].rect.bottom() < lanes[k + 1].rect.top());
        // fixed:limit=10 holds at most 10 in the server: its lane's axis reaches 10 (and a round
        // step above: 10 * 1.05 rounds up to 12).
        QCOMPARE(charts()->row(1)->serverLanes().front().top, 12.0);
        // The legend names the server's outcomes: green is "in time" and nothing else.
        QCOMPARE(m_window->dashboard()->legendTexts(), (QStringList{"in time", "late", "timed out", "refused", "rejected"}));
    }

    void aBlockIsASpan()
    {
        // cloudflare-long-block: the 6th request at 0.5 s takes the count above 5, and the rule
        // blocks for mitigation_timeout 600 s: [0.5 s, 600.5 s). Each request from 10 s to 600 s
        // is refused until then (retry_after to 600.5 s), inside the same block.
        openPreset("cloudflare-long-block");
        const RowChart* cloudflare = rowOf(Algorithm::CloudflareRate);
        QVERIFY(cloudflare);
        QCOMPARE(cloudflare->blockSpans(), (std::vector<std::pair<Nanos, Nanos>>{{kNanosPerSecond / 2, 600 * kNanosPerSecond + kNanosPerSecond / 2}}));
        QCOMPARE(cloudflare->blockCaption(), QString("blocked 0.5 s to 600.5 s"));
        QVERIFY(!cloudflare->blockCaptionBox().isEmpty());
        QVERIFY(!cloudflare->crossesLevel(cloudflare->blockCaptionBox()));
        // The fixed window blocks nothing: it refuses only the 6th.
        QVERIFY(rowOf(Algorithm::FixedWindow)->blockSpans().empty());
    }

    void aQuotaIsACounterOnACalendar()
    {
        // api-gateway-monthly-quota: one request every 1,728 s from 0 (1970-01-01, where the
        // quota's months count from); the 1000th, at 999 * 1,728 = 1,726,272 s (January 20th),
        // uses the quota up; on February 1st, 31 days = 2,678,400 s, it starts again from 0.
        openPreset("api-gateway-monthly-quota");
        const RowChart* gateway = rowOf(Algorithm::AwsApiGateway);
        QVERIFY(gateway);
        QCOMPARE(gateway->quotaLimit(), std::optional<std::int64_t>(1000));
        double most = 0, reachedAt = -1, resetAt = -1;
        for (const QPointF& q : gateway->levelPoints()) {
            if (q.y() > most)
                most = q.y(), reachedAt = q.x();
            if (most == 1000 && q.y() == 0 && resetAt < 0)
                resetAt = q.x();
        }
        QCOMPARE(most, 1000.0);
        QVERIFY2(reachedAt > 19 * 86400 && reachedAt <= 1726272, qPrintable(QString::number(reachedAt))); // on Jan 20
        QCOMPARE(resetAt, 2678400.0);
        QCOMPARE(dateText(1726272), QString("Jan 20"));
        // The time axis reads in dates, at midnights: from January 1st.
        const QStringList labels = charts()->axis()->labels();
        QVERIFY(labels.size() >= 3);
        QCOMPARE(labels.front(), QString("Jan 1"));
        for (const QString& label : labels)
            QVERIFY2(!label.endsWith(" s"), qPrintable(label));
    }
};

QTEST_MAIN(TestLessonRows)
#include "tst_lesson_rows.moc"
