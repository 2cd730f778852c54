/* A player's seat, held in one hand: the lineup, their own towers, declarations, questions, flashes. */
"use strict";

document.addEventListener("DOMContentLoaded", async () => {
  const $ = (id) => document.getElementById(id);
  const { h, cap } = Quin;
  const SEAT = window.QUIN_SEAT;
  const me = SEAT.player, rival = Quin.other(me);
  const headers = { "X-Seat-Token": SEAT.token };
  const api = (path) => `/api/seat/${encodeURIComponent(SEAT.token)}/${path}`;
  const BASE = { light: 1, shadow: 2, artificial_light: 4, reflector: 2, memory: 1, time: 1, peripheral: 2, void: 4 };
  const ON_BOARD = ["light", "shadow", "reflector", "memory", "time", "peripheral", "void"];
  const CLONES = ["time", "void", "memory", "artificial_light"];
  const REMOVABLE = ["artificial_light", "reflector", "memory", "time", "peripheral", "void"];
  const side = me[0];
  // Your starting spaces as you see them from your seat: the front row (Ring 8) nearer the centre,
  // the Gateways behind it, Sight Line 1 on your left.
  const FRONT = [1, 2, 3, 4, 5].map((k) => `${side}${k}8`), BACK = [1, 2, 3, 4, 5].map((k) => `${side}${k}9`);
  const ORDER = FRONT.concat(BACK);

  let state = null;
  let draft = { clone: "", removed: "", lineup: {} };
  let sent = null;           // the setup this phone sent, as JSON text
  let spot = ORDER[0];       // the starting space a tapped piece goes on
  let selected = null;       // a tapped space in play (Vision Mode hints)
  let sheet = null;          // what the sheet at the foot shows: "reinforce", "resurrect", "saved" or null
  let refusal = null;        // {text, key}: the last refused request, until the game moves on
  let note = "";             // a word in the setup bar about the last shortcut used
  let lastEvents = null;

  const turnKey = (s) => (s && s.view ? `${s.view.turn}:${s.view.to_move}:${s.view.history.length}` : s ? s.phase : "");
  const refuse = (text) => { refusal = { text: text + " " + nextStep(text), key: turnKey(state) }; renderNow(); };
  // An answer is drawn unless the stream has since brought a later event (its ``event``: the last
  // one sent when it was read): the stream's newer state stays (the game's end, say).
  const older = (s) => s.event !== undefined && window.QUIN_LAST_EVENT_ID !== undefined
    && Number(s.event) < Number(window.QUIN_LAST_EVENT_ID);
  const send = (path, body) => Quin.post(api(path), body, headers)
    .then((s) => {
      refusal = null;
      if (s && s.phase && !older(s)) render(s, []);
      window.QUIN_ANSWERS = (window.QUIN_ANSWERS || 0) + 1;  // answers handled (drawn or kept from drawing)
      return s;
    })
    .catch((e) => { refuse(sentence(e.message)); throw e; });

  // The board's layout and the live stream load side by side; the first state waits for the board.
  let board = null;
  const boardReady = Quin.board($("board"), { onTap, flip: me === "black", crop: "own" });
  Quin.legend($("legend"));

  /* Every refusal says what to do next. */
  function nextStep(text) {
    const ref = state && state.referee, v = state && state.view;
    if (!state || state.phase === "setup") return /lineup|setup|fill|space/.test(text) ? "Fill all ten spaces, then tap Ready." : "";
    if (v && v.to_move !== me) return `Wait for ${cap(rival)}'s move.`;
    if (ref && ref.flash) return "Finish the flash on the board first.";
    if (ref && ref.time) return "Carry out the Power of Time on the board first.";
    if (/finished action/.test(text)) return "Finish your move on the board, then tap Done.";
    return "Move a tower on the board, or choose another declaration.";
  }
  const sentence = (t) => { t = Quin.proper(String(t || "").trim()); return t ? cap(t) + (/[.!?]$/.test(t) ? "" : ".") : ""; };

  // --- lineups: counts, the colour-free form kept on this phone ---------------------------------

  function pieceCounts(d) {
    const counts = Object.assign({}, BASE);
    if (d.clone) counts[d.clone] += 1;
    if (d.removed) counts[d.removed] -= 1;
    return counts;
  }

  function available() {
    const counts = pieceCounts(draft);
    for (const p of Object.values(draft.lineup)) counts[p] -= 1;
    return counts;
  }

  function trimLineup() {
    const counts = pieceCounts(draft);
    for (const s of ORDER) {
      const p = draft.lineup[s];
      if (!p) continue;
      if (p !== "artificial_light" && counts[p] > 0) counts[p] -= 1; else delete draft.lineup[s];
    }
  }

  /* A lineup without its colour ({"38": "shadow"}), so it can be played from either seat. */
  const plain = (d) => ({ clone: d.clone, removed: d.removed,
                          lineup: Object.fromEntries(Object.entries(d.lineup).map(([s, p]) => [s.slice(1), p])) });
  const mine = (d) => ({ clone: d.clone || "", removed: d.removed || "",
                         lineup: Object.fromEntries(Object.entries(d.lineup || {}).map(([s, p]) => [side + s.slice(-2), p])) });
  const store = {
    get(key, fallback) { try { return JSON.parse(localStorage.getItem("quin." + key)) || fallback; } catch (e) { return fallback; } },
    set(key, value) { try { localStorage.setItem("quin." + key, JSON.stringify(value)); } catch (e) { /* private mode */ } },
  };
  const complete = () => draft.clone && draft.removed && ORDER.every((s) => draft.lineup[s]);
  // Who plays this seat: the name shown to everyone, and the club hub's player code (kept on this phone).
  let who = Object.assign({ name: "", code: "" }, store.get("me", {}));
  const whoSent = () => ({ name: who.name.trim() || null, code: (state && state.hub && who.code.trim()) || null });
  const sentNow = () => JSON.stringify([draft, whoSent()]);

  function firstEmpty(after) {
    const start = after ? ORDER.indexOf(after) + 1 : 0;
    for (let i = 0; i < ORDER.length; i++) {
      const s = ORDER[(start + i) % ORDER.length];
      if (!draft.lineup[s]) return s;
    }
    return after || ORDER[0];
  }

  function apply(d, what) {
    draft = mine(d);
    trimLineup();
    spot = firstEmpty();
    note = what || "";
    renderSetup();
  }

  function shuffled(list) {
    for (let i = list.length - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); [list[i], list[j]] = [list[j], list[i]]; }
    return list;
  }

  function fillRandom() {
    if (!draft.clone) draft.clone = CLONES[Math.floor(Math.random() * CLONES.length)];
    if (!draft.removed) draft.removed = REMOVABLE[Math.floor(Math.random() * REMOVABLE.length)];
    trimLineup();
    const pool = [];
    for (const [p, n] of Object.entries(available())) if (p !== "artificial_light") for (let i = 0; i < n; i++) pool.push(p);
    shuffled(pool);
    for (const s of ORDER) if (!draft.lineup[s]) draft.lineup[s] = pool.pop();
  }

  // --- setup: tap a space, then a piece ------------------------------------------------------------

  function renderSetup() {
    // Only while lineups are chosen: the Ready's answer can come after the stream has moved the table on to
    // setting up the board, and must not draw the lineup's board, footer and selection ring over it.
    if (!state || state.phase !== "setup") return;
    $("clone").value = draft.clone || "";
    $("removed").value = draft.removed || "";
    const spaces = $("spaces");
    spaces.innerHTML = "";
    const tile = (s) => {
      const p = draft.lineup[s];
      const b = h("button", { class: (p ? "" : "empty ") + (me === "black" ? "mine-black" : ""), "data-space": s,
                              "aria-pressed": String(s === spot), "aria-label": `${s}: ${p ? Quin.pieceName(p) : "empty"}`,
                              onclick: () => { spot = s; renderSetup(); } },
                  p ? Quin.icon(p) : h("span", { "aria-hidden": "true" }, "+"), h("span", {}, p ? Quin.pieceName(p) : s));
      return b;
    };
    spaces.append(h("span", { class: "row-label" }, "Front row (Ring 8)"), ...FRONT.map(tile),
                  h("span", { class: "row-label" }, "Gateways"), ...BACK.map(tile));
    const palette = $("palette");
    palette.innerHTML = "";
    const left = available();
    for (const p of ON_BOARD) {
      const n = left[p];
      const b = h("button", { "data-piece": p, "aria-label": `${Quin.pieceName(p)}, ${n} left`, onclick: () => place(p) },
                  Quin.icon(p), h("span", {}, Quin.pieceName(p)), h("span", { class: "count" }, `×${n}`));
      if (n <= 0 && draft.lineup[spot] !== p) b.disabled = true;
      palette.append(b);
    }
    palette.append(h("button", { "data-piece": "", "aria-label": `empty ${spot}`, onclick: () => place(null) },
                     h("span", { "aria-hidden": "true" }, "×"), h("span", {}, "Empty")));
    const placed = ORDER.filter((s) => draft.lineup[s]).length;
    $("last-lineup").disabled = !store.get("last", null);
    const ready = complete();
    const b = $("send-setup");
    const same = sent !== null && sent === sentNow();
    b.disabled = !ready || same;
    b.textContent = sent === null ? "Ready" : same ? "Sent ✓" : "Send again";
    let status;
    if (!draft.clone || !draft.removed) status = "Choose a clone and a piece to remove.";
    else if (!ready) status = `${placed} of 10 placed: tap a space, then a piece.`;
    else if (!same) status = "Your lineup is complete.";
    else status = state && state.setup_done[rival] ? `${cap(rival)} is ready.` : `Sent. ${cap(rival)} is still choosing; you can still change it.`;
    $("bar-status").textContent = note && !same ? note : status;
    drawSetupBoard();
  }

  function place(piece) {
    if (piece === null) delete draft.lineup[spot];
    else {
      if (draft.lineup[spot] === piece) { spot = firstEmpty(spot); renderSetup(); return; }
      if (available()[piece] <= 0) return;
      draft.lineup[spot] = piece;
      spot = firstEmpty(spot);
    }
    refusal = null;
    note = "";
    renderNow();
    renderSetup();
  }

  function drawSetupBoard() {
    const list = Object.entries(draft.lineup).map(([space, piece]) => ({ space, owner: me, piece, own: true }));
    const marks = {};
    for (const s of ORDER) if (!draft.lineup[s]) marks[s] = "place";
    marks[spot] = "selected";
    board.render(list, marks, []);
  }

  $("clone").addEventListener("change", (e) => { draft.clone = e.target.value; trimLineup(); renderSetup(); });
  $("removed").addEventListener("change", (e) => { draft.removed = e.target.value; trimLineup(); renderSetup(); });
  $("random-lineup").addEventListener("click", () => { fillRandom(); spot = firstEmpty(); renderSetup(); });
  $("quick-start").addEventListener("click", () => {
    // The rulebook: "On your first game remove a Void and replace it with a Clone of Time", and
    // "Play your Shadows on the front row"; the rest at random, for you to change.
    const light = BACK[Math.floor(Math.random() * BACK.length)];
    draft = { clone: "time", removed: "void", lineup: { [FRONT[1]]: "shadow", [FRONT[3]]: "shadow", [light]: "light" } };
    fillRandom();
    apply(draft, "Quick start: Time cloned, a Void removed, Shadows in front. Change any space.");
  });
  $("last-lineup").addEventListener("click", () => {
    const last = store.get("last", null);
    if (last) apply(last, "Your lineup from last game.");
  });
  $("saved-lineups").addEventListener("click", () => { sheet = sheet === "saved" ? null : "saved"; renderSheet(); });
  $("send-setup").addEventListener("click", () => {
    const body = JSON.parse(JSON.stringify(draft));
    const now = sentNow();
    body.player = whoSent();
    send("setup", body).then(() => { sent = now; store.set("last", plain(draft)); renderSetup(); }).catch(() => {});
  });
  for (const [id, key] of [["who-name", "name"], ["who-code", "code"]]) {
    $(id).value = who[key] || "";
    $(id).addEventListener("input", (e) => { who[key] = e.target.value; store.set("me", who); refusal = null; renderNow(); renderSetup(); });
  }

  async function saveLineup() {
    const saved = store.get("lineups", {});
    const name = await askName(`Lineup ${Object.keys(saved).length + 1}`);
    if (!name) return;
    saved[name] = plain(draft);
    store.set("lineups", saved);
    renderSheet();
    Quin.toast(`Saved “${name}” on this phone.`, "", 4000);
  }

  function askName(suggested) {
    const input = h("input", { type: "text", id: "lineup-name", value: suggested, maxlength: "40" });
    return Quin.dialog("name this lineup", [h("label", { for: "lineup-name" }, "Name this lineup"), input], "Save",
                       () => input.value.trim(), "");
  }

  // --- play ------------------------------------------------------------------------------------

  function onTap(space) {
    if (!state) return;
    if (state.phase === "setup") {
      if (!ORDER.includes(space)) { refuse(`${space} is not one of your starting spaces: they are your Gateways and Ring 8.`); return; }
      spot = space;
      renderSetup();
      return;
    }
    selected = selected === space ? null : space;
    drawPlayBoard();
  }

  function drawPlayBoard() {
    const v = state.view;
    let need = Quin.needs(state, me);  // the referee's corrections to this seat included
    const wrong = Quin.outOfTurn(state, me);
    if (wrong) need = wrong;
    else Quin.addOpponent(state, me, need);
    const drawn = Quin.scene(v, need);
    const marks = drawn.marks;
    const hints = state.seat.hints;
    if (selected) {
      marks[selected] = "selected";
      if (hints && hints[selected]) for (const s of hints[selected]) marks[s] = "hint";
    }
    const towers = Quin.pendingTowers(state, v ? v.board.map((t) => ({ space: t.space, owner: t.owner, piece: t.piece, revealed: t.revealed, own: t.owner === me })) : [], marks);
    // The spaces the page names now: a close look at them is one tap away (and follows them while zoomed).
    named = Object.keys(marks).filter((sp) => marks[sp] === "lift" || marks[sp] === "place");
    if (zoomIn) board.zoom(named.length ? named : ["fs"]);
    board.render(towers, marks, drawn.overlays);
    const zb = $("zoom");
    zb.classList.remove("hidden");
    zb.setAttribute("aria-pressed", String(zoomIn));
    zb.textContent = zoomIn ? "Whole board" : named.length && named.length <= 4 ? `Zoom in on ${named.join(", ")}` : "Zoom in";
  }

  let zoomIn = false;        // a close look at the board (the named spaces, legible on a phone)
  let named = [];
  $("zoom").addEventListener("click", () => {
    zoomIn = !zoomIn;
    if (!zoomIn) board.zoom(null);
    if (state && state.phase !== "setup") drawPlayBoard();
  });

  /* The panel under the headline: a flash, the Power of Time, a refusal, what to put right. */
  function renderNow() {
    const box = $("now");
    box.innerHTML = "";
    if (!state) return;
    const priv = (state.seat && state.seat.private) || {};
    let title = "", cls = "", lines = [], tips = [];
    if (state.phase !== "setup") {
      const wrong = Quin.outOfTurn(state, me);
      const need = wrong || Quin.needs(state, me);
      const robot = !wrong && Quin.addOpponent(state, me, need);
      title = need.title || (need.kind === "setup" ? "Put your lineup on the board" : "");
      lines = need.lines.slice();
      if (need.kind === "setup" && need.lines.length) {
        lines.push("Each of your towers goes on the green space where its face is drawn (faint until it stands there).");
      }
      if (need.kind === "setup" && state.opponent) {
        title = "Put both lineups on the board";
        lines.push(`${cap(state.opponent.side)}'s towers need no faces: put any ten of them on its starting spaces.`);
      }
      // A normal instruction (set the lineups out, the opponent's move) is no alarm: only what went wrong is red.
      cls = need.kind === "flash" || need.kind === "opponent-flash" ? "flash" : need.kind === "time" ? "time"
        : (robot && need.kind === "opponent") || need.kind === "setup" ? "" : need.kind ? "problem" : "";
      if (wrong) cls = "problem";  // said once: the referee's own corrections for the mover would say it again
      else {
        if (need.problem) cls = "problem";  // the referee's corrections to this seat (Quin.needs says them)
        if (priv.rejected) {
          cls = "problem";
          title = "Not allowed: " + Quin.proper(priv.rejected);
          if (!(priv.instructions || []).length) lines.push(nextStep(priv.rejected));
        }
        const held = flashFrom(priv.instructions, state.seat.declarations);
        if (held) lines.push(held);
      }
      if (!wrong && !need.lines.length && !priv.rejected && !priv.declared && !priv.question && state.seat.declarations) {
        // Your move, and nothing else to say: where moves are made, and what is new this turn.
        lines.push("Move one of your towers on the board: the referee sees it there.");
        tips = firstTimeTips(state);
      }
    }
    // a remote game waits (the rival away, the hub not reached): as on every board-side screen; the
    // rival away with the hub's countdown is said once, in its own line (QuinRemoteEnd.seat), not here too
    const story = Quin.remoteStory(state);
    if (!(story.countdown && state.remote.abandon.side === rival)) title = story.said(title, lines);
    // the board's link (public: the status page says the same): a problem now, or what just happened to it
    if (state.source && state.source.message) { lines.push("The board: " + state.source.message); if (state.source.ok === false) cls = cls || "problem"; }
    if (refusal && refusal.key === turnKey(state)) { box.append(h("p", { class: "refusal", role: "alert" }, refusal.text)); cls = cls || "problem"; }
    else refusal = null;
    if (title) box.prepend(h("h3", {}, title));
    if (lines.length) box.append(h("ul", {}, ...lines.map((l) => h("li", {}, l))));
    for (const t of tips) box.append(h("p", { class: "tip", "data-tip": t.kind }, t.text));
    box.className = "now " + cls + (box.childNodes.length ? "" : " hidden");
  }

  /* One of your towers held alone, off a space it may flash from: "put it back" is not the only way on. */
  function flashFrom(todo, d) {
    if (!d || !todo || todo.length !== 1 || todo[0].do !== "fill") return "";
    const to = (d.flashes || []).filter((f) => f.from === todo[0].space).map((f) => f.to);
    return to.length ? `Or, to flash: lift ${cap(rival)}'s tower on ${to.join(" or ")} too.` : "";
  }

  /* A one-line tip the first time a flash, the Power of Time, a Memory Swap or a Reinforcement is
     possible for this player (kept on this phone: a tip is shown through the turn it first appears
     in, then never again).  Only this player's own towers are named, and the rival tower a flash
     would meet (its space is public). */
  const tipsSeen = store.get("tips", {});  // kind -> "game:turn" it was first shown in
  function firstTimeTips(s) {
    const d = s.seat.declarations, v = s.view;
    if (!d || !v) return [];
    const possible = [];
    const f = (d.flashes || [])[0];
    if (f) possible.push(["flash", `To flash: lift your tower (for one, on ${f.from}) and ${cap(rival)}'s tower it moves onto (${f.to}); the flash then says who wins and where each goes.`]);
    if (d.time) possible.push(["time", `To use the Power of Time: tap Time, then take your Time tower off the board; the screens then say ${s.mode === "third_eye" ? "which tower to push back" : "what it rewinds"}.`]);
    if (d.swap) possible.push(["swap", "To swap with your Memory: tap Swap, then lift your Memory and the tower it trades places with and put each on the other's space."]);
    if (d.reinforce && d.reinforce.length) possible.push(["reinforce", "To bring in a Reinforcement: tap Reinforce, pick the tower, then put it on one of your empty Gateways (it ends your turn)."]);
    const now = `${s.game}:${v.turn}`;
    const out = [];
    for (const [kind, text] of possible) {
      if (!(kind in tipsSeen)) { tipsSeen[kind] = now; store.set("tips", tipsSeen); }
      if (tipsSeen[kind] === now) out.push({ kind, text });
    }
    return out;
  }

  /* The declarations of docs/referee.md, in the action bar; only what makes sense now is enabled. */
  function renderDeclarations() {
    const box = $("declare");
    box.innerHTML = "";
    const d = state.seat.declarations;
    const ref = state.referee || {};
    const priv = state.seat.private || {};
    const myTurn = !!d;
    box.classList.toggle("hidden", !myTurn);
    $("bar-status").classList.toggle("hidden", myTurn);
    if (myTurn) $("again").classList.add("hidden");
    if (!myTurn) {
      const v = state.view;
      let status = "";
      const over = v && v.result && v.result.status !== "ongoing";
      const again = state.again || {};
      $("again").classList.toggle("hidden", !over);
      if (over) {
        const mine = (again.asked || []).includes(me);
        $("again").disabled = mine;
        $("again").textContent = mine ? "Asked ✓" : "Play again";
        const alone = (again.needs || []).length < 2;  // against the practice opponent
        status = mine ? `Waiting for ${cap(rival)} to play again.` : `Again? ${cap(again.first || "")} moves first${alone ? "" : " once you both tap"}.`;
      } else if (ref.phase === "setup") status = "Put the towers on the board; play begins when it matches.";
      else if (ref.phase === "sync") status = "Put the board back as the game stands.";
      else if (v && state.opponent && state.opponent.side === v.to_move) {
        status = state.opponent.plan ? `Make ${cap(v.to_move)}'s move on the board, as shown above.`
          : state.opponent.remote ? `${cap(v.to_move)} (${state.opponent.who}) is to move.` : `${cap(v.to_move)} (the practice opponent) is thinking.`;
      } else if (v) status = `${cap(v.to_move)} is playing.`;
      $("bar-status").textContent = status;
      return;
    }
    const busy = !!(ref.flash || ref.time || priv.question);
    const b = state.board || {};
    const changed = (b.lift && b.lift.length) || (b.place && b.place.length);
    const button = (label, key, onclick, enabled, primary) => {
      const el = h("button", { "data-declare": key, onclick, class: primary ? "primary" : "",
                               "aria-pressed": sheet === key ? "true" : null }, label);
      if (!enabled) el.disabled = true;
      return el;
    };
    box.append(
      button("Reinforce", "reinforce", () => toggleSheet("reinforce"), !busy && d.reinforce.length > 0),
      button("Resurrect", "resurrect", () => toggleSheet("resurrect"), !busy && d.resurrect.length > 0),
      button("Time", "time", () => declare({ type: "time" }), !busy && d.time),
      button("Swap", "swap", () => declare({ type: "swap" }), !busy && d.swap),
      // Done is the main button only once something was done: a changed board or a declaration.
      button("Done", "done", () => declare({ type: "done" }), !(ref.flash || ref.time), !!(changed || priv.declared) && !(ref.flash || ref.time)),
    );
  }

  function toggleSheet(kind) { sheet = sheet === kind ? null : kind; renderSheet(); renderDeclarations(); }

  /* The sheet above the action bar: a question, which tower to bring in, the saved lineups. */
  function renderSheet() {
    const box = $("sheet");
    box.innerHTML = "";
    box.classList.remove("chooser");
    if (!state) return;
    const priv = (state.seat && state.seat.private) || {};
    const d = state.seat && state.seat.declarations;
    const q = priv.question;
    if (q && state.phase !== "setup") {
      box.setAttribute("aria-label", "the referee asks");
      box.append(h("h3", {}, q.options.length ? "Which did you play?" : cap(Quin.proper(q.text))));
      if (q.options.length) box.append(h("p", { class: "small muted" }, sentence(q.text)));
      const opts = h("div", { class: "buttons" });
      for (const option of q.options) {
        opts.append(h("button", { class: "primary", "data-option": JSON.stringify(option),
                                  onclick: () => declare({ type: "choose", action: option }) }, cap(Quin.actionText(option))));
      }
      if (q.options.length && q.options.every((o) => o.type === "swap")) {
        opts.append(h("button", { "data-option": "done", onclick: () => declare({ type: "done" }) }, "No, I did not swap"));
      }
      box.append(opts);
    } else if (sheet === "reinforce" && d) {
      // A compact bar at the top of the screen: the Gateways, at the foot of this player's board, stay in view.
      // Pieces are named as towers ("Time tower"), not to be taken for the bar's Time (the Power of Time).
      box.setAttribute("aria-label", "reinforce");
      box.classList.add("chooser");
      box.append(h("h3", {}, "Bring in from your Zero Gravity, then put it on an empty Gateway:"));
      const opts = h("div", { class: "buttons" });
      for (const pieces of d.reinforce) {
        const name = Quin.pieceName(pieces[0]);
        const label = pieces.length > 1 ? `${pieces.length} ${name} towers` : `${name} tower`;
        opts.append(h("button", { "data-reinforce": pieces.join(","), onclick: () => declare({ type: "reinforce", pieces }) }, Quin.icon(pieces[0]), " ", label));
      }
      opts.append(h("button", { "data-cancel": "reinforce", onclick: () => toggleSheet("reinforce") }, "Cancel"));
      box.append(opts);
    } else if (sheet === "resurrect" && d) {
      box.setAttribute("aria-label", "resurrect");
      box.append(h("h3", {}, "Which captured tower comes back?"));
      const opts = h("div", { class: "buttons" });
      for (const piece of d.resurrect) {
        opts.append(h("button", { "data-resurrect": piece, onclick: () => declare({ type: "resurrect", piece }) }, Quin.icon(piece), " ", Quin.pieceName(piece)));
      }
      box.append(opts, h("p", { class: "small muted" }, `Then put it on an empty Gateway of ${cap(rival)}'s.`));
    } else if (sheet === "saved" && state.phase === "setup") {
      box.setAttribute("aria-label", "saved lineups");
      const saved = store.get("lineups", {});
      box.append(h("h3", {}, "Saved lineups (on this phone)"));
      const list = h("ul", { class: "saved-list" });
      for (const name of Object.keys(saved)) {
        list.append(h("li", {},
          h("button", { "data-load": name, onclick: () => { apply(saved[name], `Lineup “${name}”.`); sheet = null; renderSheet(); } }, name),
          h("button", { "aria-label": `delete ${name}`, "data-delete": name,
                        onclick: () => { delete saved[name]; store.set("lineups", saved); renderSheet(); } }, "Delete")));
      }
      if (!Object.keys(saved).length) list.append(h("li", { class: "small muted" }, "None yet."));
      const save = h("button", { id: "save-lineup", onclick: saveLineup }, "Save this lineup");
      if (!complete()) save.disabled = true;
      box.append(list, h("div", { class: "buttons" }, save, h("button", { onclick: () => { sheet = null; renderSheet(); } }, "Close")));
    } else if (priv.declared && state.phase !== "setup") {
      box.setAttribute("aria-label", "declared");
      box.append(h("p", { class: "declared" }, `Declared: ${declaredText(priv.declared)}. Now do it on the board.`));
    }
    box.classList.toggle("hidden", !box.childNodes.length);
  }

  function declaredText(d) {
    if (d.type === "reinforce") return "bring in " + d.pieces.map(Quin.pieceName).join(", ");
    if (d.type === "resurrect") return "resurrect " + Quin.pieceName(d.piece);
    if (d.type === "choose") return Quin.actionText(d.action);
    if (d.type === "time") return "the Power of Time";
    if (d.type === "swap") return "a Memory Swap";
    return d.type;
  }

  function declare(input) {
    sheet = null;
    send("input", input).catch(() => {});
  }

  let game = null;           // the game this page last showed: a seat follows the table from game to game

  function render(s, notices) {
    if (game !== null && s.game !== game) {
      // A new game at the same table: this phone keeps its seat; what it held for the last game goes.
      draft = { clone: "", removed: "", lineup: {} };
      sent = null; refusal = null; note = ""; selected = null; sheet = null; lastEvents = null;
      Quin.toast(`Game ${s.game}: a new game. Choose your lineup (Last game brings back the one you sent).`, "", 6000);
    }
    game = s.game;
    state = s;
    Quin.staleness(s, () => render(state, []));  // how long the board has stood as it is (a move out of turn)
    const v = s.view;
    $("mode").textContent = (s.mode || "").replace("_", " ") + (s.vision ? " · Vision" : "");
    const setup = s.phase === "setup";
    $("setup").classList.toggle("hidden", !setup);
    $("play").classList.toggle("hidden", setup);
    $("send-setup").classList.toggle("hidden", !setup);
    $("turn").textContent = Quin.headline(s, me);
    board.setCrop(setup ? "own" : null);
    if (setup) {
      zoomIn = false;
      $("zoom").classList.add("hidden");
      $("declare").classList.add("hidden");
      $("again").classList.add("hidden");
      $("bar-status").classList.remove("hidden");
      // the player code only where the table pushes to a hub (its code means nothing elsewhere)
      $("who-code-box").classList.toggle("hidden", !s.hub);
      const me_ = s.seat.me || {};
      if (!who.name && me_.name) { who.name = me_.name; $("who-name").value = me_.name; }
      if (!who.code && me_.code) { who.code = me_.code; $("who-code").value = me_.code; }
      if (s.seat.setup && !draft.clone && !draft.removed && !Object.keys(draft.lineup).length) {
        draft = mine(s.seat.setup);
        sent = JSON.stringify([draft, { name: me_.name || null, code: me_.code || null }]);
        spot = firstEmpty();
      }
      $("sub").textContent = s.setup_done[rival] ? `${cap(rival)} is ready` : `${cap(rival)} is choosing`;
      $("result").classList.add("hidden");
      Quin.renderClocks($("clocks"), s, me);  // the time control, each side's whole time
      renderSetup();
      renderNow();
      renderSheet();
      // a remote game not begun may be called off (the friend never sends a lineup)
      QuinRemoteEnd.seat($("remote-end"), s, me, (body) => send("remote-end", body).catch(() => {}));
      return;
    }
    if (sheet === "saved") sheet = null;
    $("sub").textContent = v && v.result.status === "ongoing" ? `Turn ${v.turn}` : "";
    Quin.renderEnd($("result"), s, me, $("turn").textContent);
    Quin.renderClocks($("clocks"), s, me);
    renderNow();
    renderDeclarations();
    renderSheet();
    drawPlayBoard();
    // no game (a remote game called off before it began): no Zero Gravity or moves to show
    for (const id of ["zg", "log"]) $(id).closest("section").classList.toggle("hidden", !v);
    Quin.renderZeroGravity($("zg"), v, me);
    Quin.renderLog($("log"), v, me);
    const n = v ? v.events.length : 0;
    if (lastEvents !== null && n > lastEvents && !notices.some((x) => x.kind === "flash" || x.kind === "time")) {
      // A flash missed while the phone slept: say it once.
      const e = v.events[n - 1];
      const turn = v.history.find((t) => t.turn === e.turn);
      if (e.type === "flash" && turn) Quin.toast(Quin.flashEventText(e, turn.player, me), "flash", 8000);
    }
    lastEvents = n;
    Quin.notify(notices, me);
    if (s.remote) QuinRemoteEnd.seat($("remote-end"), s, me, (body) => send("remote-end", body).catch(() => {}));
    else QuinRemoteEnd.local($("remote-end"), s, me, () => send("resign", {}).catch(() => {}));
  }

  $("again").addEventListener("click", () => send("again", {}).catch(() => {}));

  /* A revoked seat (re-issued to another phone, or taken by the practice opponent) stops here, with a
     word why.  A new game does not revoke it: the seat follows the table. */
  async function stillSeated() {
    try {
      const r = await fetch(api("state"));
      if (r.status !== 403) return true;
    } catch (e) {
      return true; // the network, not the seat: keep trying
    }
    $("conn").textContent = "closed";
    $("turn").textContent = "This seat link no longer works";
    $("now").className = "now problem";
    $("now").textContent = "This phone no longer plays this seat: the host gave it to another phone, or to the practice opponent. Ask the host for the seat's new code (the host page shows it).";
    for (const id of ["setup", "play", "sheet", "result"]) $(id).classList.add("hidden");  // nothing left to act on here
    document.querySelector(".actionbar").classList.add("hidden");
    return false;
  }

  Quin.stream(`/events?seat=${encodeURIComponent(SEAT.token)}`, async (st, notices) => { board = board || await boardReady; render(st, notices); }, $("conn"), stillSeated);
});
