/* The offline Deep Sea viewer: draws the run in DATA (set by an earlier script of the page) on canvases.
   Inlined into viewer.html by uncertain_rl.app.viewer.render_viewer_html; checked by `node --check` in tests/test_viewer.py. */
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  if (!DATA) { $("title").textContent = "no data"; document.body.dataset.ready = "1"; return; }
  const N = DATA.size | 0, S = (DATA.snapshot_episodes || []).length, QS = DATA.quantities || [];
  const SEEDS = DATA.seeds || [0];
  const state = { quantity: 0, seed: 0, snapshot: Math.max(0, S - 1), hover: null, playing: null };
  window.viewerState = state;
  if (!document.title.trim() || document.title.indexOf("/*") === 0) document.title = DATA.title || "uncertain_rl";
  const GRID = 420, OX = 28, OY = 22, FONT = "11px system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif";
  const NULL_FILL = "#e3e5e9", RIGHT_COL = "#2f6db5", LEFT_COL = "#f2b134";
  const VIR = ["440154", "482475", "414487", "355f8d", "2a788e", "21918c", "22a884", "44bf70", "7ad151", "bddf26", "fde725"]
    .map((h) => [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)));
  const clamp = (x, a, b) => Math.max(a, Math.min(b, x));
  const fin = (v) => typeof v === "number" && isFinite(v);
  function cmap(t) {
    t = clamp(fin(t) ? t : 0, 0, 1) * (VIR.length - 1);
    const i = Math.min(Math.floor(t), VIR.length - 2), f = t - i, a = VIR[i], b = VIR[i + 1];
    return "rgb(" + [0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * f)).join(",") + ")";
  }
  function fmt(v) {
    if (v === null || v === undefined) return "-";
    if (typeof v !== "number") return String(v);
    if (!isFinite(v)) return String(v);
    if (Number.isInteger(v)) return Math.abs(v) >= 1e6 ? v.toExponential(2) : String(v);
    const a = Math.abs(v);
    if (a >= 1e5 || a < 1e-3) return v.toExponential(2);
    return String(parseFloat(v.toPrecision(a >= 100 ? 5 : 3)));
  }
  const group = (n) => (fin(n) ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",") : fmt(n));
  function setupCanvas(cv, w, h) {
    const dpr = window.devicePixelRatio || 1;
    cv.style.width = w + "px"; cv.style.height = h + "px";
    const W = Math.round(w * dpr), H = Math.round(h * dpr);
    if (cv.width !== W) cv.width = W;
    if (cv.height !== H) cv.height = H;
    const ctx = cv.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    return ctx;
  }
  // ----- colour scales (fixed per quantity over all seeds and snapshots) -----
  function scaleOf(q) {
    if (q._scale) return q._scale;
    let lo = Infinity, hi = -Infinity;
    for (const sd of q.data || []) for (const sn of sd || []) for (const v of sn || [])
      if (fin(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
    if (!isFinite(lo)) { lo = 0; hi = 1; }
    let sc;
    if (q.kind === "count") {
      hi = Math.max(hi, 1);
      const L = Math.log1p(hi);
      sc = { lo: 0, hi: hi, t: (v) => Math.log1p(Math.max(v, 0)) / L };
    } else {
      if (hi - lo < 1e-12) { lo -= 0.5; hi += 0.5; }
      const l = lo, h = hi;
      sc = { lo: l, hi: h, t: (v) => (v - l) / (h - l) };
    }
    return (q._scale = sc);
  }
  function colorOf(q, v) {
    if (!fin(v)) return null;
    if (q.kind === "action") return v >= 0.5 ? RIGHT_COL : LEFT_COL;
    return cmap(scaleOf(q).t(v));
  }
  const valuesAt = (q, seed, snap) => ((q.data || [])[seed] || [])[snap] || null;
  const pathAt = (kind, seed, snap) => (((DATA.paths || {})[kind] || [])[seed] || [])[snap] || null;
  // ----- heat map drawing (shared by main grid and strip) -----
  function drawCells(ctx, q, vals, x0, y0, size) {
    const e = (i) => Math.round((i * size) / N), cs = size / N;
    for (let r = 0; r < N; r++) for (let c = 0; c < N; c++) {
      const v = vals ? vals[r * N + c] : null, col = colorOf(q, v);
      const xa = x0 + e(c), xb = x0 + e(c + 1), ya = y0 + e(r), yb = y0 + e(r + 1);
      ctx.fillStyle = col || NULL_FILL;
      ctx.fillRect(xa, ya, xb - xa, yb - ya);
      if (!col && cs >= 7) {
        ctx.save(); ctx.beginPath(); ctx.rect(xa, ya, xb - xa, yb - ya); ctx.clip();
        ctx.strokeStyle = "#c6cad1"; ctx.lineWidth = 1; ctx.beginPath();
        for (let d = -(yb - ya); d < xb - xa; d += 6) { ctx.moveTo(xa + d, yb); ctx.lineTo(xa + d + (yb - ya), ya); }
        ctx.stroke(); ctx.restore();
      }
    }
    if (cs >= 8) {
      ctx.strokeStyle = "rgba(255,255,255,0.55)"; ctx.lineWidth = 1; ctx.beginPath();
      for (let i = 1; i < N; i++) {
        ctx.moveTo(x0 + e(i) + 0.5, y0); ctx.lineTo(x0 + e(i) + 0.5, y0 + size);
        ctx.moveTo(x0, y0 + e(i) + 0.5); ctx.lineTo(x0 + size, y0 + e(i) + 0.5);
      }
      ctx.stroke();
    }
  }
  function drawPath(ctx, cells, x0, y0, size, style) {
    if (!cells) return;
    const cs = size / N, segs = [];
    let cur = [];
    for (const k of cells) {
      if (!fin(k) || k < 0 || k >= N * N) { if (cur.length) segs.push(cur); cur = []; continue; }
      cur.push([x0 + ((k % N) + 0.5) * cs, y0 + (Math.floor(k / N) + 0.5) * cs]);
    }
    if (cur.length) segs.push(cur);
    ctx.save(); ctx.lineJoin = "round"; ctx.lineCap = "round";
    for (const pass of [0, 1]) for (const seg of segs) {
      ctx.beginPath();
      seg.forEach((p, i) => (i ? ctx.lineTo(p[0], p[1]) : ctx.moveTo(p[0], p[1])));
      if (seg.length === 1) ctx.lineTo(seg[0][0] + 0.01, seg[0][1]);
      ctx.setLineDash(style.dash ? style.dash.map((d) => d * style.width) : []);
      ctx.strokeStyle = pass ? style.color : style.outline;
      ctx.lineWidth = pass ? style.width : style.width + 2.5;
      ctx.stroke();
    }
    ctx.restore();
  }
  function star(ctx, cx, cy, R) {
    ctx.beginPath();
    for (let i = 0; i < 10; i++) {
      const a = -Math.PI / 2 + (i * Math.PI) / 5, rr = i % 2 ? R * 0.45 : R;
      ctx.lineTo(cx + rr * Math.cos(a), cy + rr * Math.sin(a));
    }
    ctx.closePath(); ctx.fillStyle = "#ffd21f"; ctx.fill();
    ctx.lineWidth = Math.max(1.2, R * 0.12); ctx.strokeStyle = "#3a2a00"; ctx.lineJoin = "round"; ctx.stroke();
  }
  function drawMarkers(ctx, x0, y0, size) {
    const cs = size / N;
    ctx.beginPath(); ctx.arc(x0 + cs / 2, y0 + cs / 2, Math.max(3, cs * 0.32), 0, 2 * Math.PI);
    ctx.lineWidth = Math.max(2.5, cs * 0.08) + 2; ctx.strokeStyle = "#111"; ctx.stroke();
    ctx.lineWidth -= 2; ctx.strokeStyle = "#fff"; ctx.stroke();
    star(ctx, x0 + (N - 0.5) * cs, y0 + (N - 0.5) * cs, Math.max(4, cs * 0.42));
  }
  const greedyStyle = (cs) => ({ color: "#ffffff", outline: "#1a1a1a", width: clamp(cs * 0.16, 1.5, 7) });
  const lastStyle = (cs) => ({ color: "#ff8c1a", outline: "#3b1d00", width: clamp(cs * 0.09, 1.2, 4), dash: [2.2, 1.6] });
  // ----- main grid -----
  function drawGrid() {
    const q = QS[state.quantity], cs = GRID / N;
    const ctx = setupCanvas($("grid"), OX + GRID + 6, OY + GRID + 6);
    drawCells(ctx, q, valuesAt(q, state.seed, state.snapshot), OX, OY, GRID);
    ctx.strokeStyle = "#8a909c"; ctx.lineWidth = 1; ctx.strokeRect(OX - 0.5, OY - 0.5, GRID + 1, GRID + 1);
    let k = 1;
    for (const s of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]) { k = s; if (N / s <= 12) break; }
    ctx.font = FONT; ctx.fillStyle = "#5b6475"; ctx.textAlign = "center"; ctx.textBaseline = "bottom";
    for (let i = 0; i < N; i += k) ctx.fillText(String(i), OX + (i + 0.5) * cs, OY - 4);
    ctx.textAlign = "right"; ctx.textBaseline = "middle";
    for (let i = 0; i < N; i += k) ctx.fillText(String(i), OX - 5, OY + (i + 0.5) * cs);
    if ($("show-greedy").checked) drawPath(ctx, pathAt("greedy", state.seed, state.snapshot), OX, OY, GRID, greedyStyle(cs));
    if ($("show-last").checked) drawPath(ctx, pathAt("last", state.seed, state.snapshot), OX, OY, GRID, lastStyle(cs));
    drawMarkers(ctx, OX, OY, GRID);
    if (state.hover) {
      const [r, c] = state.hover;
      ctx.lineWidth = 2; ctx.strokeStyle = "#e11d48"; ctx.strokeRect(OX + c * cs + 1, OY + r * cs + 1, cs - 2, cs - 2);
    }
    updateHover();
  }
  function updateHover() {
    const el = $("hover");
    if (!state.hover) { el.textContent = "hover over a cell"; return; }
    const [r, c] = state.hover, q = QS[state.quantity];
    const vals = valuesAt(q, state.seed, state.snapshot), v = vals ? vals[r * N + c] : null;
    let txt = fmt(v);
    if (fin(v) && q.kind === "action") txt += v >= 0.5 ? " (right)" : " (left)";
    if (!fin(v)) txt = c > r ? "unreachable" : "undefined";
    el.textContent = "cell (" + r + ", " + c + "): " + txt + "   \u00b7 " + q.label;
  }
  function drawColorbar() {
    const q = QS[state.quantity], H = OY + GRID + 6, ctx = setupCanvas($("colorbar"), 92, H);
    ctx.font = FONT; ctx.textBaseline = "middle"; ctx.textAlign = "left";
    const cap = $("cbcap");
    if (q.kind === "action") {
      [[RIGHT_COL, "1 = right"], [LEFT_COL, "0 = left"]].forEach(([col, lab], i) => {
        const y = OY + 6 + i * 26;
        ctx.fillStyle = col; ctx.fillRect(4, y, 18, 18); ctx.strokeStyle = "#555"; ctx.strokeRect(4.5, y + 0.5, 17, 17);
        ctx.fillStyle = "#1d2330"; ctx.fillText(lab, 27, y + 9);
      });
      cap.textContent = "";
      return;
    }
    const sc = scaleOf(q), y0 = OY, y1 = OY + GRID, x = 4, w = 18;
    for (let i = 0; i < 200; i++) {
      ctx.fillStyle = cmap(1 - (i + 0.5) / 200);
      ctx.fillRect(x, y0 + (i * GRID) / 200, w, GRID / 200 + 0.6);
    }
    ctx.strokeStyle = "#555"; ctx.lineWidth = 1; ctx.strokeRect(x + 0.5, y0 + 0.5, w - 1, GRID - 1);
    let ticks = [sc.hi, sc.lo];
    if (q.kind === "count") for (let p = 1; p < sc.hi; p *= 10) ticks.push(p);
    else ticks = ticks.concat(niceTicks(sc.lo, sc.hi, 5));
    const used = [];
    ctx.fillStyle = "#1d2330";
    for (const v of ticks) {
      const y = y1 - clamp(sc.t(v), 0, 1) * GRID;
      if (used.some((u) => Math.abs(u - y) < 14)) continue;
      used.push(y);
      ctx.fillRect(x + w, Math.round(y) - 0.5, 4, 1);
      ctx.fillText(fmt(v), x + w + 6, clamp(y, y0 + 5, y1 - 5));
    }
    cap.textContent = q.kind === "count" ? "log(1+x) scale" : "linear scale";
    cap.title = "colour range fixed over all snapshots and seeds";
  }
  function niceTicks(lo, hi, n) {
    const span = hi - lo;
    if (!(span > 0)) return [lo];
    const s0 = span / n, mag = Math.pow(10, Math.floor(Math.log10(s0))), er = s0 / mag;
    const step = (er >= 7.5 ? 10 : er >= 3.5 ? 5 : er >= 1.5 ? 2 : 1) * mag, out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(parseFloat(v.toPrecision(12)));
    return out;
  }
  // ----- learning curve -----
  const RET = (DATA.returns || []).map((a) => a || []);
  const WIN = Math.max(1, Math.round(Math.max(0, ...RET.map((a) => a.length)) / 30));
  const MA = RET.map((a) => {
    const out = [];
    let sum = 0, cnt = 0;
    for (let i = 0; i < a.length; i++) {
      if (fin(a[i])) { sum += a[i]; cnt++; }
      const j = i - WIN;
      if (j >= 0 && fin(a[j])) { sum -= a[j]; cnt--; }
      out.push(cnt ? sum / cnt : null);
    }
    return out;
  });
  let curveGeom = null;
  function drawCurve() {
    const cv = $("curve"), W = Math.max(300, cv.clientWidth || 500), H = 460, ctx = setupCanvas(cv, W, H);
    cv.style.width = "100%";
    const L = 58, R = 14, T = 46, B = 42, pw = W - L - R, ph = H - T - B;
    const eps = DATA.snapshot_episodes || [];
    const xmax = Math.max(1, ...RET.map((a) => a.length - 1), ...eps.filter(fin));
    let lo = Infinity, hi = -Infinity;
    for (const a of RET.concat(MA)) for (const v of a) if (fin(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    if (!isFinite(lo)) { lo = 0; hi = 1; }
    if (hi - lo < 1e-9) { lo -= 0.5; hi += 0.5; }
    const pad = (hi - lo) * 0.06; lo -= pad; hi += pad;
    const X = (e) => L + (e / xmax) * pw, Y = (v) => T + (1 - (v - lo) / (hi - lo)) * ph;
    curveGeom = { L, pw, xmax };
    ctx.font = FONT; ctx.fillStyle = "#5b6475"; ctx.strokeStyle = "#e6e8ec"; ctx.lineWidth = 1;
    ctx.textAlign = "right"; ctx.textBaseline = "middle";
    for (const v of niceTicks(lo, hi, 6)) {
      const y = Math.round(Y(v)) + 0.5;
      ctx.beginPath(); ctx.moveTo(L, y); ctx.lineTo(L + pw, y); ctx.stroke(); ctx.fillText(fmt(v), L - 6, y);
    }
    ctx.textAlign = "center"; ctx.textBaseline = "top";
    for (const e of niceTicks(0, xmax, Math.max(3, Math.floor(pw / 90)))) {
      const x = Math.round(X(e)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, T); ctx.lineTo(x, T + ph); ctx.stroke();
      const hw = ctx.measureText(group(e)).width / 2; ctx.fillText(group(e), Math.min(x, W - hw - 2), T + ph + 5);
    }
    ctx.strokeStyle = "#8a909c"; ctx.strokeRect(L + 0.5, T + 0.5, pw, ph);
    ctx.fillStyle = "#1d2330"; ctx.fillText("episode", L + pw / 2, H - 16);
    ctx.save(); ctx.translate(14, T + ph / 2); ctx.rotate(-Math.PI / 2); ctx.textBaseline = "middle";
    ctx.fillText("return (moving average)", 0, 0); ctx.restore();
    ctx.fillStyle = "#9aa1ad";
    for (const e of eps) if (fin(e)) ctx.fillRect(Math.round(X(e)) - 0.5, T + ph - 5, 1, 5);
    ctx.save(); ctx.beginPath(); ctx.rect(L, T, pw, ph); ctx.clip();
    const raw = RET[state.seed] || [];
    ctx.fillStyle = raw.length > 2000 ? "rgba(37,99,235,0.1)" : "rgba(37,99,235,0.3)";
    for (let i = 0; i < raw.length; i++) if (fin(raw[i])) ctx.fillRect(X(i) - 1.5, Y(raw[i]) - 1.5, 3, 3);
    const line = (a, col, w) => {
      ctx.beginPath(); let pen = false;
      for (let i = 0; i < a.length; i++) {
        if (!fin(a[i])) { pen = false; continue; }
        pen ? ctx.lineTo(X(i), Y(a[i])) : ctx.moveTo(X(i), Y(a[i])); pen = true;
      }
      ctx.strokeStyle = col; ctx.lineWidth = w; ctx.lineJoin = "round"; ctx.stroke();
    };
    MA.forEach((a, s) => { if (s !== state.seed) line(a, "rgba(90,100,120,0.35)", 1.3); });
    if (MA[state.seed]) line(MA[state.seed], "#2563eb", 2.4);
    const ep = eps[state.snapshot];
    if (fin(ep)) {
      const x = Math.round(X(ep)) + 0.5;
      ctx.strokeStyle = "#e11d48"; ctx.lineWidth = 1.5; ctx.setLineDash([5, 3]);
      ctx.beginPath(); ctx.moveTo(x, T); ctx.lineTo(x, T + ph); ctx.stroke(); ctx.setLineDash([]);
    }
    ctx.restore();
    if (fin(ep)) {
      ctx.fillStyle = "#e11d48"; ctx.textBaseline = "bottom"; ctx.textAlign = clamp(X(ep), L + 40, L + pw - 40) === X(ep) ? "center" : X(ep) < L + 40 ? "left" : "right";
      ctx.fillText("episode " + group(ep), X(ep), T - 3);
    }
    ctx.textAlign = "left"; ctx.textBaseline = "middle"; ctx.font = FONT;
    const items = [["#2563eb", 2.4, "seed " + SEEDS[state.seed] + " (window " + WIN + ")"]];
    if (MA.length > 1) items.push(["rgba(90,100,120,0.5)", 1.3, "other seeds"]);
    let lx = L;
    for (const [col, w, lab] of items) {
      ctx.strokeStyle = col; ctx.lineWidth = w; ctx.beginPath(); ctx.moveTo(lx, 12); ctx.lineTo(lx + 20, 12); ctx.stroke();
      ctx.fillStyle = "#1d2330"; ctx.fillText(lab, lx + 25, 12); lx += 35 + ctx.measureText(lab).width;
    }
    ctx.fillStyle = "rgba(37,99,235,0.5)"; ctx.fillRect(lx, 10.5, 3, 3);
    ctx.fillStyle = "#1d2330"; ctx.fillText("single episodes", lx + 8, 12);
    if (!RET.length) { ctx.textAlign = "center"; ctx.fillText("no returns recorded", L + pw / 2, T + ph / 2); }
  }
  $("curve").addEventListener("click", (ev) => {
    if (!curveGeom || !S) return;
    const rect = $("curve").getBoundingClientRect();
    const e = ((ev.clientX - rect.left - curveGeom.L) / curveGeom.pw) * curveGeom.xmax;
    let best = 0;
    DATA.snapshot_episodes.forEach((x, i) => { if (Math.abs(x - e) < Math.abs(DATA.snapshot_episodes[best] - e)) best = i; });
    setSnapshot(best);
  });
  // ----- strip of small multiples -----
  const K = Math.min(8, S), STRIP_IDX = [], STRIP_PX = 118;
  for (let i = 0; i < K; i++) { const v = K > 1 ? Math.round((i * (S - 1)) / (K - 1)) : 0; if (!STRIP_IDX.includes(v)) STRIP_IDX.push(v); }
  const stripItems = STRIP_IDX.map((idx) => {
    const div = document.createElement("div"), cv = document.createElement("canvas"), lab = document.createElement("div");
    div.className = "strip-item"; div.title = "snapshot " + idx;
    lab.textContent = "episode " + group(DATA.snapshot_episodes[idx]);
    div.appendChild(cv); div.appendChild(lab); $("strip").appendChild(div);
    div.addEventListener("click", () => setSnapshot(idx));
    return { div, cv, idx };
  });
  function drawStrip() {
    const q = QS[state.quantity];
    $("strip-title").textContent = "snapshots of \u201c" + q.label + "\u201d (seed " + SEEDS[state.seed] + "; click to select)";
    for (const it of stripItems) {
      const ctx = setupCanvas(it.cv, STRIP_PX, STRIP_PX);
      drawCells(ctx, q, valuesAt(q, state.seed, it.idx), 0, 0, STRIP_PX);
      if ($("show-greedy").checked) drawPath(ctx, pathAt("greedy", state.seed, it.idx), 0, 0, STRIP_PX, greedyStyle(STRIP_PX / N));
      drawMarkers(ctx, 0, 0, STRIP_PX);
    }
    highlightStrip();
  }
  function highlightStrip() {
    let near = null;
    for (const it of stripItems) if (!near || Math.abs(it.idx - state.snapshot) < Math.abs(near.idx - state.snapshot)) near = it;
    for (const it of stripItems) {
      it.div.classList.toggle("current", it.idx === state.snapshot);
      it.div.classList.toggle("near", it === near && it.idx !== state.snapshot);
    }
  }
  // ----- summary table -----
  function buildSummary() {
    const sm = DATA.summary;
    if (!sm || !sm.columns) { $("summary-card").style.display = "none"; return; }
    const t = document.createElement("table"), hr = t.createTHead().insertRow(), tb = t.createTBody();
    for (const c of sm.columns) { const th = document.createElement("th"); th.textContent = c; hr.appendChild(th); }
    for (const row of sm.rows || []) { const tr = tb.insertRow(); for (const v of row) tr.insertCell().textContent = fmt(v); }
    $("summary").appendChild(t);
    if (sm.legend) {                                  // the columns in words, as under the command line's table
      const p = document.createElement("p"); p.className = "legend"; p.textContent = sm.legend; $("summary").appendChild(p);
    }
  }
  // ----- state changes -----
  function updateReadout() {
    const i = state.snapshot;
    $("readout").textContent = "snapshot " + i + " / " + Math.max(0, S - 1) + " \u00b7 episode " +
      group((DATA.snapshot_episodes || [])[i]) + " \u00b7 step " + group((DATA.snapshot_steps || [])[i]);
  }
  function setSnapshot(i) {
    if (!S) return;
    state.snapshot = clamp(i | 0, 0, S - 1);
    $("snapshot").value = String(state.snapshot);
    updateReadout(); drawGrid(); drawCurve(); highlightStrip();
  }
  function drawAll() {
    const q = QS[state.quantity];
    $("help").innerHTML = "";
    const b = document.createElement("b"); b.textContent = q.label + ": ";
    $("help").appendChild(b); $("help").appendChild(document.createTextNode(q.help || ""));
    $("grid-title").textContent = q.label + " \u2014 seed " + SEEDS[state.seed];
    updateReadout(); drawGrid(); drawColorbar(); drawCurve(); drawStrip();
  }
  function togglePlay() {
    if (state.playing) { clearInterval(state.playing); state.playing = null; $("play").textContent = "Play"; return; }
    if (S < 2) return;
    state.playing = setInterval(() => setSnapshot((state.snapshot + 1) % S), 250);
    $("play").textContent = "Pause";
  }
  // ----- init -----
  $("title").textContent = DATA.title || "uncertain_rl";
  if (DATA.notes) $("notes").textContent = DATA.notes; else $("notes").style.display = "none";
  QS.forEach((q, i) => $("quantity").add(new Option(q.label || q.name, String(i))));
  SEEDS.forEach((s, i) => $("seed").add(new Option("seed " + s, String(i))));
  const sl = $("snapshot");
  sl.max = String(Math.max(0, S - 1)); sl.value = String(state.snapshot);
  $("quantity").addEventListener("change", (e) => { state.quantity = +e.target.value; drawAll(); });
  $("seed").addEventListener("change", (e) => { state.seed = +e.target.value; drawAll(); });
  sl.addEventListener("input", () => setSnapshot(+sl.value));
  $("play").addEventListener("click", togglePlay);
  for (const id of ["show-greedy", "show-last"]) $(id).addEventListener("change", () => { drawGrid(); drawStrip(); });
  const gridCv = $("grid");
  gridCv.addEventListener("mousemove", (ev) => {
    const rect = gridCv.getBoundingClientRect(), cs = GRID / N;
    const c = Math.floor((ev.clientX - rect.left - OX) / cs), r = Math.floor((ev.clientY - rect.top - OY) / cs);
    const h = r >= 0 && r < N && c >= 0 && c < N ? [r, c] : null;
    if (String(h) !== String(state.hover)) { state.hover = h; drawGrid(); }
  });
  gridCv.addEventListener("mouseleave", () => { state.hover = null; drawGrid(); });
  document.addEventListener("keydown", (ev) => {
    const t = ev.target, tag = t && t.tagName;
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (tag === "SELECT" || tag === "TEXTAREA" || (tag === "INPUT" && t.type !== "checkbox")) return;
    const step = { ArrowLeft: -1, ArrowRight: 1 }[ev.key];
    if (step) { ev.preventDefault(); setSnapshot(state.snapshot + step); }
    else if (ev.key === "Home") { ev.preventDefault(); setSnapshot(0); }
    else if (ev.key === "End") { ev.preventDefault(); setSnapshot(S - 1); }
  });
  let rz = null;
  window.addEventListener("resize", () => { clearTimeout(rz); rz = setTimeout(drawCurve, 80); });
  buildSummary();
  if (!QS.length || !N) { $("help").textContent = "no quantities in data"; document.body.dataset.ready = "1"; return; }
  drawAll();
  document.body.dataset.ready = "1";
})();
