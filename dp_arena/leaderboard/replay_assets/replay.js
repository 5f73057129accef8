"use strict";
(function () {
  var root = document.getElementById("replay");
  var source = document.getElementById("hands");
  if (!root || !source) { return; }
  var hands = JSON.parse(source.textContent || "[]");
  var part = function (role) { return root.querySelector('[data-role="' + role + '"]'); };
  var handIndex = 0, frameIndex = 0;
  var SUITS = {c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660"};

  function cards(text) {
    var box = document.createDocumentFragment();
    for (var i = 0; i + 1 < text.length; i += 2) {
      var card = document.createElement("span");
      var suit = text.charAt(i + 1);
      card.className = "card" + (suit === "d" || suit === "h" ? " red" : "");
      card.textContent = text.charAt(i) + (SUITS[suit] || suit);
      box.appendChild(card);
    }
    return box;
  }

  function option(select, value, label) {
    var item = document.createElement("option");
    item.value = String(value);
    item.textContent = label;
    select.appendChild(item);
  }

  function fill() {
    var list = part("hands"), big = part("big");
    hands.forEach(function (hand, index) { option(list, index, (index + 1) + ". " + hand.title); });
    var order = hands.map(function (hand, index) { return index; });
    order.sort(function (a, b) { return hands[b].pot - hands[a].pot || a - b; });
    option(big, "", "\u2014");
    order.slice(0, 20).forEach(function (index) {
      option(big, index, "pot " + hands[index].pot + ": " + hands[index].title);
    });
  }

  function draw() {
    var hand = hands[handIndex];
    if (!hand) { part("title").textContent = "no hands"; return; }
    var frame = hand.frames[frameIndex];
    part("hands").value = String(handIndex);
    part("title").textContent = hand.title + " \u2014 blinds " + hand.blinds[0] + "/" + hand.blinds[1];
    var board = part("board");
    board.textContent = "";
    board.appendChild(frame.board ? cards(frame.board) : document.createTextNode("(no board yet)"));
    part("pot").textContent = frame.street + " \u00b7 pot " + frame.pot;
    var seats = part("seats");
    seats.textContent = "";
    hand.players.forEach(function (name, seat) {
      var item = document.createElement("li");
      item.className = (frame.seat === seat ? "acting " : "") + (frame.folded[seat] ? "folded" : "");
      var title = document.createElement("div");
      title.className = "name";
      title.textContent = name + (hand.button === seat ? " (button)" : "");
      var held = document.createElement("div");
      held.className = "cards";
      if (hand.hole[seat]) { held.appendChild(cards(hand.hole[seat])); } else { held.textContent = "absent"; }
      var money = document.createElement("div");
      money.textContent = "left " + frame.stacks[seat] + " \u00b7 bet " + frame.bets[seat];
      item.appendChild(title); item.appendChild(held); item.appendChild(money);
      if (frameIndex === hand.frames.length - 1) {
        var net = document.createElement("div");
        net.textContent = "net " + (hand.nets[seat] > 0 ? "+" : "") + hand.nets[seat];
        item.appendChild(net);
      }
      seats.appendChild(item);
    });
    part("step").textContent = "step " + frameIndex + " of " + (hand.frames.length - 1) + ": " + frame.text;
    var log = part("log");
    log.textContent = "";
    hand.frames.slice(1, frameIndex + 1).forEach(function (past, index) {
      var line = document.createElement("li");
      line.textContent = past.street + ": " + past.text;
      if (index + 1 === frameIndex) { line.className = "now"; }
      log.appendChild(line);
    });
  }

  function go(where) {
    var hand = hands[handIndex];
    if (!hand) { return; }
    if (where === "step" && frameIndex < hand.frames.length - 1) { frameIndex += 1; }
    else if (where === "back" && frameIndex > 0) { frameIndex -= 1; }
    else if (where === "next-hand" && handIndex < hands.length - 1) { handIndex += 1; frameIndex = 0; }
    else if (where === "prev-hand" && handIndex > 0) { handIndex -= 1; frameIndex = 0; }
    draw();
  }

  root.addEventListener("click", function (event) {
    var target = event.target.closest("button[data-go]");
    if (target) { go(target.getAttribute("data-go")); }
  });
  part("hands").addEventListener("change", function (event) {
    handIndex = Number(event.target.value); frameIndex = 0; draw();
  });
  part("big").addEventListener("change", function (event) {
    if (event.target.value === "") { return; }
    handIndex = Number(event.target.value);
    frameIndex = hands[handIndex].frames.length - 1;
    draw();
  });
  document.addEventListener("keydown", function (event) {
    var keys = {ArrowRight: "step", ArrowLeft: "back", PageDown: "next-hand", PageUp: "prev-hand"};
    if (keys[event.key] && event.target.tagName !== "SELECT") { event.preventDefault(); go(keys[event.key]); }
  });
  // #hand-N opens the N-th hand, when the page loads and whenever a link changes it.
  function fromHash() {
    var wanted = /^#hand-(\d+)$/.exec(window.location.hash);
    if (!wanted || !hands[Number(wanted[1]) - 1]) { return false; }
    handIndex = Number(wanted[1]) - 1; frameIndex = 0;
    return true;
  }
  window.addEventListener("hashchange", function () {
    if (fromHash()) { draw(); root.scrollIntoView(); }
  });
  fromHash();
  fill();
  draw();
}());
