// Opens a `loom report --validation FILE --gpu G` page in headless Chromium (tests/browser/webdriver.mjs) and checks
// what a reader needs from it: the predicted-vs-measured scatter with one dot per kernel, the analytical-baseline
// toggle working, measured diamonds on the roofline, and no script errors or NaN.
// usage: node validation_check.mjs REPORT.html ARTIFACT_DIR DOTS DIAMONDS
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { runBrowserChecks } from "./webdriver.mjs";

const [reportPath, artifactDir, wantDots, wantDiamonds] = process.argv.slice(2);
if (!wantDiamonds) {
  console.error("usage: node validation_check.mjs REPORT.html ARTIFACT_DIR DOTS DIAMONDS");
  process.exit(2);
}
await runBrowserChecks(reportPath, async ({ check, js, find, click, screenshot }) => {
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
  const label = await find("#scatter-0 label.key");
  const before = await js(`return (${visible})("#scatter-0 .pt-base");`);
  await click(label);
  const hidden = await js(`return [(${visible})("#scatter-0 .pt-base"), (${visible})("#scatter .pt-base")];`);
  await click(label);
  const shown = await js(`return (${visible})("#scatter .pt-base");`);
  check(before > 0 && hidden[0] === 0 && hidden[1] === Number(wantDots) - before && shown === Number(wantDots),
        `baseline toggle hides the first card's ${before} rings (${hidden[0]} left, others kept: ${hidden[1]}) ` +
        `and shows them again (${shown})`);

  mkdirSync(artifactDir, { recursive: true });
  await screenshot(await find("#scatter"), join(artifactDir, "report-validation-scatter.png"));
}, { portBase: 9300, passed: "all validation-report checks passed" });
