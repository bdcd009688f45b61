# Sourced by scripts/play and scripts/test: create or reuse .venv in the repo
# and (re)install the project whenever its packaging files change.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$repo/.venv"
python="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
stamp="$venv/.p2pcards-installed"
# P2PCARDS_NEWEST=1 installs the newest versions the project allows instead of the
# pinned ones in constraints.txt (to try an upgrade before pinning it).
constraints=(-c "$repo/constraints.txt")
if [ "${P2PCARDS_NEWEST:-0}" = 1 ]; then
    constraints=(--upgrade --upgrade-strategy eager)
fi
want="$(cat "$repo/setup.cfg" "$repo/pyproject.toml" "$repo/constraints.txt" | sha256sum | cut -d' ' -f1)${P2PCARDS_NEWEST:-0}"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "p2pcards: installing into $venv (log: $venv/install.log)" >&2
    if ! "$venv/bin/python" -m pip install "${constraints[@]}" -e "$repo[test]" >"$venv/install.log" 2>&1; then
        tail -n 40 "$venv/install.log" >&2
        echo "p2pcards: installation failed; see $venv/install.log" >&2
        exit 1
    fi
    echo "$want" > "$stamp"
fi
