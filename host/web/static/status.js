/* The status page: the public game, live. */
"use strict";

document.addEventListener("DOMContentLoaded", async () => {
  const $ = (id) => document.getElementById(id);
  const board = await Quin.board($("board"), null);
  let lastFlashes = null;

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
    if (state.phase === "setup") $("turn").textContent = "Setting up";
    else if (v && v.to_move) $("turn").textContent = `Turn ${v.turn}: ${v.to_move} to move`;
    else $("turn").textContent = "Game over";
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
    // a new flash: show it big
    const flashes = v ? v.events.length : 0;
    if (lastFlashes !== null && flashes > lastFlashes) Quin.toast(Quin.eventText(v.events[flashes - 1]), "flash", 6000);
    lastFlashes = flashes;
  }

  Quin.stream("/events", render, $("conn"));
});
