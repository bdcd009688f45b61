// A saved table stepped through: where the replay is, and its moves as buttons.

import {byId, h, redraw} from "./render.js";

function step(send, what, label, key, extra = {}) {
  return h("button", {type: "button", "data-step": what, "aria-keyshortcuts": key,
                      onclick: () => send({type: "replay", do: what}), ...extra},
           label, h("kbd", {}, key));
}

export function renderReplay(table, send) {
  const replay = table.replay;
  redraw(byId("controls"), replay, () => [
    h("span", {class: "idle", role: "status"}, replay.position),
    h("div", {class: "group", role: "group", "aria-label": "Move through the table"},
      step(send, "start", "⏮ start", "Home"),
      step(send, "previous_deal", "◀◀ deal", "["),
      step(send, "previous", "◀ move", "←"),
      step(send, "play", replay.playing ? "⏸ pause" : "▶ play", "Space", {class: "primary"}),
      step(send, "next", "move ▶", "→"),
      step(send, "next_deal", "deal ▶▶", "]"),
      step(send, "end", "end ⏭", "End")),
    h("div", {class: "group", role: "group", "aria-label": "Speed"},
      step(send, "slower", "−", "-", {"aria-label": "slower"}),
      h("span", {class: "group-label"}, `${replay.speed}/s`),
      step(send, "faster", "+", "+", {"aria-label": "faster"})),
    h("form", {class: "group", onsubmit: (event) => {
      event.preventDefault();
      send({type: "replay", do: "deal", deal: byId("goto-deal").value});
      byId("goto-deal").blur();  // the keys move through the table again
    }},
      h("label", {for: "goto-deal", class: "group-label"}, `go to deal (1-${replay.deals})`),
      h("input", {id: "goto-deal", type: "number", min: 1, max: Math.max(1, replay.deals)}),
      h("button", {type: "submit"}, "go", h("kbd", {}, "g"))),
  ]);
}
