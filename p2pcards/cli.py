"""The ``p2pcards`` command: play, host, join, list tables, verify, resume.

Every command that plays uses the same protocol and cryptography: ``play`` is
a table hosted on this machine whose other three seats are bots.

This module runs one command: it parses the options
(:mod:`p2pcards.commands.options`), refuses the combinations that cannot be
meant, imports the command's body from :mod:`p2pcards.commands` and runs it, and
says every way it can fail in one sentence with an exit status.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from p2pcards.commands import UserError, seated
from p2pcards.commands.options import build_parser
from p2pcards.errors import P2PCardsError
from p2pcards.ui import console


def _cmd_whoami(args: argparse.Namespace) -> int:
    from p2pcards.commands.identity import my_identity
    identity = my_identity(args)
    print(f"{identity.name} {identity.fingerprint}")
    return 0


#: The environment variable that lets the hidden ``--seed`` through (tests, benchmarks).
SEED_ENV = "P2PCARDS_INSECURE_SEED"


def _refuse_a_seed_outside_tests(args: argparse.Namespace) -> None:
    """``--seed`` derives every key share, nonce and shuffle from one number: anyone
    who knows it knows every hand. Only tests and benchmarks may use it, on purpose."""
    if getattr(args, "seed", None) is not None and os.environ.get(SEED_ENV) != "1":
        raise UserError(f"--seed makes every key and shuffle predictable, so anyone could "
                        f"know every hand: it is for tests and benchmarks only ({SEED_ENV}=1)")


def _refuse_a_clock_of_ones_own(args: argparse.Namespace) -> None:
    """``join`` and ``resume`` take no ``--deadline``: the table clock is a setting of
    the table's genesis, chosen by its host and the same on every seat."""
    if getattr(args, "refused_deadline", None) is not None:
        raise UserError(f"{args.command} takes no --deadline: the table clock is its host's "
                        f"setting and every seat keeps it (p2pcards tables shows each "
                        f"table's; p2pcards host --deadline S sets it)")


def _refuse_web_with_another_look(args: argparse.Namespace) -> None:
    """``--web`` is the person's table in the browser: not with another way of showing it,
    nor with a bot playing the seat."""
    if not getattr(args, "web", False):
        if getattr(args, "no_browser", False):
            raise UserError("--no-browser goes with --web (the table in the browser)")
        return
    for option, given in (("--plain", "plain"), ("--trace", "trace"), ("--autoplay", "bot")):
        if getattr(args, given, None):
            raise UserError(f"--web shows the table in your browser; it does not go with {option}")


#: Exit statuses besides a command's own: a project error; Ctrl-C (128 + SIGINT).
#: A reader that stopped reading (``| head``) is ``EXIT_PIPE`` (128 + SIGPIPE).
EXIT_ERROR, EXIT_INTERRUPTED = 1, 130


#: Each command's body: its module in :mod:`p2pcards.commands` and its function, imported
#: when the command runs, so that a command loads only what it uses (``--version`` and
#: ``--help`` no table, a table on this machine no discovery); the first six are coroutines.
COMMANDS = {"play": ("hosting", "cmd_play"), "host": ("hosting", "cmd_host"),
            "join": ("joining", "cmd_join"), "watch": ("joining", "cmd_watch"),
            "tables": ("finding", "cmd_tables"), "resume": ("resuming", "cmd_resume"),
            "verify": ("checking", "cmd_verify"), "replay": ("checking", "cmd_replay"),
            "saved": ("listing", "cmd_saved"), "standings": ("listing", "cmd_standings")}
_ASYNC = ("play", "host", "join", "watch", "tables", "resume")


def _run_command(args: argparse.Namespace) -> int:
    _refuse_a_seed_outside_tests(args)
    _refuse_a_clock_of_ones_own(args)
    _refuse_web_with_another_look(args)
    if args.command == "whoami":
        return _cmd_whoami(args)
    import asyncio
    module, name = COMMANDS[args.command]
    body: Callable[[argparse.Namespace], Any] = getattr(
        importlib.import_module(f"p2pcards.commands.{module}"), name)
    code: int = asyncio.run(body(args)) if args.command in _ASYNC else body(args)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every way it can fail is one sentence and an exit status.

    A person's mistake (:class:`UserError`) exits 2, any other project error 1,
    and so does any other failure (a file the system refuses, a library's error):
    one sentence saying what failed and what to try, the traceback only with
    ``-v``; a reader that stopped reading (``p2pcards saved | head -1``) and
    Ctrl-C outside a table end quietly, without a traceback."""
    seated.stand_up()
    console.install()  # stand-ins for what the console's encoding cannot show (--help too)
    args = build_parser().parse_args(argv)
    console.choose_look(True if getattr(args, "ascii", False) else None)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.ERROR,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        code = _run_command(args)
        sys.stdout.flush()  # inside the try: a reader gone before the last line is quiet too
        return code
    except UserError as error:
        print(f"p2pcards: {error}", file=sys.stderr)
        return 2
    except P2PCardsError as error:
        print(f"p2pcards: {error}", file=sys.stderr)
        if error.__cause__ is not None:  # a failure said in words: -v shows where it was
            logging.getLogger("p2pcards").info("where it failed:", exc_info=error.__cause__)
        return EXIT_ERROR
    except BrokenPipeError:
        from p2pcards.app.front import EXIT_PIPE, quiet_stdout
        quiet_stdout()
        return EXIT_PIPE
    except KeyboardInterrupt:
        goodbye = seated.farewell()
        if goodbye is not None:
            print(f"\n{goodbye}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # noqa: BLE001 - the last word: a sentence, never a traceback
        from p2pcards.net.failing import unexpected
        print(f"p2pcards: {unexpected(error)}", file=sys.stderr)
        logging.getLogger("p2pcards").info("where it failed:", exc_info=error)  # -v shows it
        return EXIT_ERROR
