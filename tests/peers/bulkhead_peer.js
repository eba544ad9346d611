// Runs cockatiel's BulkheadPolicy (cockatiel 4.0.0, dist/BulkheadPolicy.js) on the calls read from
// stdin, one a line: "t s" (whole milliseconds: the call's arrival, non-decreasing, and its
// service time, at least 1 ms). Each call is bulkhead.execute(fn), fn a promise that resolves s ms
// after it starts, on a clock faked by @sinonjs/fake-timers (setTimeout and Date only, so
// promise jobs and setImmediate stay real). Prints one line per call: its start time in ms, or R
// for a call the bulkhead rejected (BulkheadRejectedError).
//
// Order at one instant, as semantics.md's server: completions first (clock.tickAsync(t - now)
// fires every timer due at or before t, running promise jobs after each, so a freed slot goes
// to the head of the queue through cockatiel's own dequeue), then the arrivals at t, in order.
//
// Usage: node bulkhead_peer.js MAX_PARALLEL MAX_QUEUE
'use strict';
const { pathToFileURL } = require('url');
const FakeTimers = require('@sinonjs/fake-timers');

const [maxParallel, maxQueue] = process.argv.slice(2).map(Number);
const calls = require('fs').readFileSync(0, 'utf8').split('\n').filter((l) => l.length > 0)
    .map((l) => l.split(' ').map(Number));

// cockatiel 4 is an ES module: found through NODE_PATH by require.resolve, loaded by import().
const flush = () => new Promise((resolve) => setImmediate(resolve));
(async () => {
    const { bulkhead, BulkheadRejectedError } = await import(pathToFileURL(require.resolve('cockatiel')).href);
    const clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 0 });
    const policy = bulkhead(maxParallel, maxQueue);
    const out = new Array(calls.length).fill('?');
    const settled = [];
    for (let i = 0; i < calls.length; ++i) {
        const [t, s] = calls[i];
        await clock.tickAsync(t - clock.now);
        await flush();
        settled.push(policy.execute(() => {
            out[i] = String(Date.now());
            return new Promise((resolve) => setTimeout(resolve, s));
        }).catch((e) => {
            if (!(e instanceof BulkheadRejectedError))
                throw e;
            out[i] = 'R';
        }));
    }
    await clock.runAllAsync();
    await flush();
    await Promise.all(settled);
    clock.uninstall();
    process.stdout.write(out.join('\n') + '\n');
})().catch((e) => {
    process.stderr.write(String(e && e.stack || e) + '\n');
    process.exit(1);
});
