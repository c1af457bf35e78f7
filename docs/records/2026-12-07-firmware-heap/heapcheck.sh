#!/bin/sh
# A `git bisect run` step: tools.bench's firmware section, the 2-player peak heap on the webassembly port; good when <= 40 KB.
# Exit 0 if the peak is <= 40 KB (good), 1 if over, 125 (skip) if the bench gave no figure.
v=$(timeout 600 .venv/bin/python -m tools.bench --only firmware --no-docs 2>/dev/null | grep "peak live heap" | sed 's/.*) *\([0-9.]*\) KB.*/\1/')
echo "$(git log --oneline -1 | cut -c1-60) -> $v" >> "${BISECT_LOG:-/dev/null}"
[ -z "$v" ] && exit 125
python3 -c "import sys; sys.exit(0 if float('$v') <= 40 else 1)"
