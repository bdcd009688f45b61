// The browser table: one WebSocket to this seat's own peer, which sends what the seat may
// see and takes back what the person chooses. The page decides nothing: every choice is
// checked by the peer, as a key press on the terminal's table is.

import {renderBoard} from "./board.js";
import {follow, renderControls, renderHand} from "./controls.js";
import {renderEnding, renderHelp, renderHistory, renderSummary, showBox, wireBoxes} from "./dialogs.js";
import {bindKeys} from "./keys.js";
import {byId, renderLog, renderReactions, renderSeats, renderStatus, renderTitle} from "./render.js";
import {renderReplay} from "./replay.js";

const state = {table: null, log: null, help: null, history: null};
let socket = null;
let bells = 0;
let audio = null;

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function beep() {
  try {
    audio = audio || new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.4);
  } catch (error) {
    // No sound here: the warning is on the status line all the same.
  }
}

function render() {
  const table = state.table;
  if (table) {
    follow(table);
    renderTitle(table);
    renderSeats(table);
    renderBoard(table);
    renderHand(table, send, render);
    if (table.replay) renderReplay(table, send);
    else renderControls(table, send, render);
    renderStatus(table);
    renderSummary(table, send);
    renderEnding(table, send);
    document.body.classList.toggle("spectating", Boolean(table.observer));
    byId("leave-title").textContent = table.observer ? "Stop watching?" : "Leave the table?";
    byId("leave-text").textContent = table.observer
      ? "You stop watching; the players go on undisturbed."
      : "The other players are told, and the table ends.";
    byId("talk").hidden = !table.talk;
    byId("reactions").hidden = !table.talk;
    if (table.bells > bells) beep();
    bells = table.bells || 0;
    document.body.dataset.phase = table.phase;
    document.body.dataset.decision = table.decision ?? "";
  }
  if (state.log) renderLog(state.log);
  if (state.help) {
    renderHelp(state.help);
    renderReactions(state.help.reactions || [], send);
  }
  if (state.history) renderHistory(state.history);
}

function connect() {
  socket = new WebSocket(`ws://${location.host}/ws`);
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    state[message.type] = message.data;
    render();
  });
  socket.addEventListener("open", () => { document.body.dataset.connected = "yes"; });
  socket.addEventListener("close", () => {
    document.body.dataset.connected = "no";
    byId("closed").hidden = false;
  });
}

function wirePage() {
  wireBoxes(send);
  byId("talk").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = byId("talk-text");
    if (input.value.trim()) send({type: "say", text: input.value});
    input.value = "";
    input.blur();
  });
  byId("talk-text").addEventListener("keydown", (event) => {
    if (event.key === "Escape") event.target.blur();
  });
  byId("details").addEventListener("change", () => send({type: "details"}));
  byId("open-leave").addEventListener("click", (event) => {
    if (state.table && state.table.replay) {
      event.stopImmediatePropagation();
      send({type: "replay", do: "quit"});
    }
  }, {capture: true});
  bindKeys(state, send, render);
}

wirePage();
connect();
export {showBox};
