// Drives Debian's Chromium (headless, through puppeteer-core) over a page `ratelab export --html`
// or `ratelab deck --html` wrote, and prints what it found as one JSON object for tst_browser to
// check: console errors, requests that left the file, what the keys and the pointer showed, and
// axe-core's WCAG 2.1 AA violations. It asserts nothing itself: the expected values are the
// test's, derived by hand there.
//
//   node page.mjs scenario|deck FILE.html BROWSER   (Chromium, or Firefox through WebDriver BiDi)
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const puppeteer = require("puppeteer-core");
const axePath = require.resolve("axe-core/axe.min.js");
const [kind, file, executable] = process.argv.slice(2);
const firefox = executable.includes("firefox");

const found = { errors: [], requests: [], shown: [], axe: [] };
const browser = await puppeteer.launch({
  executablePath: executable,
  browser: firefox ? "firefox" : "chrome",
  headless: true,
  args: firefox ? [] : ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions"],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 720 });
  page.on("console", (m) => { if (m.type() === "error") found.errors.push(m.text()); });
  page.on("pageerror", (e) => found.errors.push(String(e)));
  page.on("request", (r) => { if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) found.requests.push(r.url()); });
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
  const tip = () => page.$eval("#tip", (t) => (t.hidden ? "" : t.textContent));
  const html = () => page.evaluate(() => document.documentElement.outerHTML);
  if (kind === "scenario") {
    await page.keyboard.press("Tab"); // the first row's marks
    found.shown.push(await tip());
    for (let i = 0; i < 3; ++i) await page.keyboard.press("ArrowRight");
    found.shown.push(await tip());
    // The pointer on the mark the ring circles shows the same words, with no focus.
    const ring = await page.$eval("#ring", (r) => { const b = r.getBoundingClientRect(); return { x: b.x + b.width / 2, y: b.y + b.height / 2 }; });
    await page.evaluate(() => document.activeElement.blur());
    found.shown.push(await tip());
    await page.mouse.move(ring.x, ring.y);
    found.shown.push(await tip());
  } else {
    const visible = () => page.$$eval(".step", (s) => s.filter((x) => !x.hidden).map((x) => x.id));
    found.steps = [await visible()];
    found.pages = [await html()];
    // A step's decisions are decoded after the key: the deck says it is busy until they are in.
    const press = async (key) => {
      await page.keyboard.press(key);
      await page.waitForFunction(() => document.getElementById("deck").getAttribute("aria-busy") === "false");
      found.steps.push(await visible());
      found.pages.push(await html());
    };
    await press("PageDown");
    await press("PageDown");
    await press("PageUp");
  }
  await page.addScriptTag({ path: axePath });
  const result = await page.evaluate(() => window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } }));
  found.axe = result.violations.map((v) => v.id + ": " + v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", "));
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(found));
