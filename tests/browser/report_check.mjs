// Opens a loom HTML report in headless Chromium through chromedriver (W3C WebDriver over plain fetch(), no npm
// packages) and checks it the way a person would see it: no script errors, every section and chart present and
// laid out, hover box shows numbers, timeline zoom works, nothing fetched from outside. Saves screenshots.
// usage: node report_check.mjs REPORT.html ARTIFACT_DIR    (exit 0 = all checks passed)
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const [reportPath, artifactDir] = process.argv.slice(2);
if (!reportPath || !artifactDir) {
  console.error("usage: node report_check.mjs REPORT.html ARTIFACT_DIR");
  process.exit(2);
}
const chromium = process.env.LOOM_CHROMIUM || "/usr/bin/chromium";
const driverBin = process.env.LOOM_CHROMEDRIVER || "/usr/bin/chromedriver";
const port = 9600 + Math.floor(Math.random() * 300);
const base = `http://127.0.0.1:${port}`;
const failures = [];
const check = (ok, what) => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(what);
};

async function wd(method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json.value).slice(0, 400)}`);
  return json.value;
}

async function startDriver() {
  const proc = spawn(driverBin, [`--port=${port}`], { stdio: ["ignore", "pipe", "pipe"] });
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(base + "/status");
      if (r.ok && (await r.json()).value.ready) return proc;
    } catch (_) { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill();
  throw new Error(`chromedriver did not start on port ${port}`);
}

const profile = mkdtempSync(join(tmpdir(), "loom-chromium-"));
const driver = await startDriver();
let sid = null;
try {
  const session = await wd("POST", "/session", {
    capabilities: {
      alwaysMatch: {
        browserName: "chrome",
        "goog:chromeOptions": {
          binary: chromium,
          // Needed as root on a bare machine; no network, no background services.
          args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--hide-scrollbars", `--user-data-dir=${profile}`,
                 "--window-size=1400,1000"],
        },
        "goog:loggingPrefs": { browser: "ALL" },
      },
    },
  });
  sid = session.sessionId;
  const s = (p) => `/session/${sid}${p}`;

  // Our own error collector, installed before any of the page's script runs.
  await wd("POST", s("/goog/cdp/execute"), {
    cmd: "Page.addScriptToEvaluateOnNewDocument",
    params: {
      source: `window.__loomErrors = [];
        window.addEventListener("error", e => window.__loomErrors.push("error: " + e.message));
        window.addEventListener("unhandledrejection", e => window.__loomErrors.push("rejection: " + e.reason));
        const ce = console.error; console.error = (...a) => { window.__loomErrors.push("console: " + a.join(" ")); ce(...a); };`,
    },
  });
  await wd("POST", s("/url"), { url: "file://" + resolve(reportPath) });
  const js = (script, args = []) => wd("POST", s("/execute/sync"), { script, args });

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
  const pt = await wd("POST", s("/element"), { using: "css selector", value: "#roofline-h100-sxm .pt-pred" });
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
  const zoomIn = await wd("POST", s("/element"), { using: "css selector", value: "#timeline [data-zoom=in]" });
  await wd("POST", s(`/element/${Object.values(zoomIn)[0]}/click`), {});
  await wd("POST", s(`/element/${Object.values(zoomIn)[0]}/click`), {});
  const after = await js(`const tl = document.querySelector(".tl");
    return { vb: tl.querySelector("svg").getAttribute("viewBox"), axis: tl.querySelector(".tl-axis").textContent,
             zoomed: tl.classList.contains("zoomed"),
             detailVisible: [...tl.querySelectorAll(".tl-detail rect")].some(e => e.getBoundingClientRect().width > 0) };`);
  check(after.vb !== before.vb && / 250 /.test(after.vb), `zoom buttons change the viewBox (${before.vb} -> ${after.vb})`);
  check(after.zoomed && after.axis !== before.axis, "zoomed timeline relabels its time axis");
  check(before.aggVisible && after.detailVisible, "zooming in shows the single events behind the aggregates");
  mkdirSync(artifactDir, { recursive: true });
  const tlFig = await wd("POST", s("/element"), { using: "css selector", value: "#timeline figure" });
  await js("arguments[0].scrollIntoView({ block: 'center' });", [tlFig]);
  writeFileSync(join(artifactDir, "report-timeline-zoomed.png"),
                Buffer.from(await wd("GET", s(`/element/${Object.values(tlFig)[0]}/screenshot`)), "base64"));
  // Wheel over the plot zooms too (as a person would).
  const wheel = await js(`const svg = document.querySelector(".tl svg"); const r = svg.getBoundingClientRect();
    const vb0 = svg.getAttribute("viewBox");
    svg.dispatchEvent(new WheelEvent("wheel", { deltaY: -100, clientX: r.left + r.width / 2, clientY: r.top + 10,
                                               bubbles: true, cancelable: true }));
    return [vb0, svg.getAttribute("viewBox")];`);
  check(wheel[0] !== wheel[1], `wheel zooms the timeline (${wheel[0]} -> ${wheel[1]})`);
  const reset = await wd("POST", s("/element"), { using: "css selector", value: "#timeline [data-zoom=reset]" });
  await wd("POST", s(`/element/${Object.values(reset)[0]}/click`), {});

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
  writeFileSync(join(artifactDir, "report.png"), Buffer.from(await wd("GET", s("/screenshot")), "base64"));
  for (const id of ["roofline", "sol", "scatter", "timeline", "whatif"]) {
    const el = await wd("POST", s("/element"), { using: "css selector", value: "#" + id });
    const png = await wd("GET", s(`/element/${Object.values(el)[0]}/screenshot`));
    writeFileSync(join(artifactDir, `report-${id}.png`), Buffer.from(png, "base64"));
  }
  console.log(`screenshots: ${join(artifactDir, "report.png")} (+ report-<section>.png)`);
} catch (e) {
  check(false, `browser session: ${e.message}`);
} finally {
  if (sid) await wd("DELETE", `/session/${sid}`).catch(() => {});
  driver.kill();
  rmSync(profile, { recursive: true, force: true });
}
console.log(failures.length ? `${failures.length} check(s) failed` : "all browser checks passed");
process.exit(failures.length ? 1 : 0);
