// Runs express-rate-limit's own middleware (default MemoryStore) on the arrival times read from
// stdin (whole milliseconds, one a line), with Date.now() replaced by them as its own tests do
// (fake timers), and prints 1 (passed on to next) or 0 (the handler answered 429) per arrival.
// Usage: node express_peer.js WINDOW_MS LIMIT < times_ms
'use strict';
const base = 1700000000000;
let now = base;
Date.now = () => now;
const { rateLimit } = require('express-rate-limit');
const [windowMs, limit] = process.argv.slice(2).map(Number);
const middleware = rateLimit({
    windowMs, limit, keyGenerator: () => 'key', validate: false, standardHeaders: false, legacyHeaders: false,
    handler: (req, res) => { res.limited = true; },
});
const times = require('fs').readFileSync(0, 'utf8').split('\n').filter((l) => l.length > 0).map(Number);
(async () => {
    const out = [];
    for (const t of times) {
        now = base + t;
        const req = { ip: '192.0.2.1', headers: {}, app: { get: () => false } };
        const res = { limited: false, headersSent: false, statusCode: 200, setHeader() {}, getHeader() {},
                      append() {}, status() { return this; }, send() {}, on() {}, once() {} };
        let passed = false;
        await middleware(req, res, () => { passed = true; });
        if (passed === res.limited)
            throw new Error('neither passed nor limited at ' + t);
        out.push(passed ? '1' : '0');
    }
    process.stdout.write(out.join('\n') + '\n');
})();
