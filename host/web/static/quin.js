/* Shared by every page: the board drawing, the piece icons, the wording, the live stream, posting.
   Plain JavaScript, no build step, no framework. */
"use strict";

const Quin = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const PLAYERS = ["white", "black"];
  const NAME = { light: "Light", shadow: "Shadow", artificial_light: "Artificial Light", reflector: "Reflector",
                 memory: "Memory", time: "Time", peripheral: "Peripheral", void: "Void" };
  const PIECES = Object.keys(NAME);

  /* One icon per piece type, drawn in a 24-unit box around (0, 0) with currentColor. */
  const ICONS = {
    light: '<circle r="4.8" fill="currentColor"/><g stroke="currentColor" stroke-width="2.4" stroke-linecap="round">' +
      [0, 45, 90, 135, 180, 225, 270, 315].map((a) => {
        const c = Math.cos(a * Math.PI / 180), s = Math.sin(a * Math.PI / 180);
        return `<line x1="${(7.4 * c).toFixed(2)}" y1="${(7.4 * s).toFixed(2)}" x2="${(10.6 * c).toFixed(2)}" y2="${(10.6 * s).toFixed(2)}"/>`;
      }).join("") + "</g>",
    shadow: '<path fill="currentColor" d="M-0.05 -9.5A9.5 9.5 0 1 0 9.15 2.57A7.6 7.6 0 0 1 -0.05 -9.5Z"/>',
    artificial_light: '<path fill="currentColor" d="M0 -11L2.7 -2.7L11 0L2.7 2.7L0 11L-2.7 2.7L-11 0L-2.7 -2.7Z"/>',
    reflector: '<g fill="none" stroke="currentColor" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round">' +
      '<path d="M-9 -9L0 4L9 -9"/><path d="M-10.5 9H10.5" stroke-width="3.2"/></g>',
    memory: '<g fill="none" stroke="currentColor" stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round">' +
      '<path d="M-9.5 -4.5H8M3.5 -9L8 -4.5L3.5 0"/><path d="M9.5 4.5H-8M-3.5 0L-8 4.5L-3.5 9"/></g>',
    time: '<path fill="currentColor" d="M-7 -8.5H7L0.9 0L7 8.5H-7L-0.9 0Z"/>' +
      '<path d="M-9 -10.5H9M-9 10.5H9" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/>',
    peripheral: '<path d="M-11 0Q0 -10.5 11 0Q0 10.5 -11 0Z" fill="none" stroke="currentColor" stroke-width="2.3" stroke-linejoin="round"/>' +
      '<circle r="3.6" fill="currentColor"/>',
    void: '<circle r="7.6" fill="none" stroke="currentColor" stroke-width="4"/>',
  };

  function el(tag, attrs, parent) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "onclick") node.addEventListener("click", v);
      else if (k === "class") node.className = v;
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
    return node;
  }

  /* The sprite: icons and arrowheads, once per document. */
  function sprite() {
    if (document.getElementById("quin-sprite")) return;
    const s = el("svg", { id: "quin-sprite", width: "0", height: "0", "aria-hidden": "true", focusable: "false" });
    s.style.position = "absolute";
    let defs = "";
    for (const [p, body] of Object.entries(ICONS)) defs += `<symbol id="q-${p}" viewBox="-12 -12 24 24">${body}</symbol>`;
    for (const kind of ["last", "flash", "time", "plan"]) {
      defs += `<marker id="q-head-${kind}" class="head-${kind}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="4.5" markerHeight="4.5" orient="auto-start-reverse"><path d="M0 0L10 5L0 10Z"/></marker>`;
    }
    s.innerHTML = `<defs>${defs}</defs>`;
    document.body.prepend(s);
  }

  /* A piece's icon as a small inline SVG (chips, buttons, the legend). */
  function icon(piece, cls) {
    const s = el("svg", { class: "icon " + (cls || ""), viewBox: "0 0 24 24", "aria-hidden": "true", focusable: "false" });
    el("use", { href: "#q-" + piece, width: 24, height: 24 }, s);
    return s;
  }

  let layoutPromise = null;
  function layout() {
    if (!layoutPromise) layoutPromise = fetch("/api/layout").then((r) => r.json());
    return layoutPromise;
  }

  /* A board drawn into <svg>.  opts: onTap(space), flip (drawn from Black's side), crop ("own": the
     viewer's own half only, for setup).  render(towers, marks, overlays). */
  async function board(svg, opts) {
    opts = opts || {};
    sprite();
    const L = await layout();
    const R = L.space_radius;
    const C = L.size / 2;
    const flip = !!opts.flip;
    const pos = (name) => {
      const [x, y] = L.spaces[name];
      return flip ? [L.size - x, L.size - y] : [x, y];
    };
    svg.classList.add("board");
    svg.innerHTML = "";
    const base = el("g", {}, svg);
    const marks = el("g", { class: "marks" }, svg);
    const bursts = el("g", { class: "bursts" }, svg);  // under the towers and the labels: a flash never hides a name
    const towers = el("g", { class: "towers" }, svg);
    const labels = el("g", { class: "labels" }, svg);  // above the towers: a tower never hides its space's name
    const overlay = el("g", { class: "overlay" }, svg);
    const callouts = el("g", { class: "callouts" }, svg);
    const hits = el("g", {}, svg);
    const startOf = {};
    for (const p of PLAYERS) for (const s of L.start[p]) startOf[s] = p;
    let crop = "unset", zoomed = null, last = null;

    function setView(c) {
      c = c || null;
      if (c === crop) return;
      crop = c;
      zoomed = null;
      view();
    }
    function view() {
      let vb = [0, 0, L.size, L.size];
      if (zoomed) vb = zoomed;
      else if (crop === "own") vb = [40, C + 110, L.size - 80, C - 105];
      svg.setAttribute("viewBox", vb.map((n) => n.toFixed(1)).join(" "));
      svg.classList.toggle("cropped", crop === "own" && !zoomed);
      svg.classList.toggle("zoomed", !!zoomed);
      if (last) draw(...last);
    }
    /* Zoom in on these spaces (a close look on a phone: every label legible), or back to the whole board. */
    function zoom(spaces) {
      const pts = (spaces || []).filter((s) => L.spaces[s]).map(pos);
      if (!pts.length) { zoomed = null; view(); return; }
      const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
      // Wide enough for the spaces and their neighbours (a board's fifth at least), no wider.
      const span = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys)) + 4 * R + 80;
      const w = Math.min(L.size, Math.max(span, 340));
      const cx = (Math.max(...xs) + Math.min(...xs)) / 2, cy = (Math.max(...ys) + Math.min(...ys)) / 2;
      const clamp = (v) => Math.max(0, Math.min(L.size - w, v));
      zoomed = [clamp(cx - w / 2), clamp(cy - w / 2), w, w];
      view();
    }
    /* Screen pixels per board unit, now. */
    function scale() {
      const box = svg.getBoundingClientRect();
      const vb = svg.viewBox.baseVal;
      return box.width && vb && vb.width ? Math.min(box.width / vb.width, box.height / vb.height || Infinity) : 1;
    }
    const LABEL_PX = 11, CALLOUT_PX = 14;

    setView(opts.crop);
    el("circle", { cx: C, cy: C, r: Math.min(L.gateway_ring + 26, C - 1), class: "felt" }, base);
    const edges = el("g", { class: "edges", transform: flip ? `rotate(180 ${C} ${C})` : "" }, base);
    for (const d of L.edges) el("path", { d, class: "edge" }, edges);
    for (const name of Object.keys(L.spaces)) {
      const [x, y] = pos(name);
      let cls = "space";
      if (startOf[name]) cls += " start-" + startOf[name];
      if (name[0] === "h") cls += " horizon";
      if (name === "wi" || name === "bi") cls += " iris";
      if (name === "fs") cls += " fs";
      el("circle", { cx: x, cy: y, r: R * 0.62, class: cls, "data-space": name }, base);
      el("text", { x, y: y + R + 8, class: "label", "data-label": name }, labels).textContent = name;
      const c = el("circle", { cx: x, cy: y, r: R + 6, class: "hit", "data-space": name }, hits);
      if (opts.onTap) c.addEventListener("click", () => opts.onTap(name));
    }

    function arrow(kind, from, to, cls) {
      const [x1, y1] = pos(from), [x2, y2] = pos(to);
      const dx = x2 - x1, dy = y2 - y1, len = Math.hypot(dx, dy) || 1;
      const cut = Math.min(R + 2, len / 3);
      const a = [x1 + dx / len * cut, y1 + dy / len * cut], b = [x2 - dx / len * cut, y2 - dy / len * cut];
      el("path", { d: `M${a[0].toFixed(1)} ${a[1].toFixed(1)}L${b[0].toFixed(1)} ${b[1].toFixed(1)}`,
                   class: `arrow arrow-${kind} ${cls || ""}`, "marker-end": `url(#q-head-${kind})`,
                   "data-arrow": `${from}-${to}` }, overlay);
    }

    /* Labels sized for the screen: at least LABEL_PX pixels tall wherever they fit between the spaces
       (a TV, a zoomed phone); where they cannot (a whole board on a phone), only the spaces the page
       names are labelled, large, and a zoom shows the rest. */
    function sizeLabels(named) {
      const k = scale();
      const units = Math.max(12, LABEL_PX / k);
      const fits = units <= 19;
      labels.style.display = fits ? "" : "none";
      if (fits) {
        for (const t of labels.children) {
          const [x, y] = pos(t.dataset.label);
          t.setAttribute("font-size", units.toFixed(1));
          t.setAttribute("y", (y + R + 2 + units * 0.55).toFixed(1));
          t.setAttribute("x", x.toFixed(1));
        }
      }
      callouts.innerHTML = "";
      if (named.length > 6) return;
      const f = Math.max(14, CALLOUT_PX / k);
      for (const [space, kind] of named) {
        const [x, y] = pos(space);
        const w = f * (0.62 * space.length + 0.9), hgt = f * 1.45;
        const g = el("g", { class: "callout callout-" + kind, "data-callout": space }, callouts);
        const above = y - R - 6 - hgt > 0;
        const top = above ? y - R - 8 - hgt : y + R + 8;
        el("rect", { x: (x - w / 2).toFixed(1), y: top.toFixed(1), width: w.toFixed(1), height: hgt.toFixed(1), rx: (hgt / 3).toFixed(1) }, g);
        el("text", { x: x.toFixed(1), y: (top + hgt / 2).toFixed(1), "font-size": f.toFixed(1) }, g).textContent = space;
      }
    }

    if (window.ResizeObserver) new ResizeObserver(() => { if (last) draw(...last); }).observe(svg);

    function draw(list, markMap, overlays) {
      last = [list, markMap, overlays];
      towers.innerHTML = "";
      marks.innerHTML = "";
      bursts.innerHTML = "";
      overlay.innerHTML = "";
      render(list, markMap, overlays);
      sizeLabels(Object.entries(markMap || {}).filter(([s, k]) => (k === "lift" || k === "place") && L.spaces[s]));
    }

    return {
      setCrop: setView,
      zoom,
      get zoomed() { return !!zoomed; },
      render: draw,
    };

    /* towers: [{space, owner, piece, revealed, own, ghost, unknown, pending}]
       marks: {space: "lift"|"place"|"hint"|"selected"|"time"|"new"}
       overlays: [{arrow: kind, from, to, cls} | {burst: kind, at} | {tag: text, at, kind}] */
    function render(list, markMap, overlays) {
      {
        for (const [space, kind] of Object.entries(markMap || {})) {
          if (!L.spaces[space]) continue;
          const [x, y] = pos(space);
          el("circle", { cx: x, cy: y, r: R + 5, class: "mark mark-" + kind, "data-mark": space }, marks);
          if (kind === "place" || kind === "lift") {
            const s = 6;
            const d = kind === "place" ? `M${x - s} ${y}H${x + s}M${x} ${y - s}V${y + s}`
                                       : `M${x - s} ${y - s}L${x + s} ${y + s}M${x + s} ${y - s}L${x - s} ${y + s}`;
            el("path", { d, class: "sign sign-" + kind }, marks);
          }
        }
        for (const t of list || []) {
          if (!L.spaces[t.space]) continue;
          const [x, y] = pos(t.space);
          let cls = "tower " + (t.owner || "");
          if (t.revealed) cls += " revealed";
          if (t.own && !t.revealed && t.piece) cls += " own-hidden";
          if (t.pending) cls += " pending";  // not on the board yet: its green space shows through
          if (t.ghost) cls = "tower ghost";
          if (t.unknown) cls = "tower unknown";
          const g = el("g", { class: cls, "data-tower": t.space }, towers);
          el("circle", { cx: x, cy: y, r: R - 1 }, g);
          if (t.piece && !t.ghost) {
            const size = 31;
            el("use", { href: "#q-" + t.piece, x: x - size / 2, y: y - size / 2, width: size, height: size,
                        class: "face", "data-piece": t.piece }, g);
          }
          if (t.piece || t.owner) {
            el("title", {}, g).textContent = `${t.owner ? cap(t.owner) + "'s " : ""}${t.piece ? NAME[t.piece] : "tower"} on ${t.space}`;
          }
        }
        for (const o of overlays || []) {
          if (o.arrow) arrow(o.arrow, o.from, o.to, o.cls);
          else if (o.burst && L.spaces[o.at]) {
            const [x, y] = pos(o.at);
            const pts = [];
            for (let i = 0; i < 16; i++) {
              const r = i % 2 ? R + 9 : R + 19, a = Math.PI * i / 8;
              pts.push(`${(x + r * Math.cos(a)).toFixed(1)},${(y + r * Math.sin(a)).toFixed(1)}`);
            }
            el("polygon", { points: pts.join(" "), class: "burst burst-" + o.burst, "data-burst": o.at }, bursts);
          } else if (o.tag && L.spaces[o.at]) {
            const [x, y] = pos(o.at);
            const g = el("g", { class: "tag tag-" + (o.kind || "last"), "data-tag": o.at }, overlay);
            const w = 14 + o.tag.length * 11;
            el("rect", { x: x - w / 2, y: y - R - 36, width: w, height: 26, rx: 8 }, g);
            el("text", { x, y: y - R - 23 }, g).textContent = o.tag;
          }
        }
      }
    }
  }

  // --- wording ----------------------------------------------------------------------------

  const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : "");
  const other = (p) => (p === "white" ? "black" : "white");
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many || one + "s"}`;
  function pieceName(p) { return p ? (NAME[p] || p) : "hidden tower"; }
  /* "your" for the viewer's own colour, else "White's". */
  function whose(player, viewer) { return player === viewer ? "your" : cap(player) + "'s"; }
  function Whose(player, viewer) { return cap(whose(player, viewer)); }
  function zeroGravity(player, viewer) { return `${whose(player, viewer)} Zero Gravity`; }

  /* The result, said the same way as the CLI (host/commands/engine_cmds.py result_text). */
  function resultText(r) {
    if (!r || !r.status || r.status === "ongoing") return "";
    if (r.winner) {
      const who = cap(r.winner), rival = cap(other(r.winner));
      const why = { first_sight: `${who}'s Light reaches First Sight`, light_captured: `${rival}'s Light is captured`,
        resignation: `${rival} resigned`, abandonment: `${rival} left the game and ${who} claimed it`,
        time: `${rival}'s time ran out` }[r.reason]
        || String(r.reason).replace(/_/g, " ");
      return `${who} wins: ${why}`;
    }
    return "Drawn: " + ({ passes: "two passes in a row" }[r.reason] || String(r.reason).replace(/_/g, " "));
  }

  /* One action, as the viewer saw it, in a few words. */
  function actionText(a) {
    if (!a) return "";
    const moves = (m) => Object.entries(m).map(([x, y]) => `${x} → ${y}`).join(", ");
    switch (a.type) {
      case "move": return `${a.from} → ${a.to}`;
      case "reinforce": return "reinforces " + Object.entries(a.to).map(([s, p]) => (p ? `${pieceName(p)} on ${s}` : s)).join(", ");
      case "resurrect": return `resurrects ${pieceName(a.piece)} on ${a.to}`;
      case "reflect": return `reflects ${a.from} → ${a.to} off the Reflector on ${a.reflector}`;
      case "swap": return a.spaces ? `swaps ${a.spaces.join(" ⇄ ")}` : `Memory swap ${a.memory} ⇄ ${a["with"]}`;
      case "time": return a.target ? `Time from ${a.at}: pushes ${a.target} → ${a.to}` : `Time from ${a.at}`;
      case "gravity": return `Void Gravity around ${a.void}: ${moves(a.moves)}`;
      case "moves": return "moves " + moves(a.moves);
      case "pass": return "passes";
      default: return a.type;
    }
  }

  /* A flash, for this viewer: "Your Shadow captures Black's Reflector on b38". */
  function flashText(f, viewer) {
    const mover = f.player, rival = other(mover);
    const a = `${whose(mover, viewer)} ${pieceName(f.attacker)}`, d = `${whose(rival, viewer)} ${pieceName(f.defender)}`;
    if (f.outcome === "capture") return cap(`${a} captures ${d} on ${f.at}`);
    if (f.outcome === "swap") return cap(`${a}${f.from ? " from " + f.from : ""} swaps with ${d} on ${f.at}`);
    return cap(`${a} and ${d} destroy each other on ${f.at}`);
  }

  /* A flash from the game's events (no 'from', no mover): the mover is the player of that turn. */
  function flashEventText(e, mover, viewer) {
    return flashText({ player: mover, attacker: e.attacker, defender: e.defender, at: e.at, outcome: e.outcome }, viewer);
  }

  function towerAt(view, space) {
    if (!view) return null;
    for (const t of view.board) if (t.space === space) return t;
    return null;
  }

  /* One instruction of the referee (a flash's, a Time's, a correction), for this viewer, naming whose tower. */
  function stepText(ins, ctx, viewer, view) {
    const flash = ctx && ctx.flash, time = ctx && ctx.time;
    if (flash) {
      const mover = flash.player, rival = other(mover);
      const A = `${whose(mover, viewer)} ${pieceName(flash.attacker)}`, D = `${whose(rival, viewer)} ${pieceName(flash.defender)}`;
      const mutual = flash.outcome !== "capture" && flash.outcome !== "swap";
      if (ins.do === "fill" && ins.space === flash.at) return `put ${A} on ${flash.at}`;
      if (ins.do === "fill" && ins.space === flash.from) return `put ${D} on ${flash.from}`;
      if (ins.do === "clear" && ins.space === flash.at) {
        return mutual ? `take ${D} off ${flash.at}: it goes to ${zeroGravity(mover, viewer)}`
                      : `take ${D} off ${flash.at}` + (flash.outcome === "capture" ? `: it goes to ${zeroGravity(mover, viewer)}` : "");
      }
      if (ins.do === "clear" && ins.space === flash.from) {
        return mutual ? `take ${A} off ${flash.from}: it goes to ${zeroGravity(rival, viewer)}` : `lift ${A} off ${flash.from}`;
      }
      if (ins.do === "move" && ins.from === flash.from && ins.to === flash.at) return `move ${A} from ${flash.from} to ${flash.at}`;
      if (ins.do === "move" && ins.from === flash.at && ins.to === flash.from) return `move ${D} from ${flash.at} to ${flash.from}`;
    }
    if (ins.do === "clear_one") {
      // Several Time towers: whichever leaves is the one used.  Where they stand is said to the mover
      // (ctx.towers, from their private status) or, face up, to everyone (ins.spaces).
      const mover = ins.player || (time && time.player);
      const spaces = ins.spaces && ins.spaces.length ? ins.spaces : (viewer === mover && ctx && ctx.towers) || [];
      const where = spaces.length ? ` (on ${spaces.join(" or ")})` : "";
      return `take one of ${whose(mover, viewer)} Time towers${where} off the board and put it on ${zeroGravity(other(mover), viewer)}`;
    }
    if (time && ins.do === "clear" && (time.time_towers || []).includes(ins.space)) {
      return `put ${whose(time.player, viewer)} Time tower from ${ins.space} on ${zeroGravity(other(time.player), viewer)}`;
    }
    if (ins.do === "move") {
      const t = towerAt(view, ins.from) || towerAt(view, ins.to);
      const owner = t ? `${whose(t.owner, viewer)} tower` : "the tower";
      return time ? `move ${owner} on ${ins.from} back to ${ins.to}` : `move ${owner} from ${ins.from} to ${ins.to}`;
    }
    if (ins.do === "clear") {
      const t = towerAt(view, ins.space);
      if (time && t) return `return ${whose(t.owner, viewer)} tower on ${ins.space} to ${zeroGravity(t.owner, viewer)}`;
      return `take the tower off ${ins.space}`;
    }
    if (ins.do === "fill") {
      const t = towerAt(view, ins.space);
      return t ? `put ${whose(t.owner, viewer)} tower back on ${ins.space}` : `put a tower on ${ins.space}`;
    }
    return ins.text || "";
  }

  /* The Power of Time being carried out, for this viewer. */
  function timeText(t, viewer) {
    const mover = t.player || "", rival = other(mover);
    if (t.outcome === "rewound") return `${Whose(mover, viewer)} Time rewinds ${whose(rival, viewer)} last move`;
    if (t.outcome === "failed") return `${Whose(mover, viewer)} Time fails: ${whose(rival, viewer)} last move moved a Shadow`;
    if (t.outcome === "pushed") return `${Whose(mover, viewer)} Time pushes one of ${whose(rival, viewer)} towers back`;
    return `${Whose(mover, viewer)} Time`;
  }

  /* Spaces to clear and to fill, said as a short count (the board shows which). */
  function countText(lift, place) {
    const parts = [];
    if (lift.length) parts.push(`take the ${lift.length === 1 ? "tower off the red space" : `towers off the ${lift.length} red spaces`}`);
    if (place.length) parts.push(`put ${plural(place.length, "tower")} on the green space${place.length === 1 ? "" : "s"}`);
    return cap(parts.join(" and "));
  }

  /* While the board is being set up (or put back as the game stands), a tower the game has where the
     board has none yet is drawn faint over its green space: "put it here", not "it is here". */
  function pendingTowers(state, towers, marks) {
    const phase = state.referee && state.referee.phase;
    if (phase !== "setup" && phase !== "sync") return towers;
    return towers.map((t) => (marks[t.space] === "place" ? Object.assign({}, t, { pending: true }) : t));
  }

  /* The referee's instructions as marks: red where a tower comes off, green where one goes, Time's
     colour on each Time tower one of which is to come off. */
  function stepMarks(todo, marks, towers) {
    for (const i of todo) {
      if (i.do === "move") { marks[i.from] = "lift"; marks[i.to] = "place"; }
      else if (i.do === "clear_one") for (const s of (i.spaces && i.spaces.length ? i.spaces : towers || [])) marks[s] = "time";
      else marks[i.space] = i.do === "clear" ? "lift" : "place";
    }
    return marks;
  }

  /* One instruction as every screen agrees on it (its words differ by viewer; what to do does not). */
  function stepKey(i) {
    if (i.do === "move") return `move ${i.from} ${i.to}`;
    if (i.do === "clear_one") return `clear one ${i.piece || "time"}`;
    return `${i.do} ${i.space}`;
  }

  /* Where a flash's towers that leave the board go, once they are off it (the board senses no Zero Gravity, so
     no step says it then).  The rulebook: a capture "removes the defending Tower to the attacker's Zero
     Gravity"; "Mutual destruction removes both Towers to the rival Zero Gravity boards". */
  function offBoardLines(f, todo, viewer) {
    const mover = f.player, rival = other(mover);
    const A = `${whose(mover, viewer)} ${pieceName(f.attacker)}`, D = `${whose(rival, viewer)} ${pieceName(f.defender)}`;
    const clears = (space) => todo.some((i) => i.do === "clear" && i.space === space);
    const out = [];
    if (f.outcome === "swap") return out;  // both stay on the board: the steps say where
    if (f.outcome !== "capture" && !clears(f.from)) out.push(cap(`put ${A} on ${zeroGravity(rival, viewer)}.`));
    if (!clears(f.at)) out.push(cap(`put ${D} on ${zeroGravity(mover, viewer)}.`));
    return out;
  }

  /* What the board needs now, for the public or a seat: {title, lines, marks, overlays, kind, steps,
     problem}.  The one statement of the next thing to do: the status page, the virtual board and both
     phones show it.  steps: what to do, the same on every screen (tests compare them); a seat adds
     the corrections the referee gave that player alone. */
  function needs(state, viewer, stale) {
    const out = publicNeeds(state, viewer, stale);
    const priv = viewer && state.seat && state.seat.private;
    const todo = (priv && state.phase !== "setup" && priv.instructions) || [];
    if (todo.length) {
      out.problem = true;
      out.title = out.title || "The board does not match the game";
      const ctx = { time: state.referee && state.referee.time, towers: priv.time_towers };
      if (todo.length > 4) {
        const lift = todo.filter((i) => i.do !== "fill"), fill = todo.filter((i) => i.do !== "clear");
        out.lines.push(countText(lift, fill) + ".");
      } else {
        out.lines.push("Put it right: " + todo.map((i) => cap(stepText(i, ctx.time ? ctx : null, viewer, state.view)) + ".").join(" "));
      }
      stepMarks(todo, out.marks, priv.time_towers);
      out.steps = out.steps.concat(todo.map((i) => "fix: " + stepKey(i)));
    }
    return out;
  }

  function publicNeeds(state, viewer, stale) {
    const ref = state.referee, v = state.view, b = state.board || {};
    const out = { lines: [], marks: {}, overlays: [], kind: null, steps: [] };
    const lift = b.lift || [], place = b.place || [];
    const markDiff = () => {
      for (const s of lift) out.marks[s] = "lift";
      for (const s of place) out.marks[s] = "place";
      out.steps = lift.map((s) => "clear " + s).concat(place.map((s) => "fill " + s));
    };
    if (state.phase === "setup" || !ref) return out;
    if (ref.phase === "setup" || ref.phase === "sync") {
      out.kind = ref.phase;
      markDiff();
      if (lift.length || place.length) out.lines.push(countText(lift, place) + ".");
      return out;
    }
    if (ref.flash) {
      const f = ref.flash;
      out.kind = "flash";
      out.title = flashText(f, viewer);
      out.overlays.push({ burst: "flash", at: f.at }, { arrow: "flash", from: f.from, to: f.at });
      const todo = ref.instructions || [];
      out.lines = todo.map((i) => cap(stepText(i, { flash: f }, viewer, v)) + ".");
      out.lines.push(...offBoardLines(f, todo, viewer));
      out.steps = todo.map(stepKey);
      stepMarks(todo, out.marks);
      return out;
    }
    if (ref.time) {
      const t = ref.time;
      out.kind = "time";
      out.title = timeText(t, viewer);
      const todo = ref.instructions || [];
      const priv = viewer && state.seat && state.seat.private;
      const towers = (priv && priv.time_towers) || [];  // the mover's Time towers, said to the mover alone
      out.lines = todo.map((i) => cap(stepText(i, { time: t, towers }, viewer, v)) + ".");
      out.steps = todo.map(stepKey);
      if (t.outcome === "pushed") {
        out.lines.push(cap(`${todo.length ? "then " : ""}push one of ${whose(other(t.player), viewer)} towers 1 to 3 spaces back along its Sight Line.`));
        out.steps.push("push");
      }
      stepMarks(todo, out.marks, towers);
      for (const i of todo) if (i.do === "move") out.overlays.push({ arrow: "time", from: i.from, to: i.to });
      for (const s of (t.time_towers || []).concat(towers)) out.overlays.push({ tag: "Time", at: s, kind: "time" });
      return out;
    }
    if (ref.following) {
      // The rival's action played far away is carried out: its plan says what to do (addOpponent);
      // what the board shows beyond it, the referee corrects (instructions that are no plan's).
      const fix = (ref.instructions || []).filter((i) => !i.lift);
      if (fix.length) {
        out.kind = "fix";
        out.title = "Put it right";
        out.lines.push("The board does not show the rival's action yet: " + fix.map((i) => stepText(i, null, viewer, v)).join("; ") + ".");
        stepMarks(fix, out.marks);
        out.steps = fix.map((i) => "fix: " + stepKey(i));
      }
      return out;
    }
    if (ref.phase === "play" && stale && lift.length + place.length) {
      // A difference that stays (a move in progress lasts a moment): say what the board needs.  Words
      // from public facts only: a small one may still be a move the mover is finishing on their phone.
      out.kind = "fix";
      markDiff();
      out.lines.push(lift.length + place.length > 4 ? countText(lift, place) + " to put the board back as the game stands."
                                                     : `The board differs from the game: ${countText(lift, place).toLowerCase()}, or finish the move.`);
    }
    return out;
  }

  /* The practice opponent's turn, on every screen a person looks at (the status page, the virtual
     board, the human's phone): what to do with its towers, from its public plan (spaces only, as the
     public sees its action).  A move onto a rival tower is announced as a flash before anyone lifts
     a tower.  The marks follow the sensed board: a lifted tower's red ring goes, a placed one's green
     ring goes.  Adds to `need` (title, lines, marks, overlays; kind "opponent" or "opponent-flash"),
     and returns true when the opponent has something to say. */
  function addOpponent(state, viewer, need) {
    const opp = state.opponent, ref = state.referee;
    if (!opp || state.phase !== "playing" || !ref || ref.phase !== "play" || ref.flash || ref.time) return false;
    const Side = cap(opp.side);
    const lines = [];
    // A remote rival (docs/remote-play.md) is named as the board side knows them: "Bob, playing from afar".
    const who = opp.remote ? opp.who : `${Side} is the practice opponent`;
    if (!opp.plan) {
      if (!opp.thinking) return false;
      need.title = need.title || (opp.remote ? `${Side} to move: ${opp.who}` : `${Side} is thinking`);
      // (a pause is said once, first, on every screen: Quin.remoteStory)
      lines.push(opp.remote ? `${cap(opp.who)}: their move shows here when they play it, for you to make on the board.`
                            : `${who}: its move shows here in a moment, for you to make on the board.`);
    } else {
      const p = opp.plan;
      const occupied = (state.board || {}).occupied;
      const has = (s) => !occupied || occupied.includes(s);
      if (p.flash && p.outcome) {
        // The flash was played far away: its outcome is known, and said before anyone lifts a tower.
        const f = p.outcome, A = `${whose(f.player, viewer)} ${pieceName(f.attacker)}`, D = `${whose(other(f.player), viewer)} ${pieceName(f.defender)}`;
        need.title = "Flash! " + flashText(f, viewer);
        if (opp.remote) lines.push(`${cap(opp.who)}: ${Side}'s tower on ${f.from} flashed ${whose(other(opp.side), viewer)} tower on ${f.at}.`);
        lines.push(f.outcome === "capture" ? `Lift both towers, then put ${A} on ${f.at}; ${D} goes to ${zeroGravity(f.player, viewer)}.`
          : f.outcome === "swap" ? `Lift both towers, then put ${A} on ${f.at} and ${D} on ${f.from}.`
          : `Lift both towers: both leave the board, ${A} to ${zeroGravity(other(f.player), viewer)} and ${D} to ${zeroGravity(f.player, viewer)}.`);
        need.overlays.push({ arrow: "flash", from: p.from, to: p.to }, { burst: "flash", at: p.to });
      } else if (p.flash) {
        need.title = `Flash coming on ${p.to}`;
        lines.push(`${Side}'s tower on ${p.from} flashes ${whose(other(opp.side), viewer)} tower on ${p.to}.`,
                   "Lift both towers: the flash then says who wins and where they go.");
        need.overlays.push({ arrow: "flash", from: p.from, to: p.to }, { burst: "flash", at: p.to });
      } else if (p.steps) {
        need.title = need.title || `${Side}'s turn, for you to make`;
        if (opp.remote) lines.push(`${cap(opp.who)}:`);
        for (const q of p.steps) lines.push(cap(q.text) + ".");
      } else {
        need.title = need.title || (p.do === "time" && p.outcome ? timeText({ player: opp.side, outcome: p.outcome }, viewer) : `${Side}'s move, for you to make`);
        lines.push(opp.remote ? `${cap(opp.who)}: ${proper(p.text)}.` : cap(p.text) + ".");
        if (p.do === "move") need.overlays.push({ arrow: "plan", from: p.from, to: p.to });
        for (const [x, y] of Object.entries(p.moves || {})) need.overlays.push({ arrow: "plan", from: x, to: y });
        for (const i of p.also || []) if (i.do === "move") need.overlays.push({ arrow: "plan", from: i.from, to: i.to });
      }
      const all = p.steps || [p];
      const lift = [].concat(...all.map((q) => q.lift || [])), place = [].concat(...all.map((q) => q.place || []));
      for (const s of lift.concat(place)) delete need.marks[s];
      for (const s of place) if (!has(s) || lift.includes(s)) need.marks[s] = "place";
      for (const s of lift) if (has(s)) need.marks[s] = "lift";
      // the steps every screen names (tests compare them): the plan's spaces
      need.steps = (need.steps || []).concat(lift.map((s) => "lift " + s), place.map((s) => "place " + s));
      need.kind = p.flash ? "opponent-flash" : need.kind || "opponent";
    }
    if (opp.error) lines.push(cap(opp.error) + ".");
    need.lines = lines.concat(need.lines || []);
    need.kind = need.kind || "opponent";
    return true;
  }

  /* A remote game (docs/remote-play.md): who the rival is and whether the game waits, for every
     board-side screen.  who: "Black is Bob, playing from afar"; paused: why the game waits, or null;
     said(title, lines): the pause put first in a screen's panel (under the title "Paused" when the
     panel has none), returning the panel's title. */
  function remoteStory(state) {
    const r = state.remote, opp = state.opponent;
    const out = { who: "", paused: null, countdown: false, said: (title) => title };
    if (!r) return out;
    out.who = opp && opp.remote ? `${cap(opp.side)} is ${opp.who}` : "";
    if (r.called_off) {
      // called off before it began: that is all there is to say (Quin.calledOffText)
      out.said = (title, lines) => { lines.splice(0, lines.length, calledOffText(state)); return ""; };  // (the headline says "Called off")
      return out;
    }
    // the rival away while the game is played: the hub's countdown says the pause and when the game
    // may be claimed, in one line of its own (QuinRemoteEnd), so the pause is not said twice
    out.countdown = r.phase === "playing" && !!r.abandon;
    const why = r.paused || r.problem;
    if (why) {
      out.paused = cap(proper(why)) + ".";
      out.said = (title, lines) => {
        lines.unshift(title ? `Paused: ${proper(why)}.` : out.paused);
        return title || "Paused";
      };
    }
    return out;
  }

  /* A remote game called off before it began, in one line: who did, and what now. */
  function calledOffText(state) {
    const r = state.remote || {}, side = r.called_off;
    const name = (r.names && r.names[side]) || cap(side || "");
    return `${name} (${cap(side || "")}) called the game off before it began: nobody wins. ` +
      "Start another game from the host page.";
  }

  /* How long the board has differed from the game in the same way (a page calls it on every state):
     a move in progress lasts a moment; a difference that stays is worth showing. */
  const STALE_MS = 5000, SETTLED_MS = 1500;
  function staleness(state, rerender) {
    const b = state.board || {};
    const key = JSON.stringify([b.lift || [], b.place || []]);
    const self = staleness;
    if (key !== self.key) {
      self.key = key;
      self.since = Date.now();
      for (const t of self.timers || []) clearTimeout(t);
      self.timers = [];
      if ((b.lift || []).length || (b.place || []).length) {
        self.timers = [setTimeout(rerender, SETTLED_MS + 50), setTimeout(rerender, STALE_MS + 50)];
      }
    }
    return Date.now() - self.since >= STALE_MS;
  }
  /* The board has stood as it is now for a moment (a hand has let go): staleness must run first. */
  function settled() { return staleness.since !== undefined && Date.now() - staleness.since >= SETTLED_MS; }

  /* A move made out of turn: only towers of the player who is not to move are missing from where the
     game has them, and a tower stands where the game has none (a move made, not a tower lifted for a
     flash).  From public facts only (whose tower stood where).  Returns a need that replaces the
     page's own: said once, on every screen, naming who moved and what to put back. */
  function outOfTurn(state, viewer) {
    const ref = state.referee, v = state.view, b = state.board || {};
    if (!ref || !v || state.phase !== "playing" || ref.phase !== "play" || ref.flash || ref.time) return null;
    // The rival's action played far away is carried out on the board: that is no move out of turn
    // (what is wrong then, the referee's corrections say: publicNeeds).
    if (ref.following) return null;
    const place = b.place || [], lift = b.lift || [];
    if (!place.length || !lift.length || !settled()) return null;
    const mover = v.to_move, culprit = other(mover);
    if (!place.every((s) => (towerAt(v, s) || {}).owner === culprit)) return null;
    const out = { kind: "out-of-turn", lines: [], marks: {}, overlays: [], culprit };
    for (const s of lift) out.marks[s] = "lift";
    for (const s of place) out.marks[s] = "place";
    const mine = viewer === culprit;
    const towers = whose(culprit, viewer) + (place.length === 1 ? " tower" : " towers");
    let back;
    if (place.length === 1 && lift.length === 1) {
      back = `move ${towers} from ${lift[0]} back to ${place[0]}`;
      out.overlays.push({ arrow: "plan", from: lift[0], to: place[0] });
    } else {
      back = `take the ${plural(lift.length, "tower")} off ${lift.join(", ")} and put ${towers} back on ${place.join(", ")}`;
    }
    out.title = mine ? "You moved out of turn" : `${cap(culprit)} moved out of turn`;
    if (viewer === mover) out.lines.push(`It is your move. ${cap(culprit)} puts it right: ${back}.`);
    else out.lines.push(`It is ${cap(mover)}'s move. ${mine ? "Put it right" : "Put it back"}: ${back}.`);
    return out;
  }

  /* The headline: the result, a flash, whose move, or what the table does now. */
  function headline(state, viewer) {
    const v = state.view, ref = state.referee || {};
    if (state.remote && state.remote.called_off) return "Called off";
    if (state.phase === "setup") return viewer ? "Choose your lineup" : "Choosing lineups";
    if (v && v.result && v.result.status !== "ongoing") return resultText(v.result);
    if (ref.phase === "setup") return "Set up the board";
    if (ref.phase === "sync") return "Put the board back as the game stands";
    if (ref.flash) return `Flash on ${ref.flash.at}`;
    if (ref.time) return `${Whose(ref.time.player, viewer)} Power of Time`;
    if (!v) return "";
    if (viewer) return v.to_move === viewer ? "Your move" : `${cap(v.to_move)} to move`;
    return `${cap(v.to_move)} to move`;
  }

  /* The last turn drawn on the board: arrows for moves, a burst for a flash, Time and what it undid. */
  function lastTurn(view) {
    const out = { marks: {}, overlays: [] };
    if (!view || !view.history.length) return out;
    const turn = view.history[view.history.length - 1];
    const prev = view.history.length > 1 ? view.history[view.history.length - 2] : null;
    for (const a of turn.actions) {
      if (a.type === "move" || a.type === "reflect") out.overlays.push({ arrow: "last", from: a.from, to: a.to });
      else if (a.type === "moves" || a.type === "gravity") for (const [x, y] of Object.entries(a.moves)) out.overlays.push({ arrow: "last", from: x, to: y });
      else if (a.type === "swap") {
        const [x, y] = a.spaces || [a.memory, a["with"]];
        out.overlays.push({ arrow: "last", from: x, to: y, cls: "both" });
      } else if (a.type === "reinforce") for (const s of Object.keys(a.to)) out.marks[s] = "new";
      else if (a.type === "resurrect") out.marks[a.to] = "new";
      else if (a.type === "time") {
        out.overlays.push({ tag: "Time", at: a.at, kind: "time" });
        out.marks[a.at] = "time";
        if (a.target) out.overlays.push({ arrow: "time", from: a.target, to: a.to });
      }
    }
    for (const e of view.events) {
      if (e.turn !== turn.turn) continue;
      if (e.type === "flash") out.overlays.push({ burst: "flash", at: e.at });
      if (e.type === "time" && e.outcome === "rewound" && prev) {
        const undone = prev.actions[prev.actions.length - 1];
        for (const [x, y] of movedBy(undone)) out.overlays.push({ arrow: "time", from: y, to: x });
      }
    }
    return out;
  }

  /* What a page draws: the last turn under what the board needs now (a flash or a Time replaces the
     last turn's drawings).  marks: the page's own instead of the needs' marks. */
  function scene(view, need, marks) {
    const last = lastTurn(view);
    const focus = need.kind === "flash" || need.kind === "time";
    return { marks: Object.assign({}, last.marks, marks || need.marks),
             overlays: focus ? need.overlays : last.overlays.concat(need.overlays) };
  }

  function movedBy(a) {
    if (!a) return [];
    if (a.type === "move" || a.type === "reflect") return [[a.from, a.to]];
    if (a.type === "moves" || a.type === "gravity") return Object.entries(a.moves);
    return [];
  }

  /* Which actions were undone by a Time rewind: "turn:index" keys. */
  function rewound(view) {
    const out = {};
    if (!view) return out;
    const byTurn = {};
    for (const t of view.history) byTurn[t.turn] = t;
    for (const e of view.events) {
      if (e.type !== "time" || e.outcome !== "rewound") continue;
      const prev = byTurn[e.turn - 1];
      if (prev) out[`${prev.turn}:${prev.actions.length - 1}`] = byTurn[e.turn] ? byTurn[e.turn].player : "";
    }
    return out;
  }

  /* The move list: one line per turn, flashes noted, rewound moves struck through. */
  function renderLog(ol, view, viewer) {
    ol.innerHTML = "";
    if (!view) return;
    const undone = rewound(view);
    const flashes = {}, failed = {};
    for (const e of view.events) {
      if (e.type === "flash") (flashes[e.turn] = flashes[e.turn] || []).push(e);
      if (e.type === "time" && e.outcome === "failed") failed[e.turn] = true;
    }
    for (const turn of view.history) {
      const li = h("li", { value: String(turn.turn) }, h("span", { class: "who " + turn.player }, cap(turn.player)), " ");
      turn.actions.forEach((a, i) => {
        if (i) li.append("; ");
        const by = undone[`${turn.turn}:${i}`];
        if (by !== undefined) {
          li.append(h("s", { class: "rewound", title: "undone by Time" }, actionText(a)),
                    h("span", { class: "note time" }, ` undone by ${whose(by, viewer)} Time`));
        } else if (a.type === "time" && !a.target && failed[turn.turn]) {
          // A Power of Time that failed (the last move moved a Shadow): said so, not listed like one that worked.
          li.append(h("span", { class: "act failed", title: "the last move moved a Shadow" },
                      `${actionText(a)} fails (a Shadow moved)`));
        } else li.append(h("span", { class: "act" }, actionText(a)));
      });
      for (const e of flashes[turn.turn] || []) li.append(h("span", { class: "note flash" }, " · " + flashEventText(e, turn.player, viewer)));
      ol.appendChild(li);
    }
    ol.scrollTop = ol.scrollHeight;
  }

  /* Each player's Zero Gravity, one labelled block each: the towers waiting to come in (by name where
     the viewer knows them) and, under a visible "Captured" label, the rival's towers captured there,
     each piece once (×2 for two of a kind). */
  function renderZeroGravity(box, view, viewer) {
    box.innerHTML = "";
    if (!view) return;
    const counted = (pieces) => {
      const counts = {};
      for (const piece of pieces) counts[piece] = (counts[piece] || 0) + 1;
      return Object.entries(counts);
    };
    for (const p of PLAYERS) {
      const rival = other(p);
      const block = h("div", { class: "zg", "data-zg": p }, h("h3", { class: "zg-name" }, cap(zeroGravity(p, viewer))));
      const mine = view.reserve[p];
      const waiting = mine.count;
      const names = mine.pieces ? counted(mine.pieces).map(([piece, n]) => pieceName(piece) + (n > 1 ? ` ×${n}` : "")).join(", ") : "";
      block.append(h("p", { class: "zg-line zg-wait" }, h("span", { class: "zg-label" }, "Waiting to come in:"), " ",
                     waiting ? `${waiting}${names ? " (" + names + ")" : ""}` : "none"));
      const caught = view.captured[rival];
      if (caught.length) {
        const chips = h("span", { class: "chips" });
        for (const [piece, n] of counted(caught)) {
          chips.append(h("span", { class: "chip " + rival, title: `${cap(rival)}'s ${pieceName(piece)}, captured` },
                         icon(piece), pieceName(piece) + (n > 1 ? ` ×${n}` : "")));
        }
        block.append(h("p", { class: "zg-line" }, h("span", { class: "zg-label" }, `Captured from ${cap(rival)}:`), " ", chips));
      }
      box.append(block);
    }
  }

  /* The end of a game, for the status page and each phone: the result (unless the headline says
     it), the winning move, that every tower is now shown, who has asked to play again, and a link
     to the replay.  The seat adds its own Play again button. */
  function renderEnd(box, state, viewer, headline) {
    box.innerHTML = "";
    const v = state.view;
    if (!v || !v.result || v.result.status === "ongoing") { box.classList.add("hidden"); return; }
    const res = resultText(v.result);
    if (res !== headline) box.append(h("p", { class: "result-text" }, res));
    const turn = v.history[v.history.length - 1];
    if (turn) {
      const flashes = v.events.filter((e) => e.turn === turn.turn && e.type === "flash").map((e) => flashEventText(e, turn.player, viewer));
      const what = turn.actions.map(actionText).join("; ");
      // a game ended otherwise than by a move (resigned, claimed, a flag): its last move won nothing
      const byMove = v.result.winner && !["resignation", "abandonment", "time"].includes(v.result.reason);
      box.append(h("p", { class: "winning" }, `${byMove ? "The winning move" : "The last move"}: ` +
        `${cap(turn.player)} ${what}` + (flashes.length ? ` (${flashes.join("; ")})` : "") + "."));
    }
    box.append(h("p", { class: "small" }, "Every tower is shown now: nothing is hidden once a game ends."));
    const again = state.again || { asked: [], needs: [] };
    const first = cap(again.first || "");
    const asked = again.asked || [], needs = again.needs || [];
    let line;
    if (!asked.length) {
      line = needs.length > 1 ? `Play again: both players tap Play again on their phones (${first} moves first).`
                              : `Play again: tap Play again on the phone (${first} moves first).`;
    } else {
      const waiting = needs.filter((p) => !asked.includes(p));
      line = `${asked.map((p) => p === viewer ? "You" : cap(p)).join(" and ")} asked to play again; ` +
             `waiting for ${waiting.map((p) => p === viewer ? "you" : cap(p)).join(" and ")} (${first} moves first).`;
    }
    box.append(h("p", { class: "again" }, line));
    box.append(h("p", {}, h("a", { href: `/history/${state.game}`, class: "button replay-link" }, `Replay game ${state.game}`)));
    box.classList.remove("hidden");
    const t = document.getElementById("toast");  // the end says it all: an earlier notice goes
    if (t) t.classList.add("hidden");
  }

  /* The legend: one icon per piece. */
  function legend(box) {
    box.innerHTML = "";
    for (const p of PIECES) box.append(h("span", { class: "legend-item" }, icon(p), NAME[p]));
  }

  // --- the stream, posting, notices -----------------------------------------------------------

  /* "The game could not be saved: ...": on every page, for as long as the server says so. */
  function unsaved(state) {
    let box = document.getElementById("unsaved");
    const text = state && state.unsaved;
    if (!text) { if (box) box.remove(); return; }
    if (!box) {
      box = h("div", { id: "unsaved", class: "unsaved", role: "alert" });
      document.body.prepend(box);
    }
    if (box.textContent !== text) box.textContent = text;
  }

  /* An EventSource that keeps the page live; onState(state, notices) for every event. */
  function stream(url, onState, connEl, onError) {
    let source = null;
    const show = (text, cls) => { if (connEl) { connEl.textContent = text; connEl.className = "conn " + cls; } };
    function open() {
      source = new EventSource(url);
      let queue = Promise.resolve();
      const handle = (e) => {
        const msg = JSON.parse(e.data);
        window.QUIN_LAST_EVENT_ID = e.lastEventId;
        unsaved(msg.state);
        // In order, each after the one before (a page may wait for its board on the first).
        queue = queue.then(() => onState(msg.state, msg.notices || [])).then(() => {
          if (window.QUIN_RENDERED === undefined) window.QUIN_RENDERED = performance.now();
        });
      };
      source.addEventListener("state", handle);
      source.addEventListener("update", handle);
      source.onopen = () => show("live", "live");
      source.onerror = async () => {
        show("reconnecting", "lost");
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

  /* One toast at a time; a new one replaces it.  Where the page has a slot for it (#toast-slot, under
     the panel that says what happens now) it sits there, in the page, and covers nothing: not the
     sheet of choices, not the lists; elsewhere at the foot of the screen. */
  let toastTimer = null;
  function toast(text, cls, ms) {
    let t = document.getElementById("toast");
    const slot = document.getElementById("toast-slot");
    if (!t) {
      t = h("div", { id: "toast", class: "toast", role: "status", "aria-live": "polite" });
      t.addEventListener("click", () => t.classList.add("hidden"));
      (slot || document.querySelector("main") || document.body).appendChild(t);
    }
    t.className = "toast " + (slot ? "inline " : "") + (cls || "");
    t.textContent = text;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => t.classList.add("hidden"), ms || 6000);
    return t;
  }

  /* The stream's notices as toasts for this viewer: a flash, and the Power of Time once carried out. */
  function notify(notices, viewer) {
    // Said once: a notice the panel above already says (a flash being carried out) is not repeated.
    const now = document.getElementById("now");
    const shown = (text) => now && !now.classList.contains("hidden") && now.textContent.includes(text);
    for (const n of notices) {
      const d = n.data || {};
      const text = n.kind === "flash" ? flashText(d, viewer) : n.kind === "time" && d.done ? timeText(d, viewer) : "";
      if (text && !shown(text)) toast(text, n.kind, n.kind === "flash" ? 8000 : 6000);
    }
  }

  /* The referee's and the engine's words with the pieces and players named as in the rest of the
     pages: "a void moves at most 1" reads "a Void moves at most 1", "black's tower" "Black's tower". */
  const PIECE_WORDS = /\b(a|an|the|your|its|their|his|her|my|one|white's|black's|captured|hidden|rival's)(\s+)(artificial light|light|shadow|reflector|memory|time|peripheral|void)(s?)\b/gi;
  function proper(text) {
    return String(text || "")
      .replace(/\b(white|black)('s)\b/g, (m, who, s) => cap(who) + s)
      .replace(PIECE_WORDS, (m, pre, sp, piece, pl) => pre + sp + piece.split(" ").map(cap).join(" ") + pl);
  }

  /* A question in the page (a <dialog>): resolves answer() when confirmed, `no` when cancelled or
     closed.  A text field in it opens selected. */
  function dialog(label, body, ok, answer, no) {
    return new Promise((resolve) => {
      const dlg = h("dialog", { class: "confirm", "aria-label": label }, ...body,
        h("div", { class: "buttons" },
          h("button", { class: "primary", "data-confirm": "yes", onclick: () => { const v = answer(); dlg.close(); resolve(v); } }, ok),
          h("button", { "data-confirm": "no", onclick: () => { dlg.close(); resolve(no); } }, "Cancel")));
      dlg.addEventListener("close", () => { dlg.remove(); resolve(no); });
      document.body.appendChild(dlg);
      dlg.showModal();
      const field = dlg.querySelector("input");
      if (field) field.select();
    });
  }

  /* The game clocks (host/match/clock.py; docs/rules.md "Clocks"), both public as at a chess table:
     each side's time left as the board last said it, the running side counted down here between
     states (tenths below 10 s).  A page calls it on every state; viewer: the seat's player (their
     own clock is marked low when little is left), or null. */
  const LOW = 30;  // seconds: the mover's phone warns below this (or a tenth of the time each, if less)
  function clockText(t) {
    if (t < 10) return Math.max(0, Math.floor(t * 10) / 10).toFixed(1);
    const s = Math.ceil(t), hh = Math.floor(s / 3600), mm = Math.floor((s % 3600) / 60), ss = s % 60;
    const two = (n) => String(n).padStart(2, "0");
    return hh ? `${hh}:${two(mm)}:${two(ss)}` : `${mm}:${two(ss)}`;
  }
  /* The server's wall clock, as this page reads it (GET /api/now, once a minute, half the round trip
     taken off): a state's clocks are told at their last change (clock.at), so every screen counts
     the running one down from the same moment, whatever the device's own clock says. */
  let serverBase = null, serverAsked = -Infinity;
  function serverNow() {
    const t = performance.now();
    if (t - serverAsked > 60000) {
      serverAsked = t;
      fetch("/api/now", { cache: "no-store" }).then((r) => r.json()).then((d) => {
        const back = performance.now();
        serverBase = { server: d.now, perf: (t + back) / 2 };
      }).catch(() => { serverAsked = -Infinity; });
    }
    return serverBase ? serverBase.server + (t - serverBase.perf) / 1000 : null;
  }
  function renderClocks(box, state, viewer) {
    const c = state.clock;
    if (box._timer) { clearInterval(box._timer); box._timer = null; }
    box.classList.toggle("hidden", !c || !c.left);
    if (!c || !c.left) { box.replaceChildren(); return; }
    const at = performance.now();  // until the server's clock is read: counted from this state's arrival
    const low = Math.min(LOW, (c.control.base || 0) / 10);
    const order = viewer ? [other(viewer), viewer] : PLAYERS;
    const faces = {};
    box.replaceChildren(...order.map((p) => {
      const name = ((state.players || {})[p]) || cap(p);
      faces[p] = h("span", { class: "clock-time", "data-clock": p });
      return h("div", { class: `clock ${p}` + (c.running === p ? " running" : "") + (c.flagged === p ? " flagged" : ""),
                        role: "timer", "aria-label": `${name}'s clock` }, h("span", { class: "clock-name" }, name), faces[p]);
    }));
    box.setAttribute("aria-label", `game clocks, ${c.control.text}`);
    const draw = () => {
      const server = serverNow();
      const gone = server !== null && c.at !== undefined ? server - c.at : (performance.now() - at) / 1000;
      for (const p of PLAYERS) {
        const t = c.running === p && !c.paused ? Math.max(0, c.left[p] - gone) : c.left[p];
        faces[p].textContent = clockText(t);
        faces[p].parentNode.classList.toggle("low", viewer === p && c.running === p && t < low);
      }
    };
    draw();
    if (c.running && !c.paused) box._timer = setInterval(draw, 100);
  }

  /* A confirmation in the page: resolves true when confirmed. */
  function confirmBox(text, ok) { return dialog("confirm", [h("p", {}, text)], ok || "Yes", () => true, false); }

  return { board, icon, sprite, stream, post, toast, notify, dialog, confirmBox, h, cap, other, whose, pieceName, actionText,
           resultText, flashText, flashEventText, stepText, timeText, countText, needs, staleness, headline, lastTurn, scene,
           stepMarks, stepKey, addOpponent, outOfTurn, remoteStory, calledOffText, proper, renderEnd, rewound, renderLog, renderZeroGravity, legend, towerAt,
           pendingTowers, renderClocks, clockText,
           NAME, PIECES, PLAYERS };
})();
