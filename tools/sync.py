"""Write what is derived from the notebooks and the agents' declarations, so that CI can check it is up to date:

    python tools/sync.py        # after nbdev_export: uncertain_rl/catalog.json, then README.md

- `uncertain_rl/catalog.json`: every agent's declaration (see `uncertain_rl.registry`) as data, so that the command
  line's help and the viewer's labels need no JAX;
- `README.md`, from `nbs/index.ipynb`. nbdev 2's `nbdev_readme` renders through Quarto, which the package registries
  our machines reach do not carry, so this small renderer stands in for it: markdown cells verbatim, code cells as
  fenced Python, cells marked `#| hide` left out.

CI fails when either differs from what this script writes.
"""

from pathlib import Path
import nbformat

ROOT = Path(__file__).resolve().parent.parent
HEADER = "<!-- Generated from nbs/index.ipynb by tools/sync.py: edit the notebook, not this file. -->\n\n"


def render(nb_path: Path) -> str:
    "Markdown for the notebook at `nb_path`."
    nb = nbformat.read(nb_path, as_version=4)
    parts = []
    for cell in nb.cells:
        src = cell.source.strip()
        if not src:
            continue
        if cell.cell_type == "markdown":
            parts.append(src)
        elif cell.cell_type == "code":
            lines = src.splitlines()
            if any(l.strip().replace(' ', '') in ("#|hide", "#|export", "#|exporti") for l in lines):
                continue
            parts.append("```python\n" + "\n".join(l for l in lines if not l.startswith("#|")) + "\n```")
    return HEADER + "\n\n".join(parts) + "\n"


if __name__ == "__main__":
    from uncertain_rl.registry import write_catalog

    print(f"wrote {write_catalog()}")
    (ROOT / "README.md").write_text(render(ROOT / "nbs" / "index.ipynb"))
    print(f"wrote {ROOT / 'README.md'}")
