/* The host's page: re-issue a seat, start a new game; new seat codes show here at once. */
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const $ = (id) => document.getElementById(id);
  $("conn").className = "hidden";
  const key = window.QUIN_HOST;
  const headers = { "X-Host-Key": key };
  const fail = (e) => { $("error").textContent = e.message; };
  const PHASE = { setup: "choosing lineups", playing: "in play", over: "over" };

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
  $("new-game").addEventListener("click", async () => {
    let unfinished = true;
    try { unfinished = (await (await fetch("/api/state")).json()).phase !== "over"; } catch (e) { /* ask as if in play */ }
    const ask = "Start a new game? " + (unfinished ? "The game in play is abandoned. " : "") + "The phones stay seated: they move to the new game.";
    if (!(await Quin.confirmBox(ask, "Start a new game"))) return;
    Quin.post(`/api/host/${key}/new`, { mode: $("mode").value, first: $("first").value, vision: $("vision").checked }, headers)
      .then((r) => {
        showSeats(r.seats);
        $("game-title").textContent = `Game ${r.game}: ${PHASE[r.state.phase] || r.state.phase}`;
        $("host-note").textContent = document.querySelector("[data-opponent]")
          ? `New game ${r.game}: the phone on your seat is carried to it; the code stays the same.`
          : `New game ${r.game}: the phones on the seats are carried to it; the codes stay the same.`;
        $("error").textContent = "";
      }).catch(fail);
  });
});
