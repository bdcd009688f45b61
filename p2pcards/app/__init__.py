"""Layer 6: the application, put together from the layers below for the commands.

- ``hosted``: a table hosted on this machine (its relay, the host's own seat and its
  bots), started or brought back after a crash; ``joined``: a seat at a table
  another machine hosts, dialled over TCP;
- ``front``: the front end of one seat (a person's full screen, line mode or
  browser table, a bot, or ``--trace``) and its coach;
- ``records``: your saved records as a person names them (a session id, or its start);
- ``insecure_seed``: keys and randomness from one number, for tests and benchmarks;
  ``_direct``: four tables passing messages directly, for tests, vectors and benchmarks.

Nothing here decides a rule: the rules are the protocol's, the screens the UI's.
"""
