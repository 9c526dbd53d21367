"""LIBSVM's files: data, models, svm-scale's range files (split into modules next)."""
from libsmo.io.model_file import (dump_svmlight_file, load_model, load_svmlight_file,
                                  load_svmlight_files, model_to_bytes, read_range_file,
                                  save_model, write_atomically, write_range_file)

__all__ = ["dump_svmlight_file", "load_model", "load_svmlight_file", "load_svmlight_files",
           "model_to_bytes", "read_range_file", "save_model", "write_atomically",
           "write_range_file"]
