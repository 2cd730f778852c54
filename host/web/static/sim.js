/* The virtual board: tapping a space lifts or places a tower. */
"use strict";

document.addEventListener("DOMContentLoaded", async () => {
  const $ = (id) => document.getElementById(id);
  let busy = Promise.resolve();
  const board = await Quin.board($("board"), (space) => {
    busy = busy.then(() => Quin.post("/api/board/toggle", { space }))
      .then(() => { $("error").textContent = ""; })
      .catch((e) => { $("error").textContent = e.message; });
  });

  function render(state) {
    const b = state.board || {};
    const occupied = new Set(b.occupied || []);
    const v = state.view;
    const towers = [];
    const known = new Set();
    for (const t of (v ? v.board : [])) {
      known.add(t.space);
      if (occupied.has(t.space)) towers.push({ space: t.space, owner: t.owner, piece: t.piece, revealed: t.revealed });
      else towers.push({ space: t.space, ghost: true });
    }
    for (const s of occupied) if (!known.has(s)) towers.push({ space: s, unknown: true });
    const marks = {};
    for (const s of b.lift || []) marks[s] = "lift";
    for (const s of b.place || []) marks[s] = "place";
    board.render(towers, marks);
    const lines = Quin.describe(state.referee);
    if (state.phase === "setup") lines.unshift("Setting up: the players choose their lineups on their phones.");
    $("waiting").textContent = lines.join(" · ");
    $("waiting").classList.toggle("hidden", !lines.length);
    const diff = [];
    if (b.lift && b.lift.length) diff.push("lift: " + b.lift.join(", "));
    if (b.place && b.place.length) diff.push("place: " + b.place.join(", "));
    $("diff").textContent = diff.join(" · ") || "The board matches the game.";
    Quin.renderLog($("log"), v);
  }

  $("place-start").addEventListener("click", () => Quin.post("/api/board/set", { start: true }).catch((e) => { $("error").textContent = e.message; }));
  $("clear-all").addEventListener("click", () => Quin.post("/api/board/set", { occupied: [] }).catch((e) => { $("error").textContent = e.message; }));
  Quin.stream("/events", render, $("conn"));
});
