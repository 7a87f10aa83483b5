// Shared harness of the browser checks: starts chromedriver, opens one page in headless Chromium (W3C WebDriver
// over plain fetch(), no npm packages) with an error collector installed before the page's own script, hands the
// check body a small API, then tears everything down and exits 0 only when every check passed.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export async function runBrowserChecks(pagePath, body, { portBase = 9300, passed = "all checks passed" } = {}) {
  const port = portBase + Math.floor(Math.random() * 300);
  const base = `http://127.0.0.1:${port}`;
  const failures = [];
  const check = (ok, what) => {
    console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
    if (!ok) failures.push(what);
  };
  async function wd(method, path, b) {
    const res = await fetch(base + path, { method, headers: { "Content-Type": "application/json" },
                                           body: b === undefined ? undefined : JSON.stringify(b) });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json.value).slice(0, 400)}`);
    return json.value;
  }
  const driver = spawn(process.env.LOOM_CHROMEDRIVER || "/usr/bin/chromedriver", [`--port=${port}`],
                       { stdio: ["ignore", "pipe", "pipe"] });
  const profile = mkdtempSync(join(tmpdir(), "loom-chromium-"));
  let sid = null;
  try {
    let ready = false;
    for (let i = 0; i < 100 && !ready; i++) {
      try { ready = (await (await fetch(base + "/status")).json()).value.ready; } catch (_) { /* not up yet */ }
      if (!ready) await new Promise((r) => setTimeout(r, 100));
    }
    if (!ready) throw new Error(`chromedriver did not start on port ${port}`);
    sid = (await wd("POST", "/session", { capabilities: { alwaysMatch: { browserName: "chrome",
      "goog:chromeOptions": { binary: process.env.LOOM_CHROMIUM || "/usr/bin/chromium",
        // Needed as root on a bare machine; no network, no background services.
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-dev-shm-usage", "--hide-scrollbars", `--user-data-dir=${profile}`, "--window-size=1400,1000"] },
      "goog:loggingPrefs": { browser: "ALL" } } } })).sessionId;
    const s = (p) => `/session/${sid}${p}`;
    // Our own error collector (window.__loomErrors), installed before any of the page's script runs.
    await wd("POST", s("/goog/cdp/execute"), { cmd: "Page.addScriptToEvaluateOnNewDocument", params: { source:
      `window.__loomErrors = [];
       window.addEventListener("error", e => window.__loomErrors.push("error: " + e.message));
       window.addEventListener("unhandledrejection", e => window.__loomErrors.push("rejection: " + e.reason));
       const ce = console.error; console.error = (...a) => { window.__loomErrors.push("console: " + a.join(" ")); ce(...a); };` } });
    await wd("POST", s("/url"), { url: "file://" + resolve(pagePath) });
    const js = (script, args = []) => wd("POST", s("/execute/sync"), { script, args });
    const find = (selector) => wd("POST", s("/element"), { using: "css selector", value: selector });
    const id = (el) => Object.values(el)[0];
    const click = (el) => wd("POST", s(`/element/${id(el)}/click`), {});
    const screenshot = async (el, path) =>
      writeFileSync(path, Buffer.from(await wd("GET", el ? s(`/element/${id(el)}/screenshot`) : s("/screenshot")), "base64"));
    await body({ check, wd, s, js, find, click, screenshot });
  } catch (e) {
    check(false, `browser session: ${e.message}`);
  } finally {
    if (sid) await wd("DELETE", `/session/${sid}`).catch(() => {});
    driver.kill();
    rmSync(profile, { recursive: true, force: true });
  }
  console.log(failures.length ? `${failures.length} check(s) failed` : passed);
  process.exit(failures.length ? 1 : 0);
}
