#!/usr/bin/env python3
"""Write protocol/schemas.json and the seeded table transcripts in protocol/vectors/.

    python scripts/gen_protocol.py           # write the files
    python scripts/gen_protocol.py --check   # exit 1 if they differ from the code

The table vectors are whole short matches played by seeded players and bots
(insecure seeds, for interoperability only): another implementation must
accept every message, reach the same session id, seats, hands (from each
player's key share) and outcome, and produce the same bytes from the same
seeds if it follows CRYPTO.md's randomness order.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from p2pcards._direct import direct_table  # noqa: E402
from p2pcards.protocol.catalogue import catalogue  # noqa: E402
from p2pcards.rules.bluff import BluffConfig  # noqa: E402
from p2pcards.rules.topper import TopperConfig  # noqa: E402

VECTORS = {
    "table-topper.json": ("topper", 11, TopperConfig(target_score=2)),
    "table-bluff.json": ("bluff", 12, BluffConfig(deal_cap=1, table_price=100, starting_chips=400)),
}


def table_vector(game: str, seed: int, config) -> dict:
    table = direct_table(game, seed=seed, config=config)
    table.run()
    first = table.tables[0]
    return {
        "description": f"A whole {game} match of four seeded players (see p2pcards/_direct.py and "
                       "p2pcards/app.py: seeded_identity, randomness_for). Insecure seeds: "
                       "for interoperability tests only.",
        "seed": seed,
        "session_id": first.session.hex(),
        "player_public_keys": [p.public_key.hex() for p in first.players],
        "player_key_shares": [t.secrets.key.secret_bytes().hex() for t in table.tables],
        "player_at_seat": list(first.player_at_seat),
        "outcome": repr(first.engine.outcome),
        "messages": [raw.hex() for raw in first.transcript()],
    }


def render() -> dict[str, str]:
    files = {"schemas.json": json.dumps(catalogue(), indent=1, sort_keys=True) + "\n"}
    for name, (game, seed, config) in VECTORS.items():
        files[f"vectors/{name}"] = json.dumps(table_vector(game, seed, config), indent=1) + "\n"
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    stale = []
    for name, text in render().items():
        path = ROOT / "protocol" / name
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
            print(f"wrote protocol/{name}")
    if stale:
        print("out of date: " + ", ".join(stale) + " (run scripts/gen_protocol.py)")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
