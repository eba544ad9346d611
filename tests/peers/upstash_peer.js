// Runs @upstash/ratelimit's Ratelimit.limit() (2.2.0) on the arrivals read from stdin ("t cost": whole
// milliseconds, and the request's `rate`, 1 when absent), against a real redis-server: its Redis client is a small adapter forwarding
// evalsha/eval to ioredis, and Date is faked (@sinonjs/fake-timers) to each arrival time.
// Prints "success remaining reset" per arrival.
//
// The adapter changes two things and says why:
// - the scripts' shebang flag allow-key-locking (a hint for Upstash's servers) is stripped, since
//   Redis 7.0 refuses an unknown flag; nothing else of a script is touched (evalsha of the
//   package's hash then answers NOSCRIPT and the package falls back to eval, as it does anyway);
// - Redis expires keys on its own, real clock, while the package runs on the fake one. After
//   each script the adapter reads the TTL a script has just set on its keys (PTTL), moves it onto
//   the fake clock and PERSISTs the key; before each request it deletes the keys whose fake
//   expiry has passed (Redis: gone once now > expiry). A script's TTL is window, window * 2 + 1000
//   or a whole number of intervals; PTTL, read within one grain of real time, is rounded up onto
//   that grid (GRAIN, OFFSET) to recover it exactly.
//
// Usage: node upstash_peer.js SOCKET CACHE(0|1) GRAIN OFFSET fixedWindow|slidingWindow TOKENS WINDOW
//        node upstash_peer.js SOCKET CACHE(0|1) GRAIN OFFSET tokenBucket REFILL INTERVAL MAX_TOKENS
'use strict';
const FakeTimers = require('@sinonjs/fake-timers');
const Redis = require('ioredis');
const { Ratelimit } = require('@upstash/ratelimit');

const [socket, cache, grain, offset, kind, ...rest] = process.argv.slice(2);
const clock = FakeTimers.install({ toFake: ['Date'], now: 0 });
const redis = new Redis({ path: socket });
const fakeExpiry = new Map(); // key -> fake ms after which Redis would have dropped it

async function settleExpiry(keys) {
    for (const key of keys) {
        const ttl = await redis.pttl(key);
        if (ttl > 0) {
            const g = Number(grain), c = Number(offset);
            fakeExpiry.set(key, Date.now() + Math.ceil((ttl - c) / g) * g + c);
            await redis.persist(key);
        }
    }
}

const adapter = {
    async evalsha(hash, keys, args) {
        return redis.evalsha(hash, keys.length, ...keys, ...args);
    },
    async eval(script, keys, args) {
        const stripped = script.replace(/^#!lua flags=allow-key-locking/, '#!lua');
        const out = await redis.eval(stripped, keys.length, ...keys, ...args);
        await settleExpiry(keys);
        return out;
    },
    async get(key) { return redis.get(key); },
    async set(key, value) { return redis.set(key, value); },
};

const limiter = kind === 'tokenBucket'
    ? Ratelimit.tokenBucket(Number(rest[0]), rest[1], Number(rest[2]))
    : Ratelimit[kind](Number(rest[0]), rest[1]);
const ratelimit = new Ratelimit({
    redis: adapter, limiter, analytics: false, enableTelemetry: false,
    timeout: 0, // no race against a real-time timer: every answer is the script's
    ephemeralCache: cache === '1' ? new Map() : false,
});

const arrivals = require('fs').readFileSync(0, 'utf8').split('\n').filter((l) => l.length > 0)
    .map((l) => l.split(' ').map(Number));
(async () => {
    await redis.flushdb();
    const out = [];
    for (const [t, cost] of arrivals) {
        clock.setSystemTime(t);
        for (const [key, expiry] of fakeExpiry)
            if (t > expiry) {
                await redis.del(key);
                fakeExpiry.delete(key);
            }
        const r = await ratelimit.limit('client', cost > 1 ? { rate: cost } : undefined);
        await r.pending;
        out.push(`${r.success ? 1 : 0} ${r.remaining} ${r.reset}`);
    }
    process.stdout.write(out.join('\n') + '\n');
    redis.disconnect();
})().catch((e) => {
    process.stderr.write(String(e && e.stack || e) + '\n');
    process.exit(1);
});
