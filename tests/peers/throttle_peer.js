// Runs npm's bottleneck (2.19.5) or p-queue (10.0.0) themselves on calls read from stdin
// ("arrival service priority", whole milliseconds from the limiter's creation) under a fake clock
// (@sinonjs/fake-timers) and prints each call's start (ms from creation; -1: dropped).
//
// The order at one instant is the model's (core/server/client_throttle.h): the calls done at t
// (in the order they started), then the package's own timers due at t (its heartbeat, its
// interval, its minTime waits), one at a time, then the arrivals at t, one at a time; after each
// of these the package runs to rest before the next. Two changes to the event loop, said why:
// - setTimeout(f, 0), which Bottleneck uses for every internal hop (LocalDatastore yieldLoop)
//   and for a call that may start now, runs at the same instant (a real setImmediate, counted
//   so the driver knows when the package is at rest): Node would run it at least 1 ms later, a
//   latency of the event loop, not a decision of the package. Longer timers stay on the fake clock.
// - the clock jumps to the next instant (clock.now) when nothing is due before it, so the
//   calls done at t are handed back before the package's timers at t fire.
// The clock starts at 1e9 ms, not 0: Bottleneck's _unblockTime starts at 0, which a real clock
// is long past.
//
// Usage: node throttle_peer.js bottleneck|p-queue OPTIONS_JSON < calls
'use strict';
const { pathToFileURL } = require('url');
const FakeTimers = require('@sinonjs/fake-timers');

// p-queue 10 declares Node 22; it runs on 20, and on Debian 12's Node 18 once CustomEvent, which
// it only dispatches as events (nothing it decides reads them), is global as it is from Node 19.
if (typeof globalThis.CustomEvent === 'undefined')
    globalThis.CustomEvent = class CustomEvent extends Event {
        constructor(type, options) { super(type, options); this.detail = options?.detail ?? null; }
    };

const realSetImmediate = setImmediate;
const origin = 1e9;
const clock = FakeTimers.install({ now: origin, toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
const fakeSetTimeout = globalThis.setTimeout;
const fakeClearTimeout = globalThis.clearTimeout;
let outstanding = 0;
globalThis.setTimeout = function setTimeout(f, delay, ...args) {
    if (delay > 0)
        return fakeSetTimeout(f, delay, ...args);
    const handle = { zero: true, cancelled: false, ref() { return this; }, unref() { return this; } };
    outstanding++;
    realSetImmediate(() => {
        outstanding--;
        if (!handle.cancelled)
            f(...args);
    });
    return handle;
};
globalThis.clearTimeout = function clearTimeout(handle) {
    if (handle && handle.zero)
        handle.cancelled = true;
    else
        fakeClearTimeout(handle);
};

// settle returns when the package is at rest: no hop pending, for a few turns of the loop.
async function settle() {
    for (let quiet = 0; quiet < 3;) {
        await new Promise((resolve) => realSetImmediate(resolve));
        quiet = outstanding === 0 ? quiet + 1 : 0;
    }
}

function nextTimerAt() {
    let at = Infinity;
    if (clock.timers)
        for (const timer of clock.timers.values())
            at = Math.min(at, timer.callAt);
    return at;
}

const [kind, optionsJson] = process.argv.slice(2);
const options = JSON.parse(optionsJson);
const calls = require('fs').readFileSync(0, 'utf8').split('\n').filter((l) => l.length > 0)
    .map((l) => { const [arrival, service, priority] = l.split(' ').map(Number); return { arrival, service, priority }; });

(async () => {
    let submit;
    if (kind === 'bottleneck') {
        const Bottleneck = require('bottleneck');
        if (options.strategy !== undefined)
            options.strategy = Bottleneck.strategy[options.strategy];
        const limiter = new Bottleneck(options);
        submit = (i, task) => limiter.schedule({ priority: calls[i].priority, id: `call-${i}` }, task);
    } else {
        const { default: PQueue } = await import(pathToFileURL(require.resolve('p-queue')).href);
        const queue = new PQueue(options);
        submit = (i, task) => queue.add(task, { priority: calls[i].priority });
    }
    const starts = new Array(calls.length).fill(-1);
    const running = []; // { at, sequence, resolve }
    let sequence = 0;
    let finished = 0;
    let next = 0;
    while (next < calls.length || finished < calls.length) {
        let done = -1;
        for (let k = 0; k < running.length; k++)
            if (done < 0 || running[k].at < running[done].at
                || (running[k].at === running[done].at && running[k].sequence < running[done].sequence))
                done = k;
        const completion = done < 0 ? Infinity : running[done].at;
        const timer = nextTimerAt();
        const arrival = next < calls.length ? origin + calls[next].arrival : Infinity;
        const t = Math.min(completion, timer, arrival);
        if (t === Infinity)
            break; // the calls still held never start (a reservoir nothing refills)
        if (t > clock.now)
            clock.now = t;
        if (completion === t) {
            const [c] = running.splice(done, 1);
            finished++;
            c.resolve();
        } else if (timer === t) {
            clock.next();
        } else {
            const i = next++;
            const task = () => {
                starts[i] = Date.now() - origin;
                return new Promise((resolve) => running.push({ at: Date.now() + calls[i].service, sequence: sequence++, resolve }));
            };
            submit(i, task).catch(() => { finished++; }); // dropped (Bottleneck rejects a dropped call)
        }
        await settle();
    }
    process.stdout.write(starts.join('\n') + '\n');
    clock.uninstall();
    process.exit(0); // Bottleneck's heartbeat is a real interval again after uninstall
})().catch((e) => {
    process.stderr.write(String(e && e.stack || e) + '\n');
    process.exit(1);
});
