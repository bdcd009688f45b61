// The boxes over the table: a deal's summary, the end box (results, the evening so far,
// again or leave), the help, the history, and "leave the table?".

import {byId, h, redraw} from "./render.js";

const open = (box) => { if (!box.open) box.showModal(); };
const shut = (box) => { if (box.open) box.close(); };

let summaryShown = null;

export function renderSummary(table, send) {
  const box = byId("summary-box");
  const summary = table.summary;
  if (!summary || table.ending) {
    summaryShown = null;
    shut(box);
    return;
  }
  byId("summary-title").textContent = summary.title;
  redraw(byId("summary-body"), summary.lines, () => summary.lines.map((line) => h("p", {}, line)));
  byId("summary-count").textContent = summary.seconds === null
    ? "any key: back to the table" : `the table goes on in ${summary.seconds} s`;
  const key = JSON.stringify([summary.title, summary.lines]);
  if (summaryShown !== key) {
    summaryShown = key;
    open(box);
  }
}

export function closeSummary(send) {
  const box = byId("summary-box");
  if (!box.open) return false;
  shut(box);
  send({type: "summary_read"});
  return true;
}

function endKeys(table, send) {
  const ending = table.ending;
  if (!ending.ready) return [h("span", {}, "Closing the table…")];
  const keys = [];
  if (ending.fill) {
    keys.push(h("button", {type: "button", "data-key": "b", onclick: () => send({type: "fill"})},
                "A bot takes the free seat", h("kbd", {}, "b")));
  }
  if (ending.again) {
    keys.push(h("button", {type: "button", "data-key": "n", class: "primary",
                           onclick: () => send({type: "end", choice: "again"})},
                ending.again[0].toUpperCase() + ending.again.slice(1), h("kbd", {}, "n")));
  }
  if (table.replay) {
    keys.push(h("button", {type: "button", "data-step": "previous",
                           onclick: () => send({type: "replay", do: "previous"})}, "◀ back a move", h("kbd", {}, "←")));
  }
  const quit = table.replay ? {type: "replay", do: "quit"} : {type: "end", choice: "quit"};
  keys.push(h("button", {type: "button", "data-key": "q", onclick: () => send(quit)},
              ending.leave[0].toUpperCase() + ending.leave.slice(1), h("kbd", {}, "q")));
  return keys;
}

export function renderEnding(table, send) {
  const box = byId("end-box");
  const ending = table.ending;
  if (!ending || table.summary) {
    shut(box);
    return;
  }
  box.className = `box end ${ending.kind}`;
  byId("end-title").textContent = ending.title;
  const waiting = table.status.kind !== "turn" ? table.status.text : null;
  redraw(byId("end-body"), [ending, waiting], () => [
    h("p", {}, ending.text),
    ending.results.length ? h("table", {class: "results"}, h("tbody", {}, ending.results.map((row) =>
      h("tr", {class: row.winner ? "winner" : ""}, h("td", {}, `Seat ${row.seat}`), h("td", {}, row.name),
        h("td", {}, row.value), h("td", {}, row.winner ? "★ winner" : ""))))) : null,
    ...ending.evening.map((line) => h("p", {}, line)),
    waiting ? h("p", {class: "status is-info", role: "status"}, waiting) : null,
  ]);
  redraw(byId("end-keys"), [ending.ready, ending.again, ending.fill, ending.leave], () => endKeys(table, send));
  open(box);
}

export function renderHelp(help) {
  redraw(byId("help-body"), help, () => [
    h("dl", {}, help.keys.map(([key, what]) => [h("dt", {}, key), h("dd", {}, what)])),
    ...help.rules.map((text) => h("p", {}, text)),
  ]);
}

export function renderHistory(history) {
  byId("history-body").textContent = history.lines.join("\n");
}

export function showBox(id) { open(byId(id)); }

/** Wire the boxes' own buttons once. */
export function wireBoxes(send) {
  for (const box of document.querySelectorAll("dialog")) {
    for (const close of box.querySelectorAll("button.close")) close.addEventListener("click", () => shut(box));
  }
  byId("summary-close").addEventListener("click", () => closeSummary(send));
  byId("summary-box").addEventListener("cancel", (event) => { event.preventDefault(); closeSummary(send); });
  byId("end-box").addEventListener("cancel", (event) => event.preventDefault());
  byId("leave-yes").addEventListener("click", () => { shut(byId("leave-box")); send({type: "leave"}); });
  byId("open-help").addEventListener("click", () => showBox("help-box"));
  byId("open-history").addEventListener("click", () => showBox("history-box"));
  byId("open-leave").addEventListener("click", () => showBox("leave-box"));
}

export const anyBoxOpen = () => [...document.querySelectorAll("dialog")].some((box) => box.open);
export const boxOpen = (id) => byId(id).open;
export const closeBox = (id) => shut(byId(id));
