"""Intersphinx that works offline: each inventory is read from a shipped copy
(docs/_inventories/<name>.inv), else fetched once into the build's cache, else left out
with one line that says so. Sphinx's intersphinx would warn about an inventory it cannot
reach, and the build (-W) would fail on a machine without network; here the links to
numpy, scipy, scikit-learn and Python are made where the inventories can be had, and
those names are plain text where they cannot.
"""
import urllib.request
from pathlib import Path


def _fetch(url, target, timeout):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            data = response.read()
    except (OSError, ValueError):
        return False
    if not data.startswith(b"# Sphinx inventory version"):
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".part")
    tmp.write_bytes(data)
    tmp.replace(target)
    return True


def reachable_inventories(sites, cache, shipped, offline=False, timeout=5.0):
    """An ``intersphinx_mapping`` of the sites whose inventory is at hand.

    Parameters
    ----------
    sites : dict
        name -> the documentation's base URL (ending in "/").
    cache : pathlib.Path
        Folder of fetched inventories (inside the build folder).
    shipped : pathlib.Path
        Folder of inventories kept with the documentation, read first.
    offline : bool
        Do not try the network.
    timeout : float
        Seconds to wait for each site.

    Returns
    -------
    dict
        name -> (base URL, local inventory path), for Sphinx's intersphinx_mapping.
    """
    mapping, missing = {}, []
    for name, url in sites.items():
        local = Path(shipped) / f"{name}.inv"
        cached = Path(cache) / f"{name}.inv"
        if local.exists():
            mapping[name] = (url, str(local))
        elif cached.exists() or (not offline and _fetch(url + "objects.inv", cached,
                                                         timeout)):
            mapping[name] = (url, str(cached))
        else:
            missing.append(name)
    if missing:
        why = "LIBSMO_DOCS_OFFLINE=1" if offline else "no network"
        print(f"intersphinx: {', '.join(missing)} not linked ({why}; put the "
              f"inventories in {shipped} to link them offline)")
    return mapping

