/* The replay viewer: step through a stored game. */
"use strict";

document.addEventListener("DOMContentLoaded", async () => {
  const $ = (id) => document.getElementById(id);
  $("conn").className = "hidden";
  const board = await Quin.board($("board"), {});
  const data = await (await fetch(`/api/games/${window.QUIN_GAME}`)).json();
  const frames = data.frames;
  const g = data.game;
  $("summary").textContent = `${g.mode.replace("_", " ")}${g.vision ? " (Vision)" : ""}, ${Quin.cap(g.first)} moves first, ${g.actions} actions. ` +
    (g.status === "over" ? Quin.resultText(g.result) : g.status === "abandoned" ? "Abandoned." : "Still being played.");
  if (data.exportable) {
    $("export").appendChild(Quin.h("a", { href: `/api/games/${g.id}/record`, class: "button", download: `quin-game-${g.id}.json` }, "Download the record"));
  } else {
    $("export").appendChild(Quin.h("p", { class: "small muted" }, "The record can be downloaded once the game is over (it holds every hidden identity)."));
  }
  const slider = $("slider");
  slider.max = String(Math.max(0, frames.length - 1));
  let step = 0;
  let show = function (i) {
    if (!frames.length) { $("step-label").textContent = "This game never started."; return; }
    step = Math.max(0, Math.min(frames.length - 1, i));
    slider.value = String(step);
    const f = frames[step];
    $("step-label").textContent = step === 0 ? "Start" : `Step ${step} of ${frames.length - 1}: turn ${f.turn}, ${Quin.cap(f.player)}`;
    $("action").textContent = step === 0 ? "The starting position." : Quin.actionText(f.action) + (Quin.resultText(f.result) ? " · " + Quin.resultText(f.result) : "");
    const drawn = Quin.lastTurn(step === 0 ? null : { history: [{ turn: f.turn, player: f.player, actions: [f.action] }], events: [] });
    board.render(f.board, drawn.marks, drawn.overlays);
    Quin.renderZeroGravity($("zg"), { captured: f.captured, reserve: { white: { count: f.reserve.white }, black: { count: f.reserve.black } } }, null);
  }
  $("first").onclick = () => show(0);
  $("prev").onclick = () => show(step - 1);
  $("next").onclick = () => show(step + 1);
  $("last").onclick = () => show(frames.length - 1);
  slider.oninput = () => show(Number(slider.value));

  /* The game at a glance: each side's towers on the board and waiting in its Zero Gravity at every
     step; for a finished game also White's chances as the practice opponent sees the position with
     every identity known, and the turning points, each a link to that moment. */
  const SVGNS = "http://www.w3.org/2000/svg";
  const W = 600, L = 10, R = 10;
  const pct = (c) => `${Math.round(c * 100)}%`;
  const xAt = (i) => L + (frames.length < 2 ? 0 : i * (W - L - R) / (frames.length - 1));
  function svgEl(tag, attrs, parent) {
    const node = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }
  function chart() {
    const svg = $("chart");
    const n = frames.length;
    if (!n) { svg.classList.add("hidden"); return; }
    const chances = frames.map((f) => f.white_chance);
    const known = chances.every((c) => typeof c === "number");
    const top = 34, bottom = 150;                 // the chances
    const axis = known ? 250 : 120, k = 3.4;      // the towers: White up, Black down, 3.4 units a tower
    const H = axis + 17 * k + 36;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.innerHTML = "";
    const count = (f, p) => f.board.filter((t) => t.owner === p).length;
    const area = (values, sign, cls) => {
      const pts = values.map((v, i) => `${xAt(i).toFixed(1)},${(axis - sign * v * k).toFixed(1)}`);
      svgEl("polygon", { points: `${xAt(0)},${axis} ${pts.join(" ")} ${xAt(n - 1)},${axis}`, class: cls }, svg);
    };
    const whiteOn = frames.map((f) => count(f, "white")), blackOn = frames.map((f) => count(f, "black"));
    area(frames.map((f, i) => whiteOn[i] + f.reserve.white), 1, "zg white");
    area(whiteOn, 1, "on white");
    area(frames.map((f, i) => blackOn[i] + f.reserve.black), -1, "zg black");
    area(blackOn, -1, "on black");
    svgEl("line", { x1: L, x2: W - R, y1: axis, y2: axis, class: "axis" }, svg);
    svgEl("text", { x: L, y: axis - 17 * k - 10, class: "label" }, svg).textContent = "White: on the board, waiting in Zero Gravity";
    svgEl("text", { x: L, y: axis + 17 * k + 26, class: "label" }, svg).textContent = "Black: on the board, waiting in Zero Gravity";
    if (known) {
      const y = (c) => bottom - c * (bottom - top);
      svgEl("rect", { x: L, y: top, width: W - L - R, height: bottom - top, class: "band" }, svg);
      svgEl("line", { x1: L, x2: W - R, y1: y(0.5), y2: y(0.5), class: "even" }, svg);
      svgEl("text", { x: L + 6, y: top + 20, class: "label" }, svg).textContent = "White wins";
      svgEl("text", { x: L + 6, y: bottom - 8, class: "label" }, svg).textContent = "Black wins";
      svgEl("polyline", { points: chances.map((c, i) => `${xAt(i).toFixed(1)},${y(c).toFixed(1)}`).join(" "), class: "chance" }, svg);
      for (const t of data.turning_points || []) {
        const a = svgEl("a", { href: `#step=${t.step}`, "data-turning": String(t.step),
          "aria-label": `turning point, step ${t.step}: White's chances ${pct(t.white_before)} to ${pct(t.white_after)}` }, svg);
        svgEl("line", { x1: xAt(t.step), x2: xAt(t.step), y1: top, y2: axis + 17 * k, class: "turn-line" }, a);
        svgEl("circle", { cx: xAt(t.step), cy: y(t.white_after), r: 10, class: "turn-dot" }, a);
      }
    }
    svgEl("line", { id: "chart-now", x1: xAt(step), x2: xAt(step), y1: known ? top - 8 : axis - 17 * k, y2: axis + 17 * k, class: "now-line" }, svg);
    svg.addEventListener("click", (e) => {
      if (e.target.closest("a")) return;
      const box = svg.getBoundingClientRect();
      const units = (e.clientX - box.left) / box.width * W;
      show(Math.round((units - L) / ((W - L - R) / Math.max(1, n - 1))));
    });
    $("chart-note").textContent = known
      ? "The line: White's chances at each step, as the practice opponent judges the position knowing every tower (the game is over: nothing is hidden any more). Dots: the turning points; tap one to see that moment."
      : "Each side's towers on the board and waiting in Zero Gravity at every step. The chances are shown once the game is over.";
    const list = $("turning");
    list.innerHTML = "";
    for (const t of (known && data.turning_points) || []) {
      const f = frames[t.step];
      list.append(Quin.h("li", {}, Quin.h("a", { href: `#step=${t.step}` },
        `Turn ${f.turn}, ${Quin.cap(f.player)}: ${Quin.actionText(f.action)}: White's chances ${pct(t.white_before)} → ${pct(t.white_after)}`)));
    }
  }
  const shown = show;
  show = (i) => {  // the chart follows the step shown
    shown(i);
    const line = document.getElementById("chart-now");
    if (line) { line.setAttribute("x1", xAt(step)); line.setAttribute("x2", xAt(step)); }
  };
  const fromHash = () => {
    const m = /^#step=(\d+)$/.exec(location.hash);
    if (m) show(Number(m[1]));
  };
  window.addEventListener("hashchange", fromHash);
  chart();
  show(0);
  fromHash();
});
