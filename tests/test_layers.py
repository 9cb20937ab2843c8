"""The import graph against the layers declared in `uncertain_rl.LAYERS` (notebook `98_api`): every import of one of
our modules by another, at the top of a module or inside a function, read from the source with `ast`. No module
imports a layer above its own, there is no cycle, each module declares a small documented public API, and
`import uncertain_rl` (even using every public name) imports nothing of the app layer."""

import ast
import fnmatch
import subprocess
import sys
from pathlib import Path

import uncertain_rl

PACKAGE = Path(uncertain_rl.__file__).resolve().parent


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix('')
    parts = rel.parts[:-1] if rel.name == '__init__' else rel.parts
    return '.'.join(parts)


def modules() -> dict:
    "Our modules (name relative to the package) -> parsed source."
    return {module_name(p): ast.parse(p.read_text()) for p in PACKAGE.rglob('*.py') if p.name != '_modidx.py'}


def imports(name: str, tree: ast.AST, known: set) -> list:
    "`(imported module, imported names)` of every import of ours in `tree` (relative or absolute)."
    found = []
    package = name.split('.')[:-1] if not name == '' else []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1] if node.level > 1 else package
                target = '.'.join([*base, *(node.module.split('.') if node.module else [])])
            elif node.module and node.module.split('.')[0] == 'uncertain_rl':
                target = node.module[len('uncertain_rl.') :] if node.module != 'uncertain_rl' else ''
            else:
                continue
            for alias in node.names:  # `from . import metrics` imports a module
                sub = f'{target}.{alias.name}'.lstrip('.')
                found.append((sub, None) if sub in known else (target, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split('.')[0] == 'uncertain_rl':
                    found.append((alias.name[len('uncertain_rl.') :], None))
    return found


def layer_of(name: str) -> int:
    for i, (_, patterns) in enumerate(uncertain_rl.LAYERS):
        if any(fnmatch.fnmatch(name, p) for p in patterns):
            return i
    raise AssertionError(f'module {name!r} is in no layer of uncertain_rl.LAYERS')


def graph() -> dict:
    mods = modules()
    known = set(mods)
    return {name: imports(name, tree, known) for name, tree in mods.items()}


def test_every_module_has_a_layer_and_imports_none_above_it():
    problems = []
    for name, deps in graph().items():
        if name == '':
            continue  # the package's __init__: lazy, imports on demand only
        for target, _ in deps:
            if target in ('', name):
                continue
            if layer_of(target) > layer_of(name):
                problems.append(
                    f'{name} ({uncertain_rl.LAYERS[layer_of(name)][0]}) imports {target} '
                    f'({uncertain_rl.LAYERS[layer_of(target)][0]})'
                )
    assert not problems, '\n'.join(problems)


def test_the_public_api_is_small_and_each_name_is_documented():
    """Each module declares its public names (`_all_`, from which nbdev writes `__all__`); its other names are internal:
    importable within the package, not in `__all__` and not on the API page. At most 451 public names in all (half of
    the 903 of 2026-12-01, when every exported name was public), each function and class among them documented."""
    import importlib
    import inspect

    public, undocumented, undeclared = 0, [], []
    for name, tree in modules().items():
        if not name or name == '__main__':
            continue  # the package's flat API (its own test in 98_api) and the console entry
        module = importlib.import_module(f'uncertain_rl.{name}')
        if not hasattr(module, '__all__'):
            continue  # a subpackage's __init__: its docstring only
        if not any(isinstance(n, ast.Assign) and getattr(n.targets[0], 'id', '') == '_all_' for n in tree.body):
            undeclared.append(name)
        names = module.__all__
        public += len(names)
        undocumented += [
            f'{name}.{n}'
            for n in names
            if (inspect.isfunction(getattr(module, n)) or inspect.isclass(getattr(module, n)))
            and not (getattr(module, n).__doc__ or '').strip()
        ]
    assert not undeclared, f'modules without _all_: {undeclared}'
    assert public <= 451, f'{public} public names'
    assert not undocumented, undocumented


def test_no_cycle():
    edges = {name: {t for t, _ in deps if t not in ('', name)} for name, deps in graph().items() if name}
    state, cycles = {}, []

    def visit(node, stack):
        state[node] = 'open'
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 'open':
                cycles.append(' -> '.join(stack[stack.index(nxt) :] + [nxt]))
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 'done'

    for n in sorted(edges):
        if n not in state:
            visit(n, [n])
    assert not cycles, '\n'.join(cycles)


def test_the_library_never_loads_the_app():
    probe = (
        'import sys, uncertain_rl as u\n'
        'for name in u.__all__: getattr(u, name)\n'
        'print(sorted(m for m in sys.modules if m.startswith(("uncertain_rl.app", "uncertain_rl.__main__", "voila"))))'
    )
    r = subprocess.run([sys.executable, '-c', probe], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == '[]', r.stdout + r.stderr


def test_the_checks_can_fail():
    "The graph reader finds a planted upward import, a private import and a cycle."
    fake = {
        'loops': ast.parse('from .experiments import run\nfrom uncertain_rl.rundir import _umask'),
        'experiments': ast.parse('from . import loops'),
    }
    known = {'loops', 'experiments', 'rundir'}
    deps = {n: imports(n, t, known) for n, t in fake.items()}
    assert ('experiments', 'run') in deps['loops'] and ('rundir', '_umask') in deps['loops']
    assert ('loops', None) in deps['experiments']
    assert layer_of('experiments') > layer_of('loops')


def test_every_module_has_a_docstring_that_is_a_whole_sentence():
    "Every module says what it is in a sentence (a notebook's one-line description), and parses without warnings."
    import warnings

    problems = []
    for path in PACKAGE.rglob('*.py'):
        if path.name == '_modidx.py':
            continue
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            try:
                doc = ast.get_docstring(ast.parse(path.read_text()))
            except SyntaxWarning as e:
                problems.append(f'{path.name}: {e}')
                continue
            except DeprecationWarning as e:
                problems.append(f'{path.name}: {e}')
                continue
        if not doc or not doc.rstrip().endswith('.') or '\n' in doc.strip():
            problems.append(f'{path.relative_to(PACKAGE)}: {doc!r}')
    assert not problems, '\n'.join(problems)


MAX_MODULE_LINES = 900  # a module longer than this has seams to split along
MAX_FUNCTION_LINES = 80  # a function longer than this says why in its docstring


def sizes_over_limits(sources: dict) -> list:
    "The modules over `MAX_MODULE_LINES` and the functions over `MAX_FUNCTION_LINES` whose docstring gives no reason."
    problems = []
    for name, text in sources.items():
        if len(text.splitlines()) > MAX_MODULE_LINES:
            problems.append(f'{name}: {len(text.splitlines())} lines')
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES and 'for a reason' not in (ast.get_docstring(node) or ''):
                    problems.append(f'{name}: {node.name} is {length} lines')
    return problems


def test_no_module_or_function_is_too_long_without_a_reason():
    sources = {str(p.relative_to(PACKAGE)): p.read_text() for p in PACKAGE.rglob('*.py') if p.name != '_modidx.py'}
    assert not sizes_over_limits(sources), '\n'.join(sizes_over_limits(sources))
    # the check can fail: a long module, and a long function without its reason, are named
    body = '\n'.join(f'    x{i} = {i}' for i in range(MAX_FUNCTION_LINES))
    long_function = f'def f():\n    "Short."\n{body}\n'
    assert sizes_over_limits({'m.py': long_function}) == ['m.py: f is 82 lines']
    reasoned = long_function.replace('"Short."', '"""Long, for a reason: none."""')
    assert sizes_over_limits({'m.py': reasoned}) == []
    assert sizes_over_limits({'big.py': '\n' * (MAX_MODULE_LINES + 1)}) == ['big.py: 901 lines']
