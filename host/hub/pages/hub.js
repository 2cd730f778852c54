/* The hub's pages: the wall, a game (live or replayed), the archive, the leaderboard. */
"use strict";
const h = (tag, attrs = {}, ...kids) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const k of kids) el.append(k);
  return el;
};
const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : "");
// The board is drawn by the board's own page code (quin.js, served at /board/quin.js): the same
// geometry, towers, last-turn arrows and flash bursts as the status page, only smaller.
function svgBoard(cls, label) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", cls);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  return svg;
}
async function draw(boardReady, state) {
  const board = await boardReady;
  const v = state && state.view;
  const last = Quin.lastTurn(v);  // the last turn: arrows for its moves, a burst where a flash happened
  board.render(v ? v.board : [], last.marks, last.overlays);
}
function flashes(state) {
  return (((state && state.view) || {}).events || []).filter((e) => e.type === "flash").length;
}
function players(state) {
  const p = (state && state.players) || {};
  const robot = state && state.opponent && state.opponent.side;
  const name = (c) => (p[c] ? `${p[c]} (${cap(c)})` : c === robot ? `practice opponent (${cap(c)})` : cap(c));
  return `${name("white")} – ${name("black")}`;
}
function lastMove(state) {
  const v = state && state.view;
  if (!v || !v.history || !v.history.length) return state && state.phase === "setup" ? "setting up" : "no moves yet";
  const t = v.history[v.history.length - 1];
  let text = `${cap(t.player)}: ` + t.actions.map(Quin.actionText).join(", ");
  const flashed = (v.events || []).filter((e) => e.type === "flash" && e.turn === t.turn);
  if (flashed.length) text += " · flash on " + flashed.map((e) => e.at).join(", ");
  return text;
}
function lastFlashed(state) {
  const v = state && state.view;
  const t = v && v.history && v.history[v.history.length - 1];
  return !!t && (v.events || []).some((e) => e.type === "flash" && e.turn === t.turn);
}
function line(state) {
  const v = state && state.view;
  if (!v) return state ? state.phase : "";
  if (v.result && v.result.status !== "ongoing") return `over: ${v.result.winner || "draw"} (${v.result.reason || ""})`;
  return `${v.mode.replace("_", " ")}, turn ${v.turn}, ${v.to_move} to move`;
}
function applyPatch(frame, ops) {
  // a live game's event is its frame whole, or a patch of the one before (host/hub/frames.py)
  for (const [kind, path, value] of ops) {
    if (!path.length) { frame = structuredClone(value); continue; }
    let parent = frame;
    for (const k of path.slice(0, -1)) parent = parent[k];
    const last = path[path.length - 1];
    if (kind === "set") parent[last] = structuredClone(value);
    else if (kind === "del") delete parent[last];
    else if (kind === "add") parent[last].push(...structuredClone(value));
  }
  return frame;
}
const pages = {
  wall() {
    const cards = new Map();
    const es = new EventSource("/api/stream/wall");
    es.onopen = () => (document.getElementById("status").textContent = "live");
    es.onerror = () => (document.getElementById("status").textContent = "reconnecting…");
    const last = new Map(); // table -> its card as last received (a patch applies to it)
    es.addEventListener("patch", (e) => {
      const p = JSON.parse(e.data);
      if (last.has(p.table)) showCard(applyPatch(last.get(p.table), p.patch));
    });
    es.addEventListener("board", (e) => showCard(JSON.parse(e.data)));
    const showCard = (b) => {
      last.set(b.table, b);
      document.getElementById("empty").hidden = true;
      let card = cards.get(b.table);
      const state = b.data.state;
      const n = flashes(state);
      if (!card) {
        const svg = svgBoard("board mini", b.table);
        card = { el: h("a", { class: "tbl" }), title: h("h2", {}, b.table), who: h("div", { class: "players" }),
                 line: h("div", { class: "line" }), last: h("div", { class: "line last" }), svg, flashes: n, game: b.game };
        card.board = Quin.board(svg, {});
        card.el.append(card.title, card.who, card.line, svg, card.last);
        cards.set(b.table, card);
        document.getElementById("wall").append(card.el);
      }
      const fresh = card.game === b.game && n > card.flashes;  // a flash just happened at this table
      card.el.href = "/games/" + b.game;
      card.el.dataset.game = b.game;
      card.el.className = "tbl" + (b.status !== "live" ? " over" : "") + (fresh ? " flash" : "");
      card.flashes = n;
      card.game = b.game;
      card.who.textContent = players(state);
      card.line.textContent = line(state);
      card.last.textContent = lastMove(state);
      card.last.classList.toggle("flashed", lastFlashed(state));
      card.svg.setAttribute("aria-label", `${b.table}: ${lastMove(state)}`);
      draw(card.board, state);
    };
  },
  async game() {
    const uuid = location.pathname.split("/").pop();
    const info = await (await fetch("/api/games/" + uuid)).json();
    document.getElementById("title").textContent = `${info.table}: ${info.mode || ""} game`;
    const boardReady = Quin.board(document.getElementById("board"), {});
    const show = (state) => {
      draw(boardReady, state);
      document.getElementById("line").textContent = line(state);
      document.getElementById("players").textContent = players(state);
      document.getElementById("last").textContent = lastMove(state);
      const moves = document.getElementById("moves");
      moves.replaceChildren(...(((state.view || {}).history) || []).map((t) =>
        h("li", {}, `${cap(t.player)}: ` + t.actions.map(Quin.actionText).join(", "))));
    };
    if (info.status === "live") {
      const es = new EventSource("/api/stream/games/" + uuid);
      let frame = null;
      es.addEventListener("update", (e) => {
        const data = JSON.parse(e.data);
        frame = data.patch ? applyPatch(frame, data.patch) : data;
        show(frame.state);
      });
      es.onopen = () => (document.getElementById("status").textContent = "live");
      es.onerror = () => (document.getElementById("status").textContent = "reconnecting…");
      return;
    }
    const { events } = await (await fetch(`/api/games/${uuid}/events`)).json();
    let i = events.length - 1;
    const step = () => { show(events[i].data.state); document.getElementById("pos").textContent = `${i + 1} / ${events.length}`; };
    document.getElementById("replay").hidden = false;
    document.getElementById("record").href = `/api/games/${uuid}/record`;
    document.getElementById("prev").onclick = () => { if (i > 0) { i--; step(); } };
    document.getElementById("next").onclick = () => { if (i < events.length - 1) { i++; step(); } };
    if (events.length) step();
  },
  archive() {
    const form = document.getElementById("search");
    const load = async () => {
      const q = new URLSearchParams([...new FormData(form)].filter(([, v]) => v));
      document.getElementById("export").href = "/api/export?" + q;
      document.getElementById("export-zip").href = "/api/export.zip?" + q;
      const res = await fetch("/api/games?" + q);
      const data = await res.json();
      document.getElementById("status").textContent = data.error || "";
      document.getElementById("rows").replaceChildren(...(data.games || []).map((g) => h("tr", {},
        h("td", {}, h("a", { href: "/games/" + g.uuid }, g.table)), h("td", {}, g.mode || ""),
        h("td", {}, `${g.players.white || "?"} – ${g.players.black || "?"}`), h("td", {}, g.status),
        h("td", {}, g.result ? g.result.winner || "draw" : ""),
        h("td", {}, g.finished ? new Date(g.finished * 1000).toISOString().slice(0, 16).replace("T", " ") : ""))));
    };
    form.onsubmit = (e) => { e.preventDefault(); load(); };
    load();
  },
  async leaderboard() {
    const { players } = await (await fetch("/api/players")).json();
    document.getElementById("rows").replaceChildren(...players.map((p, i) => h("tr", {},
      h("td", {}, String(i + 1)), h("td", {}, p.name), h("td", {}, p.rating.toFixed(1)), h("td", {}, String(p.games)))));
  },
};
document.addEventListener("DOMContentLoaded", () => pages[document.body.dataset.page]());
