// Tests of two gates: cockatiel's BulkheadPolicy ("bulkhead", server/bulkhead.h) and
// Stripe's fleet-usage load shedder ("stripe", server/stripe_shedder.h), each on a table derived
// by hand from its rule, and their options' refusals. The bulkhead against cockatiel itself is
// tst_peer_bulkhead (peer_bulkhead).
#include "spec_helpers.h"
#include "arithmetic/decimal.h"
#include "server/bulkhead.h"
#include "server/stripe_shedder.h"

#include <QTest>

#include <random>

using namespace ratelab;

namespace {

using V = Gate::Verdict;

struct Step {
    char what;           // 'o' offer, 'r' release (served), 'd' release (dropped)
    std::int64_t id;     // the attempt
    std::int64_t client; // offers only
    V verdict;           // offers: the verdict expected
    std::vector<std::int64_t> dispatched; // releases: the queued ids it lets through
    std::int64_t inflight, queued;        // after the step
};

void play(Gate& g, const std::vector<Step>& steps)
{
    Nanos t = 0;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const Step& s = steps[i];
        t += 1'000'000;
        g.advance(t);
        const QByteArray where = "step " + QByteArray::number(qint64(i));
        if (s.what == 'o') {
            QVERIFY2(g.offer(t, s.id, s.client) == s.verdict, where.constData());
        } else {
            std::vector<std::int64_t> out;
            g.release(t, s.id, s.what == 'd', out);
            QVERIFY2(out == s.dispatched, where.constData());
        }
        QVERIFY2(g.inflight() == s.inflight, where + ": inflight " + QByteArray::number(qint64(g.inflight())));
        QVERIFY2(g.queued() == s.queued, where + ": queued " + QByteArray::number(qint64(g.queued())));
    }
}

// refusal returns makeGate's InputError for spec, or "" when it makes the gate.
std::string refusal(const char* spec)
{
    try {
        makeGate(spec, 1);
    } catch (const InputError& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestBulkheadShedder : public QObject {
    Q_OBJECT
private slots:
    void bulkheadTable()
    {
        // max_parallel 2, max_queue 1 (BulkheadPolicy.js 54-70): run while active < 2, else queue
        // while queue.length < 1, else reject; a settled call (served or failed: the finally)
        // frees its slot and the head of the queue takes it (dequeue, 72-85).
        const auto g = makeGate("bulkhead:max_parallel=2,max_queue=1", 1);
        QCOMPARE(g->limit(), 2);
        play(*g, {
                     {'o', 0, 0, V::Admit, {}, 1, 0},  // active 0 < 2
                     {'o', 1, 0, V::Admit, {}, 2, 0},  // active 1 < 2
                     {'o', 2, 0, V::Queue, {}, 2, 1},  // active 2, queue 0 < 1
                     {'o', 3, 0, V::Reject, {}, 2, 1}, // queue 1, full: BulkheadRejectedError
                     {'r', 0, 0, V::Admit, {2}, 2, 0}, // 0 done: 2 runs in its slot
                     {'o', 4, 0, V::Queue, {}, 2, 1},  // slots full again, the queue has room
                     {'d', 1, 0, V::Admit, {4}, 2, 0}, // 1 failed (dropped): its slot goes to 4 too
                     {'r', 2, 0, V::Admit, {}, 1, 0},  // nothing queued: the slot stays free
                     {'o', 5, 0, V::Admit, {}, 2, 0},
                     {'o', 6, 0, V::Queue, {}, 2, 1},
                     {'o', 7, 0, V::Reject, {}, 2, 1},
                     {'r', 4, 0, V::Admit, {6}, 2, 0},
                     {'r', 5, 0, V::Admit, {}, 1, 0},
                     {'r', 6, 0, V::Admit, {}, 0, 0},
             });
        // max_queue's default is cockatiel's, 0 (Policy.js 145, bulkhead(limit, queue = 0)).
        const auto h = makeGate("bulkhead:max_parallel=1", 1);
        play(*h, {{'o', 0, 0, V::Admit, {}, 1, 0}, {'o', 1, 0, V::Reject, {}, 1, 0}, {'r', 0, 0, V::Admit, {}, 0, 0},
                  {'o', 2, 0, V::Admit, {}, 1, 0}});
    }

    // A queued call whose signal is aborted (its client gave up, Gate::cancel) keeps its place
    // in the queue and is skipped when dequeue reaches it (BulkheadPolicy.js 64-67, 78-81).
    // cockatiel 4.0.0 itself, on a faked clock, does the same: A (20 ms) at 0, B queued at 1 and
    // aborted at 16, C at 17 is rejected (BulkheadRejectedError), A's end at 20 rejects B with
    // TaskCancelledError and leaves the slot free, D at 20 starts at once.
    void bulkheadAbortedCallKeepsItsPlace()
    {
        Bulkhead b(1, 1);
        std::vector<std::int64_t> out;
        QCOMPARE(b.offer(0, 0, 0), V::Admit);
        QCOMPARE(b.offer(1'000'000, 1, 0), V::Queue);
        QVERIFY(b.cancel(16'000'000, 1));
        QVERIFY(!b.cancel(16'000'000, 1)); // aborted already
        QVERIFY(!b.cancel(16'000'000, 0)); // running, not queued
        QCOMPARE(b.queued(), 1);           // queue.length still counts it
        QCOMPARE(b.offer(17'000'000, 2, 0), V::Reject);
        b.release(20'000'000, 0, false, out);
        QVERIFY(out.empty()); // B is shifted out unrun
        QCOMPARE(b.inflight(), 0);
        QCOMPARE(b.queued(), 0);
        QCOMPARE(b.offer(20'000'000, 3, 0), V::Admit);

        // Two aborted calls ahead of a live one: dequeue skips both, the live one runs.
        Bulkhead c(1, 3);
        QCOMPARE(c.offer(0, 10, 0), V::Admit);
        for (const std::int64_t id : {11, 12, 13})
            QCOMPARE(c.offer(0, id, 0), V::Queue);
        QVERIFY(c.cancel(1, 12));
        QVERIFY(c.cancel(1, 11));
        QVERIFY(!c.cancel(1, 99)); // never offered
        out.clear();
        c.release(2, 10, false, out);
        QCOMPARE(out, (std::vector<std::int64_t>{13}));
        QCOMPARE(c.inflight(), 1);
        QCOMPARE(c.queued(), 0);
    }

    void stripeTable()
    {
        // capacity 10, reserved 0.2: A = floor(0.8 * 10) = 8 non-critical in flight. critical=1:
        // client 0 is critical, client 1 is not.
        const auto g = makeGate("stripe:capacity=10,critical=1", 1);
        QCOMPARE(g->limit(), 8);
        std::vector<Step> steps;
        for (std::int64_t i = 0; i < 8; ++i) // non-critical usage 0..7 < 8: admitted
            steps.push_back({'o', i, 1, V::Admit, {}, i + 1, 0});
        steps.push_back({'o', 8, 1, V::Reject, {}, 8, 0}); // usage 8: over the allocation, a 503
        for (std::int64_t i = 9; i < 12; ++i)               // critical: never shed, past C too
            steps.push_back({'o', i, 0, V::Admit, {}, i, 0});
        steps.push_back({'o', 12, 1, V::Reject, {}, 11, 0}); // non-critical usage still 8
        steps.push_back({'r', 9, 0, V::Admit, {}, 10, 0});   // a critical one done: still 8
        steps.push_back({'o', 13, 1, V::Reject, {}, 10, 0});
        steps.push_back({'d', 3, 1, V::Admit, {}, 9, 0});   // a non-critical one dropped: 7
        steps.push_back({'o', 14, 1, V::Admit, {}, 10, 0}); // 7 < 8
        steps.push_back({'o', 15, 2, V::Reject, {}, 10, 0}); // client 2, non-critical: 8
        play(*g, steps);

        // usage=fleet, capacity 5: A = floor(0.8 * 5) = 4 counted over every attempt in flight.
        const auto f = makeGate("stripe:capacity=5,critical=1,usage=fleet", 1);
        QCOMPARE(f->limit(), 4);
        play(*f, {
                     {'o', 0, 0, V::Admit, {}, 1, 0},
                     {'o', 1, 0, V::Admit, {}, 2, 0},
                     {'o', 2, 0, V::Admit, {}, 3, 0},
                     {'o', 3, 1, V::Admit, {}, 4, 0},  // usage 3 < 4
                     {'o', 4, 1, V::Reject, {}, 4, 0}, // usage 4
                     {'o', 5, 0, V::Admit, {}, 5, 0},  // critical
                     {'r', 0, 0, V::Admit, {}, 4, 0},
                     {'o', 6, 1, V::Reject, {}, 4, 0}, // usage 4, critical ones count
                     {'r', 1, 0, V::Admit, {}, 3, 0},
                     {'o', 7, 1, V::Admit, {}, 4, 0}, // usage 3 < 4
             });
    }

    void stripeExactFractions()
    {
        // A = floor((1 - R) * C) from the decimal R; the double products would miss the first:
        // (1 - 0.07) * 100 = 92.99999999999999 in doubles, 93 exactly.
        struct Case {
            const char* spec;
            std::int64_t allocation;
        };
        for (const Case& c : {Case{"stripe:capacity=100,reserved=0.07,critical=0", 93},
                              Case{"stripe:capacity=7,critical=0", 5},               // 5.6
                              Case{"stripe:capacity=10,reserved=0.3,critical=0", 7}, // 7 exactly
                              Case{"stripe:capacity=3,reserved=0.1,critical=0", 2},  // 2.7
                              Case{"stripe:capacity=1,reserved=0,critical=0", 1},
                              Case{"stripe:capacity=5,reserved=1,critical=0", 0}})
            QVERIFY2(makeGate(c.spec, 1)->limit() == c.allocation, c.spec);

        // N = ceil(S * K): 0.3 * 10 is 3 exactly (3.0000000000000004 in doubles, whose ceiling
        // is 4); 0.25 * 10 = 2.5 -> 3; 0.2 * 4 = 0.8 -> 1; 0 -> none.
        struct Share {
            const char* spec;
            std::int64_t critical; // clients 0 to critical - 1
        };
        for (const Share& s : {Share{"stripe:capacity=10,critical_share=0.3,clients=10", 3},
                               Share{"stripe:capacity=10,critical_share=0.25,clients=10", 3},
                               Share{"stripe:capacity=10,critical_share=0.2,clients=4", 1},
                               Share{"stripe:capacity=10,critical_share=0,clients=4", 0}}) {
            auto g = makeGate(s.spec, 1);
            auto* shedder = dynamic_cast<StripeShedder*>(g.get());
            QVERIFY(shedder);
            for (std::int64_t c = 0; c < 12; ++c)
                QVERIFY2(shedder->critical(c) == (c < s.critical), s.spec);
        }
    }

    void invariants()
    {
        // Random offers and releases (served or dropped): the bulkhead never runs more than
        // max_parallel nor holds more than max_queue, never leaves a slot idle while a call waits,
        // and lets calls through in the order they queued; the shedder never lets non-critical
        // usage past A and never rejects a critical attempt.
        std::mt19937_64 random(7);
        for (int round = 0; round < 200; ++round) {
            const std::int64_t parallel = 1 + std::int64_t(random() % 5), queue = std::int64_t(random() % 4);
            Bulkhead b(parallel, queue);
            const std::int64_t capacity = 1 + std::int64_t(random() % 12);
            const bool fleet = random() % 2;
            auto shed = makeGate("stripe:capacity=" + std::to_string(capacity) + ",critical=2" + (fleet ? ",usage=fleet" : ""), 1);
            auto* s = dynamic_cast<StripeShedder*>(shed.get());
            std::vector<std::int64_t> running, waiting, admitted;
            for (std::int64_t id = 0, t = 0; id < 300; ++t) {
                if (random() % 2 && !running.empty()) {
                    const std::size_t k = random() % running.size();
                    std::vector<std::int64_t> out;
                    b.release(t, running[k], random() % 2, out);
                    running.erase(running.begin() + std::ptrdiff_t(k));
                    QVERIFY(out.size() <= 1);
                    if (!waiting.empty()) {
                        QCOMPARE(out.size(), std::size_t(1));
                        QCOMPARE(out[0], waiting.front());
                        waiting.erase(waiting.begin());
                        running.push_back(out[0]);
                    }
                } else {
                    const V v = b.offer(t, id, 0);
                    if (v == V::Admit)
                        running.push_back(id);
                    else if (v == V::Queue)
                        waiting.push_back(id);
                    QCOMPARE(v == V::Admit, std::int64_t(running.size()) <= parallel && (running.empty() || running.back() == id));
                    ++id;
                }
                QVERIFY(b.inflight() == std::int64_t(running.size()) && b.inflight() <= parallel);
                QVERIFY(b.queued() == std::int64_t(waiting.size()) && b.queued() <= queue);
                QVERIFY(waiting.empty() || b.inflight() == parallel);

                if (random() % 2 && !admitted.empty()) {
                    const std::size_t k = random() % admitted.size();
                    std::vector<std::int64_t> out;
                    s->release(t, admitted[k], random() % 2, out);
                    QVERIFY(out.empty());
                    admitted.erase(admitted.begin() + std::ptrdiff_t(k));
                } else {
                    const std::int64_t client = std::int64_t(random() % 5); // 0 and 1 critical
                    const std::int64_t usage = fleet ? s->inflight() : s->nonCritical();
                    const V v = s->offer(t, 1000 + id, client);
                    QCOMPARE(v == V::Reject, client >= 2 && usage >= s->limit());
                    if (v == V::Admit)
                        admitted.push_back(1000 + id);
                }
                QCOMPARE(s->inflight(), std::int64_t(admitted.size()));
                QVERIFY(s->nonCritical() <= s->limit());
            }
        }
    }

    void refusals()
    {
        struct Case {
            const char* spec;
            const char* message; // a part of it: the key and why
        };
        for (const Case& c : {
                 Case{"bulkhead", "max_parallel: required"},
                 Case{"bulkhead:max_parallel=0", "max_parallel"},
                 Case{"bulkhead:max_parallel=2,max_queue=-1", "max_queue"},
                 Case{"bulkhead:max_parallel=x", "max_parallel"},
                 Case{"bulkhead:max_parallel=2,maxQueue=3", "unknown key 'maxQueue' for bulkhead (known: max_parallel, max_queue)"},
                 Case{"stripe:critical=1", "capacity: required"},
                 Case{"stripe:capacity=0,critical=1", "capacity"},
                 Case{"stripe:capacity=10", "critical: required"},
                 Case{"stripe:capacity=10,critical=1,critical_share=0.2,clients=5", "not both"},
                 Case{"stripe:capacity=10,critical=1,clients=5", "not both"},
                 Case{"stripe:capacity=10,critical_share=0.2", "clients: required"},
                 Case{"stripe:capacity=10,critical_share=1.5,clients=4", "critical_share: must be from 0 to 1"},
                 Case{"stripe:capacity=10,critical=1,reserved=1.5", "reserved: must be from 0 to 1"},
                 Case{"stripe:capacity=10,critical=1,reserved=0.1234567891", "reserved: at most 9 decimal places"},
                 Case{"stripe:capacity=10,critical=-1", "critical"},
                 Case{"stripe:capacity=10,critical=1,usage=total", "usage: unknown value 'total'"},
                 Case{"stripe:capacity=10,critical=1,reserve=0.2", "unknown key 'reserve' for stripe"},
             }) {
            const std::string why = refusal(c.spec);
            QVERIFY2(why.find(c.message) != std::string::npos, qPrintable(QString("%1: got '%2'").arg(c.spec, why.c_str())));
        }
        QVERIFY(refusal("bulkhead:max_parallel=3,max_queue=0").empty());
        QVERIFY(refusal("stripe:capacity=10,critical=0,reserved=0.123456789").empty());
        const auto kinds = gateKinds();
        QVERIFY(std::find(kinds.begin(), kinds.end(), "bulkhead") != kinds.end());
        QVERIFY(std::find(kinds.begin(), kinds.end(), "stripe") != kinds.end());
    }
};

QTEST_GUILESS_MAIN(TestBulkheadShedder)
#include "tst_bulkhead_shedder.moc"
