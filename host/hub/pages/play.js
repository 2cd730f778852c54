/* Remote play in a browser (docs/remote-play.md): start a game or join one with a code, choose a
   lineup, play by tapping the board, see the end and ask for a rematch.  The page holds only what
   the hub's stream gives this seat (engine.views.view for its side): a rival tower shows its face
   only where the state says it was revealed.  The board is drawn by the status page's code
   (quin.js, served by the hub at /board/quin.js). */
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const $ = (id) => document.getElementById(id);
  const { h, cap } = Quin;
  const norm = (c) => String(c || "").toUpperCase().replace(/[^0-9A-Z]/g, "");
  const pretty = (c) => (c.length === 6 ? `${c.slice(0, 3)}-${c.slice(3)}` : c);
  // The hub's one line as it says it (its field name first, as sent), ended as a sentence.
  const sentence = (t) => { t = Quin.proper(String(t || "").trim()); return t ? t + (/[.!?]$/.test(t) ? "" : ".") : ""; };

  // The seat token per game code, on this device only: a reload resumes the same seat.
  const seats = {
    get(code) { try { return JSON.parse(localStorage.getItem("quin.remote." + code)); } catch (e) { return null; } },
    set(code, v) { try { localStorage.setItem("quin.remote." + code, JSON.stringify(v)); } catch (e) { /* private mode */ } },
    drop(code) { try { localStorage.removeItem("quin.remote." + code); } catch (e) { /* private mode */ } },
  };
  // Your name and player code, kept on this device for the next game (the code is shown to no one).
  const keep = (key) => ({
    get() { try { return localStorage.getItem(key) || ""; } catch (e) { return ""; } },
    set(v) { try { localStorage.setItem(key, v); } catch (e) { /* private mode */ } },
  });
  const remembered = { name: keep("quin.remote.name"), player: keep("quin.remote.player") };
  /* The optional player code, as the hub takes it ({} when none). */
  const playerOf = (f) => {
    const code = String(f.get("player") || "").trim();
    remembered.player.set(code);
    return code ? { player: code } : {};
  };

  /* POST JSON; resolves {status, data} (never throws for an HTTP error: the caller shows it). */
  async function post(url, body, token) {
    const headers = { "Content-Type": "application/json" };
    if (token) headers.Authorization = "Bearer " + token;
    let r;
    try {
      r = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
    } catch (e) {
      return { status: 0, data: { error: "the hub cannot be reached: check your connection and try again" } };
    }
    let data = null;
    try { data = await r.json(); } catch (e) { data = null; }
    if (!r.ok && !(data && data.error)) data = { error: `the hub answered ${r.status}` };
    if (r.status === 429) {
      const wait = r.headers.get("Retry-After");
      if (wait) data.error += ` (try again in ${wait} s)`;
    }
    return { status: r.status, data: data || {} };
  }

  const parts = location.pathname.split("/").filter(Boolean);
  if (parts.length < 2) startPage();
  else gamePage(norm(decodeURIComponent(parts[1])));

  // --- /play: start a game, or join one with a code ----------------------------------------------

  function fillNames() {
    for (const input of document.querySelectorAll("input[name=name]")) if (!input.value) input.value = remembered.name.get();
    for (const input of document.querySelectorAll("input[name=player]")) if (!input.value) input.value = remembered.player.get();
  }

  function startPage() {
    $("start").classList.remove("hidden");
    $("conn").classList.add("hidden");
    fillNames();
    $("new-game").addEventListener("submit", async (e) => {
      e.preventDefault();
      const f = new FormData(e.target);
      const name = String(f.get("name")).trim();
      remembered.name.set(name);
      $("create").disabled = true;
      const { status, data } = await post("/api/remote", Object.assign({
        mode: f.get("mode"), vision: false, side: f.get("side"), first: f.get("first"), name, kind: "browser" }, playerOf(f)));
      $("create").disabled = false;
      if (status !== 200) { $("create-error").textContent = sentence(data.error); return; }
      const code = norm(data.code);
      seats.set(code, { token: data.token, side: data.side });
      location.assign("/play/" + pretty(code));
    });
    $("join-code").addEventListener("submit", async (e) => {
      e.preventDefault();
      const f = new FormData(e.target);
      const code = norm(f.get("code"));
      if (code.length !== 6) { $("join-code-error").textContent = "Code: a game's code has 6 characters, like K7M-2QX."; return; }
      const ok = await join(code, String(f.get("name")).trim(), $("join-code-error"), playerOf(f));
      if (ok) location.assign("/play/" + pretty(code));
    });
  }

  async function join(code, name, errorEl, player) {
    remembered.name.set(name);
    // this join's own name: sent again with it, a join whose answer was lost gets the same seat
    const bytes = crypto.getRandomValues(new Uint8Array(18));
    const request = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_");
    const body = Object.assign({ name, kind: "browser", request }, player || {});
    let { status, data } = await post(`/api/remote/${code}/join`, body);
    for (let i = 0; status === 0 && i < 2; i++) {  // no answer: ask again, the same request
      await new Promise((r) => setTimeout(r, 700 * (i + 1)));
      ({ status, data } = await post(`/api/remote/${code}/join`, body));
    }
    if (status !== 200) { errorEl.textContent = sentence(data.error); return false; }
    seats.set(code, { token: data.token, side: data.side });
    return true;
  }

  // --- /play/<code>: the game ----------------------------------------------------------------------

  function gamePage(code) {
    document.title = `Quin: game ${pretty(code)}`;
    $("code-pill").textContent = pretty(code);
    $("code-pill").classList.remove("hidden");
    const seat = seats.get(code);
    if (seat && seat.token) { play(code, seat.token); return; }
    // No seat on this device: join this game (its second seat).
    $("join").classList.remove("hidden");
    $("conn").classList.add("hidden");
    $("join-code-text").textContent = pretty(code);
    fillNames();
    $("join-form").addEventListener("submit", async (e) => {
      e.preventDefault();
      const f = new FormData(e.target);
      if (await join(code, String(f.get("name")).trim(), $("join-error"), playerOf(f))) {
        $("join").classList.add("hidden");
        play(code, seats.get(code).token);
      }
    });
  }

  function play(code, token) {
    const api = (p) => `/api/remote/${code}/${p}`;
    $("game").classList.remove("hidden");
    $("conn").classList.remove("hidden");
    Quin.legend($("legend"));

    let state = null;
    let me = null, rival = null;
    let board = null, boardSide = null, boardReady = null;
    let selected = null;        // the tower tapped (its space)
    let compose = null;         // a power being composed: {kind, ...}
    let choices = null;         // several actions from one tap: the buttons to tell them apart
    let busy = false;           // an action on its way: no second one
    let lastNews = null;        // the seq of the last announced action
    let draft = { clone: "", removed: "", lineup: {} };
    let spot = null;            // the starting space a tapped piece goes on
    let editing = false;
    let zoomIn = false;         // a close look at the spaces that matter now (on a phone)        // changing a lineup already sent (until play starts)
    let source = null, retry = null;

    // --- the stream ------------------------------------------------------------------------------

    const conn = (text, cls) => { $("conn").textContent = text; $("conn").className = "conn " + cls; };
    /* A new stream; the one before is closed only once the new one has spoken, so this seat is
       never away meanwhile (the rival's game would pause for a moment). */
    function open() {
      clearTimeout(retry);
      const es = new EventSource(`${api("stream")}?token=${encodeURIComponent(token)}`);
      const adopt = () => {
        if (source === es) return;
        if (source) source.close();
        source = es;
      };
      if (!source || source.readyState === EventSource.CLOSED) source = es;
      es.addEventListener("state", (e) => {
        adopt();
        conn("live", "live");
        let s;
        try { s = JSON.parse(e.data); } catch (err) { return; }
        onState(s);
      });
      es.onopen = () => { if (source === es) conn("live", "live"); };
      es.onerror = () => {
        if (source !== es) {  // a replacement that failed: the current stream stays
          if (es.readyState === EventSource.CLOSED) es.close();
          return;
        }
        conn("reconnecting…", "lost");
        if (es.readyState === EventSource.CLOSED) {
          // Refused (not a dropped line): find out why before trying again.
          probe().then((again) => { if (again) retry = setTimeout(open, 2000); });
        }
      };
    }
    /* The hub counts this seat away although its stream is open (its presence was lost): a new
       stream says it is here (at most every 5 s). */
    let healed = 0;
    function heal() {
      const now = Date.now();
      if (now - healed < 5000) return;
      healed = now;
      open();
    }
    /* A stream refused: a token the hub does not know, or no such game, is said; else try again. */
    async function probe() {
      // a well-formed question (the hub checks the body's form before the token and the code)
      const { status, data } = await post(api("check"), { action: { type: "pass" } }, token);
      if (status === 401) {
        seats.drop(code);
        fatal("This device's seat in the game is not known to the hub any more. Open the game's link again to join.");
        return false;
      }
      if (status === 404) { fatal(sentence(data.error) || "No game has this code."); return false; }
      return true;
    }
    function fatal(text) {
      conn("stopped", "lost");
      $("turn").textContent = text;
      $("setup").classList.add("hidden");
      $("powers").classList.add("hidden");
    }
    /* After a refusal that says the page is behind (409) or the game paused (423): the newest state. */
    function refresh() { conn("catching up…", "lost"); open(); }  // live again at the new stream's first state

    // --- each state ------------------------------------------------------------------------------

    async function onState(s) {
      if (s.present && s.present[s.side] === false) heal();
      const moved = !state || state.seq !== s.seq || state.phase !== s.phase;
      state = s;
      me = s.side;
      rival = Quin.other(me);
      if (moved) { selected = null; compose = null; choices = null; $("act-error").textContent = ""; }
      if (waitingFor !== null && s.seq >= waitingFor) { waitingFor = null; setBusy(false); }
      if (boardSide !== me) {
        boardSide = me;
        boardReady = Quin.board($("board"), { onTap, flip: me === "black" });
        draft = { clone: "", removed: "", lineup: {} };
        spot = null;
      }
      board = await boardReady;
      if (state !== s) return;  // a newer state came meanwhile: it draws
      render();
      // what the page shows now (after drawing it): tests and assistive tools may rely on it
      document.body.dataset.seq = String(s.seq);
      document.body.dataset.phase = s.phase;
      document.body.dataset.side = me;
      (window.QUIN_DRAWN = window.QUIN_DRAWN || {})[s.seq] = Date.now();  // when each state was drawn (bench/remote_page.py)
    }

    function nameOf(p) {
      const n = state.names && state.names[p];
      return n || cap(p);
    }

    function render() {
      const s = state, v = s.view;
      $("side-pill").textContent = cap(me);
      $("side-pill").className = "pill " + me;
      // paused: who is away, for as long as the hub says so
      $("paused").textContent = s.paused ? sentence(s.paused) : "";
      $("paused").classList.toggle("hidden", !s.paused);
      $("names").replaceChildren(...["white", "black"].map((p, i) => h("span", { class: "name", "data-name": p },
        i ? " – " : "", h("span", { class: "who " + p }, cap(p)), " ", nameOf(p) + (p === me ? " (you)" : ""),
        s.kinds && s.kinds[p] ? h("span", { class: "muted small" }, ` · ${s.kinds[p]}`) : "",
        s.present && s.names && s.names[p] ? h("span", { class: "dot " + (s.present[p] ? "here" : "away"),
          title: s.present[p] ? "connected" : "away" }, s.present[p] ? " ●" : " ○") : "")));
      const mode = v ? v.mode : s.mode;
      $("sub").textContent = mode ? (mode === "third_eye" ? "Third Eye" : "Classic") : "";
      $("turn").textContent = headline();
      // waiting for the second player: the code to share
      $("waiting").classList.toggle("hidden", s.phase !== "waiting");
      $("share-code").textContent = pretty(code);
      $("share-link").textContent = $("share-link").href = `${location.origin}/play/${pretty(code)}`;
      renderSetup();
      renderPlay();
      renderEnd();
      renderAway();
      renderResign();
      renderCallOff();
    }

    function headline() {
      const s = state, v = s.view;
      if (s.phase === "called_off") return "Called off";
      if (s.phase === "waiting") return "Waiting for your friend to join";
      if (s.phase === "setup") return s.setups_in && s.setups_in[me] ? `Waiting for ${nameOf(rival)}'s lineup` : "Choose your lineup";
      if (v && v.result && v.result.status !== "ongoing") return Quin.resultText(v.result);
      if (s.phase === "over") return "The game is over";
      if (s.paused) return "Paused";
      if (!v) return "";
      return v.to_move === me ? "Your move" : `${nameOf(v.to_move)} to move`;
    }

    // --- the lineup --------------------------------------------------------------------------------

    const BASE = { light: 1, shadow: 2, artificial_light: 4, reflector: 2, memory: 1, time: 1, peripheral: 2, void: 4 };
    const ON_BOARD = ["light", "shadow", "reflector", "memory", "time", "peripheral", "void"];
    const CLONES = ["time", "void", "memory", "artificial_light"];
    const REMOVABLE = ["artificial_light", "reflector", "memory", "time", "peripheral", "void"];
    const startSpaces = () => {
      const c = me[0];
      return [1, 2, 3, 4, 5].map((k) => `${c}${k}8`).concat([1, 2, 3, 4, 5].map((k) => `${c}${k}9`));
    };
    function counts() {
      const n = Object.assign({}, BASE);
      if (draft.clone) n[draft.clone] += 1;
      if (draft.removed) n[draft.removed] -= 1;
      return n;
    }
    function left() {
      const n = counts();
      for (const p of Object.values(draft.lineup)) n[p] -= 1;
      return n;
    }
    function trim() {  // a new clone or removal: keep what still fits
      const n = counts();
      for (const sp of startSpaces()) {
        const p = draft.lineup[sp];
        if (!p) continue;
        if (n[p] > 0) n[p] -= 1; else delete draft.lineup[sp];
      }
    }
    const firstEmpty = () => startSpaces().find((sp) => !draft.lineup[sp]) || null;
    function randomLineup() {
      draft.clone = CLONES[Math.floor(Math.random() * CLONES.length)];
      draft.removed = REMOVABLE[Math.floor(Math.random() * REMOVABLE.length)];
      draft.lineup = {};
      const pool = [];
      for (const [p, n] of Object.entries(counts())) if (p !== "artificial_light") for (let i = 0; i < n; i++) pool.push(p);
      for (let i = pool.length - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); [pool[i], pool[j]] = [pool[j], pool[i]]; }
      for (const sp of startSpaces()) draft.lineup[sp] = pool.pop();
      spot = null;
    }

    function renderSetup() {
      // A lineup may be chosen as soon as this seat is taken, and changed until play starts.
      const early = state.phase === "setup" || state.phase === "waiting";
      const sent = !!(state.setups_in && state.setups_in[me]);
      if (!early) editing = false;
      const show = early && (!sent || editing);
      $("setup").classList.toggle("hidden", !show);
      $("change-setup").classList.toggle("hidden", !early || !sent || editing);
      board.setCrop(show ? "own" : null);  // the lineup: your half of the board, larger
      if (!show) return;
      $("clone").value = draft.clone;
      $("removed").value = draft.removed;
      const tile = (sp) => {
        const p = draft.lineup[sp];
        return h("button", { type: "button", class: (p ? "" : "empty ") + (me === "black" ? "mine-black" : ""), "data-space": sp,
                             "data-piece": p || "", "aria-pressed": String(sp === spot),
                             "aria-label": `${sp}: ${p ? Quin.pieceName(p) : "empty"}`,
                             onclick: () => { spot = sp === spot ? null : sp; renderSetup(); } },
                 p ? Quin.icon(p) : h("span", { "aria-hidden": "true" }, "+"), h("span", {}, p ? Quin.pieceName(p) : sp));
      };
      const sp = startSpaces();
      $("spaces").replaceChildren(h("span", { class: "row-label" }, "Front row (Ring 8)"), ...sp.slice(0, 5).map(tile),
                                  h("span", { class: "row-label" }, "Gateways"), ...sp.slice(5).map(tile));
      const n = left();
      $("palette").replaceChildren(...ON_BOARD.map((p) => {
        const b = h("button", { type: "button", "data-piece": p, "aria-label": `${Quin.pieceName(p)}, ${Math.max(n[p], 0)} left`,
                                onclick: () => place(p) },
                    Quin.icon(p), h("span", {}, Quin.pieceName(p)), h("span", { class: "count" }, `×${Math.max(n[p], 0)}`));
        b.disabled = !draft.clone || !draft.removed || n[p] <= 0 || !spot;
        return b;
      }), h("button", { type: "button", "data-piece": "", onclick: () => place(null), disabled: !spot || !draft.lineup[spot] },
            h("span", { "aria-hidden": "true" }, "×"), h("span", {}, "Empty")));
      const placed = sp.filter((x) => draft.lineup[x]).length;
      const complete = draft.clone && draft.removed && placed === 10;
      $("send-setup").disabled = !complete;
      $("setup-status").textContent = !draft.clone || !draft.removed ? "Choose a clone and a piece to remove, or tap Random lineup."
        : complete ? "Your lineup is complete: send it." : `${placed} of 10 placed: tap a space, then a piece.`;
      drawSetupBoard();
    }

    function place(piece) {
      if (!spot) return;
      if (piece === null) delete draft.lineup[spot];
      else {
        if (left()[piece] <= 0) return;
        draft.lineup[spot] = piece;
        spot = firstEmpty();
      }
      $("setup-error").textContent = "";
      renderSetup();
    }

    function drawSetupBoard() {
      const list = Object.entries(draft.lineup).map(([space, piece]) => ({ space, owner: me, piece, own: true }));
      const marks = {};
      for (const sp of startSpaces()) if (!draft.lineup[sp]) marks[sp] = "place";
      if (spot) marks[spot] = "selected";
      board.render(list, marks, []);
    }

    $("clone").addEventListener("change", (e) => { draft.clone = e.target.value; trim(); renderSetup(); });
    $("removed").addEventListener("change", (e) => { draft.removed = e.target.value; trim(); renderSetup(); });
    $("random-lineup").addEventListener("click", () => { randomLineup(); $("setup-error").textContent = ""; renderSetup(); });
    $("clear-lineup").addEventListener("click", () => { draft.lineup = {}; spot = firstEmpty(); renderSetup(); });
    $("send-setup").addEventListener("click", async () => {
      $("send-setup").disabled = true;
      const { status, data } = await post(api("setup"), { setup: JSON.parse(JSON.stringify(draft)) }, token);
      if (status !== 200) {
        $("setup-error").textContent = sentence(data.error);
        $("send-setup").disabled = false;
        if (status === 409 || status === 423) refresh();
        return;
      }
      $("setup-error").textContent = "";
      editing = false;
      if (state) render();
    });
    $("change-setup").addEventListener("click", () => { editing = true; render(); });
    $("zoom").addEventListener("click", () => {
      zoomIn = !zoomIn;
      if (!zoomIn) board.zoom(null);
      if (state && (state.phase === "playing" || state.phase === "over")) renderPlay();
    });

    // --- playing: what may be tapped ----------------------------------------------------------------

    const myTurn = () => state && !busy && state.phase === "playing" && state.view && !state.paused &&
      state.view.to_move === me && Array.isArray(state.legal);
    const legal = () => (myTurn() ? state.legal : []);
    /* The tower an action is played from, and the space it goes to, where it is one tap then another. */
    function tapOf(a) {
      if (a.type === "move" || a.type === "reflect") return [a.from, a.to];
      if (a.type === "swap" && a.memory) return [a.memory, a["with"]];
      return null;
    }
    const towerAt = (sp) => Quin.towerAt(state.view, sp);
    const mine = (piece) => (state.view ? state.view.board.filter((t) => t.owner === me && (!piece || t.piece === piece)) : []);

    function onTap(space) {
      if (!state) return;
      if (state.phase === "setup" || state.phase === "waiting") {
        if ($("setup").classList.contains("hidden")) return;
        if (!startSpaces().includes(space)) {
          $("setup-error").textContent = `${space} is not one of your starting spaces: they are your Gateways and Ring 8.`;
          return;
        }
        spot = space;
        renderSetup();
        return;
      }
      if (!myTurn()) return;
      $("act-error").textContent = "";
      if (compose) { composeTap(space); return; }
      choices = null;
      if (selected) {
        const picks = legal().filter((a) => { const t = tapOf(a); return t && t[0] === selected && t[1] === space; });
        if (picks.length === 1) { act(picks[0]); return; }
        if (picks.length > 1) { choices = picks; renderPlay(); return; }
      }
      const from = legal().some((a) => { const t = tapOf(a); return t && t[0] === space; });
      selected = from && selected !== space ? space : null;
      if (!from && towerAt(space) && towerAt(space).owner === me) {
        $("act-error").textContent = `Your tower on ${space} has no move or power now.`;
      }
      renderPlay();
    }

    function destKind(a) {
      if (a.type === "swap") return "swap";
      if (a.type === "reflect") return towerAt(a.to) ? "flash" : "reflect";
      return towerAt(a.to) ? "flash" : "dest";
    }

    /* Busy from a request until its answer, and after an action until the stream brings the state
       after it: no second tap meanwhile (aria-busy says so to assistive technology). */
    function setBusy(on) {
      busy = on;
      if (on) document.body.setAttribute("aria-busy", "true");
      else document.body.removeAttribute("aria-busy");
    }
    async function act(action) {
      if (busy) return;
      setBusy(true);
      $("act-error").textContent = "";
      const seq = state.seq;
      selected = null; compose = null; choices = null;
      renderPlay();
      const { status, data } = await post(api("action"), { seq, action }, token);
      if (status !== 200) {
        setBusy(false);
        $("act-error").textContent = sentence(data.error);
        renderPlay();
        if (status === 409 || status === 423) refresh();
        return;
      }
      if (state.seq > seq) { setBusy(false); renderPlay(); }  // the stream was first: draw what may be tapped now
      else waitingFor = data.seq;
    }
    let waitingFor = null;

    async function check(action) {
      const { status, data } = await post(api("check"), { action }, token);
      if (status !== 200) return { legal: false, reason: data.error };
      return data;
    }

    // --- powers that are not a tower-to-space tap ---------------------------------------------------

    function powers() {
      const out = [];
      const L = legal();
      if (!L.length && !myTurn()) return out;
      const times = L.filter((a) => a.type === "time");
      if (times.length) out.push(["time", "Power of Time"]);
      const res = L.filter((a) => a.type === "resurrect");
      if (res.length) out.push(["resurrect", "Resurrect"]);
      if (L.some((a) => a.type === "reinforce") || manyLights()) out.push(["reinforce", "Reinforce"]);
      if (state.gravity && Object.keys(state.gravity).length) out.push(["gravity", "Void Gravity"]);
      if (L.some((a) => a.type === "pass")) out.push(["pass", "Pass"]);
      return out;
    }
    /* Several Artificial Lights at once: how many may come in (0 when fewer than two). */
    function manyLights() {
      const v = state.view;
      const waiting = ((v.reserve[me] || {}).pieces || []).filter((p) => p === "artificial_light").length;
      const gates = (state.gateways || []).length;
      const n = Math.min(waiting, gates);
      return n >= 2 ? n : 0;
    }

    function startPower(kind) {
      selected = null; choices = null;
      $("act-error").textContent = "";
      if (kind === "pass") { act({ type: "pass" }); return; }
      if (kind === "time") compose = { kind, step: "at" };
      else if (kind === "resurrect" || kind === "reinforce") {
        const pieces = [...new Set(legal().filter((a) => a.type === kind).map((a) => (kind === "resurrect" ? a.piece : Object.values(a.to)[0])))];
        compose = { kind, piece: null, pieces, many: kind === "reinforce" ? manyLights() : 0, gates: [] };
        if (pieces.length === 1 && !compose.many) compose.piece = pieces[0];
      } else if (kind === "gravity") compose = { kind, anchor: null, pulled: null, moves: {}, checked: null };
      renderPlay();
    }

    /* The spaces the composer lights now: {space: mark kind}. */
    function composeMarks() {
      const c = compose, L = legal(), marks = {};
      if (!c) return marks;
      if (c.kind === "time") {
        const times = L.filter((a) => a.type === "time");
        if (c.step === "at") for (const a of times) marks[a.at] = "dest";
        else if (c.step === "target") {
          marks[c.at] = "selected";
          for (const a of times) if (a.at === c.at && a.target) marks[a.target] = "dest";
        } else {
          marks[c.at] = "selected";
          marks[c.target] = "selected";
          for (const a of times) if (a.at === c.at && a.target === c.target) marks[a.to] = "dest";
        }
      } else if (c.kind === "resurrect" && c.piece) {
        for (const a of L) if (a.type === "resurrect" && a.piece === c.piece) marks[a.to] = "dest";
      } else if (c.kind === "reinforce" && c.piece === "artificial_lights") {
        for (const g of state.gateways || []) marks[g] = c.gates.includes(g) ? "selected" : "dest";
      } else if (c.kind === "reinforce" && c.piece) {
        for (const a of L) if (a.type === "reinforce" && Object.keys(a.to).length === 1 && Object.values(a.to)[0] === c.piece) marks[Object.keys(a.to)[0]] = "dest";
      } else if (c.kind === "gravity") {
        const used = new Set(Object.values(c.moves));
        for (const [x, y] of Object.entries(c.moves)) { marks[x] = "moved"; marks[y] = "selected"; }
        if (!c.anchor) for (const sp of Object.keys(state.gravity)) marks[sp] = "dest";
        else {
          marks[c.anchor] = "anchor";
          if (!c.pulled) for (const sp of pullable()) marks[sp] = "dest";
          else {
            marks[c.pulled] = "selected";
            for (const sp of state.gravity[c.anchor] || []) if (!used.has(sp)) marks[sp] = "dest";
          }
        }
      }
      return marks;
    }
    /* Own Voids that may be pulled to the anchor (not the anchor, none on an Iris, each once). */
    function pullable() {
      const c = compose;
      return mine("void").map((t) => t.space)
        .filter((sp) => sp !== c.anchor && sp !== "wi" && sp !== "bi" && !(sp in c.moves) && !Object.values(c.moves).includes(sp));
    }

    function composeTap(space) {
      const c = compose, marks = composeMarks(), L = legal();
      const lit = marks[space] === "dest";
      if (c.kind === "time") {
        if (c.step === "at" && lit) {
          const mine = L.filter((a) => a.type === "time" && a.at === space);
          if (mine.length === 1 && !mine[0].target) { act(mine[0]); return; }
          c.at = space; c.step = "target";
        } else if (c.step === "target" && lit) { c.target = space; c.step = "to"; }
        else if (c.step === "to" && lit) {
          const a = L.find((x) => x.type === "time" && x.at === c.at && x.target === c.target && x.to === space);
          if (a) { act(a); return; }
        } else { $("act-error").textContent = `${space} is not lit: tap a lit space, or Cancel.`; }
      } else if (c.kind === "resurrect" && c.piece && lit) {
        act(L.find((a) => a.type === "resurrect" && a.piece === c.piece && a.to === space));
        return;
      } else if (c.kind === "reinforce" && c.piece === "artificial_lights") {
        if (marks[space] === "dest") { if (c.gates.length < c.many) c.gates.push(space); }
        else if (c.gates.includes(space)) c.gates = c.gates.filter((g) => g !== space);
      } else if (c.kind === "reinforce" && c.piece && lit) {
        act(L.find((a) => a.type === "reinforce" && Object.keys(a.to).length === 1 && a.to[space] === c.piece));
        return;
      } else if (c.kind === "gravity") {
        c.checked = null;
        if (!c.anchor && lit) c.anchor = space;
        else if (c.anchor && !c.pulled && lit) c.pulled = space;
        else if (c.anchor && c.pulled && lit) { c.moves[c.pulled] = space; c.pulled = null; }
        else if (c.pulled === space) c.pulled = null;
        else $("act-error").textContent = `${space} is not lit: tap a lit space, or Cancel.`;
      } else {
        $("act-error").textContent = "Choose above first, or Cancel.";
      }
      renderPlay();
    }

    function gravityAction() {
      return { type: "gravity", void: compose.anchor, moves: Object.assign({}, compose.moves) };
    }
    function lightsAction() {
      const to = {};
      for (const g of [...compose.gates].sort()) to[g] = "artificial_light";
      return { type: "reinforce", to };
    }
    /* A composed action (Void Gravity, several Artificial Lights): checked by the hub, then sent. */
    async function checkAndSend(action, sendIt) {
      const c = compose;
      setBusy(true);
      const r = await check(action);
      setBusy(false);
      if (compose !== c) return;
      c.checked = r.legal ? "ok" : sentence(r.reason || "not legal");
      if (!r.legal) { $("act-error").textContent = c.checked; renderPlay(); return; }
      if (sendIt) act(action); else renderPlay();
    }

    /* The lit spaces as buttons too: big targets on a phone, and a keyboard or a screen reader can act. */
    function spaceButtons(marks, onPick) {
      const names = { dest: "", flash: " (flash)", swap: " (Memory swap)", reflect: " (reflection)" };
      return Object.entries(marks).filter(([, k]) => k in names).sort()
        .map(([sp, k]) => h("button", { type: "button", class: "space-choice " + k, "data-lit": sp, onclick: () => onPick(sp) }, sp + names[k]));
    }

    function renderCompose() {
      const box = $("compose"), c = compose;
      if (!c && !choices && selected && myTurn()) {
        const marks = {};
        for (const a of legal()) { const t = tapOf(a); if (t && t[0] === selected) marks[t[1]] = destKind(a); }
        const t = towerAt(selected);
        box.classList.remove("hidden");
        box.replaceChildren(h("p", {}, `Your ${Quin.pieceName(t && t.piece)} on ${selected}: tap a lit space.`),
          ...spaceButtons(marks, onTap),
          h("button", { type: "button", "data-compose": "cancel", onclick: () => { selected = null; renderPlay(); } }, "Cancel"));
        return;
      }
      box.classList.toggle("hidden", !c && !choices);
      if (choices) {
        box.replaceChildren(h("p", {}, "Which one?"), ...choices.map((a, i) => h("button", {
          type: "button", class: "primary", "data-choice": String(i), onclick: () => act(a) }, cap(Quin.actionText(a)))),
          h("button", { type: "button", "data-compose": "cancel", onclick: () => { choices = null; selected = null; renderPlay(); } }, "Cancel"));
        return;
      }
      if (!c) { box.replaceChildren(); return; }
      const kids = [];
      const cancel = h("button", { type: "button", "data-compose": "cancel", onclick: () => { compose = null; renderPlay(); } }, "Cancel");
      if (c.kind === "time") {
        const third = state.view.mode === "third_eye";
        kids.push(h("p", {}, c.step === "at" ? "Power of Time: tap the Time tower to use." + (third ? "" : " It rewinds your rival's last move unless it moved a Shadow.")
          : c.step === "target" ? "Tap the rival tower to push back." : "Tap where it goes (up to 3 spaces back along its Sight Line)."));
      } else if ((c.kind === "resurrect" || c.kind === "reinforce") && !c.piece) {
        kids.push(h("p", {}, c.kind === "resurrect" ? "Resurrect which tower?" : "Bring in which tower?"));
        for (const p of c.pieces) kids.push(h("button", { type: "button", "data-piece": p, onclick: () => { c.piece = p; renderPlay(); } },
                                                Quin.icon(p), " ", Quin.pieceName(p)));
        if (c.many) kids.push(h("button", { type: "button", "data-piece": "artificial_lights", onclick: () => { c.piece = "artificial_lights"; renderPlay(); } },
                                 Quin.icon("artificial_light"), ` Several Artificial Lights (up to ${c.many})`));
      } else if (c.kind === "resurrect") kids.push(h("p", {}, `Resurrect your ${Quin.pieceName(c.piece)}: tap one of your rival's empty Gateways.`));
      else if (c.kind === "reinforce" && c.piece === "artificial_lights") {
        kids.push(h("p", {}, `Tap your empty Gateways for the Artificial Lights (${c.gates.length} chosen: ${c.gates.join(", ") || "none"}).`));
        kids.push(h("button", { type: "button", class: "primary", "data-compose": "send", disabled: c.gates.length < 2,
                                onclick: () => checkAndSend(lightsAction(), true) }, `Bring in ${c.gates.length} Artificial Lights`));
      } else if (c.kind === "reinforce") kids.push(h("p", {}, `Bring in your ${Quin.pieceName(c.piece)}: tap one of your empty Gateways.`));
      else if (c.kind === "gravity") {
        const pulls = Object.entries(c.moves);
        kids.push(h("p", {}, !c.anchor ? "Void Gravity: tap the Void the others are pulled to."
          : c.pulled ? `Tap where the Void from ${c.pulled} goes (next to ${c.anchor}).`
          : `Around ${c.anchor}: tap a Void to pull` + (pulls.length ? ", or play." : ".")));
        if (pulls.length) kids.push(h("p", { class: "small", "data-pulls": pulls.map(([x, y]) => `${x}-${y}`).join(" ") },
                                       "Pulls: " + pulls.map(([x, y]) => `${x} → ${y}`).join(", ")));
        kids.push(h("button", { type: "button", "data-compose": "undo", disabled: !pulls.length && !c.pulled && !c.anchor, onclick: () => {
          if (c.pulled) c.pulled = null; else if (pulls.length) delete c.moves[pulls[pulls.length - 1][0]]; else c.anchor = null;
          c.checked = null; renderPlay(); } }, "Undo"));
        kids.push(h("button", { type: "button", "data-compose": "check", disabled: !pulls.length,
                                onclick: () => checkAndSend(gravityAction(), false) }, "Check"));
        kids.push(h("button", { type: "button", class: "primary", "data-compose": "send", disabled: !pulls.length,
                                onclick: () => checkAndSend(gravityAction(), true) }, "Play"));
        if (c.checked === "ok") kids.push(h("p", { class: "small ok", "data-checked": "ok" }, "The hub says this is legal."));
      }
      kids.push(...spaceButtons(composeMarks(), composeTap));
      kids.push(cancel);
      box.replaceChildren(...kids);
    }

    // --- drawing the game ---------------------------------------------------------------------------

    function renderPlay() {
      const s = state, v = s.view;
      const playing = (s.phase === "playing" || s.phase === "over") && v;
      for (const id of ["zg-card", "log-card"]) $(id).classList.toggle("hidden", !playing);
      $("board").closest(".remote-board").classList.toggle("hidden", !playing && s.phase !== "setup" && s.phase !== "waiting");
      if ((s.phase === "setup" || s.phase === "waiting") && !$("setup").classList.contains("hidden")) { renderPowers(); renderCompose(); return; }
      if (s.phase === "setup" || s.phase === "waiting") { board.render([], {}, []); renderPowers(); renderCompose(); return; }
      if (!playing) { renderPowers(); renderCompose(); return; }
      Quin.renderZeroGravity($("zg"), v, me);
      Quin.renderLog($("log"), v, me);
      renderReveal();
      announce();
      // Only what this side's view holds: a rival tower's piece is null until it is revealed to us.
      const towers = v.board.map((t) => ({ space: t.space, owner: t.owner, piece: t.piece, revealed: t.revealed, own: t.owner === me }));
      const last = Quin.lastTurn(v);
      let marks = Object.assign({}, last.marks), overlays = last.overlays;
      const L = legal();
      const sources = new Set(L.map(tapOf).filter(Boolean).map((t) => t[0]));
      if (compose) Object.assign(marks, composeMarks());
      else {
        for (const sp of sources) marks[sp] = "source";
        if (selected) {
          marks[selected] = "selected";
          for (const a of L) {
            const t = tapOf(a);
            if (t && t[0] === selected) marks[t[1]] = destKind(a);
          }
        }
      }
      $("board").dataset.sources = compose ? "" : [...sources].sort().join(" ");
      // A close look (a phone): the spaces that matter now, followed as they change.
      const focus = Object.keys(marks).filter((sp) => !["new", "time", "moved"].includes(marks[sp]));
      const zb = $("zoom");
      zb.classList.toggle("hidden", !myTurn() && !zoomIn);
      zb.setAttribute("aria-pressed", String(zoomIn));
      zb.textContent = zoomIn ? "Whole board" : "Zoom in";
      if (zoomIn) board.zoom(focus.length ? focus : null);
      board.render(towers, marks, overlays);
      renderPowers();
      renderCompose();
    }

    function renderPowers() {
      const box = $("powers");
      const on = state.phase === "playing" && myTurn() && !compose && !choices && !selected;
      const list = on ? powers() : [];
      box.classList.toggle("hidden", !on);
      const sources = [...new Set(legal().map(tapOf).filter(Boolean).map((t) => t[0]))].sort();
      box.replaceChildren(...list.map(([kind, label]) => h("button", { type: "button", "data-power": kind,
        class: kind === "pass" ? "" : "primary", onclick: () => startPower(kind) }, label)),
        sources.length ? h("details", { class: "by-list" }, h("summary", {}, "Your towers that can act, as a list"),
          ...sources.map((sp) => { const t = towerAt(sp);
            return h("button", { type: "button", "data-source": sp, onclick: () => onTap(sp) }, `${Quin.pieceName(t && t.piece)} on ${sp}`); })) : "");
    }

    /* A flash or a Time announced by a board side, before it is carried out there (the hub's
       `reveal`: {"flash": {by, from, to, pieces}} or {"time": {by, at, outcome, pieces}}). */
    function renderReveal() {
      const r = state.reveal, box = $("reveal");
      box.classList.toggle("hidden", !r);
      if (!r) { box.replaceChildren(); return; }
      const f = r.flash, t = r.time;
      const pieces = (f || t || {}).pieces || {};
      let text = "";
      if (f) {
        const by = f.by || state.view.to_move, other = Quin.other(by);
        const a = pieces[f.from], d = pieces[f.to];
        text = `Flash! ${cap(Quin.whose(by, me))} ${Quin.pieceName(a)} from ${f.from} flashes ` +
               `${Quin.whose(other, me)} ${Quin.pieceName(d)} on ${f.to}: it is being carried out on the board.`;
      } else if (t) {
        text = (t.outcome ? Quin.timeText({ player: t.by, outcome: t.outcome }, me) : `${cap(Quin.whose(t.by, me))} Power of Time`) +
               ` (from ${t.at}): it is being carried out on the board.`;
      }
      const shown = Object.entries(pieces).map(([sp, p]) => `${Quin.pieceName(p)} on ${sp}`);
      box.dataset.reveal = f ? "flash" : "time";
      box.replaceChildren(h("p", {}, text), shown.length ? h("p", { class: "small" }, "Revealed: " + shown.join(", ")) : "");
    }

    /* The last action, in words, with what it flashed or revealed. */
    function announce() {
      const s = state, l = s.last, v = s.view;
      const box = $("news");
      if (!l || !l.seen) { box.classList.add("hidden"); return; }
      if (lastNews === s.seq) return;
      lastNews = s.seq;
      const who = l.player === me ? "You" : nameOf(l.player);
      const lines = [h("p", {}, `${who}: ${Quin.actionText(l.seen)}`)];
      const turn = v.history.length ? v.history[v.history.length - 1] : null;
      const flashes = turn ? v.events.filter((e) => e.type === "flash" && e.turn === turn.turn) : [];
      const from = l.seen.from || null;  // the flash's start, where this side saw it (a move or a reflection)
      for (const e of flashes) {
        lines.push(h("p", { class: "flash-line" }, "Flash! " + Quin.flashText(
          { player: turn.player, attacker: e.attacker, defender: e.defender, at: e.at, outcome: e.outcome, from }, me)));
      }
      const times = turn ? v.events.filter((e) => e.type === "time" && e.turn === turn.turn) : [];
      for (const e of times) lines.push(h("p", {}, Quin.timeText(Object.assign({ player: turn.player }, e), me)));
      const pieces = Object.entries(l.pieces || {});
      // each revealed tower named by where it stood when the action began
      if (pieces.length) lines.push(h("p", { class: "small" }, "Revealed: " + pieces.map(([sp, p]) => `${Quin.pieceName(p)} (${sp})`).join(", ")));
      box.className = "now" + (flashes.length ? " flash" : times.length ? " time" : "");
      box.replaceChildren(...lines);
    }

    // --- the end --------------------------------------------------------------------------------------

    function renderEnd() {
      const s = state, over = s.phase === "over";
      $("end").classList.toggle("hidden", !over);
      if (!over) return;
      const rec = s.record;
      const v = s.view;
      $("end-result").replaceChildren(h("p", { class: "result-text" }, v && v.result ? Quin.resultText(v.result) || "The game is over" : "The game is over"));
      if (rec) {
        $("lineups").replaceChildren(...["white", "black"].map((p) => {
          const su = rec.setup[p];
          const row = Object.entries(su.lineup).sort();
          return h("div", { class: "lineup", "data-lineup": p },
            h("p", {}, h("span", { class: "who " + p }, cap(p)), ` ${nameOf(p)}: clone ${Quin.pieceName(su.clone)}, removed ${Quin.pieceName(su.removed)}`),
            h("ul", { class: "chips" }, ...row.map(([sp, piece]) => h("li", { class: "chip " + p, "data-space": sp, "data-piece": piece },
              Quin.icon(piece), `${sp} ${Quin.pieceName(piece)}`))));
        }));
        $("record-moves").replaceChildren(...rec.turns.map((t, i) => h("li", { value: String(i + 1) },
          h("span", { class: "who " + t.player }, cap(t.player)), " ", t.actions.map(Quin.actionText).join("; "))));
        const blob = new Blob([JSON.stringify(rec, null, 1)], { type: "application/json" });
        const link = $("record-link");
        if (link.dataset.url) URL.revokeObjectURL(link.dataset.url);
        link.href = link.dataset.url = URL.createObjectURL(blob);
        link.download = `quin-${code}.json`;
      }
      // With the record open, the board shows every tower's face: the start, from the record.
      const asked = s.rematch || {};
      $("rematch").disabled = !!asked[me];
      $("rematch-status").textContent = asked[me] && !asked[rival] ? `You asked for a rematch: waiting for ${nameOf(rival)}.`
        : asked[rival] && !asked[me] ? `${nameOf(rival)} asks for a rematch.` : "";
    }

    $("rematch").addEventListener("click", async () => {
      $("rematch").disabled = true;
      const { status, data } = await post(api("rematch"), {}, token);
      $("rematch-error").textContent = status === 200 ? "" : sentence(data.error);
      if (status !== 200) $("rematch").disabled = false;
    });

    // --- ending a game: an absence's countdown and claim, resigning -----------------------------------

    /* The rival away while a game is played: the hub's countdown (state.abandon), counted down
       here each second; at 0 the game may be claimed, or waited for. */
    let awayUntil = null, awayKey = null, waitChosen = false, awayTimer = null;
    function renderAway() {
      const a = state.abandon;
      const mine = a && a.side !== me;  // the rival is the one away
      $("away").classList.toggle("hidden", !mine);
      if (!mine) { awayUntil = awayKey = null; waitChosen = false; clearInterval(awayTimer); awayTimer = null; return; }
      const key = `${a.side}:${state.seq}`;
      if (key !== awayKey || a.claimable) {  // a new absence (or the hub's own word that the time is up)
        if (key !== awayKey) waitChosen = false;
        awayKey = key;
        awayUntil = Date.now() + a.left * 1000;
      }
      if (!awayTimer) awayTimer = setInterval(tickAway, 1000);
      tickAway();
    }
    function tickAway() {
      const a = state && state.abandon;
      if (!a || awayUntil === null) return;
      const left = Math.max(0, Math.ceil((awayUntil - Date.now()) / 1000));
      const who = `${nameOf(a.side)}'s ${state.kinds && state.kinds[a.side] || "device"}`;
      const time = (n) => `${Math.floor(n / 60)}:${String(n % 60).padStart(2, "0")}`;
      const may = a.claimable || left === 0;
      $("away-text").textContent = !may
        ? `${who} is away. If it is not back in ${time(left)}, you may claim the game.`
        : waitChosen ? `You are waiting for ${who} to come back. You may still claim the game.`
        : `${who} has been away ${Math.round(a.after / 60) >= 1 ? Math.round(a.after / 60) + " minute" + (Math.round(a.after / 60) > 1 ? "s" : "") : a.after + " s"}: claim the game (you win), or keep waiting.`;
      document.body.dataset.awayLeft = String(left);
      $("claim").className = waitChosen ? "" : "primary";
      $("claim").classList.toggle("hidden", !may);
      $("keep-waiting").classList.toggle("hidden", !may || waitChosen);
    }
    $("keep-waiting").addEventListener("click", () => { waitChosen = true; tickAway(); });
    $("claim").addEventListener("click", async () => {
      $("claim").disabled = true;
      const { status, data } = await post(api("claim"), {}, token);
      $("claim").disabled = false;
      $("claim-error").textContent = status === 200 ? "" : sentence(data.error);
    });

    /* Resign: asked once more ("Yes, resign" / "No, play on") before it is sent. */
    function renderResign() {
      const playing = state.phase === "playing";
      $("ending").classList.toggle("hidden", !playing);
      if (!playing) { $("resign-confirm").classList.add("hidden"); $("resign").classList.remove("hidden"); return; }
      $("resign-question").textContent = `Resign this game? ${nameOf(rival)} wins, and the game ends for both of you.`;
    }
    /* An end asked once more: its button (id) opens "<id>-confirm"; "<id>-no" closes it again;
       "<id>-yes" sends the route, its refusal said in "<id>-error". */
    function askedOnce(id, route) {
      $(id).addEventListener("click", () => {
        $(id).classList.add("hidden");
        $(`${id}-confirm`).classList.remove("hidden");
        $(`${id}-no`).focus();
      });
      $(`${id}-no`).addEventListener("click", () => {
        $(`${id}-confirm`).classList.add("hidden");
        $(id).classList.remove("hidden");
        $(id).focus();
      });
      $(`${id}-yes`).addEventListener("click", async () => {
        $(`${id}-yes`).disabled = true;
        const { status, data } = await post(api(route), {}, token);
        $(`${id}-yes`).disabled = false;
        $(`${id}-error`).textContent = status === 200 ? "" : sentence(data.error);
      });
    }
    askedOnce("resign", "resign");

    /* Before play (the friend never joined, or never sent a lineup): "Call off this game…", asked once
       more; nobody wins.  Once called off (by either side), who did, in one line. */
    function renderCallOff() {
      const early = state.phase === "waiting" || state.phase === "setup";
      $("calling-off").classList.toggle("hidden", !early);
      if (!early) { $("call-off-confirm").classList.add("hidden"); $("call-off").classList.remove("hidden"); }
      const friend = state.phase === "waiting" ? "your friend" : nameOf(rival);
      $("call-off-question").textContent = `Call off this game? It has not begun: nobody wins, and ${friend} is told.`;
      const by = state.phase === "called_off" ? state.called_off : null;
      $("called-off").classList.toggle("hidden", !by);
      $("called-off").textContent = !by ? "" : `${by === me ? "You" : nameOf(by)} called the game off before it ` +
        "began: nobody wins. Start another game from New game.";
    }
    askedOnce("call-off", "call-off");

    // the sheet of powers: one listener (its buttons are remade with each state)
    open();
  }
});
