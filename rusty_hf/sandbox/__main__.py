"""``python -m rusty_hf.sandbox``: may untrusted code run here? One line, and exit status 0 or 2.

    python -m rusty_hf.sandbox              # "isolated: ..." (0), the opt-in notice (0), or the refusal (2)
    python -m rusty_hf.sandbox --describe   # first, every layer: on or off, and what an off one exposes

``recipes/quickstart.sh`` runs it before training, so a machine without bubblewrap stops there.
"""

from __future__ import annotations

import argparse
import sys

from rusty_hf.sandbox.capabilities import capabilities
from rusty_hf.sandbox.isolation import refusal


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rusty_hf.sandbox", description=__doc__.splitlines()[0])
    parser.add_argument("--describe", action="store_true", help="list every layer first (capabilities().describe())")
    args = parser.parse_args(argv)
    caps = capabilities()
    if args.describe:
        print(caps.describe())
    if (line := refusal(caps)) is not None:
        print(line, file=sys.stderr)
        return 2
    if caps.bwrap:  # else the user opted in, and capabilities() has logged the notice that says so
        print(f"rusty_hf.sandbox: isolated ({', '.join(caps.layers())})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
