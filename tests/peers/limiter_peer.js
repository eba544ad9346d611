// Runs the npm package `limiter`'s RateLimiter({tokensPerInterval, interval, fireImmediately:
// true}).tryRemoveTokens(1) on the arrival times read from stdin (milliseconds as decimals, one
// a line), with performance.now() (its clock) replaced by them. Prints 1 or 0 per arrival.
// Usage: node limiter_peer.js TOKENS_PER_INTERVAL INTERVAL_MS < times_ms
'use strict';
let now = 0;
Object.defineProperty(globalThis.performance, 'now', { value: () => now, configurable: true, writable: true });
const { RateLimiter } = require('limiter');
const [tokensPerInterval, interval] = process.argv.slice(2).map(Number);
const limiter = new RateLimiter({ tokensPerInterval, interval, fireImmediately: true });
const out = [];
for (const line of require('fs').readFileSync(0, 'utf8').split('\n')) {
    if (line.length === 0)
        continue;
    now = Number(line);
    out.push(limiter.tryRemoveTokens(1) ? '1' : '0');
}
process.stdout.write(out.join('\n') + '\n');
