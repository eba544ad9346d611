// The Redis backend in a build without hiredis: every way to a Redis server fails at once with
// one line that says why (kNoRedisBackend), so a command, the app's Check against Redis and the
// bench refuse it by name instead of failing to link or to connect.
#include "redis_store.h"

namespace ratelab::io {

namespace {

[[noreturn]] void refuse() { throw RedisError(std::string("redis backend: ") + kNoRedisBackend); }

} // namespace

bool redisBackendBuilt() { return false; }

struct PrivateRedis::State {};

PrivateRedis::PrivateRedis(std::chrono::milliseconds, const std::vector<std::string>&) { refuse(); }
PrivateRedis::~PrivateRedis() = default;
std::string PrivateRedis::address() const { refuse(); }
void PrivateRedis::stop() {}

struct RedisStore::Connection {};

RedisStore::RedisStore(std::string address, RedisTimeouts timeouts)
    : m_address(std::move(address))
    , m_timeouts(timeouts)
{
    refuse();
}
RedisStore::~RedisStore() = default;
std::vector<Decision> RedisStore::run(Algorithm, const LimiterConfig&, const ClusterConfig&, std::span<const Nanos>,
                                      const std::string&, std::span<const std::uint64_t>, std::span<const std::int64_t>,
                                      const std::function<bool(std::size_t)>&)
{
    refuse();
}
std::array<long long, 6> RedisStore::evalScript(std::size_t, Algorithm, const std::vector<std::string>&,
                                                const std::vector<std::string>&)
{
    refuse();
}
void RedisStore::deleteKeys(const std::vector<std::string>&) noexcept {}
std::string RedisStore::runPrefix() const { refuse(); }
std::string RedisStore::takeRunPrefix() { refuse(); }

} // namespace ratelab::io
