/* Ending a remote game on the board's side (host/remote/ending.py): the seat's "Resign…" (asked
   once more) and, when the rival has been away, the hub's countdown and "Claim the game" / "Keep
   waiting"; before play, "Call off this game…" (asked once more); the status page says the
   countdown to everyone.  Kept apart from the pages' own code:
   each page calls one function with its state. */
"use strict";

window.QuinRemoteEnd = (() => {
  const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
  const clock = (n) => `${Math.floor(n / 60)}:${String(n % 60).padStart(2, "0")}`;
  const span = (n) => (n % 60 === 0 ? `${n / 60} minute${n === 60 ? "" : "s"}` : `${n} s`);

  /* The countdown of one absence, counted down on this screen (the hub sends a new state when the
     claim becomes possible, not each second). */
  function counter(box) {
    const c = box._count || (box._count = { key: null, until: 0, timer: null, draw: null });
    return c;
  }
  function track(box, abandon, draw) {
    const c = counter(box);
    if (!abandon) { clearInterval(c.timer); c.timer = null; c.key = null; return null; }
    const key = `${abandon.side}:${abandon.claimable}`;
    if (key !== c.key) { c.key = key; c.until = Date.now() + abandon.left * 1000; }
    c.draw = draw;
    if (!c.timer) c.timer = setInterval(() => c.draw && c.draw(), 1000);
    return () => Math.max(0, Math.ceil((c.until - Date.now()) / 1000));
  }
  const rivalName = (r, side) => (r.names && r.names[side]) || cap(side);

  /* The status page: who is away and when the other may claim the game, which is also why the game
     waits: one line, first (status.js then leaves the pause out of its panel). */
  function status(box, state) {
    const r = state.remote, a = r && r.phase === "playing" ? r.abandon : null;
    const left = track(box, a, () => status(box, state));
    box.classList.toggle("hidden", !a);
    if (!a) { box.textContent = ""; return; }
    const away = rivalName(r, a.side), other = Quin.other(a.side);
    const n = left();
    // the pause and the countdown in one line (the panel below does not say the pause again)
    box.textContent = a.claimable || n === 0
      ? `Paused: ${away} (${cap(a.side)}) has been away ${span(a.after)}: ${cap(other)} may claim the game on their phone, or keep waiting.`
      : `Paused: ${away} (${cap(a.side)}) is away. If not back in ${clock(n)}, ${cap(other)} may claim the game.`;
  }

  /* A seat: Resign… with its confirmation; the claim when the rival has been away long enough. */
  function seat(box, state, me, send) {
    const r = state.remote, playing = !!r && r.phase === "playing" && state.phase === "playing";
    const early = !!r && !r.called_off && (r.phase === "waiting" || r.phase === "setup") && state.phase === "setup";
    box.classList.toggle("hidden", !playing && !early);
    if (early) { track(box, null); callOff(box, state, me, send); return; }
    if (!playing) { track(box, null); box.replaceChildren(); box._ask = false; return; }
    const rival = Quin.other(me);
    const a = r.abandon && r.abandon.side === rival ? r.abandon : null;
    const draw = () => seat(box, state, me, send);
    const left = track(box, a, draw);
    const h = Quin.h;
    const parts = [];
    if (a) {
      const n = left(), may = a.claimable || n === 0;
      const who = rivalName(r, rival);
      parts.push(h("p", { class: "away-text" }, !may
        ? `${who} is away. If not back in ${clock(n)}, you may claim the game.`
        : box._wait ? `You are waiting for ${who} to come back. You may still claim the game.`
        : `${who} has been away ${span(a.after)}: claim the game (you win), or keep waiting.`));
      if (may) {
        parts.push(h("div", { class: "buttons" },
          h("button", { id: "remote-claim", class: box._wait ? "" : "primary", disabled: r.claiming,
                        onclick: () => send({ end: "claim" }) }, r.claiming ? "Claiming…" : "Claim the game (you win)"),
          box._wait ? "" : h("button", { id: "remote-wait", onclick: () => { box._wait = true; draw(); } }, "Keep waiting")));
      }
    } else {
      box._wait = false;
    }
    if (r.resigning) parts.push(h("p", { class: "resigning" }, "Resigning: the hub is told…"));
    else parts.push(resignPart(box, rivalName(r, rival), draw, () => send({ end: "resign" })));
    box.replaceChildren(...parts);
  }

  /* "Resign…", asked once more before ``resign()`` is called (box._ask: the question is open); ``draw``
     draws the box again. A remote game's seat and a seat at this table both ask so. */
  function resignPart(box, winner, draw, resign) {
    const h = Quin.h;
    if (!box._ask) return h("button", { id: "resign", class: "quiet", onclick: () => { box._ask = true; draw(); } }, "Resign…");
    return h("div", { class: "confirm", role: "alertdialog", "aria-labelledby": "resign-question" },
      h("p", { id: "resign-question" }, `Resign this game? ${winner} wins, and the game ends for both of you.`),
      h("div", { class: "buttons" },
        h("button", { id: "resign-yes", class: "danger", onclick: () => { box._ask = false; resign(); } }, "Yes, resign"),
        h("button", { id: "resign-no", class: "primary", onclick: () => { box._ask = false; draw(); } }, "No, play on")));
  }

  /* Before play (the friend has not joined, or not sent a lineup): "Call off this game…", asked once
     more before it is sent; nobody wins, and the friend is told. */
  function callOff(box, state, me, send) {
    const r = state.remote, h = Quin.h, rival = Quin.other(me);
    const draw = () => callOff(box, state, me, send);
    const friend = (r.names && r.names[rival]) || "your friend";
    if (r.calling_off) box.replaceChildren(h("p", { class: "resigning" }, "Calling the game off: the hub is told…"));
    else if (box._ask) {
      box.replaceChildren(h("div", { class: "confirm", role: "alertdialog", "aria-labelledby": "call-off-question" },
        h("p", { id: "call-off-question" }, `Call off this game? It has not begun: nobody wins, and ${friend} is told.`),
        h("div", { class: "buttons" },
          h("button", { id: "call-off-yes", class: "danger", onclick: () => { box._ask = false; send({ end: "call_off" }); } }, "Yes, call it off"),
          h("button", { id: "call-off-no", class: "primary", onclick: () => { box._ask = false; draw(); } }, "No, wait"))));
    } else {
      box.replaceChildren(h("button", { id: "call-off", class: "quiet", onclick: () => { box._ask = true; draw(); } }, "Call off this game…"));
    }
  }

  /* A game at this table (not remote), being played: "Resign…", asked once more, then sent
     (POST /api/seat/<token>/resign): the rival wins, and every screen says so. */
  function local(box, state, me, send) {
    const playing = !state.remote && state.phase === "playing";
    box.classList.toggle("hidden", !playing);
    if (!playing) { box.replaceChildren(); box._ask = false; return; }
    const rival = Quin.other(me);
    const name = ((state.players || {})[rival]) || cap(rival);
    box.replaceChildren(resignPart(box, name, () => local(box, state, me, send), send));
  }

  return { seat, status, local };
})();
