/* The host's page: re-issue a seat, start a new game. */
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const $ = (id) => document.getElementById(id);
  $("conn").className = "hidden";
  const key = window.QUIN_HOST;
  const headers = { "X-Host-Key": key };
  const fail = (e) => { $("error").textContent = e.message; };
  for (const b of document.querySelectorAll("[data-reissue]")) {
    b.addEventListener("click", () => {
      if (!confirm(`Re-issue ${b.dataset.reissue}'s seat? The old link stops working.`)) return;
      Quin.post(`/api/host/${key}/reissue`, { player: b.dataset.reissue }, headers).then(() => location.reload()).catch(fail);
    });
  }
  $("new-game").addEventListener("click", () => {
    if (!confirm("Start a new game?")) return;
    Quin.post(`/api/host/${key}/new`, { mode: $("mode").value, first: $("first").value, vision: $("vision").checked }, headers)
      .then(() => location.reload()).catch(fail);
  });
});
