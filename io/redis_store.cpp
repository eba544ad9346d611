#include "redis_store.h"

#include "redis_run.h"

#include <QDeadlineTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>

#include <hiredis/hiredis.h>

#include <sys/prctl.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>
#include <random>

namespace ratelab::io {

namespace {

timeval toTimeval(std::chrono::milliseconds ms)
{
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
    return tv;
}


struct ReplyDeleter {
    void operator()(redisReply* r) const { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

struct ContextDeleter {
    void operator()(redisContext* c) const { redisFree(c); }
};
using Context = std::unique_ptr<redisContext, ContextDeleter>;

// connect opens a connection to "host:port" or "unix:/path" with both timeouts set.
Context connect(const std::string& address, const RedisTimeouts& t)
{
    const timeval connectTimeout = toTimeval(t.connect);
    redisContext* c = nullptr;
    if (address.rfind("unix:", 0) == 0) {
        c = redisConnectUnixWithTimeout(address.substr(5).c_str(), connectTimeout);
    } else {
        const auto colon = address.rfind(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == address.size())
            throw RedisError("redis at " + address + ": not an address (expected host:port or unix:/path)");
        const std::string host = address.substr(0, colon), portText = address.substr(colon + 1);
        char* end = nullptr;
        const long port = std::strtol(portText.c_str(), &end, 10);
        if (*end != '\0' || port < 1 || port > 65535)
            throw RedisError("redis at " + address + ": '" + portText + "' is not a port (1 to 65535)");
        c = redisConnectWithTimeout(host.c_str(), static_cast<int>(port), connectTimeout);
    }
    if (c == nullptr)
        throw RedisError("redis at " + address + ": cannot allocate a connection");
    Context context(c);
    if (c->err)
        throw RedisError("redis at " + address + ": cannot connect: " + c->errstr);
    if (redisSetTimeout(c, toTimeval(t.command)) != REDIS_OK)
        throw RedisError("redis at " + address + ": cannot set the command timeout");
    return context;
}

// noReply says why a command had no reply. hiredis 0.14 reports its command timeout as an I/O
// error whose text is EAGAIN's ("Resource temporarily unavailable"); say what happened.
std::string noReply(const redisContext* c, const std::string& address, const std::string& what,
                    std::chrono::milliseconds timeout)
{
    const bool timedOut =
#ifdef REDIS_ERR_TIMEOUT
        c->err == REDIS_ERR_TIMEOUT ||
#endif
        (c->err == REDIS_ERR_IO && (std::string(c->errstr) == std::strerror(EAGAIN) || std::string(c->errstr) == std::strerror(EWOULDBLOCK)));
    if (timedOut)
        return "redis at " + address + ": " + what + " timed out: no reply within " + std::to_string(timeout.count()) + " ms";
    return "redis at " + address + ": " + what + " failed: " + (c->err ? std::string(c->errstr) : std::string("no reply"));
}

// command runs one command and returns its reply; an error reply or no reply (timeout, closed
// connection) is a RedisError naming the address.
Reply command(redisContext* c, const std::string& address, const std::vector<std::string>& args,
              std::chrono::milliseconds timeout)
{
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (const std::string& a : args) {
        argv.push_back(a.data());
        lens.push_back(a.size());
    }
    Reply r(static_cast<redisReply*>(redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data())));
    if (!r)
        throw RedisError(noReply(c, address, args.front(), timeout));
    if (r->type == REDIS_REPLY_ERROR) {
        std::string text(r->str, r->len);
        if (const auto nl = text.find('\n'); nl != std::string::npos)
            text.resize(nl);
        throw RedisError("redis at " + address + ": " + args.front() + " answered an error: " + text);
    }
    return r;
}

} // namespace

bool redisBackendBuilt() { return true; }

// ---- PrivateRedis ----

struct PrivateRedis::State {
    QTemporaryDir dir;
    QProcess process;
    std::string socket;
};

PrivateRedis::PrivateRedis(std::chrono::milliseconds startTimeout, const std::vector<std::string>& extraArguments)
    : m(std::make_unique<State>())
{
    if (!m->dir.isValid())
        throw RedisError("redis-server: cannot create a temporary directory: " + m->dir.errorString().toStdString());
    m->socket = m->dir.filePath(QStringLiteral("redis.sock")).toStdString();
    const QString where = "unix:" + QString::fromStdString(m->socket);
    m->process.setProgram(QStringLiteral("redis-server"));
    QStringList arguments{"--port", "0", "--save", "", "--appendonly", "no", "--unixsocket",
                          QString::fromStdString(m->socket), "--unixsocketperm", "700", "--dir", m->dir.path(),
                          "--daemonize", "no", "--loglevel", "warning"};
    for (const std::string& a : extraArguments)
        arguments << QString::fromStdString(a);
    m->process.setArguments(arguments);
    m->process.setProcessChannelMode(QProcess::MergedChannels);
    // If ratelab dies without cleaning up (SIGKILL), the kernel kills the server too. The signal
    // follows the thread that started the server, so a PrivateRedis lives and dies on one thread
    // (every user's does: the CLI's main thread, the app's check inside one worker task).
    m->process.setChildProcessModifier([] { prctl(PR_SET_PDEATHSIG, SIGKILL); });
    m->process.start();
    if (!m->process.waitForStarted(static_cast<int>(startTimeout.count())))
        throw RedisError("redis-server at " + where.toStdString()
                         + ": cannot start it (is redis-server installed? apt-get install redis-server): "
                         + m->process.errorString().toStdString());
    registerPrivateServer(static_cast<pid_t>(m->process.processId()), m->dir.path().toStdString());
    // Process start-up, not simulated time: poll PING until it answers, within the bound.
    QDeadlineTimer deadline(startTimeout);
    std::string last = "no answer";
    while (true) {
        if (m->process.state() == QProcess::NotRunning) {
            const QString out = QString::fromLocal8Bit(m->process.readAll()).trimmed().split('\n').value(0);
            throw RedisError("redis-server at " + where.toStdString() + ": exited at start-up: " + out.toStdString());
        }
        try {
            Context c = connect(where.toStdString(), {std::chrono::milliseconds(200), std::chrono::milliseconds(500)});
            const Reply r = command(c.get(), where.toStdString(), {"PING"}, std::chrono::milliseconds(500));
            if (r->type == REDIS_REPLY_STATUS)
                return;
        } catch (const RedisError& e) {
            last = e.what();
        }
        if (deadline.hasExpired()) {
            stop();
            throw RedisError("redis-server at " + where.toStdString() + ": did not answer within "
                             + std::to_string(startTimeout.count()) + " ms (" + last + ")");
        }
        QThread::msleep(10);
    }
}

PrivateRedis::~PrivateRedis() { stop(); }

std::string PrivateRedis::address() const { return "unix:" + m->socket; }

void PrivateRedis::stop()
{
    if (m->process.state() == QProcess::NotRunning)
        return;
    unregisterPrivateServer(static_cast<pid_t>(m->process.processId()));
    m->process.terminate(); // SIGTERM: redis-server shuts down (nothing to save)
    if (!m->process.waitForFinished(5000)) {
        m->process.kill();
        m->process.waitForFinished(2000);
    }
}

// ---- RedisStore ----

struct RedisStore::Connection {
    Context context;
    std::map<Algorithm, std::string> sha;
};

RedisStore::RedisStore(std::string address, RedisTimeouts timeouts)
    : m_address(std::move(address))
    , m_timeouts(timeouts)
{
    std::random_device random;
    char id[32];
    std::snprintf(id, sizeof id, "%ld.%08x", static_cast<long>(getpid()), random());
    m_storeId = id;
    connection(0); // fail early: unreachable is reported before any work
}

RedisStore::~RedisStore() = default;

RedisStore::Connection& RedisStore::connection(std::size_t node)
{
    while (m_connections.size() <= node)
        m_connections.push_back(std::make_unique<Connection>(Connection{connect(m_address, m_timeouts), {}}));
    return *m_connections[node];
}

std::string RedisStore::runPrefix() const { return m_storeId + "." + std::to_string(m_runs + 1); }

std::vector<Decision> RedisStore::run(Algorithm algorithm, const LimiterConfig& config, const ClusterConfig& cluster,
                                      std::span<const Nanos> arrivals, const std::string& key,
                                      std::span<const std::uint64_t> clients, std::span<const std::int64_t> costs,
                                      const std::function<bool(std::size_t)>& decided)
{
    if (!costs.empty() && costs.size() != arrivals.size())
        throw InputError("redis backend: " + std::to_string(costs.size()) + " costs for " + std::to_string(arrivals.size())
                         + " arrivals");
    const std::int64_t maxCost = costs.empty() ? 1 : *std::max_element(costs.begin(), costs.end());
    if (!arrivals.empty() && arrivals.back() > kMaxNanos - cluster.skewNanos())
        checkLuaDomain(algorithm, config, kMaxNanos, maxCost);
    checkLuaDomain(algorithm, config, arrivals.empty() ? 0 : arrivals.back() + cluster.skewNanos(), maxCost);

    const std::vector<std::uint8_t> nodes = assignNodes(cluster, arrivals.size(), clients);
    std::vector<Decision> out;
    out.reserve(arrivals.size());
    {
        RedisRun run(*this, key, decided);
        for (std::size_t i = 0; i < arrivals.size(); ++i)
            out.push_back(run.decide({i, -1, 0, algorithm, &config, nodes[i], arrivals[i] + cluster.nodeOffset(nodes[i]),
                                      costs.empty() ? 1 : costs[i]}));
        run.finish();
    }
    honourPendingSignal(); // a signal between the last check and the end of the run
    return out;
}

std::string RedisStore::takeRunPrefix()
{
    std::string prefix = runPrefix();
    ++m_runs;
    return prefix;
}

std::array<long long, 6> RedisStore::evalScript(std::size_t node, Algorithm algorithm, const std::vector<std::string>& keys,
                                                const std::vector<std::string>& args)
{
    Connection& c = connection(node);
    auto sha = c.sha.find(algorithm);
    if (sha == c.sha.end()) {
        const Reply loaded = command(c.context.get(), m_address, {"SCRIPT", "LOAD", luaScript(algorithm)}, m_timeouts.command);
        sha = c.sha.emplace(algorithm, std::string(loaded->str, loaded->len)).first;
    }
    std::vector<std::string> argv{"EVALSHA", sha->second, std::to_string(keys.size())};
    argv.insert(argv.end(), keys.begin(), keys.end());
    argv.insert(argv.end(), args.begin(), args.end());
    const Reply reply = command(c.context.get(), m_address, argv, m_timeouts.command);
    const std::string id(algorithmId(algorithm));
    if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 6)
        throw RedisError("redis at " + m_address + ": the " + id + " script answered something other than 6 numbers");
    std::array<long long, 6> v{};
    for (std::size_t e = 0; e < 6; ++e) {
        if (reply->element[e]->type != REDIS_REPLY_INTEGER)
            throw RedisError("redis at " + m_address + ": the " + id + " script answered a value that is not an integer");
        v[e] = reply->element[e]->integer;
    }
    return v;
}

void RedisStore::deleteKeys(const std::vector<std::string>& keys) noexcept
{
    if (keys.empty())
        return;
    try {
        // A connection that timed out or broke is of no more use (hiredis keeps its error, and a
        // late reply would answer the wrong command): the keys go through a new one.
        Context fresh;
        redisContext* c = nullptr;
        if (!m_connections.empty() && m_connections[0]->context && m_connections[0]->context->err == 0)
            c = m_connections[0]->context.get();
        else
            c = (fresh = connect(m_address, m_timeouts)).get();
        // Every DEL is sent before any reply is awaited: a stalled server that times out below
        // still holds them, and deletes the keys when it goes on.
        std::size_t sent = 0;
        for (std::size_t from = 0; from < keys.size(); from += 512, ++sent) {
            std::vector<const char*> argv{"DEL"};
            std::vector<std::size_t> lens{3};
            for (std::size_t k = from; k < std::min(keys.size(), from + 512); ++k) {
                argv.push_back(keys[k].data());
                lens.push_back(keys[k].size());
            }
            if (redisAppendCommandArgv(c, int(argv.size()), argv.data(), lens.data()) != REDIS_OK)
                return;
        }
        for (int done = 0; done == 0;)
            if (redisBufferWrite(c, &done) != REDIS_OK)
                return;
        for (std::size_t i = 0; i < sent; ++i) {
            void* reply = nullptr;
            if (redisGetReply(c, &reply) != REDIS_OK)
                return; // timed out: the server has the DELs, and runs them when it goes on
            freeReplyObject(reply);
        }
    } catch (...) { // no server to connect to: it is gone, and its keys with it
    }
}

} // namespace ratelab::io
