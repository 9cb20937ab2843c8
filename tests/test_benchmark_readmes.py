"""`benchmarks/README.md` is a short index: every benchmark script is in it, its links resolve, and each
benchmark's own README (next to its results) says what it measures, how to run it and the current result, briefly."""

import re

from conftest import ROOT

BENCHMARKS = ROOT / 'benchmarks'
INDEX = BENCHMARKS / 'README.md'
HEADINGS = ('## What it measures', '## How to run', '## Current result')
LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')


def relative_links(text: str) -> list:
    "The targets of the Markdown links in `text` that are relative paths (no scheme, no anchor-only link)."
    targets = [t.split('#')[0] for t in LINK.findall(text)]
    return [t for t in targets if t and not re.match(r'^[a-z][a-z0-9+.-]*:', t) and not t.startswith('/')]


def unnamed_scripts(index: str) -> list:
    "The `benchmarks/*.py` and `benchmarks/*.sh` scripts that `index` does not name."
    scripts = sorted(p.name for p in BENCHMARKS.iterdir() if p.suffix in ('.py', '.sh') and p.is_file())
    return [s for s in scripts if not re.search(rf'(?<![\w./-]){re.escape(s)}(?![\w-])', index)]


def benchmark_readmes() -> list:
    "The per-benchmark READMEs the index links to (those under `results/`)."
    return [
        BENCHMARKS / t
        for t in relative_links(INDEX.read_text())
        if t.startswith('results/') and t.endswith('README.md')
    ]


def test_every_benchmark_script_is_in_the_index():
    assert unnamed_scripts(INDEX.read_text()) == []


def test_a_missing_script_is_caught():
    index = INDEX.read_text()
    name = sorted(p.name for p in BENCHMARKS.glob('*.py'))[0]
    assert unnamed_scripts(index.replace(name, 'renamed')) == [name]


def test_every_relative_link_of_the_index_exists():
    links = relative_links(INDEX.read_text())
    assert links
    assert [t for t in links if not (BENCHMARKS / t).exists()] == []


def test_each_benchmark_readme_has_the_three_sections_and_is_short():
    readmes = benchmark_readmes()
    assert len(readmes) >= 20
    for path in readmes:
        lines = path.read_text().splitlines()
        assert lines[0].startswith('# '), path
        for heading in HEADINGS:
            assert heading in lines, (path, heading)
        assert len(lines) <= 60, (path, len(lines))


def test_the_index_is_short():
    assert len(INDEX.read_text().splitlines()) <= 100
