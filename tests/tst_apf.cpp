// ApfGate and its Dealer against Kubernetes API Priority and Fairness (kubernetes/apiserver at
// 24a394e516bfda066d7e2221d7d92c052de27c54; core/server/apf.h cites the lines).
//
// Every expected value is derived by hand below from APF's rules:
//  - Deal: remainders r_i = digits of the hash in radix deck, deck-1, ...; card i is r_i
//    stepped up once for each j = i..1 with (current card) >= r_{j-1}.
//  - a flow's hash is the first 8 bytes, little-endian, of sha256(fsName 0x00 distinguisher);
//    the values are Python's hashlib (`hashlib.sha256(b"global-default\0" + b"1")`), not ours.
//  - a request is 1 seat for G = 3 ms: work = 1 * 3e6 ns / 10 = 300000 (units of 1e-8 seat-s).
//  - at each call R += round(min(seats requested, limit) / active queues * elapsed ns / 10).
//  - an idle queue that gets a request starts at R; dispatch takes the head of the queue with
//    the least next-dispatch R + 300000, visiting from the one after the last dispatched; a
//    dispatch adds 300000 to its queue; a completion after S ns subtracts round((3e6 - S) / 10).
#include "spec_helpers.h"
#include "error_of.h"
#include "server/apf.h"
#include "server/gate.h"

#include <QTest>

#include <algorithm>
#include <map>

using namespace ratelab;
using V = Gate::Verdict;

namespace {

constexpr Nanos ms(std::int64_t n) { return n * 1'000'000; }

std::vector<std::int64_t> release(Gate& g, Nanos t, std::int64_t id)
{
    std::vector<std::int64_t> out;
    g.release(t, id, false, out);
    return out;
}

// Flows under fsName "global-default" (Python's hashlib):
//   client 1: 17498040090556857648 (even; mod 4 = 48 mod 4 = 0; (v / 4) = 4374510022639214412,
//             digit sum 60, so mod 3 = 0)
//   client 7: 1471488934490245823 (odd)
constexpr std::uint64_t kHash1 = 17498040090556857648ull;
constexpr std::uint64_t kHash7 = 1471488934490245823ull;

} // namespace

class TestApf : public QObject {
    Q_OBJECT
private slots:
    void deals_data()
    {
        QTest::addColumn<int>("deck");
        QTest::addColumn<int>("hand");
        QTest::addColumn<quint64>("hash");
        QTest::addColumn<std::vector<int>>("cards");
        // 1000 = 0 + 8 * 125; 125 = 6 + 7 * 17; 17 = 5 + 6 * 2: r = 0, 6, 5.
        // card 0 = 0; card 1 = 6, 6 >= r0 = 0 -> 7; card 2 = 5, 5 >= r1 = 6 no, 5 >= r0 -> 6.
        QTest::newRow("8 of 3, 1000") << 8 << 3 << quint64(1000) << std::vector<int>{0, 7, 6};
        // 12345 = 5 + 10 * 1234; 1234 = 1 + 9 * 137; 137 = 1 + 8 * 17: r = 5, 1, 1.
        // card 1 = 1 (1 < 5); card 2 = 1, 1 >= r1 = 1 -> 2, 2 < r0 = 5 -> 2.
        QTest::newRow("10 of 3, 12345") << 10 << 3 << quint64(12345) << std::vector<int>{5, 1, 2};
        // 23 = 3 + 4 * 5; 5 = 2 + 3 * 1; 1 = 1 + 2 * 0; 0: r = 3, 2, 1, 0, each below the ones
        // before it: no card steps up.
        QTest::newRow("4 of 4, 23") << 4 << 4 << quint64(23) << std::vector<int>{3, 2, 1, 0};
        // All remainders 0: card i steps up once for each of the i before it.
        QTest::newRow("5 of 5, 0") << 5 << 5 << quint64(0) << std::vector<int>{0, 1, 2, 3, 4};
        // Client 1's flow in 4 queues, hand 2: r0 = v mod 4 = 0, r1 = (v / 4) mod 3 = 0;
        // card 1 = 0 >= r0 -> 1.
        QTest::newRow("client 1, 4 of 2") << 4 << 2 << quint64(kHash1) << std::vector<int>{0, 1};
        // Client 1 in 2 queues, hand 1: v even -> queue 0; client 7: odd -> queue 1.
        QTest::newRow("client 1, 2 of 1") << 2 << 1 << quint64(kHash1) << std::vector<int>{0};
        QTest::newRow("client 7, 2 of 1") << 2 << 1 << quint64(kHash7) << std::vector<int>{1};
    }
    void deals()
    {
        QFETCH(int, deck);
        QFETCH(int, hand);
        QFETCH(quint64, hash);
        QFETCH(std::vector<int>, cards);
        QCOMPARE(Dealer(deck, hand).deal(hash), cards);
    }

    void flowHash()
    {
        // sha256 of the one byte 0x00 is 6e340b9c ffb37a98 ...: LE of the first 8 bytes.
        QCOMPARE(hashFlowId("", ""), 0x987ab3ff9c0b346eull);
        QCOMPARE(hashFlowId("global-default", "1"), kHash1);
        QCOMPARE(hashFlowId("global-default", "7"), kHash7);
    }

    void dealerRefusals()
    {
        QCOMPARE(errorOf([] { Dealer(0, 1); }), std::string("deckSize 0 or handSize 1 is not positive"));
        QCOMPARE(errorOf([] { Dealer(4, 5); }), std::string("handSize 5 is greater than deckSize 4"));
        QCOMPARE(errorOf([] { Dealer((1 << 26) + 1, 1); }), std::string("deckSize 67108865 is impractically large"));
        // ceil(log2(1024) * 7) = 70 > 60; ceil(10 * 6) = 60 is allowed.
        QCOMPARE(errorOf([] { Dealer(1024, 7); }),
                 std::string("required entropy bits of deckSize 1024 and handSize 7 is greater than 60"));
        QCOMPARE(errorOf([] { Dealer(1024, 6); }), std::string("(no error)"));
    }

    // The shortest queue of the hand, visited from an offset that turns with every enqueue.
    // 4 queues, hand 2, 1 seat: client 1's hand is queues {0, 1}. Request k (k = 0, 1, ...) visits
    // the hand from offset k mod 2 and takes the first queue with strictly less waiting work.
    void shortestOfHand()
    {
        ApfGate g(ApfConfig{1, 4, 2, 50});
        // k = 0: q0 (0 waiting), q1 (0, not less): q0; the free seat takes it at once.
        QCOMPARE(g.offer(0, 1, 1), V::Admit);
        QCOMPARE(g.lastQueue(), 0);
        // k = 1: offset 1: q1 (0), q0 (0): q1, queued behind the taken seat.
        QCOMPARE(g.offer(0, 2, 1), V::Queue);
        QCOMPARE(g.lastQueue(), 1);
        // k = 2: offset 0: q0 (0 waiting, its request executes), q1 (1 waiting): q0.
        QCOMPARE(g.offer(0, 3, 1), V::Queue);
        QCOMPARE(g.lastQueue(), 0);
        // k = 3: offset 1: q1 (300000), q0 (300000, not less): q1.
        QCOMPARE(g.offer(0, 4, 1), V::Queue);
        QCOMPARE(g.lastQueue(), 1);
        QCOMPARE(g.queued(), 3);
        QCOMPARE(g.inflight(), 1);
    }

    // Two flows, one noisy: 1 seat, 2 queues, hand 1; client 1 (noisy) -> queue 0, client 7
    // (quiet) -> queue 1. Times in ms, R and starts in 1e-8 seat-seconds.
    void quietFlowServedBeforeNoisyBacklog()
    {
        ApfGate g(ApfConfig{1, 2, 1, 50});
        // t 0, id 1: no queue active, R = 0; q0 idle -> start 0; dispatched at once: q0 = 300000.
        QCOMPARE(g.offer(0, 1, 1), V::Admit);
        QCOMPARE(g.nextDispatchR(0), 300000u);
        // t 0, ids 2-4: the seat is taken; q0 waits 2, 3, 4 (arrival R 0).
        QCOMPARE(g.offer(0, 2, 1), V::Queue);
        QCOMPARE(g.offer(0, 3, 1), V::Queue);
        QCOMPARE(g.offer(0, 4, 1), V::Queue);
        // t 1, id 5 (quiet): ratio min(1 + 3, 1) / 1 = 1: R = 1e6 / 10 = 100000; q1 idle -> start
        // 100000.
        QCOMPARE(g.offer(ms(1), 5, 7), V::Queue);
        QCOMPARE(g.currentR(), 100000u);
        QCOMPARE(g.nextDispatchR(1), 100000u);
        // t 2, id 1 done after 2 ms: ratio min(4 + 1, 1) / 2 = 0.5: R += 50000 = 150000.
        // q0 = 300000 - (3 - 2 ms) 100000 = 200000. Visit from robin 0 + 1: q1 finishes at
        // 100000 + 300000 = 400000, q0 at 500000: the quiet request goes first.
        QCOMPARE(release(g, ms(2), 1), (std::vector<std::int64_t>{5}));
        QCOMPARE(g.currentR(), 150000u);
        QCOMPARE(g.nextDispatchR(0), 200000u);
        QCOMPARE(g.nextDispatchR(1), 400000u);
        // t 4, id 5 done after 2 ms: ratio min(3 + 1, 1) / 2: R += 100000 = 250000; q1 = 400000 -
        // 100000 = 300000, now empty. q0 (500000) alone: id 2; q0 = 500000.
        QCOMPARE(release(g, ms(4), 5), (std::vector<std::int64_t>{2}));
        QCOMPARE(g.currentR(), 250000u);
        QCOMPARE(g.nextDispatchR(0), 500000u);
        // t 5, id 6 (quiet): only q0 active, ratio min(1 + 2, 1) / 1: R += 100000 = 350000; q1 idle
        // -> start 350000.
        QCOMPARE(g.offer(ms(5), 6, 7), V::Queue);
        QCOMPARE(g.currentR(), 350000u);
        // t 6, id 2 done after 2 ms: ratio 0.5: R = 400000; q0 = 500000 - 100000 = 400000.
        // Visit from robin 0 + 1: q1 finishes at 650000, q0 at 700000: the quiet one again.
        QCOMPARE(release(g, ms(6), 2), (std::vector<std::int64_t>{6}));
        QCOMPARE(g.currentR(), 400000u);
        // t 7, id 6 done after 1 ms: R += 50000 = 450000; q1 = 650000 - 200000 = 450000, empty.
        // q0 (700000) alone: id 3, then (t 8, 9) id 4.
        QCOMPARE(release(g, ms(7), 6), (std::vector<std::int64_t>{3}));
        QCOMPARE(g.nextDispatchR(1), 450000u);
        QCOMPARE(release(g, ms(8), 3), (std::vector<std::int64_t>{4}));
        QCOMPARE(release(g, ms(9), 4), (std::vector<std::int64_t>{}));
        QCOMPARE(g.inflight(), 0);
        QCOMPARE(g.queued(), 0);
    }

    // Ties go round robin (qs.go:785-803, 837): 2 seats, 2 queues, hand 1; client 7 -> q1,
    // client 1 -> q0. The visit starts after the queue last dispatched from; a later queue with
    // the same virtual finish does not win.
    void tieGoesRoundRobin()
    {
        ApfGate g(ApfConfig{2, 2, 1, 50});
        // t 0, id 1 (q1): visit q1 (robin 0 + 1): dispatched, robin 1, q1 = 0 + 300000.
        QCOMPARE(g.offer(0, 1, 7), V::Admit);
        // id 2 (q0): q0 idle -> start 0; visit q0 (robin 1 + 1 mod 2), then q1 (empty): robin 0,
        // q0 = 300000.
        QCOMPARE(g.offer(0, 2, 1), V::Admit);
        // ids 3 (q1) and 4 (q0): both seats taken, queued at R 0.
        QCOMPARE(g.offer(0, 3, 7), V::Queue);
        QCOMPARE(g.offer(0, 4, 1), V::Queue);
        // t 3 ms, id 1 done in exactly its estimate: ratio min(2 + 2, 2) / 2 = 1, R = 300000;
        // q1 = 300000 - 0. Visit from robin 0 + 1: q1 finishes at 600000, then q0 at 600000,
        // not less: q1's head, id 3.
        QCOMPARE(release(g, ms(3), 1), (std::vector<std::int64_t>{3}));
        QCOMPARE(g.currentR(), 300000u);
        QCOMPARE(g.nextDispatchR(0), 300000u);
        QCOMPARE(g.nextDispatchR(1), 600000u);
    }

    // Rejection at queue_length_limit: 1 seat, 1 queue, hand 1, limit 2. A request is refused
    // only while every seat is taken and its queue already holds 2.
    void rejectsAtQueueLengthLimit()
    {
        ApfGate g(ApfConfig{1, 1, 1, 2});
        QCOMPARE(g.offer(0, 1, 1), V::Admit); // q0 = 0 + 300000
        QCOMPARE(g.offer(0, 2, 3), V::Queue);
        QCOMPARE(g.offer(0, 3, 4), V::Queue);
        QCOMPARE(g.offer(0, 4, 5), V::Reject);
        QCOMPARE(g.queued(), 2);
        // t 10 ms, id 1 done after 10 ms, longer than the 3 ms estimate: R += min(1 + 2, 1) / 1 *
        // 1e7 / 10 = 1000000; q0 = 300000 - (3 - 10 ms) = 300000 + 700000 = 1000000. Then id 2.
        QCOMPARE(release(g, ms(10), 1), (std::vector<std::int64_t>{2}));
        QCOMPARE(g.currentR(), 1000000u);
        QCOMPARE(g.nextDispatchR(0), 1300000u);
        QCOMPARE(g.offer(ms(10), 5, 1), V::Queue);
        QCOMPARE(g.offer(ms(10), 6, 1), V::Reject);
        QCOMPARE(g.queued(), 2);
        QCOMPARE(g.inflight(), 1);
        QCOMPARE(g.limit(), 1);
    }

    // A waiting request whose client gives up leaves its queue (request.wait's cancel path,
    // qs.go:404-440) and the next dispatch goes to what is left. 1 seat, 2 queues, hand 1:
    // client 1 -> q0, client 7 -> q1.
    void cancelledRequestLeavesItsQueue()
    {
        ApfGate g(ApfConfig{1, 2, 1, 50});
        // t 0: id 1 (q0) takes the seat, q0 = 0 + 300000; id 2 waits in q1 (start R 0), ids 3, 4
        // in q0 (arrival R 0).
        QCOMPARE(g.offer(0, 1, 1), V::Admit);
        QCOMPARE(g.offer(0, 2, 7), V::Queue);
        QCOMPARE(g.offer(0, 3, 1), V::Queue);
        QCOMPARE(g.offer(0, 4, 1), V::Queue);
        QCOMPARE(g.nextDispatchR(0), 300000u);
        QCOMPARE(g.nextDispatchR(1), 0u);
        // t 2 ms, id 2's client gives up: R syncs first, both queues active, min(1 + 3, 1) / 2 =
        // 0.5: R = round(0.5 * 2e6 / 10) = 100000. id 2 leaves; q1, empty and idle, is no longer
        // active. Nothing is dispatched (no seat frees).
        QVERIFY(g.cancel(ms(2), 2));
        QCOMPARE(g.currentR(), 100000u);
        QCOMPARE(g.queued(), 2);
        QCOMPARE(g.inflight(), 1);
        QCOMPARE(g.cancelled(), 1);
        QVERIFY(!g.cancel(ms(2), 2)); // no longer waiting
        QVERIFY(!g.cancel(ms(2), 1)); // executing, not waiting
        // t 4 ms, id 1 done after 4 ms: q0 alone is active, min(1 + 2, 1) / 1 = 1: R += 200000 =
        // 300000; q0 = 300000 - round((3 - 4 ms) / 10) = 400000. Visit from robin 0 + 1: q1 is
        // empty, q0 finishes at 700000: id 3, q0 = 700000. (Had id 2 stayed, q1 would finish at
        // 0 + 300000 and id 2 would go first.)
        QCOMPARE(release(g, ms(4), 1), (std::vector<std::int64_t>{3}));
        QCOMPARE(g.currentR(), 300000u);
        QCOMPARE(g.nextDispatchR(0), 700000u);
        // t 5 ms, id 4's client gives up too: min(1 + 1, 1) / 1: R += 100000 = 400000; q0 keeps
        // its start (its request 3 executes), nothing waits.
        QVERIFY(g.cancel(ms(5), 4));
        QCOMPARE(g.currentR(), 400000u);
        QCOMPARE(g.nextDispatchR(0), 700000u);
        QCOMPARE(g.queued(), 0);
        QCOMPARE(release(g, ms(6), 3), (std::vector<std::int64_t>{}));
        QCOMPARE(g.cancelled(), 2);
    }

    // Cancelling the head of a queue lets the anti-windup bound the queue's next dispatch by the
    // new head's arrival (qs.go:428, boundNextDispatchLocked). 1 seat, 1 queue, hand 1.
    void cancelledHeadBoundsNextDispatch()
    {
        ApfGate g(ApfConfig{1, 1, 1, 50});
        QCOMPARE(g.offer(0, 1, 1), V::Admit); // q0 = 0 + 300000
        QCOMPARE(g.offer(0, 2, 1), V::Queue); // arrival R 0
        // t 10 ms: min(1 + 1, 1) / 1 = 1: R = 1e7 / 10 = 1000000, id 3's arrival R.
        QCOMPARE(g.offer(ms(10), 3, 1), V::Queue);
        QCOMPARE(g.currentR(), 1000000u);
        QCOMPARE(g.nextDispatchR(0), 300000u);
        // t 11 ms, id 2 (the head) leaves: R = 1100000; the head is now id 3, arrived at R
        // 1000000 > 300000: q0 = 1000000.
        QVERIFY(g.cancel(ms(11), 2));
        QCOMPARE(g.currentR(), 1100000u);
        QCOMPARE(g.nextDispatchR(0), 1000000u);
        // t 12 ms, id 1 done after 12 ms: R = 1200000; q0 = 1000000 + round((12 - 3 ms) / 10) =
        // 1900000; id 3 dispatched: q0 = 2200000.
        QCOMPARE(release(g, ms(12), 1), (std::vector<std::int64_t>{3}));
        QCOMPARE(g.currentR(), 1200000u);
        QCOMPARE(g.nextDispatchR(0), 2200000u);
    }

    // queues=0: APF's Reject limit response, the concurrency limit alone (qs.go:316-326).
    void withoutQueues()
    {
        auto g = makeGate("apf:queues=0,seats=2", 0);
        QCOMPARE(g->offer(0, 1, 1), V::Admit);
        QCOMPARE(g->offer(0, 2, 1), V::Admit);
        QCOMPARE(g->offer(0, 3, 1), V::Reject);
        QCOMPARE(release(*g, ms(1), 1), (std::vector<std::int64_t>{}));
        QCOMPARE(g->offer(ms(1), 4, 1), V::Admit);
        QCOMPARE(g->inflight(), 2);
    }

    // Invariants on a seeded random run (LCG): 3 seats, 8 queues, hand 2, limit 3, 12 clients.
    // A request waits only while every seat is taken; no queue passes its limit; every id is
    // admitted, dispatched or rejected exactly once; after the last completion nothing is left.
    void invariantsOnRandomRun()
    {
        ApfGate g(ApfConfig{3, 8, 2, 3});
        std::uint64_t x = 12345;
        auto next = [&x](std::uint64_t n) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            return (x >> 33) % n;
        };
        std::vector<std::int64_t> running;
        std::map<std::int64_t, int> outcome; // id -> times admitted, dispatched or rejected
        Nanos t = 0;
        std::int64_t id = 0, rejected = 0, maxQueued = 0;
        for (int step = 0; step < 20000; ++step) {
            t += static_cast<Nanos>(next(2'000'000));
            if (running.empty() || next(3) != 0) {
                ++id;
                const V v = g.offer(t, id, static_cast<std::int64_t>(next(12)));
                if (v != V::Queue)
                    ++outcome[id];
                rejected += v == V::Reject;
                if (v == V::Admit)
                    running.push_back(id);
            } else {
                const std::size_t k = next(running.size());
                const std::int64_t done = running[k];
                running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
                for (std::int64_t d : release(g, t, done)) {
                    ++outcome[d];
                    running.push_back(d);
                }
            }
            QVERIFY(g.inflight() <= g.limit());
            QCOMPARE(g.inflight(), static_cast<std::int64_t>(running.size()));
            QVERIFY(g.queued() == 0 || g.inflight() == g.limit());
            QVERIFY(g.queued() <= 8 * 3);
            maxQueued = std::max(maxQueued, g.queued());
        }
        QVERIFY(rejected > 0 && maxQueued > 3); // the run reaches the queues and their limits
        while (!running.empty()) {
            t += 1'000'000;
            const std::int64_t done = running.front();
            running.erase(running.begin());
            for (std::int64_t d : release(g, t, done)) {
                ++outcome[d];
                running.push_back(d);
            }
        }
        QCOMPARE(g.queued(), 0);
        QCOMPARE(g.inflight(), 0);
        QCOMPARE(static_cast<std::int64_t>(outcome.size()), id);
        for (const auto& [i, n] : outcome)
            QCOMPARE(n, 1);
    }

    void options()
    {
        // global-default's defaults: 49 seats (ceil(600 * 20 / 245)).
        QCOMPARE(makeGate("apf", 0)->limit(), 49);
        QCOMPARE(makeGate("apf:seats=3,queues=16,hand_size=4,queue_length_limit=10", 0)->limit(), 3);
        QCOMPARE(errorOf([] { makeGate("apf:queues=8,hand_size=9", 0); }),
                 std::string("apf: hand_size: handSize 9 is greater than deckSize 8 (the deck is the queues)"));
        // log2(65536) * 4 = 64 bits.
        QCOMPARE(errorOf([] { makeGate("apf:queues=65536,hand_size=4", 0); }),
                 std::string("apf: hand_size: required entropy bits of deckSize 65536 and handSize 4 is greater than 60 "
                             "(the deck is the queues)"));
        QCOMPARE(errorOf([] { makeGate("apf:seats=0", 0); }), std::string("apf: seats: must be at least 1 (got 0)"));
        QCOMPARE(errorOf([] { makeGate("apf:queue_length_limit=0", 0); }),
                 std::string("apf: queue_length_limit: must be at least 1 (got 0)"));
        QCOMPARE(errorOf([] { makeGate("apf:queues=-1", 0); }), std::string("apf: queues: must be at least 0 (got -1)"));
        QCOMPARE(errorOf([] { makeGate("apf:handsize=3", 0); }),
                 std::string("unknown key 'handsize' for apf (known: seats, queues, hand_size, queue_length_limit)"));
    }
};

QTEST_GUILESS_MAIN(TestApf)
#include "tst_apf.moc"
