"""LIBSVM's files, under the name they had before `libsmo.io`: a thin re-export of the
public names of `libsmo.io`, kept so that ``from libsmo.formats import ...`` and
``libsmo.formats.write_atomically`` go on working. New code imports `libsmo.io`.
"""
from libsmo.io import *  # noqa: F401,F403 (the public names, listed in __all__)
from libsmo.io import __all__  # noqa: F401
