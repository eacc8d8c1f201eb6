// Refresh the live part of a page when the table moves on; tick the debate clock.
// Plain JavaScript, no framework; pages work without it (forms post normally).
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || !live.dataset.poll) { return; }
  var version = live.dataset.version;
  var busy = false;
  var lastTick = Date.now();

  function filling() {
    // someone is filling in their choice: leave the form alone until they send it
    var form = live.querySelector("form.turn");
    return Boolean(form) && (form.contains(document.activeElement) ||
      form.querySelector("input:checked:not([value=''])") !== null);
  }

  function refresh() {
    if (busy || filling()) { return; }
    busy = true;
    fetch(live.dataset.poll + "?since=" + encodeURIComponent(version), {credentials: "same-origin"})
      .then(function (answer) {
        if (answer.status === 204) { return null; }
        if (!answer.ok) { throw new Error(String(answer.status)); }
        return answer.json();
      })
      .then(function (view) {
        if (!view) { return null; }
        version = String(view.version);
        return fetch(live.dataset.part, {credentials: "same-origin"})
          .then(function (answer) { return answer.text(); })
          .then(function (html) {
            // the answer may come back after someone started choosing: try again later
            if (filling()) { version = live.dataset.version; return; }
            live.innerHTML = html;
            live.dataset.version = version;
          });
      })
      .catch(function () { /* offline for a moment: try again at the next beat */ })
      .then(function () { busy = false; });
  }

  function tick() {
    // the host's page lets time pass while the narrator's timer runs (the debate clock,
    // a night call held open)
    if (!live.dataset.tick) { return; }
    var timer = live.querySelector("[data-timer]");
    var now = Date.now();
    var seconds = Math.round((now - lastTick) / 1000);
    if (timer && seconds >= 1) {
      lastTick = now;
      fetch(live.dataset.tick, {method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json"}, body: JSON.stringify({seconds: seconds})})
        .catch(function () {});
    } else if (!timer) {
      lastTick = now;
    }
  }

  setInterval(refresh, 1500);
  setInterval(tick, 1000);
})();
