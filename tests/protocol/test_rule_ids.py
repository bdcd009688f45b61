"""One meaning per rule id: the ids the spec lists are exactly the ids the code raises.

A verdict is confirmed only when its rule id matches exactly (PROTOCOL.md §8),
so an id documented but never raised, or raised but documented nowhere, makes
an independent implementation guess. These tests read the documents and the
vectors as text and compare them with the error classes of the code.
"""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
from pathlib import Path

import p2pcards
from p2pcards.crypto.errors import CryptoError
from p2pcards.protocol.errors import (
    RematchUnopened,
    RemoteProtocolError,
    RuleViolation,
    SeatPlayedElsewhere,
    VerdictRefused,
)
from p2pcards.rules.errors import RuleError

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(p2pcards.__file__).resolve().parent

#: The first part of every dotted id a verdict, a refusal or a crypto error uses.
NAMESPACES = ("wire.", "message.", "chain.", "rules.", "table.", "verdict.", "seat.",
              "crypto.")
#: Engine ids that a wire message can never earn: the writer is checked before the
#: engine (step 7: ``turn``; after the match no one is the writer), bodies before
#: actions are built (step 8: a suit above 3), deals are made by the peer itself,
#: and only a seat's own engine sees the hand that ``follow-suit`` needs.
NEVER_FROM_THE_WIRE = {"turn", "topper.trump-not-bidder", "match.over", "action.malformed",
                       "topper.trump-suit", "deal.bad", "deal.not-awaited",
                       "topper.follow-suit"}


def _import_all() -> None:
    for package in ("p2pcards.rules", "p2pcards.crypto", "p2pcards.protocol"):
        module = importlib.import_module(package)
        for info in pkgutil.iter_modules(module.__path__, package + "."):
            importlib.import_module(info.name)


def _subclasses(base: type) -> set[type]:
    found: set[type] = set()
    todo: list[type] = [base]
    while todo:
        for sub in todo.pop().__subclasses__():  # type: ignore[var-annotated]
            if sub not in found and sub.__module__.startswith("p2pcards."):
                found.add(sub)
                todo.append(sub)
    return found


_import_all()
REMOTE = {c for c in _subclasses(RemoteProtocolError) if c is not RuleViolation}
GAME = _subclasses(RuleError)
REFUSED = _subclasses(VerdictRefused)
CRYPTO = _subclasses(CryptoError)

#: Every id a peer's verdict can carry: the protocol's own, and ``rules.`` + the engine's.
VERDICT_IDS = {c.rule for c in REMOTE} | {"rules." + c.rule for c in GAME}  # type: ignore[attr-defined]
GAME_IDS = {c.rule for c in GAME}  # type: ignore[attr-defined]
REFUSED_IDS = {c.rule for c in REFUSED}  # type: ignore[attr-defined]
CRYPTO_IDS = {c.code for c in CRYPTO}  # type: ignore[attr-defined]
ALL_IDS = VERDICT_IDS | GAME_IDS | REFUSED_IDS | CRYPTO_IDS | {SeatPlayedElsewhere.rule}


def _text(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def _ticked(text: str) -> set[str]:
    return set(re.findall(r"`([a-z]+(?:\.[a-z-]+)*)`", text))


def _namespaced(text: str) -> set[str]:
    return {t for t in _ticked(text) if t.startswith(NAMESPACES)}


def _section(text: str, number: int) -> str:
    start = text.index(f"\n## {number}. ")
    return text[start:text.index("\n## ", start + 1)]


def _refusal_table_ids() -> set[str]:
    return set(re.findall(r"^\| `([a-z.-]+)` \|", _text("RULES.md"), re.MULTILINE))


def _constructed_names() -> set[str]:
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Name):
                    names.add(func.id)
                elif isinstance(func, ast.Attribute):
                    names.add(func.attr)
    return names


def test_every_protocol_rule_id_the_code_raises_is_in_protocol_md() -> None:
    ticked = _ticked(_text("protocol/PROTOCOL.md"))
    missing = {c.rule for c in REMOTE} - ticked  # type: ignore[attr-defined]
    missing |= REFUSED_IDS - ticked
    missing |= {SeatPlayedElsewhere.rule} - ticked
    assert not missing, f"raised by the code but not in PROTOCOL.md: {sorted(missing)}"


def test_every_rule_id_protocol_md_names_is_one_the_code_has() -> None:
    named = _namespaced(_text("protocol/PROTOCOL.md"))
    unknown = {t for t in named if t not in ALL_IDS and not t.startswith("config.")}
    assert not unknown, f"in PROTOCOL.md but raised nowhere: {sorted(unknown)}"


def test_the_steps_of_section_8_name_only_ids_a_wire_message_can_earn() -> None:
    steps = _section(_text("protocol/PROTOCOL.md"), 8)
    steps = steps[steps.index("### The order of checks"):steps.index("Steps 1–3, 5 and 6")]
    wrong = {t for t in _namespaced(steps) if t.startswith("rules.")
             and t[len("rules."):] in NEVER_FROM_THE_WIRE}
    # The one sentence saying it never comes from the wire may name it.
    wrong.discard("rules.action.malformed")
    assert not wrong, f"§8 gives as a wire verdict what the engine never reaches: {sorted(wrong)}"
    for rule in sorted(NEVER_FROM_THE_WIRE):
        assert f"`{rule}`" in steps, f"§8 does not say that {rule} never comes from the wire"


#: The row of §8's blame table that stands for every engine id a verdict can carry.
ENGINE_ROW = "rules.<engine id>"
#: The ids that drop a message (or stop this peer) and name nobody.
NAMES_NOBODY = {"wire.malformed", "message.session", "message.signature", "chain.fork",
                "chain.gap", SeatPlayedElsewhere.rule}
#: The ids this peer's own clock ends a table with: no message is their evidence.
BY_THE_CLOCK = {"deadline", RematchUnopened.rule}


def _blame_table() -> dict[str, list[str]]:
    """§8's opening table: rule id -> its cells (who may be named, evidence, where tested)."""
    section = _section(_text("protocol/PROTOCOL.md"), 8)
    table = section[:section.index("\n### ")]
    rows: dict[str, list[str]] = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if line.startswith("| `") and len(cells) == 4:
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_the_blame_table_opens_section_8_with_every_rule_id_a_message_can_earn() -> None:
    """Every id of a remote error (those that end a table and those that drop a message
    naming nobody) has one row, the engine's ids one row together, and no row is stale."""
    rows = _blame_table()
    expected = {c.rule for c in REMOTE} | {ENGINE_ROW, SeatPlayedElsewhere.rule}  # type: ignore[attr-defined]
    assert set(rows) == expected
    for rule, (named, evidence, _) in rows.items():
        assert named.startswith("nobody") == (rule in NAMES_NOBODY | {RematchUnopened.rule}), rule
        if rule in NAMES_NOBODY:
            assert evidence == "—", rule
        else:
            assert (evidence == "none") == (rule in BY_THE_CLOCK), rule  # only a clock needs none


def test_each_blame_table_row_cites_tests_that_exist_and_name_its_rule() -> None:
    """Each "where tested" cell cites test functions that exist, and one of them (or a
    helper of its module) names the row's rule, by its id or by its error class."""
    sources: dict[tuple[str, str], str] = {}
    for path in (ROOT / "tests").rglob("test_*.py"):
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                sources[(path.relative_to(ROOT).as_posix(), node.name)] = text
    classes = {c.rule: c.__name__ for c in REMOTE} | {  # type: ignore[attr-defined]
        SeatPlayedElsewhere.rule: SeatPlayedElsewhere.__name__}
    for rule, (_, _, tested) in _blame_table().items():
        cited = re.findall(r"`(tests/[\w/.]+\.py)::(\w+)`", tested)
        assert cited, f"{rule}: no test cited"
        for path, function in cited:
            assert (path, function) in sources, f"{rule}: {path} defines no {function}"
        if rule != ENGINE_ROW:
            words = (f'"{rule}"', classes.get(rule, rule))
            assert any(word in sources[cite] for cite in cited for word in words), \
                f"{rule}: no cited test module names it"


def test_rules_md_refusal_tables_list_exactly_the_engine_ids() -> None:
    assert _refusal_table_ids() == GAME_IDS


def test_every_rules_prefixed_id_in_the_documents_is_an_engine_id() -> None:
    for name in ("protocol/PROTOCOL.md", "RULES.md", "SECURITY.md", "README.md"):
        for token in _namespaced(_text(name)):
            if token.startswith("rules."):
                assert token[len("rules."):] in GAME_IDS, f"{name}: {token}"


def test_security_md_names_only_ids_the_code_has() -> None:
    unknown = _namespaced(_text("SECURITY.md")) - ALL_IDS
    assert not unknown, f"in SECURITY.md but raised nowhere: {sorted(unknown)}"


def test_crypto_md_lists_exactly_the_crypto_error_codes() -> None:
    listed = set(re.findall(r"^\| `\w+` \| `(crypto\.[a-z-]+)` \|", _text("protocol/CRYPTO.md"),
                            re.MULTILINE))
    assert listed == CRYPTO_IDS - {"crypto"}


def test_the_vectors_use_only_verdict_ids_the_code_raises() -> None:
    vectors = json.loads(_text("protocol/vectors/verdicts.json"))
    rules = {case["rule"] for part in ("malformed", "several", "written", "saved")
             for case in vectors[part]}
    assert rules <= VERDICT_IDS, sorted(rules - VERDICT_IDS)
    assert "message.malformed" in rules and {"deadline", "left"} <= rules


def test_every_error_class_with_a_rule_id_is_raised_somewhere() -> None:
    built = _constructed_names()
    never = sorted(c.__name__ for c in REMOTE | GAME | REFUSED | CRYPTO
                   if c.__name__ not in built)
    assert not never, f"error classes the code never raises: {never}"


def test_one_class_declares_each_rule_id() -> None:
    """A subclass may inherit its parent's id (one meaning, a narrower case), but no
    two classes declare the same id themselves."""
    for family in (REMOTE | REFUSED, GAME, CRYPTO):
        attribute = "code" if family is CRYPTO else "rule"
        seen: dict[str, str] = {}
        for cls in sorted(family, key=lambda c: c.__name__):
            if attribute not in vars(cls):
                continue
            rule = vars(cls)[attribute]
            assert rule not in seen, f"{rule}: {seen.get(rule)} and {cls.__name__}"
            seen[rule] = cls.__name__


def test_the_words_for_a_verdict_know_only_verdict_ids() -> None:
    from p2pcards.ui.text_events import _OFFENCES

    assert set(_OFFENCES) <= VERDICT_IDS, sorted(set(_OFFENCES) - VERDICT_IDS)
