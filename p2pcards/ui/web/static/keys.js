// The keyboard: the full screen's keys, sent to the peer as the full screen sends them.

import {picked, sendKey, toggle} from "./controls.js";
import {anyBoxOpen, boxOpen, closeBox, closeSummary, showBox} from "./dialogs.js";
import {byId} from "./render.js";

const REPLAY_KEYS = {
  ArrowRight: "next", n: "next", ArrowLeft: "previous", p: "previous", "]": "next_deal",
  "[": "previous_deal", Home: "start", End: "end", " ": "play", "+": "faster", "=": "faster",
  "-": "slower", q: "quit",
};

function typing(event) {
  const target = event.target;
  return target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement;
}

/** Enter or Space on a focused button (Pass, a bid, a reaction) is that button's own: the
 *  browser's activation, as a screen reader's user expects. On a card of the hand they are
 *  the table's keys, for that card (Space selects it; Enter discards, or plays it). */
function activating(event, key) {
  if (key !== "Enter" && key !== " " || !(event.target instanceof Element)) return false;
  const button = event.target.closest("button");
  return button !== null && !button.classList.contains("card");
}

function handCards() {
  return [...byId("hand").querySelectorAll(".card")];
}

/** The cursor moves in the hand, and the keyboard's focus with it. */
function moveCursor(table, delta, rerender) {
  const count = table.hand.cards.length;
  if (!count) return;
  picked.cursor = Math.max(0, Math.min(count - 1, picked.cursor + delta));
  rerender();
  handCards()[picked.cursor]?.focus({preventScroll: true});
}

function tableKey(key, table, send, rerender) {
  const cards = table.hand.cards;
  const atCursor = cards[picked.cursor];
  if (table.ending) {
    if (key === "n" && table.ending.again) send({type: "end", choice: "again"});
    else if (key === "b" && table.ending.fill) send({type: "fill"});
    else if (key === "q") send({type: "end", choice: "quit"});
    return true;
  }
  switch (key) {
    case "ArrowLeft": moveCursor(table, -1, rerender); return true;
    case "ArrowRight": moveCursor(table, 1, rerender); return true;
    case "Home": moveCursor(table, -99, rerender); return true;
    case "End": moveCursor(table, 99, rerender); return true;
    case " ":
      if (atCursor && atCursor.playable && toggle(table, atCursor.slot)) rerender();
      return true;
    case "Escape": picked.selected = []; rerender(); return true;
    case "Enter":
      if (table.controls && table.controls.select === "one") {
        const chosen = picked.selected.length ? picked.selected : (atCursor ? [atCursor.slot] : []);
        sendKey(send, table, "enter", chosen);
      } else sendKey(send, table, "enter");
      return true;
    case "a": send({type: "away"}); return true;
    case "w": send({type: "coach"}); return true;
    case "q": showBox("leave-box"); return true;
    case "t": byId("talk-text").focus(); return true;
    default:
      if (/^[a-z0-9]$/.test(key)) { sendKey(send, table, key); return true; }
      return false;
  }
}

/** Listen to the keyboard for the table (or a replay). */
export function bindKeys(state, send, rerender) {
  document.addEventListener("keydown", (event) => {
    const table = state.table;
    if (!table || event.ctrlKey || event.altKey || event.metaKey || typing(event)) return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (boxOpen("summary-box")) {
      closeSummary(send);
      event.preventDefault();
      return;
    }
    if (boxOpen("leave-box")) {
      if (key === "y") { closeBox("leave-box"); send({type: "leave"}); event.preventDefault(); }
      return;
    }
    if (key === "?" || key === "F1") { showBox("help-box"); event.preventDefault(); return; }
    if (key === "r" && !table.replay) { showBox("history-box"); event.preventDefault(); return; }
    if (key === "v") { send({type: "details"}); event.preventDefault(); return; }
    if (anyBoxOpen() && !boxOpen("end-box")) return;
    if (activating(event, key)) return;
    const onCard = handCards().indexOf(event.target);
    if (onCard >= 0) picked.cursor = onCard;  // the focused card is the cursor's
    if (key === "PageUp" || key === "PageDown") {
      byId("log").scrollBy(0, (key === "PageUp" ? -1 : 1) * 200);
      event.preventDefault();
      return;
    }
    const handled = table.replay ? replayKey(key, send) : tableKey(key, table, send, rerender);
    if (handled) event.preventDefault();
  });
}

function replayKey(key, send) {
  if (key === "r") { showBox("history-box"); return true; }
  if (key === "g") { byId("goto-deal").focus(); return true; }
  const step = REPLAY_KEYS[key];
  if (!step) return false;
  send({type: "replay", do: step});
  return true;
}
