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
    let cls = need.kind === "flash" || need.kind === "opponent-flash" ? "flash" : need.kind === "time" ? "time" : need.kind === "fix" || need.kind === "sync" || need.kind === "out-of-turn" ? "problem" : "";
    const robot = state.opponent && state.opponent.side;
    const remote = Quin.remoteStory(state);
    if (state.phase === "setup") {
      const done = state.setup_done || {};
      for (const p of Quin.PLAYERS) {
        if (p === robot && remote.who) lines.push(`${remote.who}: ${done[p] ? "their lineup is in" : "they are choosing a lineup"}.`);
        else if (p === robot) lines.push(`${cap(p)} is the practice opponent: ${done[p] ? "its lineup is chosen" : "it is choosing its lineup"}.`);
        else lines.push(`${named(state, p)} ${done[p] ? "is ready" : "is choosing a lineup"} on their phone.`);
      }
    } else {
      if (need.kind === "setup") title = "Put both lineups on the board";
      lines.push(...need.lines);
      if (need.kind === "setup" && robot) lines.push(`${cap(robot)}'s towers need no faces: put any ten of them on its starting spaces.`);
    }
    // a remote game that waits: said first (with the hub's countdown, once, in its own line above)
    if (!remote.countdown) title = remote.said(title, lines);
    if (state.notice) lines.push(state.notice);
    // the board's link: a problem now, or (ok) one line on what just happened to it
    if (state.source && state.source.message) { lines.push("The board: " + state.source.message); if (state.source.ok === false) cls = "problem"; }
    // the link to the club's hub, as it is (host/remote/push.py says it: reached, a refused key, no hub there...),
    // in the players' short words and outside the instructions: it is the organiser's to mend, not a move
    const hub = $("hub-line");
    hub.textContent = state.hub ? state.hub.public : "";
    hub.classList.toggle("hidden", !state.hub);
    if (title) box.append(h("h3", {}, title));
    if (lines.length === 1) box.append(h("p", { class: "line" }, lines[0]));
    else if (lines.length) box.append(h("ul", {}, ...lines.map((l) => h("li", {}, l))));
    box.className = "now " + cls + (title || lines.length ? "" : " hidden");
  }

  /* "White (Ann)": the name the player gave on their phone, if any. */
  const named = (state, p) => (state.players && state.players[p] ? `${cap(p)} (${state.players[p]})` : cap(p));

  /* Who plays, once a player has given a name on their phone: "Ann (White) – Black"; a remote game's
     names are the hub's ("Ann (White) – Bob, playing from afar (Black)"). */
  function who(state) {
    const p = Object.assign({}, state.players || {});
    const names = (state.remote && state.remote.names) || {};
    for (const c of Quin.PLAYERS) {
      if (state.opponent && state.opponent.remote && c === state.opponent.side) p[c] = state.opponent.who;
      else if (!p[c] && names[c]) p[c] = names[c];
    }
    if (!p.white && !p.black) return "";
    const one = (c) => (p[c] ? `${p[c]} (${cap(c)})` : cap(c));
    return `${one("white")} – ${one("black")}`;
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
    $("sub").textContent = [subline(state), who(state)].filter(Boolean).join(" · ");
    const res = v ? Quin.resultText(v.result) : "";
    Quin.renderEnd($("result"), state, null, $("turn").textContent);
    Quin.renderClocks($("clocks"), state, null);
    document.querySelector(".head").classList.toggle("over", !!res);
    let need = Quin.needs(state, null, Quin.staleness(state, () => render(current, [])));
    const wrong = Quin.outOfTurn(state, null);
    if (wrong) need = wrong;
    else Quin.addOpponent(state, null, need);
    renderNow(state, need);
    const drawn = Quin.scene(v, need);
    board.render(Quin.pendingTowers(state, v ? v.board : [], drawn.marks), drawn.marks, drawn.overlays);
    $("board").setAttribute("aria-label", boardLabel(state));
    // no game (a remote game called off before it began): no Zero Gravity or moves to show
    for (const id of ["zg", "log"]) $(id).closest("section").classList.toggle("hidden", !v);
    Quin.renderZeroGravity($("zg"), v, null);
    Quin.renderLog($("log"), v, null);
    $("no-moves").classList.toggle("hidden", !!(v && v.history.length));
    Quin.notify(notices, null);
    QuinRemoteEnd.status($("remote-away"), state);
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
