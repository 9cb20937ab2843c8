"""Variants are functions, chosen once when an agent is made (issue 44): no agent module compares a name (a mode, an
ablation, a rule) with a string inside the functions that run compiled. A comparison with a string is allowed only
where the choice is made: directly in the body of a `make_*` function (which runs once, in Python, and picks the
functions the compiled program calls), and in a config class's own methods (its checks and derived settings)."""

import ast
from pathlib import Path

import uncertain_rl

AGENTS = Path(uncertain_rl.__file__).resolve().parent / 'agents'


def string_comparisons(source: str) -> list:
    "`(enclosing scopes, comparison, line)` of every comparison with a string constant in `source`."
    found = []

    def visit(node, scopes):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                kind = 'class' if isinstance(child, ast.ClassDef) else 'def'
                visit(child, scopes + [(kind, getattr(child, 'name', '<lambda>'))])
                continue
            if isinstance(child, ast.Compare) and any(
                isinstance(s, ast.Constant) and isinstance(s.value, str) for s in [child.left, *child.comparators]
            ):
                found.append((scopes, ast.unparse(child), child.lineno))
            visit(child, scopes)

    visit(ast.parse(source), [])
    return found


def chosen_once(scopes: list) -> bool:
    "A comparison made where a variant is chosen: in a `make_*` function's own body, or in a config class's method."
    if not scopes:
        return True  # module level: runs once, at import
    if len(scopes) == 1:
        return scopes[0][1].startswith('make_')
    return scopes[-2][0] == 'class' and scopes[-2][1].endswith('Config') and len(scopes) == 2


def problems(path: Path) -> list:
    return [
        f"{path.name}:{line} in {'/'.join(n for _, n in scopes)}: {text}"
        for scopes, text, line in string_comparisons(path.read_text())
        if not chosen_once(scopes)
    ]


def test_no_agent_compares_a_name_inside_a_compiled_function():
    found = [p for f in sorted(AGENTS.glob('*.py')) for p in problems(f)]
    assert not found, '\n'.join(found)


def test_the_check_finds_a_comparison_where_it_would_run_compiled(tmp_path):
    traced = tmp_path / 'traced.py'
    traced.write_text(
        'def make_x(config, spec):\n    def act(state, obs, key):\n'
        '        return 1 if config.mode == "a" else 2\n    return act\n'
        'def helper(config, x):\n    return x if config.rule == "b" else -x\n'
    )
    assert [p.split(' in ')[1] for p in problems(traced)] == [
        "make_x/act: config.mode == 'a'",
        "helper: config.rule == 'b'",
    ]
    chosen = tmp_path / 'chosen.py'
    chosen.write_text(
        'class XConfig:\n    def check(self):\n        return self.mode == "a"\n'
        'def make_x(config, spec):\n    rule = A if config.mode == "a" else B\n    return rule\n'
    )
    assert problems(chosen) == []
