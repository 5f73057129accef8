"use strict";
// The duplicate hand viewer: each deal at all its mirrored tables side by side, stepping
// together. A deal opens at its end (every table's board, action log and result in view);
// "start" goes back to the blinds. Names are put in with textContent, never as markup.
(function () {
  var root = document.getElementById("replay");
  var source = document.getElementById("hands");
  if (!root || !source) { return; }
  // A deal is {title, tables: [hand...], result?}; a lone hand is a deal of one table.
  var deals = JSON.parse(source.textContent || "[]").map(function (item) {
    return item.tables ? item : {title: item.title, tables: [item]};
  });
  var part = function (role) { return root.querySelector('[data-role="' + role + '"]'); };
  var dealIndex = 0, step = 0;
  var SUITS = {c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660"};

  function element(tag, className, text) {
    var made = document.createElement(tag);
    if (className) { made.className = className; }
    if (text !== undefined) { made.textContent = text; }
    return made;
  }

  function cards(text) {
    var box = document.createDocumentFragment();
    for (var i = 0; i + 1 < text.length; i += 2) {
      var suit = text.charAt(i + 1);
      box.appendChild(element("span", "card" + (suit === "d" || suit === "h" ? " red" : ""),
        text.charAt(i) + (SUITS[suit] || suit)));
    }
    return box;
  }

  function signed(value) { return (value > 0 ? "+" : value < 0 ? "\u2212" : "") + Math.abs(value); }

  function steps(deal) {
    return Math.max.apply(null, deal.tables.map(function (hand) { return hand.frames.length; })) - 1;
  }

  function potOf(deal) {
    return Math.max.apply(null, deal.tables.map(function (hand) { return hand.pot; }));
  }

  function option(select, value, label) {
    var item = element("option", "", label);
    item.value = String(value);
    select.appendChild(item);
  }

  function fill() {
    var list = part("hands"), big = part("big");
    deals.forEach(function (deal, index) { option(list, index, deal.title); });
    var order = deals.map(function (deal, index) { return index; });
    order.sort(function (a, b) { return potOf(deals[b]) - potOf(deals[a]) || a - b; });
    option(big, "", "\u2014");
    order.slice(0, 20).forEach(function (index) {
      option(big, index, "pot " + potOf(deals[index]) + ": " + deals[index].title);
    });
  }

  function tablePanel(hand) {
    var index = Math.min(step, hand.frames.length - 1);
    var frame = hand.frames[index];
    var done = index === hand.frames.length - 1;
    var panel = element("section", "replay-table" + (done ? " done" : ""));
    panel.appendChild(element("h3", "replay-table-title", hand.title));
    var board = element("div", "replay-board");
    board.appendChild(frame.board ? cards(frame.board) : document.createTextNode("(no board yet)"));
    board.appendChild(element("span", "replay-pot", frame.street + " \u00b7 pot " + frame.pot));
    panel.appendChild(board);
    var seats = element("ol", "replay-seats");
    hand.players.forEach(function (name, seat) {
      var item = element("li", (frame.seat === seat ? "acting " : "") + (frame.folded[seat] ? "folded" : ""));
      item.appendChild(element("span", "name", name + (hand.button === seat ? " (button)" : "")));
      var held = element("span", "cards");
      if (hand.hole[seat]) { held.appendChild(cards(hand.hole[seat])); } else { held.textContent = "absent"; }
      item.appendChild(held);
      item.appendChild(element("span", "money", "left " + frame.stacks[seat] + " \u00b7 bet " + frame.bets[seat]));
      if (done) { item.appendChild(element("span", "net", "net " + signed(hand.nets[seat]))); }
      seats.appendChild(item);
    });
    panel.appendChild(seats);
    var log = element("ol", "replay-log");
    hand.frames.slice(1).forEach(function (past, position) {
      var shown = position + 1;
      var line = element("li", shown === index ? "now" : shown > index ? "later" : "", past.street + ": " + past.text);
      log.appendChild(line);
    });
    panel.appendChild(log);
    panel.log = log;
    var result = hand.players.map(function (name, seat) { return name + " " + signed(hand.nets[seat]); });
    panel.appendChild(element("p", "replay-result" + (done ? "" : " later"), "result: " + result.join(", ")));
    return panel;
  }

  function draw() {
    var deal = deals[dealIndex];
    if (!deal) { part("title").textContent = "no hands"; return; }
    var last = steps(deal);
    step = Math.max(0, Math.min(step, last));
    part("hands").value = String(dealIndex);
    var first = deal.tables[0];
    part("title").textContent = deal.title + " \u2014 " + deal.tables.length + " table" +
      (deal.tables.length === 1 ? "" : "s") + ", blinds " + first.blinds[0] + "/" + first.blinds[1];
    var summary = part("summary");
    summary.textContent = "";
    if (deal.result && deal.result.length) {
      summary.textContent = "Duplicate result of the deal (each player's net over its seats at every table): " +
        deal.result.map(function (entry) { return entry.player + " " + signed(entry.chips); }).join(", ");
    }
    var tables = part("tables");
    tables.textContent = "";
    tables.className = "replay-tables" + (deal.tables.length === 1 ? " single" : "");
    deal.tables.forEach(function (hand) {
      var panel = tablePanel(hand);
      tables.appendChild(panel);
      // The step shown is in view in each table's log.
      var now = panel.log.querySelector("li.now") || panel.log.lastElementChild;
      if (now && step > 0) { panel.log.scrollTop = Math.max(0, now.offsetTop - panel.log.clientHeight / 2); }
    });
    var text = step === 0 ? "blinds posted" : step === last ? "the end: every table's result" : "";
    if (!text) {
      text = deal.tables.map(function (hand) {
        var frame = hand.frames[Math.min(step, hand.frames.length - 1)];
        return step < hand.frames.length ? frame.text : "(over)";
      }).join(" | ");
    }
    part("step").textContent = "step " + step + " of " + last + ": " + text;
  }

  function go(where) {
    var deal = deals[dealIndex];
    if (!deal) { return; }
    var last = steps(deal);
    if (where === "step" && step < last) { step += 1; }
    else if (where === "back" && step > 0) { step -= 1; }
    else if (where === "start") { step = 0; }
    else if (where === "end") { step = last; }
    else if (where === "next-hand" && dealIndex < deals.length - 1) { dealIndex += 1; step = Infinity; }
    else if (where === "prev-hand" && dealIndex > 0) { dealIndex -= 1; step = Infinity; }
    draw();
  }

  root.addEventListener("click", function (event) {
    var target = event.target.closest("button[data-go]");
    if (target) { go(target.getAttribute("data-go")); }
  });
  part("hands").addEventListener("change", function (event) {
    dealIndex = Number(event.target.value); step = Infinity; draw();
  });
  part("big").addEventListener("change", function (event) {
    if (event.target.value === "") { return; }
    dealIndex = Number(event.target.value); step = Infinity; draw();
  });
  document.addEventListener("keydown", function (event) {
    var keys = {ArrowRight: "step", ArrowLeft: "back", Home: "start", End: "end",
      PageDown: "next-hand", PageUp: "prev-hand"};
    if (keys[event.key] && event.target.tagName !== "SELECT") { event.preventDefault(); go(keys[event.key]); }
  });
  // #hand-N opens the N-th deal, when the page loads and whenever a link changes it.
  function fromHash() {
    var wanted = /^#hand-(\d+)$/.exec(window.location.hash);
    if (!wanted || !deals[Number(wanted[1]) - 1]) { return false; }
    dealIndex = Number(wanted[1]) - 1; step = Infinity;
    return true;
  }
  window.addEventListener("hashchange", function () {
    if (fromHash()) { draw(); root.scrollIntoView(); }
  });
  step = Infinity;
  fromHash();
  fill();
  draw();
}());
