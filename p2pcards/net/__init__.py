"""Layer 4: moving the table's opaque messages between peers on a LAN.

- ``framing``: length-prefixed frames over a byte stream (sans-IO).
- ``link``: the signed key exchange and sealed frames (sans-IO).
- ``connection``: ``connect``/``serve`` over TCP and the ``Connection`` API.
- ``memory``: the same connections over in-process queues, with faults.
- ``discovery``: advertising and browsing tables with zeroconf.
- ``storage``: the identity key and saved tables in the platform's own folders (XDG on Linux).
- ``journal``: one table's saved transcript and state; ``filelock``: its lock (flock or msvcrt).
- ``errors``: the exceptions all of these raise.

Import from the submodules; this package imports nothing so that using one
piece (say, framing) does not pull in zeroconf.
"""
