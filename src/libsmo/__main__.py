"""python -m libsmo train|predict|scale: the command-line tools."""
import sys

from libsmo.cli import main

sys.exit(main())
