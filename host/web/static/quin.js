/* Shared by every page: drawing the board, the live stream, posting input. No build step. */
"use strict";

const Quin = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const LETTER = { light: "L", shadow: "S", artificial_light: "A", reflector: "R",
                   memory: "M", time: "T", peripheral: "P", void: "V" };
  const NAME = { light: "Light", shadow: "Shadow", artificial_light: "Artificial Light",
                 reflector: "Reflector", memory: "Memory", time: "Time", peripheral: "Peripheral", void: "Void" };

  function el(tag, attrs, parent) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "onclick") node.addEventListener("click", v);
      else if (k === "class") node.className = v;
      else node.setAttribute(k, v);
    }
    for (const c of children) node.append(c);
    return node;
  }

  let layoutPromise = null;
  function layout() {
    if (!layoutPromise) layoutPromise = fetch("/api/layout").then(r => r.json());
    return layoutPromise;
  }

  /* A board drawn into <svg>. onTap(space) is called when a space is tapped. */
  async function board(svg, onTap) {
    const L = await layout();
    const R = L.space_radius;
    svg.setAttribute("viewBox", `0 0 ${L.size} ${L.size}`);
    svg.classList.add("board");
    svg.innerHTML = "";
    const base = el("g", {}, svg);
    for (const d of L.edges) el("path", { d, class: "edge" }, base);
    const startOf = {};
    for (const p of ["white", "black"]) for (const s of L.start[p]) startOf[s] = p;
    for (const [name, [x, y]] of Object.entries(L.spaces)) {
      let cls = "space";
      if (startOf[name]) cls += " start-" + startOf[name];
      if (name[0] === "h") cls += " horizon";
      if (name === "wi" || name === "bi") cls += " iris";
      if (name === "fs") cls += " fs";
      el("circle", { cx: x, cy: y, r: R * 0.62, class: cls, "data-space": name }, base);
      el("text", { x, y: y + R + 8, class: "label" }, base).textContent = name;
    }
    const marks = el("g", {}, svg);
    const towers = el("g", {}, svg);
    const hits = el("g", {}, svg);
    for (const [name, [x, y]] of Object.entries(L.spaces)) {
      const c = el("circle", { cx: x, cy: y, r: R + 6, class: "hit", "data-space": name }, hits);
      if (onTap) c.addEventListener("click", () => onTap(name));
    }
    return {
      /* towers: [{space, owner, piece, revealed, own, ghost, unknown}]; marks: {space: "lift"|"place"|"hint"|"selected"|"flash"} */
      render(list, markMap) {
        towers.innerHTML = "";
        marks.innerHTML = "";
        for (const t of list || []) {
          const [x, y] = L.spaces[t.space];
          let cls = "tower " + (t.owner || "");
          if (t.revealed) cls += " revealed";
          if (t.ghost) cls = "tower ghost";
          if (t.unknown) cls = "tower unknown";
          el("circle", { cx: x, cy: y, r: R - 1, class: cls, "data-tower": t.space }, towers);
          if (t.piece && !t.ghost) {
            const face = el("text", { x, y: y + 1, class: "face " + t.owner + (t.own && !t.revealed ? " own-hidden" : "") }, towers);
            face.textContent = LETTER[t.piece] || "?";
          }
        }
        for (const [space, kind] of Object.entries(markMap || {})) {
          const [x, y] = L.spaces[space];
          el("circle", { cx: x, cy: y, r: R + 4, class: "mark-" + kind }, marks);
        }
      },
    };
  }

  /* Towers to draw from a view, and from the sensed occupancy if the board is being changed. */
  function towersOf(state) {
    const v = state.view;
    const list = [];
    const onBoard = new Set();
    if (v) for (const t of v.board) {
      list.push({ space: t.space, owner: t.owner, piece: t.piece, revealed: t.revealed,
                  own: state.seat && state.seat.player === t.owner });
      onBoard.add(t.space);
    }
    return list;
  }

  /* An EventSource that keeps the page live; onState(state, notices) for every event. */
  function stream(url, onState, connEl, onError) {
    let source = null;
    function open() {
      source = new EventSource(url);
      const handle = (e) => {
        const msg = JSON.parse(e.data);
        window.QUIN_LAST_EVENT_ID = e.lastEventId;
        onState(msg.state, msg.notices || []);
      };
      source.addEventListener("state", handle);
      source.addEventListener("update", handle);
      source.onopen = () => { if (connEl) { connEl.textContent = "live"; connEl.className = "conn live"; } };
      source.onerror = async () => {
        if (connEl) { connEl.textContent = "reconnecting"; connEl.className = "conn lost"; }
        if (onError && (await onError()) === false) { source.close(); return; }
        if (source.readyState === EventSource.CLOSED) setTimeout(open, 2000);
      };
    }
    open();
    return { close: () => source.close(), get source() { return source; } };
  }

  async function post(url, body, headers) {
    const r = await fetch(url, {
      method: "POST",
      headers: Object.assign({ "Content-Type": "application/json" }, headers || {}),
      body: JSON.stringify(body),
    });
    let data = null;
    try { data = await r.json(); } catch (e) { data = null; }
    if (!r.ok) throw new Error((data && data.error) || `request failed (${r.status})`);
    return data;
  }

  function toast(text, cls, ms) {
    const t = h("div", { class: "toast " + (cls || ""), role: "status" }, text);
    document.body.appendChild(t);
    setTimeout(() => t.remove(), ms || 4000);
    t.addEventListener("click", () => t.remove());
    return t;
  }

  function pieceName(p) { return p ? (NAME[p] || p) : "hidden"; }

  /* One line for an action as the viewer saw it. */
  function actionText(a) {
    if (!a) return "";
    switch (a.type) {
      case "move": return `${a.from} → ${a.to}`;
      case "reinforce": return "reinforce " + Object.entries(a.to).map(([s, p]) => p ? `${pieceName(p)} at ${s}` : s).join(", ");
      case "resurrect": return `resurrect ${pieceName(a.piece)} at ${a.to}`;
      case "reflect": return `reflect ${a.from} → ${a.to} (Reflector ${a.reflector})`;
      case "swap": return a.spaces ? `swap ${a.spaces.join(" ↔ ")}` : `Memory swap ${a.memory} ↔ ${a["with"]}`;
      case "time": return a.target ? `Time at ${a.at}: push ${a.target} → ${a.to}` : `Time at ${a.at}`;
      case "gravity": return `Void Gravity around ${a.void}: ` + Object.entries(a.moves).map(([x, y]) => `${x}→${y}`).join(", ");
      case "moves": return "moves " + Object.entries(a.moves).map(([x, y]) => `${x}→${y}`).join(", ");
      case "pass": return "pass";
      default: return JSON.stringify(a);
    }
  }

  function eventText(e) {
    if (e.type === "flash") {
      return `Flash on ${e.at}: ${pieceName(e.attacker)} against ${pieceName(e.defender)}: ${e.outcome.replace(/_/g, " ")}`;
    }
    if (e.type === "time") return `Time (turn ${e.turn}): ${e.outcome}`;
    return JSON.stringify(e);
  }

  function resultText(r) {
    if (!r || r.status === "ongoing") return "";
    const why = (r.reason || "").replace(/_/g, " ");
    return r.winner ? `${r.winner[0].toUpperCase() + r.winner.slice(1)} wins (${why})` : `Drawn (${why})`;
  }

  /* The referee's status (public or private) as readable lines. */
  function describe(status) {
    if (!status) return [];
    const lines = [];
    if (status.waiting_for) lines.push("Waiting for " + status.waiting_for + ".");
    if (status.flash && status.flash.text) lines.push(status.flash.text + ".");
    if (status.time && status.time.text) lines.push(status.time.text + ".");
    const todo = (status.instructions || []).map((i) => i.text).filter(Boolean);
    if (todo.length) lines.push("On the board: " + todo.join("; ") + ".");
    return lines;
  }

  /* The headline: setting up, whose turn, or the end. */
  function turnText(state, me) {
    const v = state.view;
    const ref = state.referee || {};
    if (state.phase === "setup") return me ? "Choose your lineup" : "Setting up: choosing lineups";
    if (!v || !v.to_move) return "Game over";
    if (ref.phase === "setup") return "Set up both lineups on the board";
    if (ref.phase === "sync") return "Put the board back as the game stands";
    if (me) return v.to_move === me ? `Turn ${v.turn}: your move` : `Turn ${v.turn}: ${v.to_move} to move`;
    return `Turn ${v.turn}: ${v.to_move} to move`;
  }

  function renderLog(ol, view) {
    ol.innerHTML = "";
    if (!view) return;
    for (const turn of view.history) {
      const li = h("li", { value: String(turn.turn) });
      li.append(h("span", { class: "pill " + turn.player }, turn.player), " ", turn.actions.map(actionText).join("; "));
      ol.appendChild(li);
    }
    ol.scrollTop = ol.scrollHeight;
  }

  function renderZeroGravity(box, view) {
    box.innerHTML = "";
    if (!view) return;
    for (const p of ["white", "black"]) {
      const rival = p === "white" ? "black" : "white";
      const row = h("div", { class: "zg" }, h("span", { class: "small muted" }, `${p}'s Zero Gravity: `));
      // towers on a player's Zero Gravity are the rival's captured towers
      for (const piece of view.captured[rival]) row.append(h("span", { class: "chip " + rival }, pieceName(piece)));
      row.append(h("span", { class: "small muted" }, ` · reserve ${view.reserve[p].count}`));
      box.append(row);
    }
  }

  return { board, towersOf, turnText, stream, post, toast, h, pieceName, actionText, eventText, resultText,
           describe, renderLog, renderZeroGravity, LETTER, NAME };
})();
