// Refresh the live part of a page when the table moves on (time passing is narrator.js's).
// Plain JavaScript, no framework; pages work without it (forms post normally).
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var live = document.getElementById("live");
  if (!live || !live.dataset.poll) { return; }
  var version = live.dataset.version;
  var busy = false;
  // a finger (or mouse button) is down on the page: a redraw now would replace the button
  // under it between the press and the release, and the tap would be lost
  var pressing = false;
  document.addEventListener("pointerdown", function () { pressing = true; }, true);
  function released() { setTimeout(function () { pressing = false; }, 0); }  // after the click
  document.addEventListener("pointerup", released, true);
  document.addEventListener("pointercancel", released, true);
  window.addEventListener("blur", released);

  function filling() {
    // someone is filling in their choice: leave the form alone until they send it
    var form = live.querySelector("form.turn");
    if (form && (form.contains(document.activeElement) ||
        form.querySelector("input:checked:not([value=''])") !== null)) { return true; }
    // the host is typing the name of a player without a phone: kept until it is sent
    var seat = live.querySelector("form.seat-player input[name='arg']");
    if (seat && (seat === document.activeElement || seat.value)) { return true; }
    // the host has a list of names open (roll call, most hands, a tie): a redraw would shut it
    var keep = document.activeElement && document.activeElement.closest &&
      document.activeElement.closest("form[data-keep]");
    if (keep && live.contains(keep) && document.activeElement.tagName === "SELECT") { return true; }
    // the host is typing a card count: the page is redrawn once it is sent
    var setup = live.querySelector("form#setup");
    var active = document.activeElement;
    return Boolean(setup) && setup.contains(active) && active.type === "number" && setup.dataset.dirty === "1";
  }

  function refresh(force, reason) {
    if (busy || (!force && filling())) { return; }
    busy = true;
    fetch(live.dataset.poll + "?since=" + encodeURIComponent(version), {credentials: "same-origin"})
      .then(function (answer) {
        if (answer.status === 204 && !force) { return null; }
        if (answer.status === 204) { return {version: version}; }
        if (!answer.ok) { throw new Error(String(answer.status)); }
        return answer.json();
      })
      .then(function (view) {
        if (!view) { return null; }
        version = String(view.version);
        var part = live.dataset.part + (reason ? "?reason=" + encodeURIComponent(reason) : "");
        return fetch(part, {credentials: "same-origin"})
          .then(function (answer) { return answer.text(); })
          .then(function (html) {
            // the answer may come back after someone started choosing: try again later
            if (!force && filling()) { version = live.dataset.version; return; }
            if (pressing) {  // drawn once the finger is up (a refusal's reason kept)
              version = live.dataset.version;
              if (force) { setTimeout(function () { refresh(true, reason); }, 250); }
              return;
            }
            var focused = document.activeElement && document.activeElement.id;
            var picked = pickedNames();
            // a card turned face up (or a section opened) stays so through a redraw
            var opened = {};
            live.querySelectorAll("details[id]").forEach(function (d) { opened[d.id] = d.open; });
            live.innerHTML = html;
            Object.keys(opened).forEach(function (id) {
              var d = document.getElementById(id);
              if (d) { d.open = opened[id]; }
            });
            pickAgain(picked);
            live.dataset.version = version;
            if (focused && document.getElementById(focused)) { document.getElementById(focused).focus(); }
          });
      })
      .catch(function () { /* offline for a moment: try again at the next beat */ })
      .then(function () { busy = false; });
  }

  // A name the host picked in a form (the roll call's "X votes for", most hands, a tie) stays
  // picked through a redraw while the form still asks the same thing (its data-keep: the same
  // voter, the same phase); a form for the next voter starts afresh.
  function pickedKey(form, select) {
    return form.className + "|" + form.dataset.keep + "|" + select.id;
  }
  function pickedNames() {
    var picked = {};
    live.querySelectorAll("form[data-keep] select[data-picked]").forEach(function (select) {
      picked[pickedKey(select.form, select)] = select.value;
    });
    return picked;
  }
  function pickAgain(picked) {
    live.querySelectorAll("form[data-keep] select").forEach(function (select) {
      var value = picked[pickedKey(select.form, select)];
      var option = value === undefined ? null :
        Array.prototype.find.call(select.options, function (o) { return o.value === value; });
      if (option) { select.value = value; select.dataset.picked = "1"; }
    });
  }

  // the host's set-up: every change is sent at once, and the page shows what it made
  live.addEventListener("input", function (event) {
    var setup = event.target.form;
    if (setup && setup.id === "setup") { setup.dataset.dirty = "1"; }
  });
  function send(form, submitter) {
    // post a form without leaving the page, then show what it made; a refusal comes back
    // as the host's page with the reason in its address
    var body = new FormData(form);
    if (submitter && submitter.name) { body.append(submitter.name, submitter.value); }
    busy = true;
    var reason = null;
    fetch(form.action, {method: "POST", credentials: "same-origin", body: body})
      .then(function (answer) { reason = new URL(answer.url).searchParams.get("reason"); })
      .catch(function () {})
      .then(function () { busy = false; refresh(true, reason); });
  }

  live.addEventListener("change", function (event) {
    if (event.target.tagName === "SELECT" && event.target.closest("form[data-keep]")) {
      event.target.dataset.picked = "1";
    }
    var setup = event.target.form;
    if (!setup || setup.id !== "setup") { return; }
    setup.dataset.dirty = "";
    send(setup, null);
  });
  live.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.hasAttribute("data-fetch") && form.id !== "setup") { return; }
    event.preventDefault();
    if (event.submitter) { event.submitter.disabled = true; }  // one tap, one command
    send(form, event.submitter);
  });

  // the debate clock counts down between two answers of the server (display only: the
  // narrator's own timer runs on the host page's ticks)
  function countdown() {
    live.querySelectorAll("[data-countdown]").forEach(function (clock) {
      var left = Math.max(0, Number(clock.dataset.countdown) - 1);
      clock.dataset.countdown = String(left);
      var shown = clock.querySelector(".left");
      if (shown) { shown.textContent = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0"); }
      clock.classList.toggle("up", left === 0);
    });
  }

  setInterval(refresh, Number(document.body.dataset.pollMs) || 1500);  // the server's POLL_SECONDS
  // a phone brought back to the table (unlocked, its tab shown again) asks for news at once,
  // not at its next beat: a hidden page's timers are slowed by the browser, and its player
  // looks at it now
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { refresh(); }
  });
  setInterval(countdown, 1000);
})();
