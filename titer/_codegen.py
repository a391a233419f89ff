"""Generate the C loops from the op table (run by setup.py at build time).

Output: ``titer/src/titer_generated.h`` (not committed).  It holds, for every
op-table signature, a one-line kernel and its 1-d loop, the table of loops
the Cython core reads at import, and the 14 x 14 cast table.
"""
import os
import sys

if __package__ in (None, ""):          # run as a script from setup.py
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _ops as ops                 # noqa: E402
else:
    from . import _ops as ops

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "src", "titer_generated.h")


def kernel_name(op, sig):
    return "titer_k_%s_%s" % (op.name, sig.replace("->", "_").replace("?", "B1"))


def loop_name(op, sig):
    return "titer_loop_%s_%s" % (op.name, sig.replace("->", "_").replace("?", "B1"))


def emit_kernel(op, sig):
    ins, outs = ops.parse_signature(sig)
    key, expr = ops.lookup_expr(op, ins)
    out_c = ops.C_TYPE[outs[0]]
    in_c = [ops.C_TYPE[c] for c in ins]
    args = "abcd"[:len(ins)]
    through_float = ins[0] == "e" and key not in ("e", "half")
    lines = []
    if through_float:
        # NumPy computes float16 in float and rounds once at the end.
        params = ", ".join("titer_half h%s" % v for v in args)
        lines.append("TITER_INLINE %s %s(%s) {" % (out_c, kernel_name(op, sig), params))
        lines.append("    typedef float T; typedef float U; (void)sizeof(T); (void)sizeof(U);")
        for v in args:
            lines.append("    float %s = titer_h2f(h%s);" % (v, v))
        result = "titer_f2h(%s)" % expr if outs[0] == "e" else "(%s)(%s)" % (out_c, expr)
    else:
        params = ", ".join("%s %s" % (t, v) for t, v in zip(in_c, args))
        lines.append("TITER_INLINE %s %s(%s) {" % (out_c, kernel_name(op, sig), params))
        unsigned = ops.UNSIGNED_TWIN.get(ins[0], in_c[0])
        lines.append("    typedef %s T; typedef %s U; (void)sizeof(T); (void)sizeof(U);"
                     % (in_c[0], unsigned))
        result = expr if outs[0] in "FD" else "(%s)(%s)" % (out_c, expr)
    lines.append("    return %s;" % result)
    lines.append("}")
    return "\n".join(lines)


def emit_loop(op, sig):
    ins, outs = ops.parse_signature(sig)
    c_in = [ops.C_TYPE[c] for c in ins]
    c_out = ops.C_TYPE[outs[0]]
    if op.nin == 1:
        body = "TITER_UNARY_LOOP(%s, %s, %s)" % (c_in[0], c_out, kernel_name(op, sig))
    else:
        body = "TITER_BINARY_LOOP(%s, %s, %s, %s)" % (c_in[0], c_in[1], c_out,
                                                     kernel_name(op, sig))
    return ("static void %s(char **data, const int64_t *strides, int64_t n) {\n"
            "    %s\n}" % (loop_name(op, sig), body))


def cast_expr(src, dst):
    """C expression converting `v` of type char `src` to type char `dst`."""
    if dst == "?":
        if src in "FD":
            return "(npy_bool_t)(v.re != 0 || v.im != 0)"
        if src == "e":
            return "(npy_bool_t)((v & 0x7fffu) != 0)"
        return "(npy_bool_t)(v != 0)"
    # a real value expression for the source
    if src == "e":
        real = "titer_h2f(v)"
    elif src in "FD":
        real = "v.re"
    else:
        real = "v"
    if dst == "e":
        if src == "e":
            return "v"
        if src in "fF" or src == "?":
            return "titer_f2h((float)(%s))" % real
        return "titer_d2h((double)(%s))" % real
    if dst in "FD":
        part = ops.C_TYPE[ops.COMPLEX_PART[dst]]
        if src in "FD":
            return "((%s){(%s)v.re, (%s)v.im})" % (ops.C_TYPE[dst], part, part)
        return "((%s){(%s)(%s), 0})" % (ops.C_TYPE[dst], part, real)
    return "(%s)(%s)" % (ops.C_TYPE[dst], real)


def emit_casts():
    out = []
    chars = ops.TYPECHARS
    for s in chars:
        for d in chars:
            out.append("static void titer_cast_%s_%s(const char *src, int64_t src_stride,"
                       " char *dst, int64_t dst_stride, int64_t n) {\n"
                       "    TITER_CAST_LOOP(%s, %s, %s)\n}"
                       % (_cname(s), _cname(d), ops.C_TYPE[s], ops.C_TYPE[d],
                          cast_expr(s, d)))
    rows = []
    for s in chars:
        rows.append("    {" + ", ".join("titer_cast_%s_%s" % (_cname(s), _cname(d))
                                        for d in chars) + "}")
    out.append("static const titer_cast_fn titer_cast_table[%d][%d] = {\n%s\n};"
               % (len(chars), len(chars), ",\n".join(rows)))
    return out


def emit_copies():
    """Same-dtype copy loops (the identity kernel), indexed by dtype code."""
    out = []
    for c in ops.TYPECHARS:
        t = ops.C_TYPE[c]
        out.append("static inline %s titer_k_copy_%s(%s v) { return v; }\n"
                   "static void titer_copy_%s(char **data, const int64_t *strides, int64_t n) {\n"
                   "    TITER_UNARY_LOOP(%s, %s, titer_k_copy_%s)\n}"
                   % (t, _cname(c), t, _cname(c), t, t, _cname(c)))
    for value, name in ((1, "true"), (0, "false")):
        # comparisons whose answer is fixed (an int beyond the dtype's range)
        out.append("static void titer_fill_%s(char **data, const int64_t *strides, int64_t n) {\n"
                   "    for (int64_t i = 0; i < n; i++) *(npy_bool_t *)(data[0] + i * strides[0]) = %d;\n}"
                   % (name, value))
    out.append("static const titer_loop1d titer_copy_table[%d] = {%s};"
               % (len(ops.TYPECHARS),
                  ", ".join("titer_copy_%s" % _cname(c) for c in ops.TYPECHARS)))
    return out


def _cname(char):
    return "B1" if char == "?" else char


def generate():
    parts = ["/* Generated by titer/_codegen.py from titer/_ops.py: do not edit. */",
             "#ifndef TITER_GENERATED_H", "#define TITER_GENERATED_H",
             '#include "titer_loops.h"', ""]
    entries = []
    for op in ops.OPS:
        for sig in op.types:
            parts.append(emit_kernel(op, sig))
            parts.append(emit_loop(op, sig))
            # "\\?" keeps "??-" from reading as a trigraph.
            entries.append('    {"%s", "%s", %s}'
                           % (op.name, sig.replace("?", "\\?"), loop_name(op, sig)))
    parts.append("typedef struct { const char *op; const char *sig; titer_loop1d fn; }"
                 " titer_loop_entry;")
    parts.append("static const titer_loop_entry titer_loop_table[] = {\n%s\n};"
                 % ",\n".join(entries))
    parts.append("static const int titer_loop_table_len = %d;" % len(entries))
    parts.extend(emit_casts())
    parts.extend(emit_copies())
    parts.append("#endif")
    return "\n\n".join(parts) + "\n"


def write(target=TARGET):
    text = generate()
    if os.path.exists(target):
        with open(target) as f:
            if f.read() == text:
                return target
    with open(target, "w") as f:
        f.write(text)
    return target


if __name__ == "__main__":
    print(write())
