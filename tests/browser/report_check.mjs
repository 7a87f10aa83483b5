// Opens a loom HTML report in headless Chromium (tests/browser/webdriver.mjs) and checks it the way a person would
// see it: no script errors, every section and chart present and laid out, hover box shows numbers, timeline zoom
// works, nothing fetched from outside. Saves screenshots.
// usage: node report_check.mjs REPORT.html ARTIFACT_DIR    (exit 0 = all checks passed)
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { runBrowserChecks } from "./webdriver.mjs";

const [reportPath, artifactDir] = process.argv.slice(2);
if (!reportPath || !artifactDir) {
  console.error("usage: node report_check.mjs REPORT.html ARTIFACT_DIR");
  process.exit(2);
}
await runBrowserChecks(reportPath, async ({ check, wd, s, js, find, click, screenshot }) => {

  const facts = await js(`
    const ids = ["roofline", "sol", "scatter", "timeline", "whatif", "demo-banner"];
    const charts = [...document.querySelectorAll("svg.chart, svg.tl-plot")].map(el => {
      const r = el.getBoundingClientRect(); return { id: el.id, w: r.width, h: r.height }; });
    return {
      title: document.title,
      missing: ids.filter(id => !document.getElementById(id)),
      rooflines: [...document.querySelectorAll("[id^=roofline-]")].filter(e => e.tagName === "FIGURE").map(e => e.id),
      charts,
      tips: document.querySelectorAll("[data-tip]").length,
      leftoverTitles: document.querySelectorAll("[data-tip] > title").length,
      badText: /\\bNaN\\b|\\bInfinity\\b|undefined/.test(document.body.innerText),
      badAttr: [...document.querySelectorAll("svg *")].some(e => [...e.attributes].some(a => /NaN|Infinity/.test(a.value))),
      external: performance.getEntriesByType("resource").map(r => r.name).filter(n => !/^(file|data|blob):/.test(n)),
      height: document.documentElement.scrollHeight,
      errors: window.__loomErrors,
    };`);
  check(facts.missing.length === 0, `sections present (missing: ${facts.missing.join(", ") || "none"})`);
  check(facts.rooflines.includes("roofline-h100-sxm"), `roofline per GPU (${facts.rooflines.join(", ")})`);
  const tiny = facts.charts.filter((c) => c.w < 200 || c.h < 40);
  check(facts.charts.length >= 8 && tiny.length === 0,
        `${facts.charts.length} charts laid out (too small: ${JSON.stringify(tiny)})`);
  check(facts.tips > 100, `${facts.tips} elements carry hover tips`);
  check(facts.leftoverTitles === 0, "script replaced native <title> tooltips with the hover box");
  check(!facts.badText && !facts.badAttr, "no NaN/Infinity/undefined in text or SVG attributes");
  check(facts.external.length === 0, `no external requests (${facts.external.join(", ") || "none"})`);

  // Hover a predicted point on the roofline: the hover box must show its numbers.
  const pt = await find("#roofline-h100-sxm .pt-pred");
  await wd("POST", s("/actions"), { actions: [{ type: "pointer", id: "mouse", parameters: { pointerType: "mouse" },
    actions: [{ type: "pointerMove", duration: 0, origin: pt, x: 0, y: 0 }] }] });
  const tip = await js(`const t = document.getElementById("loom-tip"); return { hidden: t.hidden, text: t.textContent };`);
  check(!tip.hidden && /FLOP\/s/.test(tip.text) && /intensity/.test(tip.text),
        `hover box on a roofline point shows numbers (${JSON.stringify(tip.text.slice(0, 80))})`);
  await wd("DELETE", s("/actions"));

  // Timeline: zoom in twice with the button (4x) -> view narrows, single events replace aggregates, axis relabels.
  const before = await js(`const tl = document.querySelector(".tl");
    return { vb: tl.querySelector("svg").getAttribute("viewBox"), axis: tl.querySelector(".tl-axis").textContent,
             aggVisible: [...tl.querySelectorAll(".tl-agg")].some(e => e.getBoundingClientRect().width > 0) };`);
  const zoomIn = await find("#timeline [data-zoom=in]");
  await click(zoomIn);
  await click(zoomIn);
  const after = await js(`const tl = document.querySelector(".tl");
    return { vb: tl.querySelector("svg").getAttribute("viewBox"), axis: tl.querySelector(".tl-axis").textContent,
             zoomed: tl.classList.contains("zoomed"),
             detailVisible: [...tl.querySelectorAll(".tl-detail rect")].some(e => e.getBoundingClientRect().width > 0) };`);
  check(after.vb !== before.vb && / 250 /.test(after.vb), `zoom buttons change the viewBox (${before.vb} -> ${after.vb})`);
  check(after.zoomed && after.axis !== before.axis, "zoomed timeline relabels its time axis");
  check(before.aggVisible && after.detailVisible, "zooming in shows the single events behind the aggregates");
  mkdirSync(artifactDir, { recursive: true });
  const tlFig = await find("#timeline figure");
  await js("arguments[0].scrollIntoView({ block: 'center' });", [tlFig]);
  await screenshot(tlFig, join(artifactDir, "report-timeline-zoomed.png"));
  // Wheel over the plot zooms too (as a person would).
  const wheel = await js(`const svg = document.querySelector(".tl svg"); const r = svg.getBoundingClientRect();
    const vb0 = svg.getAttribute("viewBox");
    svg.dispatchEvent(new WheelEvent("wheel", { deltaY: -100, clientX: r.left + r.width / 2, clientY: r.top + 10,
                                               bubbles: true, cancelable: true }));
    return [vb0, svg.getAttribute("viewBox")];`);
  check(wheel[0] !== wheel[1], `wheel zooms the timeline (${wheel[0]} -> ${wheel[1]})`);
  await click(await find("#timeline [data-zoom=reset]"));

  // Errors: our collector, and Chromium's own console log (SEVERE = errors, failed loads).
  const errors = await js("return window.__loomErrors;");
  let severe = [];
  try {
    severe = (await wd("POST", s("/se/log"), { type: "browser" })).filter((e) => e.level === "SEVERE");
  } catch (e) {
    console.log(`note: browser log not available (${e.message.slice(0, 80)})`);
  }
  check(errors.length === 0, `no script errors (${errors.join(" | ") || "none"})`);
  check(severe.length === 0, `no console errors (${severe.map((e) => e.message).join(" | ") || "none"})`);

  // Screenshots: the whole page, then each section at full resolution.
  mkdirSync(artifactDir, { recursive: true });
  const h = Math.min(Math.ceil(facts.height) + 20, 16000);
  await wd("POST", s("/window/rect"), { width: 1400, height: h });
  await js("window.scrollTo(0, 0);");
  await screenshot(null, join(artifactDir, "report.png"));
  for (const id of ["roofline", "sol", "scatter", "timeline", "whatif"])
    await screenshot(await find("#" + id), join(artifactDir, `report-${id}.png`));
  console.log(`screenshots: ${join(artifactDir, "report.png")} (+ report-<section>.png)`);
}, { portBase: 9600, passed: "all browser checks passed" });
