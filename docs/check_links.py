"""Check the built site's internal links: every href and src of every page that points
inside the site must name a file that exists, and an #anchor must be an id in that file.

    python docs/check_links.py docs/_build/html

Exits 1 and lists every broken link; external links (http:, https:, mailto:) are not
followed.
"""
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Page(HTMLParser):
    """The ids a page defines and the links it makes."""

    def __init__(self):
        super().__init__()
        self.ids = set()
        self.links = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for key in ("href", "src"):
            if attrs.get(key) is not None and tag in ("a", "img", "link", "script"):
                self.links.append((tag, attrs[key]))


def parse(path):
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def broken_links(root):
    """(page, link, why) for every internal link of the site under ``root`` that does
    not resolve."""
    root = Path(root).resolve()
    # the pages (not the theme's templates that Sphinx copies into _static)
    pages = {path: parse(path) for path in sorted(root.rglob("*.html"))
             if "_static" not in path.relative_to(root).parts}
    broken = []
    for path, page in pages.items():
        for tag, link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("//"):
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append((path.relative_to(root), link, "no such file"))
                continue
            if root not in target.parents and target != root:
                broken.append((path.relative_to(root), link, "outside the site"))
                continue
            if parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else parse(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append((path.relative_to(root), link, "no such anchor"))
    return broken, len(pages)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2].strip())
        return 2
    root = Path(argv[0])
    if not (root / "index.html").exists():
        print(f"{root}: no built site (index.html missing)")
        return 1
    broken, n_pages = broken_links(root)
    for page, link, why in broken:
        print(f"{page}: {link}: {why}")
    print(f"{n_pages} pages, {len(broken)} broken internal links")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
