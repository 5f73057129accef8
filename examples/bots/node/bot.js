#!/usr/bin/env node
// An external dp-arena bot in JavaScript (Node.js, no packages), speaking the pipe
// protocol of docs/protocol.md: `dp-arena match "node examples/bots/node/bot.js" random`.
//
// How it plays: a pot-odds calling station with a preflop raise: it raises the minimum
// with a pair or an ace, calls when the call costs at most a third of the pot after
// calling, and otherwise checks or folds. Logs go to stderr, never stdout.
"use strict";

const readline = require("readline");

const PROTOCOL_VERSION = 1;

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function decide(observation) {
  const hole = observation.hole_cards;
  const legal = observation.legal_actions;
  const pair = hole[0] === hole[2];
  const ace = hole[0] === "A" || hole[2] === "A";
  if (observation.street === "preflop" && (pair || ace) && legal.includes("raise")) {
    return { action: "raise", amount: observation.min_raise_to };
  }
  if (legal.includes("check")) {
    return { action: "check" };
  }
  const toCall = observation.to_call;
  if (legal.includes("call") && toCall * 3 <= observation.pot + toCall) {
    return { action: "call" };
  }
  return { action: "fold" };
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      send({ type: "hello", protocol: PROTOCOL_VERSION, name: "NodePotOddsBot" });
      break;
    case "act":
      send({ type: "action", id: message.id, ...decide(message.observation) });
      break;
    case "deal_end":
      process.stderr.write(`deal ${message.result.context.deal_number}: net ${message.result.net}\n`);
      break;
    case "goodbye":
      input.close();
      process.exit(0);
      break;
    default:
      break; // session_start, deal_start: nothing to do
  }
});
