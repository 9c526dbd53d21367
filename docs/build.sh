#!/usr/bin/env bash
# Build the documentation site and check it: every Sphinx warning is an error (-W, with
# --keep-going so that one run lists them all), then every internal link and image of
# the built pages must resolve (docs/check_links.py; Sphinx's linkcheck builder checks
# external links, which need the network).
#
#   bash docs/build.sh            # the gallery at full size: about 17 CPU minutes, most
#                                 # of them large_scale.py's and text_reviews.py's
#   LIBSMO_DOCS_QUICK=1 bash docs/build.sh    # the example tests' sizes (CI=true too):
#                                 # about 16 CPU seconds
#
# Writes docs/_build/html. Start from a clean tree with `rm -rf docs/_build
# docs/generated docs/auto_examples docs/_generated`.
set -euo pipefail
cd "$(dirname "$0")/.."

python -m sphinx -W --keep-going -b html -d docs/_build/doctrees docs docs/_build/html
python docs/check_links.py docs/_build/html
