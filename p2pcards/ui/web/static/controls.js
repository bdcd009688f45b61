// Your hand and your choices. The peer says which cards and which choices act now (the
// referee's own options); the page draws them, keeps which cards you selected, and sends
// your choice back as the full screen's key would be: the peer checks it and says why not.

import {byId, cardImage, h, redraw} from "./render.js";

/** What the page remembers between the peer's updates: the cursor, the selection, the claim. */
export const picked = {cursor: 0, selected: [], rank: null, stake: null, decision: null};

/** Forget the choice being made once the peer no longer asks for one. */
export function follow(table) {
  const key = table.controls ? JSON.stringify(table.controls) : null;
  if (key === picked.decision) return;
  if (!key || !picked.decision) Object.assign(picked, {selected: [], rank: null, stake: null});
  picked.decision = key;
  const held = new Set(table.hand.cards.map((c) => c.slot));
  picked.selected = picked.selected.filter((slot) => held.has(slot));
  picked.cursor = Math.max(0, Math.min(picked.cursor, table.hand.cards.length - 1));
}

/** Send a game key with the cards selected and the claim chosen (a Bluff discard). */
export function sendKey(send, table, key, slots = picked.selected) {
  const discard = table.controls && table.controls.discard;
  const rank = picked.rank || claimedRank(table) || "";
  const stake = discard ? String(stakeOf(discard)) : "";
  send({type: "key", key, slots, rank, stake});
}

function stakeOf(discard) {
  const stake = Number(picked.stake ?? discard.low);
  return Number.isFinite(stake) ? stake : discard.low;
}

/** The rank a lead claims: the one chosen, else the rank of the first card selected. */
function claimedRank(table) {
  const first = table.hand.cards.find((c) => picked.selected.includes(c.slot));
  return first && first.face ? first.face.slice(0, -1) : null;
}

/** Select or unselect a card (Bluff: up to the most a discard takes; Topper: one). */
export function toggle(table, slot) {
  const controls = table.controls;
  if (!controls || !controls.select) return false;
  const at = picked.selected.indexOf(slot);
  if (at >= 0) picked.selected.splice(at, 1);
  else if (controls.select === "one") picked.selected = [slot];
  else if (picked.selected.length < controls.discard.most) picked.selected.push(slot);
  else return false;
  return true;
}

function cardButton(card, index, table, send, rerender) {
  const controls = table.controls;
  const chosen = picked.selected.includes(card.slot);
  const cursor = Boolean(controls) && index === picked.cursor;
  const refused = Boolean(controls && controls.select) && !card.playable;
  const classes = ["card", card.playable ? "can" : "", refused ? "unplayable" : "",
                   chosen ? "selected" : "", cursor ? "cursor" : ""].filter(Boolean).join(" ");
  const mark = {"Big Jack": "★", "Little Jack": "☆", trump: "•"}[card.note] || "";
  const said = [`${card.label}: ${card.name}`, card.note, chosen ? "selected" : "",
                refused ? "not playable now" : ""].filter(Boolean).join(", ");
  const click = () => {
    if (!card.playable) return;
    picked.cursor = index;
    if (controls.select === "one") sendKey(send, table, "enter", [card.slot]);
    else if (toggle(table, card.slot)) rerender();
  };
  return h("button", {class: classes, type: "button", "data-slot": card.slot, "aria-label": said,
                      "aria-pressed": controls && controls.select === "many" ? String(chosen) : null,
                      "aria-disabled": card.playable ? null : "true", onclick: click},
           cardImage(card, {alt: ""}), h("span", {class: "label", "aria-hidden": "true"}, `${card.label}${mark}`));
}

export function renderHand(table, send, rerender) {
  const hand = table.hand;
  const key = [hand, table.controls, picked.selected, picked.cursor];
  byId("hand").classList.toggle("few", hand.cards.length <= 8);
  redraw(byId("hand"), key, () => hand.cards.length
    ? hand.cards.map((card, index) => cardButton(card, index, table, send, rerender))
    : h("p", {class: "empty"}, `(${hand.empty})`));
}

function button(label, key, onclick, extra = {}) {
  const shown = key && label !== key ? h("kbd", {}, key === "enter" ? "Enter" : key) : null;
  return h("button", {type: "button", "data-key": key, "aria-keyshortcuts": key, onclick, ...extra},
           label, shown);
}

function keyLabel(controls, key, fallback) {
  const hint = controls.keys.find((k) => k.key === key);
  return hint ? hint.label : fallback;
}

function bluffControls(table, send, rerender) {
  const controls = table.controls;
  const out = [];
  const discard = controls.discard;
  if (discard) {
    const rank = picked.rank || claimedRank(table);
    if (discard.lead) {
      out.push(h("div", {class: "group", role: "group", "aria-label": "The rank you claim"},
        h("span", {class: "group-label"}, "claim"),
        discard.ranks.map((r) => h("button", {type: "button", "data-rank": r, "aria-pressed": String(r === rank),
                                               onclick: () => { picked.rank = r; rerender(); }}, r))));
    }
    const stake = stakeOf(discard);
    const setStake = (value) => {
      picked.stake = Math.max(discard.low, Math.min(discard.high, value));
      rerender();
    };
    out.push(h("div", {class: "group", role: "group", "aria-label": "Your stake"},
      h("span", {class: "group-label"}, "stake"),
      h("button", {type: "button", "aria-label": "less", onclick: () => setStake(stake - discard.step)}, "−"),
      h("input", {type: "number", id: "stake", min: discard.low, max: discard.high, step: discard.step,
                  value: stake, "aria-label": `stake, ${discard.low} to ${discard.high}`,
                  onchange: (event) => setStake(Number(event.target.value))}),
      h("button", {type: "button", "aria-label": "more", onclick: () => setStake(stake + discard.step)}, "+")));
    const count = picked.selected.length;
    const what = discard.lead ? (rank || "?") : discard.rank;
    out.push(button(count ? `Discard ${count} as ${what}, stake ${stake}` : keyLabel(controls, "d", "discard"),
                    "d", () => sendKey(send, table, "d"), {class: "primary"}));
  }
  for (const [key, style] of [["p", ""], ["b", "danger"]]) {
    const hint = controls.keys.find((k) => k.key === key);
    if (hint) out.push(button(hint.label, key, () => sendKey(send, table, key), {class: style}));
  }
  return out;
}

function topperControls(table, send) {
  const controls = table.controls;
  const out = [];
  if (controls.bidding) {
    if (controls.can_pass) out.push(button("Pass", "p", () => sendKey(send, table, "p")));
    out.push(h("div", {class: "group", role: "group", "aria-label": "Bid tricks"},
      h("span", {class: "group-label"}, "bid"),
      [1, 2, 3, 4, 5, 6].map((n) => button(String(n), String(n), () => sendKey(send, table, String(n)),
        {"data-bid": n, disabled: !controls.bids.includes(n),
         "aria-label": `bid ${n}` + (controls.bids.includes(n) ? "" : ", not possible now")}))));
  }
  if (controls.suits.length) {
    out.push(h("div", {class: "group", role: "group", "aria-label": "Name trump"},
      h("span", {class: "group-label"}, "trump"),
      controls.suits.map((s) => button(h("span", {class: s.red ? "suit-red" : ""}, `${s.symbol} ${s.name}`),
                                       s.key, () => sendKey(send, table, s.key)))));
  }
  if (controls.playable) {
    out.push(h("span", {class: "idle"}, "Click a card you may play (or ← → and Enter)."));
  }
  return out;
}

/** The buttons of what you may do now (nothing but a line when it is not your turn). */
export function renderControls(table, send, rerender) {
  const controls = table.controls;
  const key = [controls, table.away, table.coach, picked, table.observer, table.ending !== null, table.hand];
  redraw(byId("controls"), key, () => {
    if (table.replay) return [];
    if (!controls) {
      if (table.ending) return [];
      return h("span", {class: "idle"}, table.observer
        ? "Watching: every move checked, no hand shown." : "Not your turn.");
    }
    const out = controls.game === "bluff" ? bluffControls(table, send, rerender) : topperControls(table, send);
    if (table.away) out.push(button(`Away (${table.away} left)`, "a", () => send({type: "away"})));
    if (table.coach) out.push(button("Coach", "w", () => send({type: "coach"})));
    return out;
  });
}
