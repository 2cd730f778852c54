/* The host's page: re-issue a seat, start a new game; new seat codes show here at once. */
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const $ = (id) => document.getElementById(id);
  $("conn").className = "hidden";
  const key = window.QUIN_HOST;
  const headers = { "X-Host-Key": key };
  const fail = (e) => { $("error").textContent = e.message; };
  const PHASE = { setup: "choosing lineups", playing: "in play", over: "over" };
  try {
    const note = sessionStorage.getItem("quin.host.note");
    if (note) { $("host-note").textContent = note; sessionStorage.removeItem("quin.host.note"); }
  } catch (e) { /* private mode */ }
  if ($("opponent")) {
    const level = () => { $("level").disabled = $("opponent").value === "none"; };
    $("opponent").addEventListener("change", level);
    level();
  }

  function showSeats(seats) {
    for (const [player, seat] of Object.entries(seats)) {
      const card = document.querySelector(`[data-seat="${player}"]`);
      card.querySelector(".qr").innerHTML = seat.qr;
      card.querySelector("a").href = seat.url;
    }
  }

  for (const b of document.querySelectorAll("[data-reissue]")) {
    b.addEventListener("click", async () => {
      const player = b.dataset.reissue;
      if (!(await Quin.confirmBox(`Re-issue ${player}'s seat? The old link stops working at once.`, "Re-issue"))) return;
      Quin.post(`/api/host/${key}/reissue`, { player }, headers).then((r) => {
        showSeats(r.seats);
        $("host-note").textContent = `${Quin.cap(player)}'s seat has a new code: scan it with the phone that plays ${player}.`;
      }).catch(fail);
    });
  }
  // a remote game: a new one, or one joined with its code (the form's fields as `quin serve --remote`)
  const kind = () => {
    const join = $("remote-game-kind").value === "code";
    $("remote-code-box").classList.toggle("hidden", !join);
    for (const el of document.querySelectorAll(".new-only")) el.classList.toggle("hidden", join);
    $("remote-go").textContent = join ? "Join the remote game" : "Start the remote game";
  };
  $("remote-game-kind").addEventListener("change", kind);
  kind();
  $("remote-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const join = $("remote-game-kind").value === "code";
    if (!(await Quin.confirmBox(`${join ? "Join" : "Start"} a remote game? The game at this table is set aside.`, join ? "Join" : "Start"))) return;
    const body = { hub: $("remote-hub").value.trim(), name: $("remote-name").value.trim(),
                   game: join ? $("remote-code").value.trim() : "new" };
    if (!join) Object.assign(body, { side: $("remote-side").value, mode: $("remote-mode").value });
    $("remote-go").disabled = true;
    Quin.post(`/api/host/${key}/remote`, body, headers).then((r) => {
      try {
        sessionStorage.setItem("quin.host.note", `Remote game ${r.code}: you play ${Quin.cap(r.side)}. ` +
          (join ? "Scan your seat code with your phone." : `Give your friend the code ${r.code}; scan your seat code with your phone.`));
      } catch (err) { /* private mode */ }
      location.reload();
    }).catch((err) => { $("remote-error").textContent = err.message; $("remote-go").disabled = false; });
  });
  $("new-game").addEventListener("click", async () => {
    let unfinished = true;
    try { unfinished = (await (await fetch("/api/state")).json()).phase !== "over"; } catch (e) { /* ask as if in play */ }
    const ask = "Start a new game? " + (unfinished ? "The game in play is abandoned. " : "") + "The phones stay seated: they move to the new game.";
    if (!(await Quin.confirmBox(ask, "Start a new game"))) return;
    const body = { mode: $("mode").value, first: $("first").value, vision: $("vision").checked, clock: $("clock").value };
    if ($("opponent")) Object.assign(body, { opponent: $("opponent").value, level: Number($("level").value) });
    Quin.post(`/api/host/${key}/new`, body, headers)
      .then((r) => {
        if (r.said && r.said.length) {  // who plays changed: the seat cards are drawn again, with what changed said
          try { sessionStorage.setItem("quin.host.note", `New game ${r.game}: ${r.said.join("; ")}.`); } catch (e) { /* private mode */ }
          location.reload();
          return;
        }
        showSeats(r.seats);
        $("game-title").textContent = `Game ${r.game}: ${PHASE[r.state.phase] || r.state.phase}`;
        $("host-note").textContent = document.querySelector("[data-opponent]")
          ? `New game ${r.game}: the phone on your seat is carried to it; the code stays the same.`
          : `New game ${r.game}: the phones on the seats are carried to it; the codes stay the same.`;
        $("error").textContent = "";
      }).catch(fail);
  });
});
