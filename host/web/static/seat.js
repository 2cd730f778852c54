/* A player's seat: setup, their own towers, declarations, the referee's questions, flashes. */
"use strict";

document.addEventListener("DOMContentLoaded", async () => {
  const $ = (id) => document.getElementById(id);
  const SEAT = window.QUIN_SEAT;
  const me = SEAT.player;
  const headers = { "X-Seat-Token": SEAT.token };
  const api = (path) => `/api/seat/${encodeURIComponent(SEAT.token)}/${path}`;
  const BASE = { light: 1, shadow: 2, artificial_light: 4, reflector: 2, memory: 1, time: 1, peripheral: 2, void: 4 };
  const CLONES = ["time", "void", "memory", "artificial_light"];
  const REMOVABLE = ["artificial_light", "reflector", "memory", "time", "peripheral", "void"];

  let state = null;
  let draft = { clone: null, removed: null, lineup: {} };
  let picked = null;        // the piece chosen in the palette (setup)
  let selected = null;      // a tapped space (play: hints, declarations)
  let declaring = null;     // "reinforce" or "resurrect" while the player picks which piece
  let lastEvents = null;

  const showError = (msg) => { $("error").textContent = msg || ""; };
  const send = (path, body) => Quin.post(api(path), body, headers)
    .then((s) => { showError(""); if (s && s.phase) render(s, []); return s; })
    .catch((e) => { showError(e.message); throw e; });

  const board = await Quin.board($("board"), onTap);

  // --- setup ----------------------------------------------------------------------------------

  function pieceCounts() {
    const counts = Object.assign({}, BASE);
    if (draft.clone) counts[draft.clone] += 1;
    if (draft.removed) counts[draft.removed] -= 1;
    return counts;
  }

  function available() {
    const counts = pieceCounts();
    delete counts.artificial_light; // never starts on the board
    for (const p of Object.values(draft.lineup)) counts[p] -= 1;
    return counts;
  }

  function renderSetup() {
    const clones = $("clones"), removes = $("removes"), palette = $("palette");
    clones.innerHTML = ""; removes.innerHTML = ""; palette.innerHTML = "";
    for (const c of CLONES) {
      const b = Quin.h("button", { class: draft.clone === c ? "selected" : "", "data-clone": c,
        onclick: () => { draft.clone = c; trimLineup(); renderSetup(); drawSetupBoard(); } }, Quin.pieceName(c));
      clones.append(b);
    }
    for (const r of REMOVABLE) {
      removes.append(Quin.h("button", { class: draft.removed === r ? "selected" : "", "data-removed": r,
        onclick: () => { draft.removed = r; trimLineup(); renderSetup(); drawSetupBoard(); } }, Quin.pieceName(r)));
    }
    const left = available();
    for (const [p, n] of Object.entries(left)) {
      const b = Quin.h("button", { class: picked === p ? "selected" : "", "data-piece": p,
        onclick: () => { picked = p; renderSetup(); } }, `${Quin.LETTER[p]} ${Quin.pieceName(p)} ×${n}`);
      if (n <= 0) b.disabled = true;
      palette.append(b);
    }
    const placed = Object.keys(draft.lineup).length;
    $("lineup-count").textContent = `${placed} of 10 placed`;
    $("send-setup").disabled = !(draft.clone && draft.removed && placed === 10);
  }

  function trimLineup() {
    // After a clone/removal change, drop placements that no longer fit.
    const counts = pieceCounts();
    for (const [s, p] of Object.entries(draft.lineup)) {
      if (counts[p] > 0) counts[p] -= 1; else delete draft.lineup[s];
    }
  }

  function drawSetupBoard() {
    const list = Object.entries(draft.lineup).map(([space, piece]) => ({ space, owner: me, piece, own: true }));
    const marks = {};
    for (const s of state.seat.start_spaces) if (!draft.lineup[s]) marks[s] = "place";
    board.render(list, marks);
  }

  function tapSetup(space) {
    if (!state.seat.start_spaces.includes(space)) { showError(`${space} is not one of your starting spaces (your Gateways and Ring 8)`); return; }
    showError("");
    if (draft.lineup[space]) { delete draft.lineup[space]; }
    else if (picked && available()[picked] > 0) { draft.lineup[space] = picked; if (available()[picked] <= 0) picked = null; }
    else { showError("tap a piece below first"); return; }
    renderSetup();
    drawSetupBoard();
  }

  $("random-lineup").addEventListener("click", () => {
    if (!draft.clone) draft.clone = CLONES[Math.floor(Math.random() * CLONES.length)];
    if (!draft.removed) draft.removed = REMOVABLE[Math.floor(Math.random() * REMOVABLE.length)];
    trimLineup();
    const pool = [];
    for (const [p, n] of Object.entries(available())) for (let i = 0; i < n; i++) pool.push(p);
    for (let i = pool.length - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); [pool[i], pool[j]] = [pool[j], pool[i]]; }
    for (const s of state.seat.start_spaces) if (!draft.lineup[s]) draft.lineup[s] = pool.pop();
    renderSetup(); drawSetupBoard();
  });
  $("clear-lineup").addEventListener("click", () => { draft.lineup = {}; renderSetup(); drawSetupBoard(); });
  $("send-setup").addEventListener("click", () => send("setup", draft).catch(() => {}));

  // --- play -----------------------------------------------------------------------------------

  function onTap(space) {
    if (!state) return;
    if (state.phase === "setup") { tapSetup(space); return; }
    selected = selected === space ? null : space;
    drawPlayBoard();
  }

  function drawPlayBoard() {
    const marks = {};
    const hints = state.seat.hints;
    if (selected) {
      marks[selected] = "selected";
      if (hints && hints[selected]) for (const s of hints[selected]) marks[s] = "hint";
    }
    const b = state.board || {};
    if (state.referee && (b.lift || b.place)) {
      for (const s of b.lift || []) marks[s] = marks[s] || "lift";
      for (const s of b.place || []) marks[s] = marks[s] || "place";
    }
    board.render(Quin.towersOf(state), marks);
  }

  /* The declarations of docs/referee.md: Reinforce which piece, Resurrect which piece, Time, Swap, Done. */
  function renderDeclarations() {
    const box = $("declare"), detail = $("declare-detail");
    box.innerHTML = ""; detail.innerHTML = "";
    const d = state.seat.declarations;
    const priv = state.seat.private || {};
    $("declare-card").classList.toggle("hidden", !d);
    if (!d) return;
    const button = (label, attrs, onclick, enabled) => {
      const b = Quin.h("button", Object.assign({ onclick }, attrs), label);
      if (enabled === false) b.disabled = true;
      return b;
    };
    box.append(
      button("Reinforce…", { "data-declare": "reinforce" }, () => openDetail("reinforce"), d.reinforce.length > 0),
      button("Resurrect…", { "data-declare": "resurrect" }, () => openDetail("resurrect"), d.resurrect.length > 0),
      button("Time", { "data-declare": "time" }, () => declare({ type: "time" }), d.time),
      button("Swap", { "data-declare": "swap" }, () => declare({ type: "swap" }), d.swap),
      button("Done", { "data-declare": "done", class: "primary" }, () => declare({ type: "done" })),
    );
    if (declaring === "reinforce") {
      detail.append(Quin.h("span", { class: "small muted" }, "Which tower(s) from your reserve? "));
      for (const pieces of d.reinforce) {
        const label = pieces.length > 1 ? `${pieces.length} × ${Quin.pieceName(pieces[0])}` : Quin.pieceName(pieces[0]);
        detail.append(button(label, { "data-reinforce": pieces.join(",") }, () => declare({ type: "reinforce", pieces })));
      }
    } else if (declaring === "resurrect") {
      detail.append(Quin.h("span", { class: "small muted" }, "Which captured tower? "));
      for (const piece of d.resurrect) {
        detail.append(button(Quin.pieceName(piece), { "data-resurrect": piece }, () => declare({ type: "resurrect", piece })));
      }
    }
    if (priv.declared) {
      detail.append(Quin.h("div", { class: "small" }, "Declared: " + declaredText(priv.declared)));
    }
  }

  function declaredText(d) {
    if (d.type === "reinforce") return "reinforce with " + d.pieces.map(Quin.pieceName).join(", ");
    if (d.type === "resurrect") return "resurrect " + Quin.pieceName(d.piece);
    if (d.type === "choose") return Quin.actionText(d.action);
    return d.type;
  }

  function openDetail(kind) { declaring = declaring === kind ? null : kind; renderDeclarations(); }

  function declare(input) {
    declaring = null;
    send("input", input).catch(() => {});
  }

  function renderQuestion() {
    const priv = state.seat.private || {};
    const q = priv.question;
    const box = $("question");
    box.innerHTML = "";
    if (q) {
      box.append(Quin.h("div", { class: "big" }, q.text));
      const opts = Quin.h("div", { class: "buttons" });
      for (const option of q.options) {
        opts.append(Quin.h("button", { class: "primary", "data-option": JSON.stringify(option),
          onclick: () => declare({ type: "choose", action: option }) }, Quin.actionText(option)));
      }
      box.append(opts);
    }
    const notes = [];
    if (priv.rejected) notes.push(priv.rejected);
    const todo = (priv.instructions || []).map((i) => i.text).filter(Boolean);
    if (todo.length) notes.push("Fix the board: " + todo.join("; "));
    for (const line of notes) box.append(Quin.h("div", { class: "error" }, line));
    box.classList.toggle("hidden", !q && !notes.length);
  }

  function renderReserve() {
    const v = state.view;
    const r = $("reserve");
    r.innerHTML = "";
    if (!v) return;
    const mine = v.reserve[me];
    r.append(`Your reserve: ${mine.pieces && mine.pieces.length ? mine.pieces.map(Quin.pieceName).join(", ") : "empty"}`);
  }

  function notify(notices) {
    for (const n of notices) {
      const d = n.data || {};
      if (n.kind === "flash" || (n.kind === "time" && d.text)) {
        Quin.toast(d.text, "flash", 7000);
      } else if (n.kind === "rejected" && n.audience === me) {
        showError(d.reason || "not accepted");
      } else if (n.kind === "result") {
        Quin.toast(Quin.resultText(d), "", 6000);
      }
    }
  }

  function render(s, notices) {
    state = s;
    const v = s.view;
    $("mode").textContent = (s.mode || "").replace("_", " ") + (s.vision ? " · Vision" : "");
    $("setup-card").classList.toggle("hidden", s.phase !== "setup");
    if (s.phase === "setup") {
      if (s.seat.setup && !draft.clone) draft = JSON.parse(JSON.stringify(s.seat.setup));
      const rival = me === "white" ? "black" : "white";
      $("turn").textContent = "Choose your lineup";
      $("setup-status").textContent = (s.setup_done[me] ? "Sent. You can still change it until both are in. " : "") +
        `${rival[0].toUpperCase() + rival.slice(1)} is ${s.setup_done[rival] ? "ready" : "still choosing"}.`;
      renderSetup();
      drawSetupBoard();
      $("question").classList.add("hidden");
      $("waiting").classList.add("hidden");
      return;
    }
    $("turn").textContent = Quin.turnText(s, me);
    const res = v ? Quin.resultText(v.result) : "";
    $("result").textContent = res;
    $("result").classList.toggle("hidden", !res);
    const lines = Quin.describe(s.referee);
    $("waiting").textContent = lines.join(" · ");
    $("waiting").classList.toggle("hidden", !lines.length);
    renderQuestion();
    renderDeclarations();
    drawPlayBoard();
    Quin.renderZeroGravity($("zg"), v);
    renderReserve();
    Quin.renderLog($("log"), v);
    const n = v ? v.events.length : 0;
    if (lastEvents !== null && n > lastEvents && !notices.some((x) => x.kind === "flash" || x.kind === "time")) {
      Quin.toast(Quin.eventText(v.events[n - 1]), "flash", 7000);
    }
    lastEvents = n;
    notify(notices);
  }

  /* A revoked seat (a new game, or the seat re-issued to another phone) stops here, with a word why. */
  async function stillSeated() {
    try {
      const r = await fetch(api("state"));
      if (r.status !== 403) return true;
    } catch (e) {
      return true; // the network, not the seat: keep trying
    }
    $("conn").textContent = "closed";
    $("turn").textContent = "This seat link no longer works";
    showError("A new game was started or this seat was re-issued to another phone: scan the new code on the host page.");
    return false;
  }

  Quin.stream(`/events?seat=${encodeURIComponent(SEAT.token)}`, render, $("conn"), stillSeated);
});
