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
  function show(i) {
    if (!frames.length) { $("step-label").textContent = "This game never started."; return; }
    step = Math.max(0, Math.min(frames.length - 1, i));
    slider.value = String(step);
    const f = frames[step];
    $("step-label").textContent = step === 0 ? "Start" : `Step ${step} of ${frames.length - 1}: turn ${f.turn}, ${f.player}`;
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
  show(0);
});
