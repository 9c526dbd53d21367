"""LIBSVM's files: text <-> arrays and models.

The map of the package:

``sources``
    paths, file descriptors and binary file objects as byte streams; gzip / bzip2 / xz
    recognised by their first bytes; decompression errors as ValueError naming the file.
``atomic``
    `write_atomically`: a temporary file in the target's folder, then a rename, so that
    a failure leaves any previous file intact (compression chosen by the suffix).
``svmlight`` (over the Cython ``_svmlight`` parser and ``_writer``)
    the data format: `load_svmlight_file`, `load_svmlight_files`, `dump_svmlight_file`.
``model_file``
    LIBSVM's model text format: `load_model`, `save_model`, `model_to_bytes`. The only
    module here that knows `libsmo.model._model.Model`; the model layer does not import io.
``range_file``
    svm-scale's range files: `read_range_file`, `write_range_file`.

Every parse error is a ValueError naming the file and the line.
"""
from libsmo.io.atomic import write_atomically
from libsmo.io.model_file import load_model, model_to_bytes, save_model
from libsmo.io.range_file import read_range_file, write_range_file
from libsmo.io.svmlight import dump_svmlight_file, load_svmlight_file, load_svmlight_files

__all__ = ["dump_svmlight_file", "load_model", "load_svmlight_file", "load_svmlight_files",
           "model_to_bytes", "read_range_file", "save_model", "write_atomically",
           "write_range_file"]
