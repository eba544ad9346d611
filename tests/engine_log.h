// The engine tests' expected log: a Row per logged attempt, as the tables in their comments
// derive it, and compareLog, which checks a run's log against the rows one by one.
#pragma once

#include "engine/engine.h"

#include <QTest>

#include <cstdint>
#include <vector>

namespace ratelab::test {

struct Row { // an expected logged attempt
    std::int32_t request, attempt;
    Nanos t;
    bool allowed;
    Nanos wait;
    int node;
};

// compareLog checks that got's log is want, attempt for attempt: which request and attempt at
// what time, the verdict, the wait and the node.
inline void compareLog(const RowRun& got, const std::vector<Row>& want)
{
    QCOMPARE(got.log.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        const LoggedAttempt& a = got.log[i];
        const Row& w = want[i];
        const QByteArray where = "attempt " + QByteArray::number(qulonglong(i));
        QVERIFY2(a.request == w.request && a.attempt == w.attempt && a.t == w.t, where);
        QVERIFY2(bool(a.allowed) == w.allowed, where);
        QVERIFY2(a.wait == w.wait, where + " wait " + QByteArray::number(qlonglong(a.wait)));
        QVERIFY2(a.node == w.node, where);
    }
}

} // namespace ratelab::test
