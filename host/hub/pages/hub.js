/* The hub's pages: the wall, a game (live or replayed), the archive, the leaderboard.

   Every word a person reads is the board's own: the board is drawn by the status page's code
   (quin.js, served at /board/quin.js), and the results, headlines, moves, flashes and Time's undoing
   are said by its functions (Quin.resultText, Quin.headline, Quin.actionText, Quin.flashEventText,
   Quin.renderLog), never a copy of them. */
"use strict";
const h = (tag, attrs = {}, ...kids) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const k of kids) el.append(k);
  return el;
};
const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : "");

// --- words -------------------------------------------------------------------------------------

const MODES = { classic: "Classic", third_eye: "Third Eye" };
const modeName = (m) => MODES[m] || cap(String(m || "").replace(/_/g, " "));
const STATUS = { live: "Being played", over: "Finished", abandoned: "Abandoned" };
/* One seat: "Ann (White)", "practice opponent (Black)", or the colour alone when nobody gave a name. */
function seat(names, opponent, c) {
  const n = (names || {})[c];
  return n ? `${n} (${cap(c)})` : c === opponent ? `practice opponent (${cap(c)})` : cap(c);
}
/* Who plays: "Ann (White) – practice opponent (Black)", from a frame's state or an index entry. */
function who(names, opponent) { return `${seat(names, opponent, "white")} – ${seat(names, opponent, "black")}`; }
function stateWho(state) { return who((state && state.players) || {}, state && state.opponent && state.opponent.side); }
/* A game's outcome in words: the board's own result sentence, or why there is none. */
function outcome(status, result) {
  if (result && result.status && result.status !== "ongoing") return Quin.resultText(result);
  if (status === "abandoned") return "Abandoned before the end";
  return status === "live" ? "" : "No result";
}
/* What the table does now, as the status page's headline says it, with the turn. */
function now(state, status) {
  const v = state && state.view;
  if (status === "abandoned" && !(v && v.result && v.result.status !== "ongoing")) {
    const t = v && v.history && v.history.length ? v.history[v.history.length - 1].turn : 0;  // the wall's card holds the last turn only
    return `Abandoned after ${t} ${t === 1 ? "turn" : "turns"}`;
  }
  if (!state) return "";
  const head = Quin.headline(state, null);
  const over = v && v.result && v.result.status !== "ongoing";
  return v && !over && state.phase !== "setup" ? `Turn ${v.turn} · ${head}` : head;
}
/* The last turn in words: who, what (Quin.actionText) and its flashes (Quin.flashEventText). */
function lastMove(state) {
  const v = state && state.view;
  if (!v || !v.history || !v.history.length) return state && state.phase === "setup" ? "Choosing lineups" : "No moves yet";
  const t = v.history[v.history.length - 1];
  let text = `${cap(t.player)}: ` + t.actions.map(Quin.actionText).join("; ");
  const flashed = (v.events || []).filter((e) => e.type === "flash" && e.turn === t.turn);
  if (flashed.length) text += " · " + flashed.map((e) => Quin.flashEventText(e, t.player, null)).join("; ");
  return text;
}
function lastFlashed(state) {
  const v = state && state.view;
  const t = v && v.history && v.history[v.history.length - 1];
  return !!t && (v.events || []).some((e) => e.type === "flash" && e.turn === t.turn);
}
function flashes(state) {
  return (((state && state.view) || {}).events || []).filter((e) => e.type === "flash").length;
}
const when = (t) => (t ? new Date(t * 1000).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" }) : "");

// --- drawing -----------------------------------------------------------------------------------

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

// --- the wall's layout: every table in one screen, the boards as large as they can be ---------

/* Text of a card, in units of its font size: beside the board (its width), or under it (its height:
   the table's name, two players, the state, two lines of the last move, the clocks' line). */
const TEXT_BESIDE = 12, TEXT_UNDER = 8.4;
/* The grid (columns, rows), the board's side, the font size and where the text goes, for n cards in
   a w x h area of a screen this high: of every column count and both places for the text, the one with the largest board. */
function wallLayout(n, w, h, screen) {
  const small = Math.max(12, screen / 72), large = Math.max(small, screen / 28);  // words read across a room
  let best = null;
  for (let c = 1; c <= Math.max(1, n); c++) {
    const r = Math.ceil(Math.max(1, n) / c);
    if (c > 1 && Math.ceil(n / (c - 1)) === r) continue;  // as many rows with fewer columns: wider cells
    for (const beside of [true, false]) {
      let s = 0, f = small, gap = 0, cw = 0, ch = 0;
      for (let k = 0; k < 6; k++) {  // the font follows the board, the board the room the text leaves
        gap = f * 0.6;
        cw = (w - gap * (c + 1)) / c;
        ch = (h - gap * (r + 1)) / r;
        const pad = f * 0.5 + f * 0.18 + 1;  // the card's padding, its border, a pixel for rounding
        s = beside ? Math.min(ch - 2 * pad, cw - 3 * pad - TEXT_BESIDE * f) : Math.min(cw - 2 * pad, ch - 3 * pad - TEXT_UNDER * f);
        f = Math.min(large, Math.max(small, s * 0.055));
      }
      if (s > 0 && (!best || s > best.s + 0.5)) best = { cols: c, rows: r, s, f, beside, gap, cw, ch };
    }
  }
  return best || { cols: 1, rows: 1, s: 0, f: small, beside: false, gap: small * 0.6, cw: w, ch: h };
}

const pages = {
  wall() {
    const wall = document.getElementById("wall");
    const cards = new Map();
    const fit = () => {
      const top = wall.getBoundingClientRect().top;
      const L = wallLayout(cards.size, window.innerWidth, window.innerHeight - top, window.innerHeight);
      const st = wall.style;
      st.setProperty("--cols", L.cols);
      st.setProperty("--rows", L.rows);
      st.setProperty("--s", `${Math.floor(L.s)}px`);
      st.setProperty("--f", `${L.f.toFixed(1)}px`);
      st.setProperty("--gap", `${L.gap.toFixed(1)}px`);
      st.setProperty("--cw", `${Math.floor(L.cw)}px`);
      st.setProperty("--ch", `${Math.floor(L.ch)}px`);
      wall.classList.toggle("beside", L.beside);
      wall.dataset.cols = L.cols;
    };
    window.addEventListener("resize", fit);
    const es = new EventSource("/api/stream/wall");
    const status = document.getElementById("status");
    es.onopen = () => (status.textContent = "live");
    es.onerror = () => (status.textContent = "reconnecting…");
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
        card = { el: h("a", { class: "tbl" }), title: h("h2", {}, b.table), mode: h("span", { class: "mode" }),
                 white: h("div", { class: "seat" }), black: h("div", { class: "seat" }),
                 now: h("div", { class: "now-line" }), last: h("div", { class: "last" }),
                 clocks: h("div", { class: "clocks", hidden: "" }),  // the match-play clocks' place
                 svg, flashes: n, game: b.game };
        card.board = Quin.board(svg, {});
        card.title.append(" ", card.mode);
        const info = h("div", { class: "info" }, card.title, h("div", { class: "players" }, card.white, card.black),
                       card.now, card.last, card.clocks);
        card.el.append(h("div", { class: "board-box" }, svg), info);
        cards.set(b.table, card);
        const all = [...cards.keys()].sort((x, y) => x.localeCompare(y, undefined, { numeric: true }));
        const next = cards.get(all[all.indexOf(b.table) + 1]);
        wall.insertBefore(card.el, next ? next.el : null);  // tables in order of their names
        fit();
      }
      const fresh = card.game === b.game && n > card.flashes;  // a flash just happened at this table
      const flashed = lastFlashed(state);
      card.el.href = "/games/" + b.game;
      card.el.dataset.game = b.game;
      card.el.className = "tbl" + (b.status !== "live" ? " over" : "") + (flashed ? " flashed" : "") + (fresh ? " flash" : "");
      card.flashes = n;
      card.game = b.game;
      const opp = state && state.opponent && state.opponent.side;
      card.mode.textContent = state && state.mode ? `· ${modeName(state.mode)}` : "";
      card.white.textContent = seat(state && state.players, opp, "white");
      card.black.textContent = seat(state && state.players, opp, "black");
      card.now.textContent = now(state, b.status);
      card.now.classList.toggle("outcome", !!outcome(b.status, state && state.view && state.view.result));
      card.last.textContent = lastMove(state);
      card.last.classList.toggle("flashed", flashed);
      card.svg.setAttribute("aria-label", `${b.table}: ${lastMove(state)}`);
      draw(card.board, state);
    };
  },
  async game() {
    const uuid = location.pathname.split("/").pop();
    const info = await fetchJSON("/api/games/" + uuid);
    if (info.error) {  // the database away, or no such game: say so, in the hub's own line
      document.getElementById("title").textContent = "This game cannot be shown now";
      document.getElementById("line").textContent = info.error;
      return;
    }
    document.getElementById("title").textContent = `${info.table} · ${modeName(info.mode || "classic")}`;
    document.title = `Quin hub: ${info.table}`;
    const boardReady = Quin.board(document.getElementById("board"), {});
    const show = (state, status) => {
      draw(boardReady, state);
      // live: the names as the board shows them now; finished: as the record has them (a rated player by the hub's name)
      document.getElementById("players").textContent = status === "live" ? stateWho(state) : who(info.players, info.opponent);
      document.getElementById("line").textContent = now(state, status);
      document.getElementById("last").textContent = lastMove(state);
      Quin.renderLog(document.getElementById("moves"), state && state.view, null);  // the status page's move list
    };
    const status = document.getElementById("status");
    if (info.status === "live") {
      const es = new EventSource("/api/stream/games/" + uuid);
      let frame = null;
      es.addEventListener("update", (e) => {
        const data = JSON.parse(e.data);
        frame = data.patch ? applyPatch(frame, data.patch) : data;
        show(frame.state, "live");
      });
      es.onopen = () => (status.textContent = "live");
      es.onerror = () => (status.textContent = "reconnecting…");
      return;
    }
    // The replay steps through the moves (one step a turn, as the move list counts them), each shown
    // as the board stood once that turn was done; the frames between (a tower lifted) are skipped.
    const events = [];
    for (let after = 0; ;) {
      const answer = await fetchJSON(`/api/games/${uuid}/events?after=${after}`);
      if (answer.error) {
        document.getElementById("line").textContent = answer.error;
        return;
      }
      const page = answer.events || [];
      if (!page.length) break;
      events.push(...page);
      after = page[page.length - 1].seq;
    }
    const byTurns = new Map();  // turns played -> the last frame at that count
    events.forEach((e, i) => byTurns.set((((e.data.state || {}).view || {}).history || []).length, i));
    const steps = [...byTurns.keys()].sort((a, b) => a - b);
    const total = steps.length ? steps[steps.length - 1] : 0;
    let k = steps.length - 1;
    const step = () => {
      const turns = steps[k];
      show(events[byTurns.get(turns)].data.state, info.status);
      document.getElementById("pos").textContent = turns ? `Move ${turns} of ${total}` : `Before the first move (${total} in all)`;
      document.getElementById("first").disabled = document.getElementById("prev").disabled = k === 0;
      document.getElementById("next").disabled = document.getElementById("end").disabled = k === steps.length - 1;
      if (turns) {  // the move just played, in view in the list
        const li = document.querySelectorAll("#moves li")[turns - 1];
        if (li) li.classList.add("current");
      }
    };
    const go = (to) => { k = Math.max(0, Math.min(steps.length - 1, to)); step(); };
    document.getElementById("replay").hidden = false;
    document.getElementById("record").href = `/api/games/${uuid}/record`;
    document.getElementById("first").onclick = () => go(0);
    document.getElementById("prev").onclick = () => go(k - 1);
    document.getElementById("next").onclick = () => go(k + 1);
    document.getElementById("end").onclick = () => go(steps.length - 1);
    document.addEventListener("keydown", (e) => {
      if (e.target.closest("input, select, textarea")) return;
      if (e.key === "ArrowLeft") go(k - 1);
      else if (e.key === "ArrowRight") go(k + 1);
    });
    if (steps.length) step();
    else document.getElementById("pos").textContent = "Nothing was played";
  },
  archive() {
    const form = document.getElementById("search");
    const load = async () => {
      const q = new URLSearchParams([...new FormData(form)].filter(([, v]) => v));
      document.getElementById("export").href = "/api/export?" + q;
      document.getElementById("export-zip").href = "/api/export.zip?" + q;
      const data = await fetchJSON("/api/games?" + q);
      const games = data.games || [];
      document.getElementById("status").textContent = data.error || "";
      document.getElementById("count").textContent = data.error ? data.error
        : games.length ? `${games.length} ${games.length === 1 ? "game" : "games"}, newest first` : "No game matches.";
      const cell = (label, ...kids) => h("td", { "data-label": label }, ...kids);
      document.getElementById("rows").replaceChildren(...games.map((g) => h("tr", {},
        cell("Table", h("a", { href: "/games/" + g.uuid }, g.table)), cell("Mode", modeName(g.mode || "")),
        cell("Players", who(g.players, g.opponent)), cell("Status", STATUS[g.status] || g.status),
        cell("Result", outcome(g.status, g.result)), cell("Finished", when(g.finished)))));
    };
    form.onsubmit = (e) => { e.preventDefault(); load(); };
    load();
  },
  async leaderboard() {
    const answer = await fetchJSON("/api/players");
    if (answer.error) {
      document.getElementById("count").textContent = answer.error;
      return;
    }
    // Ranked: only players with a rated game (a code given at setup counts for nothing until one is played).
    const players = (answer.players || []).filter((p) => p.games > 0);
    document.getElementById("rows").replaceChildren(...players.map((p, i) => h("tr", {},
      h("td", { "data-label": "Rank" }, String(i + 1)), h("td", { "data-label": "Player" }, p.name),
      h("td", { "data-label": "Rating" }, p.rating.toFixed(1)), h("td", { "data-label": "Games" }, String(p.games)))));
    document.getElementById("count").textContent = players.length ? "" : "No rated game yet: a game is rated when both players gave a player code the hub knows.";
  },
};
// A JSON answer of the hub, or {error: one line a person can act on} when it answers with an error
// (503 while its database is away) or cannot be reached at all.
async function fetchJSON(url) {
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    return { error: "The hub is not reached: check the network, then reload this page." };
  }
  let data = null;
  try {
    data = await res.json();
  } catch (e) { /* not JSON: said below */ }
  if (res.status === 503) return { error: "The hub cannot reach its database just now: reload this page in a moment." };
  if (!res.ok || !data || typeof data !== "object") {
    return { error: (data && typeof data.error === "string" && data.error) || `The hub answered ${res.status}: try again in a moment.` };
  }
  return data;
}
document.addEventListener("DOMContentLoaded", () => pages[document.body.dataset.page]());
