#!/usr/bin/env python3
"""Writes GstCclAlgorithm from the engine's registry of labeling algorithms.

    gen-algorithm-enum.py ALGORITHMS_DEF OUT_HEADER OUT_SOURCE

ALGORITHMS_DEF is kernels/include/ccl/algorithms.def: one line per algorithm,
CCL_ALGORITHM(Enumerator, "nick", "title", "description"). OUT_HEADER (installed as
gst/ccl/gstcclalgorithm.h) declares the enum, one value per line in registry order,
GST_CCL_ALGORITHM_<nick in upper case, '-' as '_'> = its position, with a gtk-doc
comment that GObject introspection and gtk-doc read; OUT_SOURCE defines
gst_ccl_algorithm_get_type(), whose GEnumValues carry the registry's nick and title.

The position is the value in the library's ABI, so the registry only ever appends.
"""
import re
import sys

# A C string literal without escapes other than \" and \\ (all the registry needs).
STRING = r'"((?:[^"\\\n]|\\["\\])*)"'
ENTRY = re.compile(r"CCL_ALGORITHM\(\s*(\w+)\s*,\s*" + r"\s*,\s*".join([STRING] * 3) +
                   r"\s*\)")
NICK = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


def fail(path, message):
    sys.exit(f"{path}: {message}")


def unescape(literal):
    return literal.replace('\\"', '"').replace("\\\\", "\\")


def read_registry(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # Only lines outside comments count, as for the C preprocessor.
    code = re.sub(r"//[^\n]*", "", text)
    code = re.sub(r"/\*.*?\*/", "", code, flags=re.S)
    entries = []
    for m in ENTRY.finditer(code):
        enumerator, nick, title, description = m.groups()
        nick, title, description = unescape(nick), unescape(title), unescape(description)
        if not NICK.fullmatch(nick):
            fail(path, f"nick '{nick}' is not lower-case words joined by '-'")
        if "*/" in title + description:
            fail(path, f"the text of '{nick}' would end the documentation comment")
        entries.append((enumerator, nick, title, description))
    if code.count("CCL_ALGORITHM(") != len(entries):
        fail(path, "a CCL_ALGORITHM line is not CCL_ALGORITHM(Enumerator, \"nick\", "
             "\"title\", \"description\") with plain string literals")
    if not entries:
        fail(path, "no CCL_ALGORITHM lines")
    for i, field in enumerate(["enumerator", "nick"]):
        seen = [e[i] for e in entries]
        dup = {x for x in seen if seen.count(x) > 1}
        if dup:
            fail(path, f"{field} repeated: {', '.join(sorted(dup))}")
    return entries


def value_name(nick):
    return "GST_CCL_ALGORITHM_" + nick.upper().replace("-", "_")


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def wrap(prefix, text, indent, width=79):
    """prefix + text as comment lines of at most width columns."""
    lines, line = [], prefix
    for word in text.split():
        if len(line) + 1 + len(word) > width and line.strip(" *"):
            lines.append(line)
            line = indent + word
        else:
            line += (" " if not line.endswith(" ") else "") + word
    lines.append(line)
    return lines


def preamble(source):
    """The comment that opens both generated files."""
    return [f"/* Generated from {source} by",
            " * plugin/meta/gen-algorithm-enum.py: edit the registry, not this file.",
            " *",
            " * SPDX-License-Identifier: LGPL-2.1-or-later",
            " */"]


def header(entries, source):
    doc = []
    for _, nick, title, description in entries:
        doc += wrap(f" * @{value_name(nick)}:", f"{title}: {description} (\"{nick}\")",
                    " *   ")
    values = [f"  {value_name(nick)} = {i}," for i, (_, nick, _, _) in enumerate(entries)]
    return "\n".join([
        *preamble(source),
        "#ifndef __GST_CCL_ALGORITHM_H__",
        "#define __GST_CCL_ALGORITHM_H__",
        "",
        "#include <glib-object.h>",
        "#include <gst/ccl/ccl-prelude.h>",
        "",
        "G_BEGIN_DECLS",
        "",
        "/**",
        " * GstCclAlgorithm:",
        *doc,
        " *",
        " * The labeling algorithm that produced a #GstCclMeta, one value per entry of",
        " * the engine's registry of algorithms, in its order (new algorithms are",
        " * appended, so a value never changes). The value's nick is the name the",
        " * cudaccl element's algorithm property takes. Every algorithm yields the same",
        " * labels and features; the value only documents how they were found.",
        " */",
        "typedef enum {",
        *values,
        "} GstCclAlgorithm;",
        "",
        "#define GST_TYPE_CCL_ALGORITHM (gst_ccl_algorithm_get_type ())",
        "GST_CCL_API",
        "GType gst_ccl_algorithm_get_type (void);",
        "",
        "G_END_DECLS",
        "",
        "#endif /* __GST_CCL_ALGORITHM_H__ */",
        "",
    ])


def source_file(entries, source):
    values = []
    for _, nick, title, _ in entries:
        values.append(f"    {{{value_name(nick)}, {c_string(title)},")
        values.append(f"        {c_string(nick)}}},")
    return "\n".join([
        *preamble(source),
        "#include \"gst/ccl/gstcclalgorithm.h\"",
        "",
        "GType",
        "gst_ccl_algorithm_get_type (void)",
        "{",
        "  static GType type = 0;",
        "  static const GEnumValue values[] = {",
        *values,
        "    {0, NULL, NULL},",
        "  };",
        "",
        "  if (g_once_init_enter (&type)) {",
        "    GType t = g_enum_register_static (\"GstCclAlgorithm\", values);",
        "    g_once_init_leave (&type, t);",
        "  }",
        "  return type;",
        "}",
        "",
    ])


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__.split("\n\n")[1])
    registry, out_header, out_source = argv[1:]
    entries = read_registry(registry)
    name = "kernels/include/ccl/algorithms.def"
    for path, text in [(out_header, header(entries, name)),
                       (out_source, source_file(entries, name))]:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main(sys.argv)
