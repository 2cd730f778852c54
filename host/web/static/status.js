/* The status page: the public game, live. */
"use strict";

document.addEventListener("DOMContentLoaded", async () => {
  const $ = (id) => document.getElementById(id);
  const board = await Quin.board($("board"), null);

  function render(state, notices) {
    const v = state.view;
    $("game-title").textContent = state.game ? `game ${state.game}` : "";
    $("mode").textContent = (state.mode || "").replace("_", " ") + (state.vision ? " · Vision" : "");
    $("sim-link").classList.toggle("hidden", !state.simulated);
    // setup
    const done = state.setup_done || {};
    $("setup").textContent = state.phase === "setup"
      ? `Waiting for setups: white ${done.white ? "ready" : "choosing"}, black ${done.black ? "ready" : "choosing"}.`
      : `Both lineups in; ${state.first} moved first.`;
    // whose turn and what the referee waits for
    $("turn").textContent = Quin.turnText(state, null);
    const res = v ? Quin.resultText(v.result) : "";
    $("result").textContent = res;
    $("result").classList.toggle("hidden", !res);
    const lines = Quin.describe(state.referee);
    const b = state.board || {};
    const marks = {};
    if (b.lift && b.place && (b.lift.length || b.place.length) && state.phase !== "setup") {
      for (const s of b.lift) marks[s] = "lift";
      for (const s of b.place) marks[s] = "place";
    }
    // the practice opponent's move, for the human who moves its towers
    const opp = state.opponent || {};
    $("opponent").textContent = opp.text || "";
    $("opponent").classList.toggle("hidden", !opp.text);
    if (opp.plan && !Object.keys(marks).length) {
      for (const s of opp.plan.lift) marks[s] = "lift";
      for (const s of opp.plan.place) marks[s] = "place";
    }
    if (state.notice) lines.push(state.notice);
    if (state.source && state.source.ok === false) lines.push("Board: " + state.source.message);
    $("waiting").textContent = lines.join(" · ");
    $("waiting").classList.toggle("hidden", !lines.length);
    board.render(Quin.towersOf(state), marks);
    Quin.renderZeroGravity($("zg"), v);
    Quin.renderLog($("log"), v);
    const ev = $("events");
    ev.innerHTML = "";
    for (const e of (v ? v.events : [])) ev.appendChild(Quin.h("li", {}, Quin.eventText(e)));
    // a flash or the Power of Time: show it big
    for (const n of notices) {
      const d = n.data || {};
      if ((n.kind === "flash" || n.kind === "time") && d.text) Quin.toast(d.text, "flash", 7000);
      if (n.kind === "result") Quin.toast(Quin.resultText(d), "", 8000);
    }
  }

  Quin.stream("/events", render, $("conn"));
});
