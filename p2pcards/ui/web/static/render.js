// Drawing the table from what the seat's own peer sends: the title, the seats, the hand,
// the status line and the log. Every text from the peer (names, chat lines) goes in as
// text, never as markup.

/** An element: h("div", {class: "x", onclick: f}, child, "text", ...). */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const byId = (id) => document.getElementById(id);

/** A card image: a face the project draws, or its back. */
export function cardImage(card, extra = {}) {
  const face = card && card.face;
  return h("img", {src: `/cards/${face || "back"}.svg`, alt: face ? card.name : "a card face down",
                   draggable: "false", ...extra});
}

/** The attributes that name a control across redraws (a card, a key, a bid, a rank, a step). */
const NAMING = ["data-slot", "data-key", "data-bid", "data-rank", "data-step", "id"];

/** Put `nodes` in `parent`, unless what they are drawn from has not changed. Keyboard focus
 *  stays on the same control (a card, a button) when it is drawn again. */
export function redraw(parent, key, draw) {
  const text = JSON.stringify(key);
  if (parent.dataset.drawn === text) return;
  parent.dataset.drawn = text;
  const focused = parent.contains(document.activeElement) ? document.activeElement : null;
  const name = focused && NAMING.find((attr) => focused.hasAttribute(attr));
  parent.replaceChildren(...[draw()].flat().filter(Boolean));
  if (name) {
    const again = parent.querySelector(`[${name}="${CSS.escape(focused.getAttribute(name))}"]`);
    if (again) again.focus({preventScroll: true});
  }
}

export function renderTitle(table) {
  const title = table.title;
  byId("title-game").textContent = title.game ? `· ${title.game}` : "";
  const parts = [...(title.no_clock ? ["no clock"] : []), ...(title.hints ? ["hints on"] : []),
                 ...title.parts, ...(title.table ? [title.table] : [])];
  byId("title-parts").textContent = parts.length ? `· ${parts.join(" · ")}` : "";
  const link = byId("title-link");
  link.textContent = `● ${title.link}`;
  link.className = `link ${["connected", "over", "replay"].includes(title.link) ? "ok" : "bad"}`;
  document.title = `p2pcards${title.game ? " · " + title.game : ""}` +
                   (table.seats && table.seats.some((s) => s.you && s.acting) ? " · your turn" : "");
}

function seatPanel(seat) {
  const tags = [seat.bot ? "bot" : "", seat.coached ? `coached ${seat.coached}` : ""].filter(Boolean);
  const turn = seat.turn ? h("span", {class: "turn"}, `▶ ${seat.turn}`) : null;
  const working = seat.working ? h("span", {class: "working"}, "… working") : null;
  const clock = seat.clock ? h("span", {class: `clock${seat.low ? " low" : ""}`}, seat.clock) : null;
  const presence = seat.presence
    ? h("span", {class: `presence ${seat.presence.ok ? "ok" : "bad"}`}, seat.presence.text) : null;
  const backs = seat.cards && !seat.you
    ? h("div", {class: "backs", "aria-hidden": "true"},
        Array.from({length: Math.min(seat.cards, 13)}, () => cardImage(null, {alt: ""})))
    : null;
  const initial = (seat.name.replace(/^You \(/, "")[0] || "?").toUpperCase();
  const said = [`Seat ${seat.seat}`, seat.name, ...tags, ...seat.facts, seat.turn || "",
                seat.working ? "working" : "", seat.clock ? `${seat.clock} left` : "",
                seat.presence ? seat.presence.text.replace("●", "") : ""].filter(Boolean).join(", ");
  return [
    h("div", {class: `avatar s${seat.seat}`, "aria-hidden": "true"}, initial),
    h("div", {class: "who", "aria-hidden": "true"},
      h("div", {class: "name"}, seat.name, tags.length ? h("span", {class: "tag"}, ` (${tags.join(", ")})`) : null),
      h("div", {class: "facts"}, seat.facts.join(" · ")),
      turn || working || clock || presence ? h("div", {class: "state"}, turn, working, clock, presence) : null,
      h("div", {class: "fp", title: "seat number and key fingerprint"}, `seat ${seat.seat} · ${seat.fp}`)),
    backs,
    h("span", {class: "sr-only"}, said),
  ];
}

/** This player's own seat: one line above the hand, as the full screen draws it. */
function minePanel(seat) {
  const parts = [seat.name, ...seat.facts];
  return [
    h("span", {class: `avatar small s${seat.seat}`, "aria-hidden": "true"},
      (seat.name.replace(/^You \(/, "")[0] || "?").toUpperCase()),
    h("span", {class: "name"}, parts.join(" · ")),
    seat.turn ? h("span", {class: "turn"}, `▶ ${seat.turn}`) : null,
    seat.working ? h("span", {class: "working"}, "… working") : null,
    seat.clock ? h("span", {class: `clock${seat.low ? " low" : ""}`}, seat.clock) : null,
    seat.presence ? h("span", {class: `presence ${seat.presence.ok ? "ok" : "bad"}`}, seat.presence.text) : null,
    h("span", {class: "fp", title: "your key fingerprint"}, seat.fp),
  ];
}

export function renderSeats(table) {
  for (const place of ["top", "left", "right", "bottom"]) {
    const node = byId(`seat-${place}`);
    const seat = table.seats ? table.seats.find((s) => s.place === place) : null;
    if (!seat) {
      node.className = `seat place-${place} empty`;
      node.removeAttribute("aria-label");
      redraw(node, null, () => []);
      continue;
    }
    node.className = `seat place-${place}` + (seat.acting ? " acting" : "") +
                     (seat.last ? " last" : "") + (seat.out ? " out" : "");
    node.setAttribute("role", "group");
    node.setAttribute("aria-label", `Seat ${seat.seat}, ${seat.name}`);
    redraw(node, seat, () => (place === "bottom" ? minePanel(seat) : seatPanel(seat)));
  }
}

export function renderStatus(table) {
  const status = byId("status");
  status.textContent = table.status.text;
  status.className = `status is-${table.status.kind}`;
}

export function renderLog(log) {
  const list = byId("log");
  byId("details").checked = log.details;
  const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 30;
  redraw(list, log.lines, () => log.lines.map(([kind, text]) => h("li", {class: kind}, text)));
  if (atEnd) list.scrollTop = list.scrollHeight;
}

export function renderReactions(words, send) {
  redraw(byId("reactions"), words, () => words.map((word, index) =>
    h("button", {type: "button", onclick: () => send({type: "say", text: String(index + 1)})}, word)));
}
