// The report page's inline stylesheet and script (system fonts only, no external resources). Internal to
// src/report; html.cpp pastes both into every page.
#pragma once

namespace loom::report {

inline constexpr const char* kPageCss = R"css(
:root{--ink:#1f2937;--muted:#6b7280;--line:#e5e7eb;--bg:#f5f6f8;--card:#fff;--hot:#D55E00}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,
"Helvetica Neue",Arial,sans-serif}
header,main,footer{max-width:1280px;margin:0 auto;padding:0 20px}
header{padding-top:22px}
h1{font-size:24px;margin:0 0 4px}
h2{font-size:19px;margin:30px 0 4px;padding-top:6px;border-top:1px solid var(--line)}
.subtitle{color:var(--muted);margin:0 0 8px}
.demo{background:#fff7e0;border:1px solid #e6c15a;border-radius:6px;padding:8px 12px;margin:8px 0}
nav{display:flex;flex-wrap:wrap;gap:6px;margin:10px 0 0}
nav a{color:#0b5c96;text-decoration:none;background:#fff;border:1px solid var(--line);border-radius:999px;
padding:3px 12px;font-size:13px}
nav a:hover{border-color:#0072B2}
.lead{color:var(--muted);margin:2px 0 12px;max-width:900px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;margin:0 0 16px;padding:12px 14px;
min-width:0}
figcaption{font-weight:600;font-size:15px;margin-bottom:4px;overflow-wrap:anywhere}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1f3f5;padding:1px 4px;
border-radius:4px}
.muted{color:var(--muted);font-weight:400}
.hot{color:var(--hot)}
.note{color:#8a4b00;font-size:12.5px;margin:6px 0 0}
.empty{color:var(--muted);font-style:italic}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:16px}
.grid2 .card{margin:0}
svg.chart{display:block;width:100%;height:auto;max-width:980px;overflow:visible}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12.5px;color:#374151;margin:4px 0 6px}
.key{display:inline-flex;align-items:center;gap:5px}
.sw{display:inline-block;width:11px;height:11px;border-radius:2px}
.sw.agg{background:#9ca3af}
.mk{display:inline-block;width:10px;height:10px}
.mk.ring{border:2px solid #374151;border-radius:50%}
.mk.dia{background:#374151;transform:rotate(45deg) scale(.8)}
.panels{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:10px 18px}
.panel-title{font-size:13px;font-weight:600;text-align:center;margin-top:6px}
.chart text{font-family:inherit}
.grid{stroke:var(--line);stroke-width:1}
.frame{stroke:#9ca3af;stroke-width:1}
.tick{stroke:#9ca3af}
.tick-label{font-size:11px;fill:#4b5563}
.axis-title{font-size:12px;fill:#374151}
.roof-dram,.roof-compute{stroke:#111827;stroke-width:2.2;fill:none}
.roof-l2{stroke:#111827;stroke-width:1.4;stroke-dasharray:7 4}
.roof-compute-lo{stroke:#4b5563;stroke-width:1.4;stroke-dasharray:3 3}
.roof-label{font-size:11.5px;fill:#111827;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
.pt-pred{fill:#fff;fill-opacity:.9;stroke-width:2.2}
.pt-meas{stroke:#fff;stroke-width:1}
.link{stroke-width:1.2;opacity:.75}
.band25{fill:#0072B2;opacity:.07}
.band10{fill:#0072B2;opacity:.12}
.band-label{font-size:10.5px;fill:var(--muted)}
.identity{stroke:#374151;stroke-width:1.2;stroke-dasharray:5 3}
.pt-scatter{fill-opacity:.85;stroke:#fff;stroke-width:.8}
.pt-base{fill:none;stroke-width:1.3;opacity:.45}
.mk.dot{background:#374151;border-radius:50%}
.mk.ring.lite{opacity:.5}
.base-toggle{position:absolute;opacity:0;pointer-events:none}
.base-toggle:not(:checked)~.panels .pt-base{display:none}
.base-toggle:not(:checked)~.legend label.key{opacity:.45;text-decoration:line-through}
label.key{cursor:pointer}
.toggle-hint{color:var(--muted);font-size:11.5px}
.bar{fill:#8fa3b8}
.bar-hot{fill:var(--hot)}
.bar-label{font-size:13px;fill:#374151}
.strong{font-weight:700;fill:#111827}
.bar-value{font-size:12px;fill:#374151}
.bar-value.small{font-size:10.5px}
.halo{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
.ceiling-line{stroke:#374151;stroke-width:1.3;stroke-dasharray:5 3}
.measured-line{stroke:#111827;stroke-width:2}
.measured-mark{fill:#111827}
.marker-label{font-size:12px;fill:#374151}
.row-rule{stroke:#f1f2f4}
.zero-line{stroke:#374151;stroke-width:1.3}
.sens-ttft{fill:#0072B2;background:#0072B2}
.sens-tpot{fill:#E69F00;background:#E69F00}
.table-wrap{overflow-x:auto}
table.ranked{border-collapse:collapse;width:100%;font-size:13px}
table.ranked th{text-align:left;border-bottom:2px solid #d1d5db;padding:6px 10px;white-space:nowrap;
background:#f9fafb}
table.ranked td{border-bottom:1px solid var(--line);padding:5px 10px}
table.ranked td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.ranked tbody tr:first-child td{background:#eef6fb;font-weight:600}
table.ranked tbody tr:hover td{background:#f3f4f6}
.tl-controls{display:flex;gap:8px;align-items:center;margin:4px 0 8px;font-size:12.5px}
.tl-controls button{font:inherit;border:1px solid #d1d5db;background:#fff;border-radius:5px;padding:2px 10px;
cursor:pointer}
.tl-controls button:hover{border-color:#0072B2}
.tl{display:grid;grid-template-columns:max-content 1fr;gap:0 10px}
.tl-lanes{font-size:12.5px;color:#374151;text-align:right}
.tl-lanes div{display:flex;align-items:center;justify-content:flex-end;white-space:nowrap}
.tl-main{min-width:0;position:relative}
svg.tl-plot{display:block;width:100%;cursor:grab;background:#fafafa;border:1px solid var(--line);border-radius:4px}
svg.tl-plot.dragging{cursor:grabbing}
.tl-lane-bg{fill:#f0f1f3}
.tl-agg{fill:#9ca3af}
.tl-plot rect[data-tip]{stroke:#fff;stroke-width:.6px;vector-effect:non-scaling-stroke}
.tl .tl-detail{display:none}
.tl.zoomed .tl-detail{display:inline}
.tl.zoomed .tl-agg-g{display:none}
.tl-axis{position:relative;height:24px;font-size:11px;color:#4b5563;border-top:1px solid #9ca3af;margin-top:2px}
.tl-axis span{position:absolute;top:4px;transform:translateX(-50%);white-space:nowrap}
.tl-axis span::before{content:"";position:absolute;left:50%;top:-5px;height:4px;border-left:1px solid #9ca3af}
#loom-tip{position:fixed;z-index:10;pointer-events:none;background:#111827;color:#f9fafb;font-size:12px;
line-height:1.4;padding:6px 9px;border-radius:6px;max-width:460px;white-space:pre-line;overflow-wrap:anywhere;
box-shadow:0 4px 14px rgba(0,0,0,.25)}
#loom-tip[hidden]{display:none}
footer{color:var(--muted);font-size:12px;padding:20px;text-align:center}
@media (max-width:640px){.grid2{grid-template-columns:1fr}header,main{padding:0 8px}}
)css";

inline constexpr const char* kPageJs = R"js(
(function () {
  "use strict";
  // Hover box: any element with data-tip. The SVG <title> children serve readers without script; with script
  // they are removed so the browser's own tooltip does not pop up on top of this one.
  var tip = document.getElementById("loom-tip");
  document.querySelectorAll("[data-tip] > title").forEach(function (t) { t.remove(); });
  function place(ev) {
    var pad = 14, w = tip.offsetWidth, h = tip.offsetHeight;
    var x = ev.clientX + pad, y = ev.clientY + pad;
    if (x + w > window.innerWidth - 4) x = ev.clientX - w - pad;
    if (y + h > window.innerHeight - 4) y = ev.clientY - h - pad;
    tip.style.left = Math.max(4, x) + "px";
    tip.style.top = Math.max(4, y) + "px";
  }
  document.addEventListener("mouseover", function (ev) {
    var el = ev.target.closest ? ev.target.closest("[data-tip]") : null;
    if (!el) { tip.hidden = true; return; }
    tip.textContent = el.getAttribute("data-tip");
    tip.hidden = false;
    place(ev);
  });
  document.addEventListener("mousemove", function (ev) { if (!tip.hidden) place(ev); });
  document.addEventListener("mouseleave", function () { tip.hidden = true; });

  // Time labels, as the C++ side writes them (report/svg.cpp time_us).
  function fmtTime(us) {
    var a = Math.abs(us), v, u;
    if (a === 0) return "0";
    if (a >= 1e6) { v = us / 1e6; u = " s"; } else if (a >= 1e3) { v = us / 1e3; u = " ms"; }
    else if (a >= 1) { v = us; u = " \u00b5s"; } else { v = us * 1e3; u = " ns"; }
    return String(Number(v.toPrecision(3))) + u;
  }
  function niceTicks(lo, hi, target) {
    var raw = (hi - lo) / target, p = Math.pow(10, Math.floor(Math.log10(raw))), r = raw / p;
    var step = p * (r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10), out = [];
    for (var t = Math.ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9 && out.length < 100; t += step)
      out.push(Math.abs(t) < step * 1e-9 ? 0 : t);
    return out;
  }

  // Timeline zoom: the plot's viewBox spans 0..1000 horizontally; wheel zooms about the pointer, drag pans.
  document.querySelectorAll(".tl").forEach(function (tl) {
    var svg = tl.querySelector("svg.tl-plot"), axis = tl.querySelector(".tl-axis");
    var spanUs = parseFloat(tl.getAttribute("data-span-us")) || 1;
    var H = svg.viewBox.baseVal.height, FULL = 1000, MAXZ = 5000;
    var st = { x0: 0, w: FULL };
    function apply() {
      st.w = Math.min(FULL, Math.max(FULL / MAXZ, st.w));
      st.x0 = Math.min(FULL - st.w, Math.max(0, st.x0));
      svg.setAttribute("viewBox", st.x0 + " 0 " + st.w + " " + H);
      tl.classList.toggle("zoomed", FULL / st.w >= 4);
      var lo = st.x0 / FULL * spanUs, hi = (st.x0 + st.w) / FULL * spanUs, html = "";
      niceTicks(lo, hi, 8).forEach(function (t) {
        html += '<span style="left:' + ((t - lo) / (hi - lo) * 100) + '%">' + fmtTime(t) + "</span>";
      });
      axis.innerHTML = html;
    }
    function zoomAt(factor, frac) {
      var x = st.x0 + frac * st.w;
      st.w = Math.min(FULL, Math.max(FULL / MAXZ, st.w / factor));
      st.x0 = x - frac * st.w;
      apply();
    }
    svg.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var r = svg.getBoundingClientRect();
      zoomAt(ev.deltaY < 0 ? 1.3 : 1 / 1.3, (ev.clientX - r.left) / r.width);
    }, { passive: false });
    var drag = null;
    svg.addEventListener("mousedown", function (ev) {
      drag = { x: ev.clientX, x0: st.x0, w: svg.getBoundingClientRect().width };
      svg.classList.add("dragging");
    });
    window.addEventListener("mousemove", function (ev) {
      if (!drag) return;
      st.x0 = drag.x0 - (ev.clientX - drag.x) / drag.w * st.w;
      apply();
    });
    window.addEventListener("mouseup", function () { drag = null; svg.classList.remove("dragging"); });
    svg.addEventListener("dblclick", function () { st.x0 = 0; st.w = FULL; apply(); });
    tl.parentNode.querySelectorAll("[data-zoom]").forEach(function (b) {
      b.addEventListener("click", function () {
        var k = b.getAttribute("data-zoom");
        if (k === "reset") { st.x0 = 0; st.w = FULL; apply(); } else zoomAt(k === "in" ? 2 : 0.5, 0.5);
      });
    });
    apply();
  });
})();
)js";

}  // namespace loom::report
