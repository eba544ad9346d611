// Runs rate-limiter-flexible's RateLimiterMemory.consume() on the arrival times read from stdin
// (whole milliseconds), with Date.now() replaced by them and setTimeout (its records' deletion
// timers) held, as fake timers do: expiry is then decided by the records' expiresAt alone, as it
// is when the timers fire on time. Prints 1 (resolved) or 0 (rejected) per arrival.
// Usage: node flexible_peer.js POINTS DURATION BLOCK_DURATION < times_ms
'use strict';
const base = 1700000000000;
let now = base;
Date.now = () => now;
global.setTimeout = () => ({ unref() {} });
global.clearTimeout = () => {};
const { RateLimiterMemory } = require('rate-limiter-flexible');
const [points, duration, blockDuration] = process.argv.slice(2).map(Number);
const limiter = new RateLimiterMemory({ points, duration, blockDuration });
const times = require('fs').readFileSync(0, 'utf8').split('\n').filter((l) => l.length > 0).map(Number);
(async () => {
    const out = [];
    for (const t of times) {
        now = base + t;
        out.push(await limiter.consume('key').then(() => '1', (e) => {
            if (e instanceof Error)
                throw e;
            return '0';
        }));
    }
    process.stdout.write(out.join('\n') + '\n');
})();
