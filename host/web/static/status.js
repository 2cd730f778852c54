/* The status page: the public game, live, for a TV or a tablet across the table. */
"use strict";

document.addEventListener("DOMContentLoaded", async () => {
  const $ = (id) => document.getElementById(id);
  const { h, cap } = Quin;
  // The board's layout and the live stream load side by side; the first state waits for the board.
  let board = null;
  const boardReady = Quin.board($("board"), {});
  Quin.legend($("legend"));

  /* The panel under the headline: what the table does now, in a few short lines. */
  function renderNow(state, need) {
    const box = $("now");
    box.innerHTML = "";
    const lines = [];
    let title = need.title || "";
    let cls = need.kind === "flash" ? "flash" : need.kind === "time" ? "time" : need.kind === "fix" || need.kind === "sync" ? "problem" : "";
    if (state.phase === "setup") {
      const done = state.setup_done || {};
      for (const p of Quin.PLAYERS) lines.push(`${cap(p)} ${done[p] ? "is ready" : "is choosing a lineup"} on their phone.`);
    } else {
      if (need.kind === "setup") title = "Put both lineups on the board";
      lines.push(...need.lines);
    }
    if (state.notice) lines.push(state.notice);
    if (state.source && state.source.ok === false) { lines.push("The board: " + state.source.message); cls = "problem"; }
    if (state.hub) lines.push((state.hub.reached ? "Hub: " : "Hub (not reached): ") + state.hub.message);
    if (title) box.append(h("h3", {}, title));
    if (lines.length === 1) box.append(h("p", { class: "line" }, lines[0]));
    else if (lines.length) box.append(h("ul", {}, ...lines.map((l) => h("li", {}, l))));
    box.className = "now " + cls + (title || lines.length ? "" : " hidden");
  }

  /* The practice opponent's turn: what to do with its towers (spaces only, as the public sees its action). */
  function addOpponent(state, need) {
    const opp = state.opponent;
    if (!opp || !opp.text || state.phase === "setup") return;
    need.lines = [opp.text].concat(need.lines || []);
    need.marks = need.marks || {};
    if (opp.plan && !Object.keys(need.marks).length) {
      for (const s of opp.plan.lift) need.marks[s] = "lift";
      for (const s of opp.plan.place) need.marks[s] = "place";
    }
  }

  function subline(state) {
    const v = state.view;
    if (state.phase === "setup") return `${cap(state.first)} moves first`;
    if (v && v.result && v.result.status !== "ongoing") return `after ${v.history.length} turns`;
    return v ? `Turn ${v.turn}` : "";
  }

  let current = null;
  function render(state, notices) {
    current = state;
    const v = state.view;
    $("game-title").textContent = state.game ? `game ${state.game}` : "";
    $("mode").textContent = (state.mode || "").replace("_", " ") + (state.vision ? " · Vision" : "");
    $("sim-link").classList.toggle("hidden", !state.simulated);
    $("turn").textContent = Quin.headline(state, null);
    $("sub").textContent = subline(state);
    const res = v ? Quin.resultText(v.result) : "";
    $("result").textContent = res;
    $("result").classList.toggle("hidden", !res || $("turn").textContent === res);
    document.querySelector(".head").classList.toggle("over", !!res);
    const need = Quin.needs(state, null, Quin.staleness(state, () => render(current, [])));
    addOpponent(state, need);
    renderNow(state, need);
    const drawn = Quin.scene(v, need);
    board.render(v ? v.board : [], drawn.marks, drawn.overlays);
    $("board").setAttribute("aria-label", boardLabel(state));
    Quin.renderZeroGravity($("zg"), v, null);
    Quin.renderLog($("log"), v, null);
    $("no-moves").classList.toggle("hidden", !!(v && v.history.length));
    Quin.notify(notices, null);
  }

  function boardLabel(state) {
    const v = state.view;
    if (!v) return "the board";
    const turn = v.history[v.history.length - 1];
    const last = turn ? `; last turn: ${cap(turn.player)} ${turn.actions.map(Quin.actionText).join(", ")}` : "";
    return `the board: ${v.board.length} towers${last}`;
  }

  Quin.stream("/events", async (st, notices) => { board = board || await boardReady; render(st, notices); }, $("conn"));
});
