// RateLab: a service's call of the server-clock limiter script (Node.js, ioredis: npm install ioredis).
//   @COMMAND@ > ratelab.lua
//   REDIS_URL=redis://localhost:6379 RATELAB_SCRIPT=ratelab.lua node caller.js user:42 3
const fs = require("fs");
const Redis = require("ioredis");

const LAYERS = @LAYERS@;
const url = process.env.REDIS_URL || "redis://localhost:6379";
const redis = url.startsWith("unix://") ? new Redis({ path: url.slice(7) }) : new Redis(url);
const SCRIPT = fs.readFileSync(process.env.RATELAB_SCRIPT || "ratelab.lua", "utf8");
let sha;

// One key per layer, all with the same {hash tag}: one slot in Redis Cluster.
function keysFor(id) {
  if (LAYERS === 1) return [`rl:{${id}}`];
  return Array.from({ length: LAYERS }, (_, i) => `rl:{${id}}:${i + 1}`);
}

// check decides one request of `id`: the HTTP status and the headers to send.
async function check(id, cost = 1) {
  const keys = keysFor(id);
  let v;
  try {
    v = await redis.evalsha(sha, keys.length, ...keys, cost);
  } catch (e) {
    if (!String(e.message).startsWith("NOSCRIPT")) throw e;
    v = await redis.eval(SCRIPT, keys.length, ...keys, cost); // restarted or failed over
  }
  const [allowed, remaining, , retryS, limit, , resetS, resetAt] = v;
  const headers = {
    "X-RateLimit-Limit": String(limit),
    "X-RateLimit-Remaining": String(remaining),
    "X-RateLimit-Reset": String(resetAt),
    RateLimit: `"default";r=${remaining};t=${resetS}`,
  };
  if (!allowed && retryS > 0) headers["Retry-After"] = String(retryS); // -1: no wait helps
  return [allowed ? 200 : 429, headers];
}

(async () => {
  sha = await redis.script("LOAD", SCRIPT); // once; EVALSHA then sends 40 bytes
  const id = process.argv[2] || "user:42";
  const n = Number(process.argv[3] || 1);
  for (let i = 0; i < n; i++) {
    const [status, headers] = await check(id);
    console.log(`HTTP/1.1 ${status} ${status === 200 ? "OK" : "Too Many Requests"}`);
    for (const [name, value] of Object.entries(headers)) console.log(`${name}: ${value}`);
    console.log();
  }
  redis.disconnect();
})().catch((e) => {
  // WRONGTYPE, OOM, no connection: an error, never a 429.
  console.error(`caller.js: Redis answered an error, not a decision: ${e.message}`);
  process.exit(1);
});
