"""Print the path of the examples/ folder of the installed scikit-learn's sdist,
downloaded from PyPI into the system's temporary folder (once) and unpacked.

tests/project/test_sklearn_gallery.py runs scikit-learn's gallery scripts with libsmo's
estimators; the scripts ship only in the sdist (SKLEARN_EXAMPLES names the folder).
"""
import json
import tarfile
import tempfile
import urllib.request
from pathlib import Path

import sklearn

version = sklearn.__version__
folder = Path(tempfile.gettempdir()) / f"scikit_learn-{version}-sdist"
examples = folder / f"scikit_learn-{version}" / "examples"
if not examples.is_dir():
    # PyPI's simple index in its JSON form (PEP 691), which mirrors and proxies serve too
    request = urllib.request.Request(
        "https://pypi.org/simple/scikit-learn/",
        headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        files = json.load(response)["files"]
    url = next(f["url"] for f in files if f["filename"] == f"scikit_learn-{version}.tar.gz")
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / url.rsplit("/", 1)[1]
    urllib.request.urlretrieve(url, archive)
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers()
                   if m.name.startswith(f"scikit_learn-{version}/examples/")]
        tar.extractall(folder, members=members, filter="data")
print(examples)
