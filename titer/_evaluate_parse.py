"""titer.evaluate's parser: an expression string -> a small tree, by a whitelist.

The string is parsed by Python's ``ast`` and every node is checked against
what titer.evaluate means by an expression: names, numeric constants, the
operators ``+ - * / // % ** & | ^ ~ < <= == != > >=``, unary ``-``/``+``,
calls of titer's ops by NumPy name (aliases too, ``where`` and ``clip``
included) and, at the top only, ``sum``/``prod``/``max``/``min`` with
``axis=``.  Anything else is a ``ValueError`` that names the offending part:
nothing of the string is ever executed.

Pure: imports only the op table.  Types, loops and registers are
``_evaluate_plan``'s job.
"""
import ast
from collections import namedtuple

try:
    from . import _ops
except ImportError:             # vendored without the package around it
    import _ops  # type: ignore

# A name looked up in local_dict / the caller's frame.
Name = namedtuple("Name", "id")
# A Python number written in the string (a signed one is one literal: `-3`).
Literal = namedtuple("Literal", "value")
# An op of the op table applied to its arguments; `text` is the source of the
# node (explain and error messages).  op "**" is resolved by the planner: it
# is ndarray's `**` (square / sqrt / reciprocal for some exponents).
Apply = namedtuple("Apply", "op args text")
# A top-level reduction of the fused expression: op is the ufunc reduced
# ("add" for sum), axis None, an int or a tuple of ints.
Reduction = namedtuple("Reduction", "op kind arg axis")

BINARY_OPERATORS = {
    ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide",
    ast.FloorDiv: "floor_divide", ast.Mod: "remainder", ast.Pow: "**",
    ast.BitAnd: "bitwise_and", ast.BitOr: "bitwise_or", ast.BitXor: "bitwise_xor",
}
UNARY_OPERATORS = {ast.USub: "negative", ast.UAdd: "positive", ast.Invert: "invert"}
COMPARISONS = {
    ast.Lt: "less", ast.LtE: "less_equal", ast.Eq: "equal", ast.NotEq: "not_equal",
    ast.Gt: "greater", ast.GtE: "greater_equal",
}
REDUCTIONS = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum"}
_NUMBER_TYPES = (bool, int, float, complex)


def _fail(what, node, source):
    segment = ast.get_source_segment(source, node) or ast.unparse(node)
    raise ValueError("titer.evaluate: %s is not allowed in an expression: %r"
                     % (what, segment))


def parse(source):
    """The tree of `source` (Name / Literal / Apply, a Reduction at the top)
    and the names it reads, in order of first use."""
    if not isinstance(source, str):
        raise TypeError("titer.evaluate: the expression must be a str, got %s"
                        % type(source).__name__)
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise ValueError("titer.evaluate: %r is not a Python expression (%s)"
                         % (source, exc.msg)) from None
    text = source.strip()
    body = tree.body
    if isinstance(body, ast.Call) and isinstance(body.func, ast.Name) \
            and body.func.id in REDUCTIONS:
        root = _reduction(body, text)
    else:
        root = _node(body, text)
    return root, _names(root)


def _names(node, found=None):
    found = [] if found is None else found
    if isinstance(node, Name):
        if node.id not in found:
            found.append(node.id)
    elif isinstance(node, Apply):
        for arg in node.args:
            _names(arg, found)
    elif isinstance(node, Reduction):
        _names(node.arg, found)
    return found


def _reduction(call, source):
    kind = call.func.id
    if not 1 <= len(call.args) <= 2:
        _fail("%s() with %d positional arguments (one expression and an axis)"
              % (kind, len(call.args)), call, source)
    axis = None
    axis_nodes = list(call.args[1:])
    for kw in call.keywords:
        if kw.arg != "axis":
            _fail("keyword %r of %s() (only axis=)" % (kw.arg, kind), kw, source)
        axis_nodes.append(kw.value)
    if len(axis_nodes) > 1:
        _fail("a second axis of %s()" % kind, call, source)
    if axis_nodes:
        axis = _axis(axis_nodes[0], source)
    return Reduction(REDUCTIONS[kind], kind, _node(call.args[0], source), axis)


def _axis(node, source):
    """axis= as written: None, an int or a tuple of ints (literals only)."""
    if isinstance(node, ast.Constant) and node.value is None:
        return None
    if isinstance(node, ast.Tuple):
        return tuple(_axis_int(e, source) for e in node.elts)
    return _axis_int(node, source)


def _axis_int(node, source):
    value = _signed_literal(node)
    if type(value) is not int:
        _fail("this axis (an int literal or a tuple of them)", node, source)
    return value


def _signed_literal(node):
    """A number literal, possibly with unary - or + (Python folds `-3` into
    one constant; so does titer), else None."""
    signs = []
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        signs.append(node.op)
        node = node.operand
    if not (isinstance(node, ast.Constant) and type(node.value) in _NUMBER_TYPES):
        return None
    value = node.value
    for op in reversed(signs):      # Python's own arithmetic: -True is -1, +True 1
        value = -value if isinstance(op, ast.USub) else +value
    return value


def _node(node, source):
    if isinstance(node, ast.Name):
        if node.id in REDUCTIONS:
            _fail("%s() inside an expression (reductions only at the top)" % node.id,
                  node, source)
        return Name(node.id)
    literal = _signed_literal(node)
    if literal is not None:
        return Literal(literal)
    text = ast.get_source_segment(source, node) or ast.unparse(node)
    if isinstance(node, ast.Constant):
        _fail("the constant %r (only numbers)" % (node.value,), node, source)
    if isinstance(node, ast.BinOp):
        op = BINARY_OPERATORS.get(type(node.op))
        if op is None:
            _fail("the operator %s" % type(node.op).__name__, node, source)
        return Apply(op, (_node(node.left, source), _node(node.right, source)), text)
    if isinstance(node, ast.UnaryOp):
        op = UNARY_OPERATORS.get(type(node.op))
        if op is None:
            _fail("the operator %s" % type(node.op).__name__, node, source)
        return Apply(op, (_node(node.operand, source),), text)
    if isinstance(node, ast.Compare):
        if len(node.ops) != 1:
            _fail("a chained comparison", node, source)
        op = COMPARISONS.get(type(node.ops[0]))
        if op is None:
            _fail("the comparison %s" % type(node.ops[0]).__name__, node, source)
        return Apply(op, (_node(node.left, source), _node(node.comparators[0], source)), text)
    if isinstance(node, ast.Call):
        return _call(node, source, text)
    if isinstance(node, ast.Attribute):
        _fail("attribute access", node, source)
    if isinstance(node, ast.Subscript):
        _fail("subscripting", node, source)
    if isinstance(node, ast.BoolOp):
        _fail("'and'/'or' (use & and | on bools)", node, source)
    _fail("%s" % type(node).__name__, node, source)


def _call(node, source, text):
    if not isinstance(node.func, ast.Name):
        _fail("calling anything but an op by name", node.func, source)
    name = node.func.id
    if name in REDUCTIONS:
        _fail("%s() inside an expression (reductions only at the top)" % name, node, source)
    canonical = _ops.canonical_name(name)
    if canonical is None:
        _fail("the function %r (titer.ops() lists the ops)" % name, node.func, source)
    op = _ops.OPS_BY_NAME[canonical]
    if op.nout != 1:
        _fail("%s (it has %d outputs)" % (name, op.nout), node, source)
    if node.keywords:
        _fail("keyword arguments to %s()" % name, node.keywords[0], source)
    for arg in node.args:
        if isinstance(arg, ast.Starred):
            _fail("a starred argument", arg, source)
    if len(node.args) != op.nin:
        _fail("%s() with %d arguments (it takes %d)" % (name, len(node.args), op.nin),
              node, source)
    return Apply(canonical, tuple(_node(arg, source) for arg in node.args), text)
