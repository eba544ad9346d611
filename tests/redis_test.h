// RedisTest is the shared fixture of the tests of the scripts: a private redis-server of the
// test's own and one client of it, for the whole test case.
#pragma once

#include "redis_client.h"

#include <QObject>
#include <QTest>

#include <memory>
#include <string>

class RedisTest : public QObject {
protected:
    std::unique_ptr<ratelab::io::PrivateRedis> m_redis;
    std::unique_ptr<ratelab::test::RedisClient> m_c;

    // startRedis starts the server and connects to it; call it from initTestCase.
    void startRedis()
    {
        std::string why;
        m_redis = ratelab::test::startPrivateRedis(&why);
        QVERIFY2(m_redis, why.c_str());
        m_c = std::make_unique<ratelab::test::RedisClient>(m_redis->address());
        QVERIFY(m_c->ok());
    }

    // stopRedis disconnects and stops the server; call it from cleanupTestCase.
    void stopRedis()
    {
        m_c.reset();
        m_redis.reset();
    }
};
