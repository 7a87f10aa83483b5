// Opens a `loom report --validation FILE --gpu G` page in headless Chromium through chromedriver (W3C WebDriver
// over plain fetch(), as report_check.mjs) and checks what a reader needs from it: the predicted-vs-measured
// scatter with one dot per kernel, the analytical-baseline toggle working, measured diamonds on the roofline, and
// no script errors or NaN. usage: node validation_check.mjs REPORT.html ARTIFACT_DIR DOTS DIAMONDS
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const [reportPath, artifactDir, wantDots, wantDiamonds] = process.argv.slice(2);
if (!wantDiamonds) {
  console.error("usage: node validation_check.mjs REPORT.html ARTIFACT_DIR DOTS DIAMONDS");
  process.exit(2);
}
const port = 9300 + Math.floor(Math.random() * 300);
const base = `http://127.0.0.1:${port}`;
const failures = [];
const check = (ok, what) => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(what);
};
async function wd(method, path, body) {
  const res = await fetch(base + path, { method, headers: { "Content-Type": "application/json" },
                                         body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json.value).slice(0, 400)}`);
  return json.value;
}

const driver = spawn(process.env.LOOM_CHROMEDRIVER || "/usr/bin/chromedriver", [`--port=${port}`],
                     { stdio: ["ignore", "pipe", "pipe"] });
const profile = mkdtempSync(join(tmpdir(), "loom-chromium-"));
let sid = null;
try {
  for (let i = 0; i < 100; i++) {
    try { if ((await (await fetch(base + "/status")).json()).value.ready) break; } catch (_) { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  sid = (await wd("POST", "/session", { capabilities: { alwaysMatch: { browserName: "chrome",
    "goog:chromeOptions": { binary: process.env.LOOM_CHROMIUM || "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-dev-shm-usage", "--hide-scrollbars", `--user-data-dir=${profile}`, "--window-size=1400,1000"] },
  } } })).sessionId;
  const s = (p) => `/session/${sid}${p}`;
  await wd("POST", s("/goog/cdp/execute"), { cmd: "Page.addScriptToEvaluateOnNewDocument", params: { source:
    `window.__loomErrors = []; window.addEventListener("error", e => window.__loomErrors.push(e.message));` } });
  await wd("POST", s("/url"), { url: "file://" + resolve(reportPath) });
  const js = (script, args = []) => wd("POST", s("/execute/sync"), { script, args });
  const visible = `(sel) => [...document.querySelectorAll(sel)].filter(e => e.getBoundingClientRect().width > 0).length`;

  const f = await js(`const vis = ${visible};
    const svgs = [...document.querySelectorAll("#scatter svg.chart")].map(e => e.getBoundingClientRect());
    return { scatter: !!document.getElementById("scatter"), panels: svgs.length,
             small: svgs.filter(r => r.width < 200 || r.height < 150).length,
             titles: [...document.querySelectorAll("#scatter .panel-title")].map(e => e.textContent),
             dots: vis("#scatter .pt-scatter"), base: vis("#scatter .pt-base"), diamonds: vis("[id^=roofline-] .pt-meas"),
             bad: /\\bNaN\\b|\\bInfinity\\b|undefined/.test(document.body.innerText),
             errors: window.__loomErrors };`);
  check(f.scatter && f.panels > 0 && f.small === 0, `scatter section with ${f.panels} laid-out panel(s)`);
  check(f.dots === Number(wantDots), `${f.dots} learned-prediction dots visible (want ${wantDots})`);
  check(f.base === Number(wantDots), `${f.base} analytical-baseline rings visible (want ${wantDots})`);
  check(f.titles.length > 0 && f.titles.every((t) => /learned MAPE [0-9.]+%.*analytical [0-9.]+%/.test(t)),
        `panel titles carry both MAPEs (${f.titles[0]})`);
  check(f.diamonds === Number(wantDiamonds), `${f.diamonds} measured diamonds on the roofline (want ${wantDiamonds})`);
  check(!f.bad && f.errors.length === 0, `no NaN/undefined, no script errors (${f.errors.join(" | ") || "none"})`);

  // The legend's baseline entry is a toggle: clicking it hides the analytical rings, clicking again shows them.
  // (Each scatter card has its own toggle; the first card's is clicked.)
  const label = await wd("POST", s("/element"), { using: "css selector", value: "#scatter-0 label.key" });
  const before = await js(`return (${visible})("#scatter-0 .pt-base");`);
  await wd("POST", s(`/element/${Object.values(label)[0]}/click`), {});
  const hidden = await js(`return [(${visible})("#scatter-0 .pt-base"), (${visible})("#scatter .pt-base")];`);
  await wd("POST", s(`/element/${Object.values(label)[0]}/click`), {});
  const shown = await js(`return (${visible})("#scatter .pt-base");`);
  check(before > 0 && hidden[0] === 0 && hidden[1] === Number(wantDots) - before && shown === Number(wantDots),
        `baseline toggle hides the first card's ${before} rings (${hidden[0]} left, others kept: ${hidden[1]}) ` +
        `and shows them again (${shown})`);

  mkdirSync(artifactDir, { recursive: true });
  const el = await wd("POST", s("/element"), { using: "css selector", value: "#scatter" });
  writeFileSync(join(artifactDir, "report-validation-scatter.png"),
                Buffer.from(await wd("GET", s(`/element/${Object.values(el)[0]}/screenshot`)), "base64"));
} catch (e) {
  check(false, `browser session: ${e.message}`);
} finally {
  if (sid) await wd("DELETE", `/session/${sid}`).catch(() => {});
  driver.kill();
  rmSync(profile, { recursive: true, force: true });
}
console.log(failures.length ? `${failures.length} check(s) failed` : "all validation-report checks passed");
process.exit(failures.length ? 1 : 0);
