// A small hiredis client for the tests of the scripts: one connection, commands as argument
// lists, replies as values. Not for production: a failure is a test failure.
#pragma once

#include "redis_store.h"

#include <hiredis/hiredis.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ratelab::test {

// startPrivateRedis starts a test's own redis-server, or returns none and says why in `why`.
inline std::unique_ptr<ratelab::io::PrivateRedis> startPrivateRedis(std::string* why)
{
    try {
        return std::make_unique<ratelab::io::PrivateRedis>();
    } catch (const ratelab::io::RedisError& e) {
        *why = std::string("cannot start a private redis-server (apt-get install redis-server): ") + e.what();
        return nullptr;
    }
}

// RedisReply is a reply, flattened: an error's text, an integer, a string, or an array of them.
struct RedisReply {
    bool error = false;
    bool nil = false;
    std::string text;
    long long integer = 0;
    std::vector<RedisReply> elements;
};

inline RedisReply toReply(const redisReply* r)
{
    RedisReply out;
    if (!r) {
        out.error = true;
        out.text = "no reply";
        return out;
    }
    switch (r->type) {
    case REDIS_REPLY_ERROR: out.error = true; out.text.assign(r->str, r->len); break;
    case REDIS_REPLY_INTEGER: out.integer = r->integer; break;
    case REDIS_REPLY_NIL: out.nil = true; break;
    case REDIS_REPLY_ARRAY:
        for (std::size_t i = 0; i < r->elements; ++i)
            out.elements.push_back(toReply(r->element[i]));
        break;
    default: out.text.assign(r->str, r->len); break;
    }
    return out;
}

class RedisClient {
public:
    // RedisClient connects to "unix:/path" (the tests' private servers).
    explicit RedisClient(const std::string& address)
        : m_c(redisConnectUnix(address.substr(5).c_str()), redisFree)
    {
    }
    bool ok() const { return m_c && !m_c->err; }

    RedisReply operator()(const std::vector<std::string>& args)
    {
        std::vector<const char*> argv;
        std::vector<std::size_t> lens;
        for (const std::string& a : args) {
            argv.push_back(a.data());
            lens.push_back(a.size());
        }
        auto* r = static_cast<redisReply*>(redisCommandArgv(m_c.get(), int(argv.size()), argv.data(), lens.data()));
        RedisReply out = toReply(r);
        if (r)
            freeReplyObject(r);
        return out;
    }

    // writes sums the calls of every command that writes a key, from INFO commandstats.
    long long writes()
    {
        const std::string info = (*this)({"INFO", "commandstats"}).text;
        long long total = 0;
        for (const char* cmd : {"hset", "rpush", "ltrim", "lpop", "pexpire", "pexpireat", "del", "hdel", "expire", "set", "incr"}) {
            const std::string tag = std::string("cmdstat_") + cmd + ":calls=";
            const auto at = info.find(tag);
            if (at != std::string::npos)
                total += std::stoll(info.substr(at + tag.size()));
        }
        return total;
    }

private:
    std::unique_ptr<redisContext, void (*)(redisContext*)> m_c;
};

// field reads element i of a script's reply as an integer (throws if there is none).
inline long long field(const RedisReply& r, int i) { return r.elements.at(std::size_t(i)).integer; }

// sha1Of loads a script and returns its SHA1.
inline std::string sha1Of(RedisClient& c, const std::string& script) { return c({"SCRIPT", "LOAD", script}).text; }

// keysFor names a policy's keys as the example callers do: rl:{ID}, or rl:{ID}:1..N for layers.
inline std::vector<std::string> keysFor(const std::string& id, std::size_t layers)
{
    if (layers == 1)
        return {"rl:{" + id + "}"};
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < layers; ++i)
        keys.push_back("rl:{" + id + "}:" + std::to_string(i + 1));
    return keys;
}

// evalsha calls a loaded script with its keys and arguments.
inline RedisReply evalsha(RedisClient& c, const std::string& sha, const std::vector<std::string>& keys,
                          const std::vector<std::string>& args)
{
    std::vector<std::string> cmd{"EVALSHA", sha, std::to_string(keys.size())};
    cmd.insert(cmd.end(), keys.begin(), keys.end());
    cmd.insert(cmd.end(), args.begin(), args.end());
    return c(cmd);
}

} // namespace ratelab::test
