"""The op table: the one declarative source of truth for titer's operations.

Each entry names a NumPy ufunc, its arity, the loop signatures titer compiles
(NumPy type characters, ``"ff->f"``) and the scalar expression per dtype kind.
``_codegen.py`` turns this table into the C loops; the tests and benchmarks
iterate over it too.  Expressions are C, in terms of the inputs ``a``, ``b``
and the types ``T`` (the input type) and ``U`` (its unsigned twin, used so
that integer wrap-around is defined behaviour, as NumPy's results are).
"""
from collections import namedtuple

# Canonical type characters, one per (kind, itemsize) on LP64 platforms.
# Order is titer's dtype code (0..13); the C side uses the same numbering.
TYPECHARS = "?bBhHiIlLefdFD"
BOOL, INTS, HALF, FLOATS, COMPLEX = "?", "bBhHiIlL", "e", "fd", "FD"
REALS = INTS + HALF + FLOATS
NUMERIC = BOOL + INTS + HALF + FLOATS + COMPLEX

C_TYPE = {
    "?": "npy_bool_t", "b": "int8_t", "B": "uint8_t", "h": "int16_t",
    "H": "uint16_t", "i": "int32_t", "I": "uint32_t", "l": "int64_t",
    "L": "uint64_t", "e": "titer_half", "f": "float", "d": "double",
    "F": "titer_cfloat", "D": "titer_cdouble",
}
UNSIGNED_TWIN = {"b": "uint8_t", "B": "uint8_t", "h": "uint16_t",
                 "H": "uint16_t", "i": "uint32_t", "I": "uint32_t",
                 "l": "uint64_t", "L": "uint64_t"}
# The real type a complex type is made of (for "F->f" loops like absolute).
COMPLEX_PART = {"F": "f", "D": "d"}


def kind_of(char):
    """The expression key that covers a type character, most general last."""
    if char == "?":
        return "bool"
    if char in "bhil":
        return "sint"
    if char in "BHIL":
        return "uint"
    if char == "e":
        return "half"
    if char in FLOATS:
        return "float"
    return "complex"


Op = namedtuple("Op", "name nin nout types expr aliases doc identity",
                defaults=(None,))
# identity: the value a reduction over an empty axis starts from (NumPy's
# ufunc.identity), or None where the op has none (maximum, minimum).


def same(chars, nin=2):
    """Signatures where every operand has the same type: 'ff->f'."""
    return [c * nin + "->" + c for c in chars]


def to_bool(chars, nin=2):
    """Signatures with a boolean result: 'ff->?'."""
    return [c * nin + "->?" for c in chars]


def complex_to_real(chars):
    return [c + "->" + COMPLEX_PART[c] for c in chars]


# Expression lookup: an op's ``expr`` maps a type character or a kind
# (``bool``, ``sint``, ``uint``, ``int`` = sint+uint, ``half``, ``float``,
# ``real`` = everything but complex, ``complex``) to a C expression.  Half
# without its own entry is computed in float and rounded, as NumPy does.
OPS = [
    Op("add", 2, 1, same(NUMERIC), {
        "bool": "a || b", "int": "(T)((U)a + (U)b)", "float": "a + b",
        "complex": "titer_cmake(a.re + b.re, a.im + b.im)"}, (), "a + b", 0),
    Op("subtract", 2, 1, same(INTS + HALF + FLOATS + COMPLEX), {
        "int": "(T)((U)a - (U)b)", "float": "a - b",
        "complex": "titer_cmake(a.re - b.re, a.im - b.im)"}, (), "a - b"),
    Op("multiply", 2, 1, same(NUMERIC), {
        "bool": "a && b", "int": "(T)((U)a * (U)b)", "float": "a * b",
        "complex": "titer_cmul(a, b)"}, (), "a * b", 1),
    Op("divide", 2, 1, same(HALF + FLOATS + COMPLEX), {
        "float": "a / b", "complex": "titer_cdiv(a, b)"},
       ("true_divide",), "a / b"),
    Op("negative", 1, 1, same(INTS + HALF + FLOATS + COMPLEX, 1), {
        "int": "(T)(-(U)a)", "half": "(titer_half)(a ^ 0x8000u)",
        "float": "-a", "complex": "titer_cmake(-a.re, -a.im)"}, (), "-a"),
    Op("positive", 1, 1, same(INTS + HALF + FLOATS + COMPLEX, 1), {
        "real": "a", "complex": "a"}, (), "+a"),
    Op("absolute", 1, 1, same(BOOL + INTS + HALF + FLOATS, 1)
       + complex_to_real(COMPLEX), {
        "bool": "a", "uint": "a", "sint": "(T)(a < 0 ? -(U)a : (U)a)",
        "half": "(titer_half)(a & 0x7fffu)", "float": "titer_fabs(a)",
        "complex": "titer_cabs(a)"}, ("abs",), "|a|"),
    Op("square", 1, 1, same(INTS + HALF + FLOATS + COMPLEX, 1), {
        "int": "(T)((U)a * (U)a)", "float": "a * a",
        "complex": "titer_cmul(a, a)"}, (), "a * a"),
    Op("maximum", 2, 1, same(NUMERIC), {
        "bool": "a || b", "int": "(a >= b ? a : b)",
        "half": "((titer_half_ge(a, b) || titer_half_isnan(a)) ? a : b)",
        "float": "((a >= b || a != a) ? a : b)",
        "complex": "((titer_cge(a, b) || a.re != a.re || a.im != a.im)"
                   " ? a : b)"}, (), "max(a, b), NaN propagates"),
    Op("minimum", 2, 1, same(NUMERIC), {
        "bool": "a && b", "int": "(a <= b ? a : b)",
        "half": "((titer_half_le(a, b) || titer_half_isnan(a)) ? a : b)",
        "float": "((a <= b || a != a) ? a : b)",
        "complex": "((titer_cle(a, b) || a.re != a.re || a.im != a.im)"
                   " ? a : b)"}, (), "min(a, b), NaN propagates"),
]

# Comparisons share a shape: a C operator on reals, a helper on complex, and
# the mixed int64/uint64 loops NumPy has so that they compare exactly.
_COMPARISONS = [
    ("equal", "==", "titer_ceq", "a == b"),
    ("not_equal", "!=", "!titer_ceq", "a != b"),
    ("less", "<", "titer_clt", "a < b"),
    ("less_equal", "<=", "titer_cle", "a <= b"),
    ("greater", ">", "titer_cgt", "a > b"),
    ("greater_equal", ">=", "titer_cge", "a >= b"),
]
for _name, _cop, _cfun, _doc in _COMPARISONS:
    OPS.append(Op(_name, 2, 1, to_bool(NUMERIC) + ["lL->?", "Ll->?"], {
        "real": "(a %s b)" % _cop,
        "complex": "%s(a, b)" % _cfun,
        "lL": "titer_cmp_sl_%s(a, b)" % _name,
        "Ll": "titer_cmp_ls_%s(a, b)" % _name}, (), _doc))

OPS_BY_NAME = {op.name: op for op in OPS}
ALIASES = {alias: op.name for op in OPS for alias in op.aliases}


def canonical_name(name):
    """The op-table name for a NumPy name or alias, or None."""
    if name in OPS_BY_NAME:
        return name
    return ALIASES.get(name)


def parse_signature(sig):
    """'ff->?' -> ('ff', '?')."""
    ins, outs = sig.split("->")
    return ins, outs


def lookup_expr(op, in_chars):
    """The C expression an op uses for the given input type characters."""
    char = in_chars[0]
    kind = kind_of(char)
    for key in (in_chars, char, kind,
                "int" if kind in ("sint", "uint") else None,
                "real" if kind != "complex" else None,
                "float" if kind == "half" else None):
        if key is not None and key in op.expr:
            return key, op.expr[key]
    raise KeyError("op %s has no expression for %r" % (op.name, in_chars))
