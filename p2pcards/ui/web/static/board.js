// The middle of the table: the lobby while seats fill, then the game's public facts —
// Bluff's safe box, stake, named rank, face-down pile, last claim and last call; Topper's
// trump, bids, the trick in play and the last trick. Only what every seat may know.

import {byId, cardImage, h, redraw} from "./render.js";

const PLACE_OF = (table, seat) => {
  const found = table.seats && table.seats.find((s) => s.seat === seat);
  return found ? found.place : "bottom";
};

function lobby(table) {
  const players = table.lobby.players;
  return h("div", {class: "lobby"},
    h("h2", {}, `${table.game ? table.game.toUpperCase() + " · " : ""}${table.title.table || "the table"}`),
    h("p", {}, table.lobby.text),
    h("ol", {}, Array.from({length: table.lobby.seats}, (_, i) => {
      const p = players[i];
      return p ? h("li", {}, p.name, p.role ? ` (${p.role})` : "", h("span", {class: "fp"}, p.fp))
               : h("li", {class: "empty"}, "waiting for a player…");
    })));
}

/** A stack of chips, taller for more (one chip for a little, eight at most). */
function chips(amount, blue) {
  const count = amount ? Math.max(1, Math.min(8, Math.ceil(Math.log2(amount / 5 + 1)))) : 0;
  const stack = h("div", {class: "stack", "aria-hidden": "true"});
  for (let i = 0; i < count; i++) {
    const chip = h("span", {class: `chip${blue ? " blue" : ""}`});
    chip.style.bottom = `${i * 3}px`;
    stack.append(chip);
  }
  return stack;
}

function bluffBoard(board) {
  const pile = h("div", {class: `pile${board.pile ? "" : " none"}`, role: "img",
                        "aria-label": `the pile: ${board.pile} cards face down`},
    Array.from({length: Math.min(board.pile, 10)}, (_, i) => {
      const img = cardImage(null, {alt: ""});
      img.style.left = `${6 + (i % 5) * 5}px`;
      img.style.top = `${i * 1.5}px`;
      img.style.transform = `rotate(${((i * 37) % 17) - 8}deg)`;
      return img;
    }),
    h("span", {class: "count"}, board.pile ? `${board.pile} face down` : "no pile"));
  const tableau = h("div", {class: "tableau"},
    h("div", {class: "pot"}, chips(board.safe_box, false), h("b", {}, board.safe_box), "safe box"),
    pile,
    h("div", {class: "named"}, h("b", {}, board.named || "—"), "named rank"),
    h("div", {class: "pot"}, chips(board.on_table, true), h("b", {}, board.on_table),
      board.round_stake ? `on the table (round ${board.round_stake})` : "on the table"));
  const claim = board.claim ? h("div", {class: "claim"}, `Last claim — ${board.claim.text}`) : null;
  const call = board.call ? h("div", {class: "call"}, h("span", {}, board.call.text.replace(/: .*$/, ":")),
    board.call.cards.map((c) => cardImage(c)),
    h("span", {class: `verdict ${board.call.honest ? "honest" : "bluff"}`},
      board.call.honest ? "honest" : "BLUFF!")) : null;
  return [tableau, claim || call ? h("div", {class: "board-notes"}, claim, call) : null];
}

function topperBoard(table, board) {
  const trump = board.trump
    ? h("div", {class: "trump"}, h("span", {class: `suit${board.trump.red ? " red" : ""}`,
                                            "aria-label": `trump ${board.trump.name}`}, board.trump.symbol),
        `trump ${board.trump.name}`,
        h("span", {}, board.trump.jacks))
    : h("div", {class: "trump"}, h("span", {class: "suit", "aria-hidden": "true"}, "?"), "no trump yet");
  const trick = h("div", {class: "trick", role: "group", "aria-label": `Trick ${board.trick_number}`},
    board.trick.map((play) => h("div", {class: `played p-${PLACE_OF(table, play.seat)}`},
      cardImage(play, {alt: `${play.who}: ${play.name}`}))));
  const facts = h("div", {class: "facts-line"}, "Hand ", h("b", {}, board.hand), " · dealer ",
                  h("b", {}, board.dealer), " · first to ", h("b", {}, board.target), " · ", board.bidding);
  const last = board.last_trick ? h("div", {class: "last-trick"},
    h("span", {}, `Trick ${board.last_trick.number} won by ${board.last_trick.who}`),
    h("div", {}, board.last_trick.cards.map((c) => cardImage(c)))) : null;
  return [facts, h("div", {class: "tableau topper"}, trick, h("div", {class: "aside"}, trump, last))];
}

export function renderBoard(table) {
  const board = table.board;
  const key = [board, table.lobby, table.progress, table.result, table.last_move, table.seats && table.seats.map((s) => s.place + s.seat)];
  redraw(byId("board"), key, () => {
    const notes = [
      table.last_move ? h("div", {class: "banner move"}, `◆ ${table.last_move.text}`) : null,
      table.result ? h("div", {class: "banner result"}, table.result) : null,
      table.progress ? h("div", {class: "banner progress"}, table.progress) : null,
    ];
    if (!board) return [...notes, table.lobby ? lobby(table) : null];
    return [...notes, ...(board.game === "bluff" ? bluffBoard(board) : topperBoard(table, board))];
  });
}
