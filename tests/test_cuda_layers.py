"""titer/cuda/ is layered: its modules import each other only downward -- no
cycle, not even through an import inside a function -- and the front end
(titer/_frontend.py), which both executors call, imports neither of them.
Read from the source with ast: nothing is imported."""
import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TITER = os.path.join(ROOT, "titer")
CUDA = os.path.join(TITER, "cuda")


def is_titer_module(dotted):
    """titer's own module (a .py, a Cython .pyx or a package) of that name."""
    parts = dotted.split(".")
    if parts[0] != "titer":
        return False
    path = os.path.join(ROOT, *parts)
    return (os.path.exists(path + ".py") or os.path.exists(path + ".pyx")
            or os.path.exists(os.path.join(path, "__init__.py")))


def imported_modules(path, module):
    """Every module `path` (the module named `module`) imports, at module
    level or in a function, as absolute dotted names; `from P import n`
    names P.n when that is a module of titer's, else P."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    is_package = os.path.basename(path) == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = anchor + "." + base if base else anchor
            for alias in node.names:
                sub = base + "." + alias.name
                found.add(sub if is_titer_module(sub) else base)
    return found


def cuda_modules():
    """{dotted name: path} of every module in titer/cuda/."""
    modules = {}
    for name in sorted(os.listdir(CUDA)):
        if name.endswith(".py"):
            stem = name[:-3]
            dotted = "titer.cuda" if stem == "__init__" else "titer.cuda." + stem
            modules[dotted] = os.path.join(CUDA, name)
    return modules


def import_graph():
    """{module: the titer.cuda modules it imports}."""
    modules = cuda_modules()
    return {name: {m for m in imported_modules(path, name) if m in modules and m != name}
            for name, path in modules.items()}


def find_cycle(graph):
    """A list of modules importing each other in a circle, or None."""
    state = {}                  # module -> "open" while on the path, "done" after

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt, path + [nxt])
                if cycle:
                    return cycle
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state:
            cycle = visit(start, [start])
            if cycle:
                return cycle
    return None


def test_the_graph_is_read():
    """The parser sees the imports the layers are made of (so an empty
    graph cannot pass the test below)."""
    graph = import_graph()
    assert {"titer.cuda.dispatch", "titer.cuda.reduce", "titer.cuda.copy",
            "titer.cuda.device", "titer.cuda.plan_cache", "titer.cuda._cupy"} <= set(graph)
    assert "titer.cuda.dispatch" in graph["titer.cuda.reduce"]
    assert "titer.cuda.copy" in graph["titer.cuda.dispatch"]
    assert "titer.cuda._cupy" in graph["titer.cuda.launcher"]     # deferred, still an edge
    assert "titer.cuda.device" in graph["titer.cuda._cupy"]


def test_cuda_modules_import_only_downward():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle in titer/cuda: " + " -> ".join(cycle)


def test_find_cycle_finds_a_function_local_one():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_front_end_imports_no_executor():
    found = imported_modules(os.path.join(TITER, "_frontend.py"), "titer._frontend")
    bad = sorted(m for m in found if m == "titer.cuda" or m.startswith("titer.cuda.")
                 or m == "titer._core" or m.startswith("titer._core."))
    assert not bad, bad
