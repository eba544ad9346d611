#include "window/webpage_assets.h"

namespace ratelab::ui {

// The page is in the exported theme (--theme), not the reader's preference: its pictures are
// the app's, drawn in that theme's colours, and text on them must keep their contrast.
const char* const kPageStyle = R"css(
:root { color-scheme: @SCHEME@; }
body { margin: 0 auto; max-width: 1600px; padding: 8px 16px 48px; background: @BASE@; color: @TEXT@;
       font: 16px/1.45 system-ui, sans-serif; }
h1 { font-size: 1.5em; margin: 0.3em 0; }
h2 { font-size: 1.3em; margin: 0.2em 0; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.title { font-weight: bold; margin: 0.3em 0; }
.legend svg { display: block; height: auto; max-width: 100%; margin-left: auto; }
.plot, .axis { position: relative; }
.plot svg, .axis svg { display: block; width: 100%; height: auto; }
.plot:focus-visible, button:focus-visible { outline: 3px solid @FOCUS@; outline-offset: 2px; }
table { border-collapse: collapse; margin: 12px 0; font-size: 0.9em; }
th, td { padding: 2px 10px; border-bottom: 1px solid; text-align: right; }
th[scope=row], thead th:first-child { text-align: left; }
#tip { position: absolute; z-index: 2; max-width: min(42em, 90vw); padding: 6px 8px; background: @BASE@; color: @TEXT@;
       border: 1px solid @TEXT@; border-radius: 4px; white-space: pre-wrap; font: 13px/1.35 ui-monospace, monospace;
       pointer-events: none; box-shadow: 0 2px 8px rgba(0, 0, 0, 0.3); }
#ring { position: absolute; z-index: 1; width: 14px; height: 14px; margin: -9px 0 0 -9px; border: 2px solid @TEXT@;
        border-radius: 50%; pointer-events: none; }
nav { position: sticky; top: 0; z-index: 3; background: @BASE@; padding: 6px 0; }
button { font: inherit; padding: 4px 12px; color: @TEXT@; background: @BASE@; border: 1px solid @TEXT@; border-radius: 4px; }
.where { margin: 0.5em 0 0; }
.step { border-top: 1px solid; margin-top: 12px; }
caption { text-align: left; font-weight: bold; padding: 4px 0; }
th button { font: inherit; font-weight: bold; padding: 0; border: 0; background: none; color: inherit; cursor: pointer; text-align: inherit; }
th[aria-sort=ascending] button::after { content: " \25B2"; }
th[aria-sort=descending] button::after { content: " \25BC"; }
figure { margin: 8px 0; max-width: 728px; }
figure svg { display: block; width: 100%; height: auto; }
.notice { border: 2px solid; padding: 0 12px; margin: 12px 0; }
)css";

// The script only shows: the marks' words under the pointer or the keyboard, and a deck's steps
// one at a time, a step's sealed decisions decoded when it is revealed. It decides nothing. Its
// functions are JavaScript, shipped as written in one page: their length is the page's, not C++'s.
const char* const kPageScript = R"js(
"use strict";
// The marks: a row's words under the pointer (or a tap), or under the keyboard once Tab has
// reached the row (Left, Right, Home, End), beside a ring around the mark. They are unpacked as
// the page loads, the body aria-busy until then.
(function () {
  const tip = document.getElementById("tip"), ring = document.getElementById("ring"), live = document.getElementById("live");
  const plotOf = (e) => (e.target.closest ? e.target.closest(".plot[data-reach]") : null);
  // inflate reads what Qt's qCompress wrote (the length in 4 bytes, then a zlib stream).
  window.ratelabInflate = function (bytes) {
    const text = new Blob([bytes.subarray(4)]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(text).text();
  };
  // ratelabMarks unpacks the marks of every row under `root`, each kept beside its row.
  window.ratelabMarks = function (root) {
    return Promise.all(Array.prototype.map.call(root.querySelectorAll(".plot[data-reach]"), async function (plot) {
      const packed = plot.parentNode.querySelector("script.marks");
      const bytes = Uint8Array.from(atob(packed.textContent.trim()), (c) => c.charCodeAt(0));
      plot.marks = JSON.parse(await window.ratelabInflate(bytes));
    }));
  };
  const marksOf = (plot) => plot.marks || [];
  window.ratelabMarks(document).then(() => document.body.setAttribute("aria-busy", "false"));
  // frame maps the SVG's own units (the row's pixels as the app drew them) to the page.
  function frame(plot) {
    const svg = plot.querySelector("svg"), box = svg.getBoundingClientRect(), view = svg.viewBox.baseVal;
    return { box: box, view: view, k: box.width / view.width };
  }
  function hide() { tip.hidden = true; ring.hidden = true; }
  window.ratelabHide = hide;
  function show(plot, i) {
    const m = marksOf(plot)[i];
    if (!m) { hide(); return; }
    plot.at = i;
    const f = frame(plot);
    const x = window.scrollX + f.box.left + (m[0] - f.view.x) * f.k, y = window.scrollY + f.box.top + (m[1] - f.view.y) * f.k;
    ring.style.left = x + "px"; ring.style.top = y + "px"; ring.hidden = false;
    tip.textContent = m[2]; tip.hidden = false;
    const room = document.documentElement.clientWidth + window.scrollX;
    tip.style.left = Math.max(window.scrollX + 4, Math.min(x + 14, room - tip.offsetWidth - 8)) + "px";
    tip.style.top = (y + 16) + "px";
    if (document.activeElement === plot) live.textContent = m[2];
  }
  function nearest(plot, clientX) {
    const f = frame(plot), x = (clientX - f.box.left) / f.k + f.view.x, reach = Number(plot.dataset.reach);
    let best = -1, distance = reach;
    marksOf(plot).forEach(function (m, i) {
      const d = Math.abs(m[0] - x);
      if (d <= distance) { distance = d; best = i; }
    });
    return best;
  }
  function point(e) {
    const plot = plotOf(e);
    if (!plot) { if (!document.activeElement || !document.activeElement.matches(".plot")) hide(); return; }
    const i = nearest(plot, e.clientX);
    if (i < 0) hide(); else show(plot, i);
  }
  document.addEventListener("mousemove", point);
  document.addEventListener("click", point);
  document.addEventListener("focusin", function (e) { const plot = plotOf(e); if (plot) show(plot, plot.at || 0); });
  document.addEventListener("focusout", hide);
  window.addEventListener("resize", hide);
  document.addEventListener("keydown", function (e) {
    const plot = plotOf(e), keys = ["ArrowLeft", "ArrowRight", "Home", "End"];
    if (e.key === "Escape") hide();
    if (!plot || e.altKey || e.ctrlKey || e.metaKey || keys.indexOf(e.key) < 0) return;
    const n = marksOf(plot).length, i = plot.at || 0;
    show(plot, e.key === "Home" ? 0 : e.key === "End" ? n - 1 : Math.max(0, Math.min(n - 1, i + (e.key === "ArrowRight" ? 1 : -1))));
    e.preventDefault(); // the deck's keys leave it alone
  });
})();

// A deck: one step at a time with presentation mode's keys; a step's sealed decisions (its JSON,
// compressed, XORed with the page's key, in base64) decoded into the page when it is shown or
// revealed, and taken out again when it is left. The deck is aria-busy while a step is decoded.
(function () {
  const deck = document.getElementById("deck");
  if (!deck) return;
  const steps = Array.prototype.slice.call(deck.querySelectorAll(".step"));
  const key = Uint8Array.from(atob(deck.dataset.key), (c) => c.charCodeAt(0));
  let at = 0, revealed = false, turn = 0;
  async function unseal(step) {
    const sealed = step.querySelector("script.sealed");
    if (!sealed) return null;
    const bytes = Uint8Array.from(atob(sealed.textContent.trim()), (c, i) => c.charCodeAt(0) ^ key[i % key.length]);
    return JSON.parse(await window.ratelabInflate(bytes));
  }
  function veil(step, veiled) {
    if (veiled) { step.querySelector(".revealed").innerHTML = ""; step.querySelector(".answer").innerHTML = ""; }
    const cover = step.querySelector(".veiled");
    if (cover) cover.hidden = !veiled;
  }
  // reveal puts the step's decisions in, unless another key came first.
  async function reveal(step) {
    const mine = ++turn;
    deck.setAttribute("aria-busy", "true");
    const data = await unseal(step);
    if (mine !== turn) return;
    if (data) {
      step.querySelector(".revealed").innerHTML = data.chart;
      if (data.answer) step.querySelector(".answer").innerHTML = data.answer;
      veil(step, false);
      await window.ratelabMarks(step.querySelector(".revealed"));
      if (mine !== turn) return;
    }
    deck.setAttribute("aria-busy", "false");
  }
  function go(i) {
    window.ratelabHide();
    ++turn;
    if (steps[at].querySelector("script.sealed")) veil(steps[at], true); // asked again, as presentation mode's step back
    at = i; revealed = false;
    steps.forEach((s, k) => { s.hidden = k !== i; });
    const step = steps[i];
    document.getElementById("at").textContent = step.querySelector(".where").textContent;
    window.scrollTo(0, 0);
    deck.setAttribute("aria-busy", "false");
    if (step.dataset.asks !== "yes") { revealed = true; reveal(step); }
  }
  function next() {
    const step = steps[at];
    if (!revealed && step.querySelector("script.sealed")) { revealed = true; reveal(step); return; }
    if (at + 1 < steps.length) go(at + 1);
  }
  function previous() { if (at > 0) go(at - 1); }
  go(0);
  document.getElementById("next").addEventListener("click", next);
  document.getElementById("prev").addEventListener("click", previous);
  document.addEventListener("keydown", function (e) {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target.matches && e.target.matches("button") && (e.key === " " || e.key === "Enter")) return; // the button's own
    if (["PageDown", " ", "ArrowRight", "ArrowDown", "Enter"].indexOf(e.key) >= 0) { next(); e.preventDefault(); }
    else if (["PageUp", "ArrowLeft", "ArrowUp", "Backspace"].indexOf(e.key) >= 0) { previous(); e.preventDefault(); }
  });
})();

// A report's tables: pressing a column's header button sorts the rows by that column, descending
// first where the column is numbers (most denied on top), ascending else, then the other way;
// the header's aria-sort says how. Equal rows keep their order (Array.prototype.sort is stable).
(function () {
  document.querySelectorAll("table.sortable").forEach(function (table) {
    const heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
    heads.forEach(function (th, col) {
      th.querySelector("button").addEventListener("click", function () {
        const body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        const value = (row) => (row.cells[col].dataset.v !== undefined ? Number(row.cells[col].dataset.v) : row.cells[col].textContent);
        const numbers = rows.length > 0 && typeof value(rows[0]) === "number";
        const now = th.getAttribute("aria-sort");
        const descending = now === "none" ? numbers : now === "ascending";
        heads.forEach((h) => h.setAttribute("aria-sort", "none"));
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
        rows.sort(function (a, b) {
          const x = value(a), y = value(b);
          const d = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
          return descending ? -d : d;
        });
        rows.forEach((r) => body.appendChild(r));
      });
    });
  });
})();
)js";

} // namespace ratelab::ui
