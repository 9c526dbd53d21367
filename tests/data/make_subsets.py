"""Write the test suite's data (this folder) from the full-size sets.

    python tests/data/make_subsets.py --full-dir ../shared/data \
        --fashion-dir /usr/share/datasets/fashion-mnist

Each LIBSVM-format set is the full file's first rows, byte for byte (WHOLE: every
row), compressed with xz -9; the clothing reviews are the CSV's header and first
records, byte for byte; Fashion-MNIST keeps the first images and labels of Debian's idx
files (their headers' counts set to the rows kept), gzip-compressed as the originals.
The rows each set keeps are what the default test suite reads (`helpers.data.SUBSETS`
holds the same counts); README.md gives the sources and licences.
"""
import argparse
import csv
import gzip
import io
import lzma
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent

# every row (these files are small, and tests read them whole)
WHOLE = ("heart_scale", "a1a", "a9a", "a9a.t", "letter.scale", "letter.scale.t",
         "pendigits", "pendigits.t", "housing_scale", "bodyfat_scale", "svmguide1",
         "australian_scale", "w1a")
# the first rows of the large ones
FIRST_ROWS = {"w8a": 3000, "w8a.t": 1500, "ijcnn1.val": 5000, "sector.scale": 200,
              "a1a.t": 2000}
REVIEWS = "Womens Clothing E-Commerce Reviews.csv"
REVIEW_RECORDS = 4500
FASHION_ROWS = {"train": 3000, "t10k": 1000}


def write_xz(path, data):
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(lzma.compress(data, preset=9))
    tmp.replace(path)


def first_lines(source, n_rows):
    with lzma.open(source, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    return b"".join(lines if n_rows is None else lines[:n_rows])


def first_records(source, n_records):
    """The header and the first n_records CSV records, as the file's own bytes (records
    may hold newlines inside quotes)."""
    text = lzma.open(source, "rb").read().decode("utf-8")
    stream = io.StringIO(text, newline="")
    reader = csv.reader(stream)
    next(reader)
    for _ in range(n_records):
        next(reader)
    return text[:stream.tell()].encode("utf-8")


def fashion(source_dir, kind, n_rows):
    with gzip.open(source_dir / f"{kind}-images-idx3-ubyte.gz") as f:
        images = f.read()
    with gzip.open(source_dir / f"{kind}-labels-idx1-ubyte.gz") as f:
        labels = f.read()
    magic, _, height, width = struct.unpack(">IIII", images[:16])
    image_header = struct.pack(">IIII", magic, n_rows, height, width)
    label_header = struct.pack(">II", struct.unpack(">I", labels[:4])[0], n_rows)
    out = HERE / "fashion-mnist"
    out.mkdir(exist_ok=True)
    for name, data in ((f"{kind}-images-idx3-ubyte.gz",
                        image_header + images[16:16 + n_rows * height * width]),
                       (f"{kind}-labels-idx1-ubyte.gz", label_header + labels[8:8 + n_rows])):
        # mtime 0: the same bytes every time the script runs
        (out / name).write_bytes(gzip.compress(data, compresslevel=9, mtime=0))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full-dir", type=Path, required=True)
    parser.add_argument("--fashion-dir", type=Path, required=True)
    args = parser.parse_args()
    for name in WHOLE:
        write_xz(HERE / f"{name}.xz", first_lines(args.full_dir / f"{name}.xz", None))
    for name, n_rows in FIRST_ROWS.items():
        write_xz(HERE / f"{name}.xz", first_lines(args.full_dir / f"{name}.xz", n_rows))
    write_xz(HERE / f"{REVIEWS}.xz", first_records(args.full_dir / f"{REVIEWS}.xz",
                                                  REVIEW_RECORDS))
    for kind, n_rows in FASHION_ROWS.items():
        fashion(args.fashion_dir, kind, n_rows)


if __name__ == "__main__":
    main()
