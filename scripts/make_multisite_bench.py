#!/usr/bin/env python3
"""A bench of several documentation sites that link to each other (issue 61's multi-site
ranking evaluation), written by the bench generator (`../shared/bench/make_bench.py`,
`--gen`) with other sites and one change: links between the sites point at their archived
URLs.

The Debian doc packages link to each other's local copies (`/usr/share/doc/python3-doc/
html/library/os.html`, Sphinx's intersphinx rewritten by Debian) or to the upstream sites
under other versions (`https://docs.python.org/3/library/os.html`); both are rewritten to
the URL the bench crawls the page under (`https://docs.python.org/3.11/library/os.html`),
so that a page's inbound links from other hosts, and their anchor text, are in the
collection. Most of these links point into the Python documentation (Jinja, Werkzeug,
Click, pytest, attrs, Django and Sphinx cite its library pages); a few run between the
others (Django to PostgreSQL and Sphinx, Flask to Jinja).

Usage: make_multisite_bench.py --gen PATH/make_bench.py [make_bench.py's flags]
Needs the doc packages of SITES (scripts/eval-ranking.sh installs them) and warcio.
"""
import importlib.util
import re
import sys

# (doc root, Debian package directory, crawled as, upstream URL prefixes that mean the
# same pages).
SITES = [
    ('/usr/share/doc/python3.11/html', 'python3-doc', 'https://docs.python.org/3.11/',
     ['https://docs.python.org/3/', 'http://docs.python.org/3/', 'https://docs.python.org/',
      'http://docs.python.org/']),
    ('/usr/share/doc/postgresql-doc-15/html', 'postgresql-doc-15', 'https://www.postgresql.org/docs/15/',
     ['https://www.postgresql.org/docs/current/']),
    ('/usr/share/doc/python-django-doc/html', 'python-django-doc', 'https://docs.djangoproject.com/en/3.2/',
     ['https://docs.djangoproject.com/en/dev/']),
    ('/usr/share/doc/sphinx-doc/html', 'sphinx-doc', 'https://www.sphinx-doc.org/en/5.x/',
     ['https://www.sphinx-doc.org/en/master/']),
    ('/usr/share/doc/python-flask-doc/html', 'python-flask-doc', 'https://flask.palletsprojects.com/en/2.2.x/', []),
    ('/usr/share/doc/python-jinja2-doc/html', 'python-jinja2-doc', 'https://jinja.palletsprojects.com/en/3.1.x/',
     ['https://jinja.palletsprojects.com/']),
    ('/usr/share/doc/python-werkzeug-doc/html', 'python-werkzeug-doc',
     'https://werkzeug.palletsprojects.com/en/2.2.x/', ['https://werkzeug.palletsprojects.com/']),
    ('/usr/share/doc/python-click-doc/html', 'python-click-doc', 'https://click.palletsprojects.com/en/8.1.x/',
     ['https://click.palletsprojects.com/']),
    ('/usr/share/doc/python-pytest-doc/html', 'python-pytest-doc', 'https://docs.pytest.org/en/7.2.x/',
     ['https://docs.pytest.org/en/stable/', 'https://docs.pytest.org/en/latest/']),
    ('/usr/share/doc/python-attr-doc/html', 'python-attr-doc', 'https://www.attrs.org/en/22.2.0/',
     ['https://www.attrs.org/en/stable/']),
]

PACKAGES = ['python3.11-doc', 'postgresql-doc-15', 'python-django-doc', 'sphinx-doc', 'python-flask-doc',
            'python-jinja2-doc', 'python-werkzeug-doc', 'python-click-doc', 'python-pytest-doc',
            'python-attr-doc']

IPS = {'flask.palletsprojects.com': '104.17.32.82', 'jinja.palletsprojects.com': '104.17.32.83',
       'werkzeug.palletsprojects.com': '104.17.32.84', 'click.palletsprojects.com': '104.17.32.85',
       'docs.pytest.org': '104.17.32.86', 'www.attrs.org': '104.17.32.87'}


def rewriter():
    """A function rewriting the links of an HTML page to the archived URLs."""
    pairs = []
    for _, pkg, prefix, upstream in SITES:
        pairs.append(('/usr/share/doc/%s/html/' % pkg, prefix))
        pairs.extend((u, prefix) for u in upstream)
    # Longest first, so `https://docs.python.org/3/` wins over `https://docs.python.org/`;
    # an upstream prefix that is a prefix of the archived one is left alone when the link
    # already points at the archived version.
    pairs.sort(key=lambda p: -len(p[0]))
    archived = [p for _, _, p, _ in SITES]
    pattern = re.compile(rb'(href=")(' + b'|'.join(re.escape(a.encode()) for a, _ in pairs) + rb')([^"]*)"')
    table = {a.encode(): b.encode() for a, b in pairs}

    def sub(m):
        whole = m.group(2) + m.group(3)
        if any(whole.startswith(a.encode()) for a in archived):
            return m.group(0)
        return m.group(1) + table[m.group(2)] + m.group(3) + b'"'

    return lambda data: pattern.sub(sub, data)


def main():
    argv = sys.argv[1:]
    if '--gen' not in argv:
        sys.exit('make_multisite_bench.py: --gen PATH/make_bench.py is needed')
    i = argv.index('--gen')
    gen = argv[i + 1]
    del argv[i:i + 2]
    spec = importlib.util.spec_from_file_location('make_bench', gen)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.SOURCES = [(root, prefix, 'nginx') for root, _, prefix, _ in SITES]
    bench.IPS.update(IPS)
    rewrite = rewriter()
    load = bench.load

    def load_rewritten(real, rel):
        rel, data = load(real, rel)
        if rel.endswith(('.html', '.htm')):
            data = rewrite(data)
        return rel, data

    bench.load = load_rewritten
    sys.argv = [gen] + argv
    bench.main()


if __name__ == '__main__':
    main()
