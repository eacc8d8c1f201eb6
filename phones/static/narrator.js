// The host's phone is the narrator: it says every line the table has been told, in order,
// with the narrator's pauses, and shows each one as a caption. The audio of a line is the
// server's voice (GET .../audio/<game>/<i>.wav); where the server has no voice for the
// language, the browser's own speech synthesis says it. Browsers play no sound before the
// user touches the page, so nothing is spoken until the host taps "let the narrator speak";
// until then the lines are captions only.
//
// Time passes by the page: while the narrator's timer runs (the debate clock, a night call
// held open) and the page has nothing left to say, it posts the real seconds elapsed as a
// tick, so a call lasts as long on the host's phone as on the box, whoever is called.
(function () {
  "use strict";
  var panel = document.getElementById("narrator");
  if (!panel) { return; }
  var startButton = document.getElementById("narrator-start");
  var controls = document.getElementById("narrator-controls");
  var replayButton = document.getElementById("narrator-replay");
  var mute = document.getElementById("narrator-mute");
  var volume = document.getElementById("narrator-volume");
  var nowSaying = document.getElementById("now-saying");
  var captions = document.getElementById("captions");

  var game = null;      // the stored game whose lines these are
  var next = 0;         // the first told index not fetched yet
  var queue = [];       // items to say, in order
  var speaking = false; // a line or a pause is under way
  var started = false;  // the host tapped: lines are spoken, not only shown
  var last = null;      // the last line said (for "replay")
  var timer = null;     // the narrator's running timer, from the last answer
  var paused = false;
  var idleSince = null; // when the page last had nothing to say (for ticks)
  var ticking = false;
  var lang = panel.dataset.lang || "en";
  var current = null;   // the line playing now (the volume and mute act on it at once)
  var MAX_CAPTIONS = 40;
  var boxSpeaks = panel.dataset.box === "yes";
  if (boxSpeaks) { startButton.hidden = true; }

  function logOf(list) { return String(list).split(":")[0]; }

  function audioUrl(item) {
    return panel.dataset.audio + encodeURIComponent(game) + "/" + item.i + ".wav";
  }

  function caption(item) {
    if (!item.text) { return; }
    nowSaying.textContent = item.text;
    var li = document.createElement("li");
    li.textContent = item.text;
    li.dataset.i = String(item.i);
    captions.appendChild(li);
    while (captions.children.length > MAX_CAPTIONS) { captions.removeChild(captions.firstChild); }
    captions.scrollTop = captions.scrollHeight;  // the latest line in sight (the page stays put)
  }

  function wait(seconds, then) { setTimeout(then, Math.max(0, seconds) * 1000); }

  function once(then) {
    var done = false;
    return function () { if (!done) { done = true; then(); } };
  }

  function browserSpeech(text, then) {
    // the server cannot speak this language: the browser's voice, if it has one
    if (!("speechSynthesis" in window) || mute.checked) { then(); return; }
    var finish = once(then);
    var utterance = new SpeechSynthesisUtterance(text);
    utterance.lang = lang;
    utterance.volume = Number(volume.value);
    utterance.onend = finish;
    utterance.onerror = finish;
    window.speechSynthesis.speak(utterance);
    // a browser with no voice for the language may never say it has finished
    setTimeout(finish, 2000 + 90 * text.length);
  }

  function say(item, then) {
    var finish = once(then);
    // a stalled download or a lost "ended" must not stop the narrator for good
    var guard = setTimeout(finish, 60000);
    var audio = new Audio(audioUrl(item));
    current = audio;
    audio.addEventListener("loadedmetadata", function () {
      if (!isFinite(audio.duration)) { return; }
      clearTimeout(guard);
      var rate = audio.playbackRate || 1;
      guard = setTimeout(finish, (audio.duration / rate) * 1000 + 3000);
    });
    audio.preload = "auto";
    audio.volume = Number(volume.value);
    audio.muted = mute.checked;
    audio.addEventListener("ended", finish);
    var fallback = once(function () { clearTimeout(guard); browserSpeech(item.text, finish); });
    audio.addEventListener("error", fallback);
    var playing = audio.play();
    if (playing && playing.catch) { playing.catch(fallback); }
  }

  function prefetch() {
    // warm the server's cache for the next lines while this one plays
    queue.slice(0, 2).forEach(function (item) {
      if (item.text && !item.fetched) {
        item.fetched = true;
        fetch(audioUrl(item), {credentials: "same-origin"}).catch(function () {});
      }
    });
  }

  function pump() {
    if (speaking) { return; }
    var item = queue.shift();
    if (!item) {
      idleSince = idleSince || performance.now();
      panel.dataset.idle = "1";
      return;
    }
    idleSince = null;
    panel.dataset.idle = "0";
    speaking = true;
    function after() { speaking = false; pump(); }
    if (item.text) {
      caption(item);
      last = item;
      if (!started) { after(); return; }
      panel.dataset.saying = String(item.i);
      prefetch();
      say(item, function () { wait(item.pause || 0, after); });
    } else {
      // a pause of the narrator's: silence, spoken or not
      wait(started ? item.pause || 0 : 0, after);
    }
  }

  function take(answer) {
    if (answer.game !== game) {
      // a new list: a game was dealt (said from its start), or the page just opened or the
      // table went on to a new game's log (what is in it was heard before, or replayed)
      var dealt = game !== null && logOf(answer.game) === logOf(game);
      game = answer.game;
      queue = [];
      next = 0;
      if (!dealt) {
        // what was said before this page opened is shown, not said again
        answer.items.slice(-5).forEach(function (item) { caption(item); last = item.text ? item : last; });
        answer.items = [];
      }
    }
    answer.items.forEach(function (item) { if (item.i >= next) { queue.push(item); } });
    next = answer.next;
    timer = answer.timer || null;
    paused = Boolean(answer.paused);
    lang = answer.lang || lang;
    panel.dataset.game = game;
    panel.dataset.next = String(next);
    pump();
  }

  function poll() {
    var url = panel.dataset.told + "?since=" + next + (game ? "&game=" + encodeURIComponent(game) : "");
    fetch(url, {credentials: "same-origin"})
      .then(function (answer) { if (!answer.ok) { throw new Error(String(answer.status)); } return answer.json(); })
      .then(take)
      .catch(function () { /* offline for a moment: the next beat asks again */ });
  }

  function tick() {
    // let the narrator's time pass, only once everything told has been said (where a box
    // with a speaker narrates, the box lets the time pass and this page only shows captions)
    if (boxSpeaks || ticking || speaking || queue.length || !timer || paused ||
        idleSince === null) { return; }
    var now = performance.now();
    var seconds = (now - idleSince) / 1000;
    if (seconds < 1) { return; }
    ticking = true;
    idleSince = now;
    fetch(panel.dataset.tick, {method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json"}, body: JSON.stringify({seconds: seconds})})
      .catch(function () {})
      .then(function () { ticking = false; poll(); });
  }

  startButton.addEventListener("click", function () {
    started = true;
    panel.dataset.started = "1";
    startButton.hidden = true;
    controls.hidden = false;
    // unlock sound on this page now, inside the tap (a silent utterance for the fallback)
    if ("speechSynthesis" in window) {
      var hush = new SpeechSynthesisUtterance("");
      hush.volume = 0;
      window.speechSynthesis.speak(hush);
    }
    pump();
  });
  volume.addEventListener("input", function () { if (current) { current.volume = Number(volume.value); } });
  mute.addEventListener("change", function () {
    if (current) { current.muted = mute.checked; }
    if (mute.checked && "speechSynthesis" in window) { window.speechSynthesis.cancel(); }
  });
  captions.closest("details").addEventListener("toggle", function () {
    captions.scrollTop = captions.scrollHeight;
  });
  replayButton.addEventListener("click", function () {
    if (last && !speaking) { speaking = true; say(last, function () { speaking = false; pump(); }); }
  });

  poll();
  setInterval(poll, Number(document.body.dataset.pollMs) || 1500);  // the server's POLL_SECONDS
  setInterval(tick, 500);
})();
