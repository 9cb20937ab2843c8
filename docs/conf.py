# Sphinx configuration of the documentation site. `python tools/docs.py` copies this folder next to the notebooks
# (with their stored outputs), the README as the home page and one API page per module, and builds into _docs/.
project = "uncertain_rl"
author = "uncertain_rl developers"
extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx-mathjax-offline"]
nb_execution_mode = "off"  # the notebooks are committed with their outputs
myst_enable_extensions = ["dollarmath", "amsmath"]
nb_render_markdown_format = "myst"  # markdown outputs (the committed results tables) with tables, as in the notebook
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]  # notebooks put their title in the first cell, sections may skip a level
html_theme = "sphinx_book_theme"
html_title = "uncertain_rl"
html_theme_options = {
    "repository_url": "https://github.com/uncertain-rl/uncertain_rl",
    "use_repository_button": True,
    "show_toc_level": 2,
    "navbar_persistent": [],  # one search box (the sidebar's), not a second one in the header
}
html_context = {"default_mode": "light"}  # the theme's light/dark switch starts from light
html_favicon = "favicon.svg"
html_static_path = ["_static"]
html_css_files = ["uncertain_rl.css"]
html_extra_path = ["_extra"]  # viewer_preview.html, the offline Deep Sea viewer of an example run
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_typehints = "description"
exclude_patterns = ["_build"]
napoleon_use_ivar = True  # a dataclass's "Attributes:" as fields of the class, not entries beside its own members
