"""What sphinx-gallery needs to run libsmo's example scripts as they are.

The examples are command-line scripts: they take their sizes and an --out-dir from
their arguments and write their figures there as PNG files (closing the matplotlib
figure). `reset_argv` gives each script its arguments: an output folder of its own
under the build folder, the data folder, and under LIBSMO_DOCS_QUICK=1 the reduced
sizes of tests/project/test_example_scripts.py. `png_files` is an image scraper that
hands sphinx-gallery the PNG files a code block wrote there.
"""
import os
import shutil
from pathlib import Path

from sphinx_gallery.scrapers import figure_rst

REPO = Path(__file__).resolve().parents[2]
REVIEWS_CSV = "Womens Clothing E-Commerce Reviews.csv.xz"

# the example tests' sizes (tests/project/test_example_scripts.py)
QUICK_ARGUMENTS = {
    "seed_simulations": ["--n-train", "300", "--n-test", "300", "--grid", "60"],
    "text_reviews": ["--limit", "2000", "--rff-components", "100"],
    "large_scale": ["--rows", "1000", "--components", "100,300"],
    "grid_search": ["--log2c=-1,3,2", "--log2g=-5,-1,2"],
}


def data_dir():
    return Path(os.environ.get("LIBSMO_DATA_DIR", REPO.parent / "shared" / "data"))


def out_dir(stem):
    return Path(os.environ["LIBSMO_GALLERY_OUT"]) / stem


def reset_argv(gallery_conf, script_vars):
    """The command line of one example under sphinx-gallery (sys.argv[1:])."""
    stem = Path(script_vars["src_file"]).stem
    if stem == "quickstart":
        return []
    out = out_dir(stem)
    shutil.rmtree(out, ignore_errors=True)
    argv = ["--out-dir", str(out)]
    if stem == "text_reviews":
        argv = [str(data_dir() / REVIEWS_CSV)] + argv
    elif stem in ("large_scale", "grid_search"):
        argv += ["--data-dir", str(data_dir())]
    if os.environ.get("LIBSMO_DOCS_QUICK") == "1":
        argv += QUICK_ARGUMENTS.get(stem, [])
    return argv


def png_files(block, block_vars, gallery_conf):
    """Image scraper: the PNG files the example wrote into its output folder since the
    last block, moved into sphinx-gallery's image folder."""
    folder = out_dir(Path(block_vars["src_file"]).stem)
    images = []
    for png in sorted(folder.glob("*.png")) if folder.is_dir() else []:
        target = Path(next(block_vars["image_path_iterator"]))
        shutil.move(str(png), target)
        images.append(str(target))
    return figure_rst(images, gallery_conf["src_dir"])
