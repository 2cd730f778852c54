/* The hub's pages: the wall, a game (live or replayed), the archive, the leaderboard. */
"use strict";
const h = (tag, attrs = {}, ...kids) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const k of kids) el.append(k);
  return el;
};
function grid(el, state) {
  // the public board: each tower on its space (owner's colour; its piece once revealed)
  el.innerHTML = "";
  const view = state && state.view;
  const towers = (view && view.board) || [];
  for (const t of towers) {
    const cls = t.owner + (t.revealed ? " rev" : "");
    el.append(h("span", { class: cls, title: t.space }, t.piece ? t.piece[0].toUpperCase() : ""));
  }
}
function lastMove(state) {
  const v = state && state.view;
  if (!v || !v.history || !v.history.length) return state && state.phase === "setup" ? "setting up" : "no moves yet";
  const t = v.history[v.history.length - 1];
  return `turn ${t.turn}, ${t.player}: ` + t.actions.map((a) => a.type + (a.to ? " " + a.to : "")).join(", ");
}
function line(state) {
  const v = state && state.view;
  if (!v) return state ? state.phase : "";
  if (v.result && v.result.status !== "ongoing") return `over: ${v.result.winner || "draw"} (${v.result.reason || ""})`;
  return `${v.mode}, turn ${v.turn}, ${v.to_move} to move`;
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
      if (last.has(p.table)) draw(applyPatch(last.get(p.table), p.patch));
    });
    es.addEventListener("board", (e) => draw(JSON.parse(e.data)));
    const draw = (b) => {
      last.set(b.table, b);
      document.getElementById("empty").hidden = true;
      let card = cards.get(b.table);
      const state = b.data.state;
      const flashes = ((state.view || {}).events || []).length;
      if (!card) {
        card = { el: h("a", { class: "tbl" }), flashes };
        cards.set(b.table, card);
        document.getElementById("wall").append(card.el);
      }
      card.el.href = "/games/" + b.game;
      card.el.className = "tbl" + (b.status !== "live" ? " over" : "") + (flashes > card.flashes ? " flash" : "");
      card.flashes = flashes;
      const g = h("div", { class: "grid" });
      grid(g, state);
      card.el.replaceChildren(h("h2", {}, b.table), h("div", { class: "line" }, line(state)), g,
        h("div", { class: "line" }, lastMove(state)));
    };
  },
  async game() {
    const uuid = location.pathname.split("/").pop();
    const info = await (await fetch("/api/games/" + uuid)).json();
    document.getElementById("title").textContent = `${info.table}: ${info.mode || ""} game`;
    const show = (state) => {
      grid(document.getElementById("board"), state);
      document.getElementById("line").textContent = line(state);
      const moves = document.getElementById("moves");
      moves.replaceChildren(...(((state.view || {}).history) || []).map((t) =>
        h("li", {}, `${t.player}: ` + t.actions.map((a) => a.type + (a.to ? " " + a.to : "")).join(", "))));
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
      const res = await fetch("/api/games?" + q);
      const data = await res.json();
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
