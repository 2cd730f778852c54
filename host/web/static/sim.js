/* The virtual board: tapping a space lifts or places a tower, as hands do on the real board. */
"use strict";

document.addEventListener("DOMContentLoaded", async () => {
  const $ = (id) => document.getElementById(id);
  const { h } = Quin;
  let state = null;
  let busy = Promise.resolve();
  const fail = (e) => { $("error").textContent = e.message; };
  // Moving towers needs the board key: this page's link from the host page or the terminal carries it.
  const key = window.QUIN_BOARD;
  const headers = { "X-Board-Key": key || "" };
  if (!key) $("error").textContent = "This board only shows the game: to move towers, open the virtual board's link on the host page or in the terminal.";
  const toggle = (space) => {
    busy = busy.then(() => Quin.post("/api/board/toggle", { space }, headers))
      .then(() => { $("error").textContent = ""; })
      .catch(fail);
    return busy;
  };
  // The board's layout and the live stream load side by side; the first state waits for the board.
  let board = null;
  const boardReady = Quin.board($("board"), { onTap: toggle });

  function render(s) {
    state = s;
    const b = s.board || {};
    const occupied = new Set(b.occupied || []);
    const v = s.view;
    const towers = [];
    const known = new Set();
    for (const t of (v ? v.board : [])) {
      known.add(t.space);
      if (occupied.has(t.space)) towers.push({ space: t.space, owner: t.owner, piece: t.piece, revealed: t.revealed });
      else towers.push({ space: t.space, ghost: true });
    }
    for (const sp of occupied) if (!known.has(sp)) towers.push({ space: sp, unknown: true });
    const marks = {};
    for (const sp of b.lift || []) marks[sp] = "lift";
    for (const sp of b.place || []) marks[sp] = "place";
    let need = Quin.needs(s, null, Quin.staleness(s, () => render(state)));
    // The practice opponent's move is made here, by hand: its plan (what is left of it) on the board.
    need.marks = marks;
    const wrong = Quin.outOfTurn(s, null);
    if (wrong) need = wrong;
    const robot = !wrong && Quin.addOpponent(s, null, need);
    const drawn = Quin.scene(v, need, need.marks);  // the sensed difference, not the needs' marks
    board.render(towers, drawn.marks, drawn.overlays);
    $("turn").textContent = Quin.headline(s, null);
    $("sub").textContent = v && v.result.status === "ongoing" ? `Turn ${v.turn}` : "";
    Quin.renderClocks($("clocks"), s, null);
    const box = $("now");
    box.innerHTML = "";
    const opp = s.opponent && s.opponent.side;
    const remote = Quin.remoteStory(s);
    let lines = need.lines;
    if (s.phase === "setup") {
      lines = [opp ? `${Quin.cap(Quin.other(opp))} chooses a lineup on their phone; ${remote.who || `${Quin.cap(opp)} is the practice opponent`}.`
                   : "The players choose their lineups on their phones."];
    } else if (need.kind === "setup" && opp) {
      lines = lines.concat([`${Quin.cap(opp)}'s towers need no faces: put any ten of them on its starting spaces.`]);
    }
    lines = lines.slice();
    const title = remote.said(need.title || "", lines);  // a remote game that waits: said first
    if (title) box.append(h("h3", {}, title));
    if (lines.length) box.append(h("ul", {}, ...lines.map((l) => h("li", {}, l))));
    box.className = "now " + (need.kind === "flash" || need.kind === "opponent-flash" ? "flash" : need.kind === "time" ? "time"
      : need.kind === "out-of-turn" ? "problem" : "") + (box.childNodes.length ? "" : " hidden");
    const lift = b.lift || [], place = b.place || [];
    // While a flash or a Time is carried out, the board is on its way to what the referee said above.
    const underWay = need.kind === "flash" || need.kind === "time";
    $("diff").textContent = lift.length || place.length ? Quin.countText(lift, place) + "."
      : underWay ? "" : robot && s.opponent.plan ? `The board matches the game: now make ${Quin.cap(opp)}'s move.`
      : "The board matches the game.";
    Quin.renderLog($("log"), v, null);
  }

  /* While a game is in play, changing the whole board needs a word of confirmation. */
  async function wholeBoard(body, what) {
    // A game is in play once the lineups stood on the board (the referee left its setup phase) and until it ends.
    const ref = state && state.referee;
    const playing = !!ref && ref.phase !== "setup" && state.phase === "playing";
    if (playing && !(await Quin.confirmBox(`A game is in play. ${what}? The referee will then ask for the board to be put back as the game stands.`, what))) return;
    Quin.post("/api/board/set", body, headers).then(() => { $("error").textContent = ""; }).catch(fail);
  }

  $("place-start").addEventListener("click", () => wholeBoard({ start: true }, "Set up both lineups"));
  $("clear-all").addEventListener("click", () => wholeBoard({ occupied: [] }, "Clear the board"));
  $("toggle-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const space = $("toggle-space").value.trim().toLowerCase();
    if (space) toggle(space).then(() => { $("toggle-space").value = ""; });
  });
  Quin.stream("/events", async (st, notices) => { board = board || await boardReady; render(st, notices); }, $("conn"));
});
