// Drives a real browser (Debian's Chromium, or Firefox ESR through WebDriver BiDi; headless,
// through puppeteer-core) over pages `ratelab export --html` or `ratelab deck --html` wrote, and
// prints what it found as a JSON array, an object a page: console errors, requests that left the
// file, what the keys and the pointer showed, and axe-core's WCAG 2.1 AA violations. It asserts
// nothing itself: the expected values are tst_browser's, derived by hand there. One browser is
// started for all the pages (a start costs seconds).
//
//   node page.mjs BROWSER KIND FILE.html OUT [KIND FILE.html OUT]...
//   KIND: scenario (the first row's marks by key and pointer), deck (PageDown, PageDown, PageUp),
//   report (a dry run's diff: its counts table sorted by a click, Enter and Space on its headers)
//   or shot (the first row's picture at its own size, written to OUT; OUT is "-" otherwise)
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const puppeteer = require("puppeteer-core");
const axePath = require.resolve("axe-core/axe.min.js");
const [executable, ...jobs] = process.argv.slice(2);
const firefox = executable.includes("firefox");

async function scenario(page, found) {
  const tip = () => page.$eval("#tip", (t) => (t.hidden ? "" : t.textContent));
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
}

async function deck(page, found) {
  const visible = () => page.$$eval(".step", (s) => s.filter((x) => !x.hidden).map((x) => x.id));
  const html = () => page.evaluate(() => document.documentElement.outerHTML);
  found.steps = [await visible()];
  found.pages = [await html()];
  // A step's decisions are decoded after the key: the deck says it is busy until they are in.
  for (const key of ["PageDown", "PageDown", "PageUp"]) {
    await page.keyboard.press(key);
    await page.waitForFunction(() => document.getElementById("deck").getAttribute("aria-busy") === "false");
    found.steps.push(await visible());
    found.pages.push(await html());
  }
}

async function report(page, found) {
  // The table whose caption starts with "Every request": its first column, and each header's aria-sort.
  const table = "Array.from(document.querySelectorAll('table.sortable')).find((t) => t.caption.textContent.startsWith('Every request'))";
  const state = () => page.evaluate(`(() => { const t = ${table};
    return [Array.from(t.tBodies[0].rows, (r) => r.cells[0].textContent).join("|"),
            Array.from(t.tHead.rows[0].cells, (c) => c.getAttribute("aria-sort")).join(",")]; })()`);
  const button = (i) => page.evaluateHandle(`(${table}).tHead.rows[0].cells[${i}].querySelector("button")`);
  found.sorts = [await state()];
  await (await button(1)).click();
  found.sorts.push(await state());
  await (await button(1)).focus();
  await page.keyboard.press("Enter");
  found.sorts.push(await state());
  await (await button(0)).focus();
  await page.keyboard.press(" "); // "Space" is CDP's name only; WebDriver BiDi knows the character
  found.sorts.push(await state());
}

async function shot(page, out) {
  // One CSS pixel a unit of the SVG (the row's pixels as laid out), as the app draws it.
  const svg = await page.$(".plot svg");
  await svg.evaluate((e) => { e.style.width = e.viewBox.baseVal.width + "px"; });
  await svg.screenshot({ path: out });
}

async function visit(browser, kind, file, out) {
  const found = { errors: [], requests: [], shown: [], axe: [] };
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 720 });
  page.on("console", (m) => { if (m.type() === "error") found.errors.push(m.text()); });
  page.on("pageerror", (e) => found.errors.push(String(e)));
  page.on("request", (r) => { if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) found.requests.push(r.url()); });
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
  // The marks are unpacked as the page loads: the body is busy until they are.
  await page.waitForFunction(() => document.body.getAttribute("aria-busy") === "false");
  if (kind === "scenario") await scenario(page, found);
  else if (kind === "deck") await deck(page, found);
  else if (kind === "report") await report(page, found);
  else await shot(page, out);
  await page.addScriptTag({ path: axePath });
  const result = await page.evaluate(() => window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } }));
  found.axe = result.violations.map((v) => v.id + ": " + v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", "));
  await page.close();
  return found;
}

const browser = await puppeteer.launch({
  executablePath: executable,
  browser: firefox ? "firefox" : "chrome",
  headless: true,
  args: firefox ? [] : ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions"],
});
const all = [];
try {
  for (let i = 0; i + 2 < jobs.length; i += 3) all.push(await visit(browser, jobs[i], jobs[i + 1], jobs[i + 2]));
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(all));
