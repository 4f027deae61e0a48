#!/usr/bin/env python3
"""Turns `llvm-tblgen --dump-json` output of ODS files into the op table the
`wsp.ops` builders read: per op its operands, attributes, results, regions
and the traits a builder needs. One home for op signatures: the ODS files
themselves (run at build time, never edited by hand).

    ods_spec.py OUT.json IN.json...
"""

import json
import sys
import textwrap

# builderCall -> the type it builds, for results of a fixed type.
BUILDABLE = {
    "$_builder.getIndexType()": "index",
    "$_builder.getIntegerType(1)": "i1",
    "$_builder.getIntegerType(8)": "i8",
    "$_builder.getIntegerType(16)": "i16",
    "$_builder.getIntegerType(32)": "i32",
    "$_builder.getIntegerType(64)": "i64",
    "$_builder.getF16Type()": "f16",
    "$_builder.getBF16Type()": "bf16",
    "$_builder.getF32Type()": "f32",
    "$_builder.getF64Type()": "f64",
}

# Attribute kinds the builders convert Python values for; anything else
# takes its MLIR text (wsp.ir.Attr).
ATTR_KINDS = [
    ("UnitAttr", "unit"),
    ("BoolAttr", "bool"),
    ("EnumAttrInfo", "enum"),
    ("DenseArrayAttrBase", "array"),
    ("FlatSymbolRefAttr", "symbol"),
    ("SymbolRefAttr", "symbol"),
    ("TypeAttrBase", "type"),
    ("StrAttr", "string"),
    ("StringBasedAttr", "string"),
    ("FloatAttrBase", "float"),
    ("TypedSignlessIntegerAttrBase", "int"),
    ("TypedUnsignedIntegerAttrBase", "int"),
    ("SignlessIntegerAttrBase", "int"),
    ("IntegerAttrBase", "int"),
    ("TypedAttrBase", "int"),
]


def unwrap(records, name):
    """The constraint an `Arg<...>` (OpVariable) wraps, else `name`."""
    rec = records.get(name, {})
    while "OpVariable" in rec.get("!superclasses", []) and \
            isinstance(rec.get("constraint"), dict):
        name = rec["constraint"]["def"]
        rec = records.get(name, {})
    return name


def supers(records, name):
    return records.get(name, {}).get("!superclasses", []) + [name]


# Constraints whose scalar form is one type (arith.cmpi's BoolLike).
SCALAR_OF = {"BoolLike": "i1", "BoolLikeOfAnyRank": "i1"}


def type_text(records, name):
    """The MLIR spelling of a buildable type def, or None."""
    return SCALAR_OF.get(name) or BUILDABLE.get(
        records.get(name, {}).get("builderCall") or "")


def attr_spec(records, name):
    rec = records[name]
    sup = supers(records, name)
    spec = {"optional": "OptionalAttr" in sup or "DefaultValuedAttr" in sup
            or "DefaultValuedOptionalAttr" in sup or "UnitAttr" in sup
            or "OptionalProp" in sup or "DefaultValuedProp" in sup}
    base = rec
    if "baseAttr" in rec and isinstance(rec["baseAttr"], dict):
        base = records.get(rec["baseAttr"]["def"], rec)
    names = supers(records, base.get("!name", name)) if "!name" in base \
        else sup
    spec["kind"] = "raw"
    for cls, kind in ATTR_KINDS:
        if cls in names:
            spec["kind"] = kind
            break
    if spec["kind"] == "array":
        # The element from the storage class (::mlir::DenseI16ArrayAttr).
        storage = base.get("storageType", "")
        spec["element"] = next(
            (t for c, t in (("Bool", "i1"), ("I8", "i8"), ("I16", "i16"),
                            ("I32", "i32"), ("I64", "i64"), ("F32", "f32"),
                            ("F64", "f64"))
             if storage.endswith("Dense%sArrayAttr" % c)), "i64")
    if spec["kind"] in ("int", "float"):
        vt = base.get("valueType")
        spec["type"] = type_text(records, vt["def"]) if isinstance(vt, dict) \
            else None
        if spec["type"] is None:
            spec["kind"] = "raw"
    if spec["kind"] == "enum":
        spec["cases"] = {}
        for case in base.get("enumerants", []):
            crec = records.get(case["def"], {})
            spec["cases"][crec.get("str", crec.get("symbol"))] = \
                crec.get("value")
        spec["type"] = "i%d" % base.get("bitwidth", 64) \
            if base.get("bitwidth") else "i64"
    return spec


def op_spec(records, rec):
    dialect = records[rec["opDialect"]["def"]]["name"]
    operands, attrs, order = [], [], []
    for arg, name in rec["arguments"]["args"]:
        order.append(name)
        cname = unwrap(records, arg["def"])
        sup = supers(records, cname)
        if "Attr" in sup or "AttrConstraint" in sup or "Property" in sup:
            a = attr_spec(records, cname)
            a["name"] = name
            attrs.append(a)
        else:
            kind = "variadic" if "Variadic" in sup else \
                "optional" if "Optional" in sup else "single"
            operands.append({"name": name, "kind": kind})
    results = []
    for res, name in rec["results"]["args"]:
        cname = unwrap(records, res["def"])
        sup = supers(records, cname)
        kind = "variadic" if "Variadic" in sup else \
            "optional" if "Optional" in sup else "single"
        results.append({"name": name, "kind": kind,
                        "type": type_text(records, cname)})
    regions = [name for _, name in rec["regions"]["args"]]
    traits = []
    same_as = {}
    element_of = {}
    for t in rec.get("traits", []):
        tname = t["def"]
        trec = records.get(tname, {})
        traits.append(tname)
        # AllTypesMatch<["lhs", "result"]>: a result typed as an operand.
        values = trec.get("values")
        if isinstance(values, list) and "AllTypesMatch" in \
                trec.get("!superclasses", []):
            ops = [v for v in values if any(o["name"] == v for o in operands)]
            for v in values:
                if ops and any(r["name"] == v for r in results):
                    same_as[v] = ops[0]
        # TypesMatchWith<..., "memref", "result", "...getElementType()">:
        # a result typed as an operand's element type (memref.load).
        if "TypesMatchWith" in trec.get("!superclasses", []) and \
                "getElementType()" in str(trec.get("transformer", "")) and \
                any(o["name"] == trec.get("lhs") for o in operands) and \
                any(r["name"] == trec.get("rhs") for r in results):
            element_of[trec["rhs"]] = trec["lhs"]
    keep = {"SameOperandsAndResultType", "AttrSizedOperandSegments",
            "AttrSizedResultSegments", "IsolatedFromAbove", "Symbol"}
    return dialect, rec["opName"], {
        "operands": operands, "attributes": attrs, "order": order,
        "results": results,
        "regions": regions,
        "traits": sorted(t for t in traits if t in keep),
        "result_same_as": same_as,
        "result_element_of": element_of,
        # What help() shows: the op's summary and description (the llm
        # ops' give each operand's shape and dtype in a table).
        "summary": rec.get("summary") or "",
        "description": textwrap.dedent(rec.get("description") or "").strip(),
    }


def main(argv):
    out, inputs = argv[1], argv[2:]
    table = {}
    for path in inputs:
        with open(path) as f:
            records = json.load(f)
        for name in records["!instanceof"].get("Op", []):
            rec = records[name]
            if not isinstance(rec.get("opDialect"), dict):
                continue
            dialect, op, spec = op_spec(records, rec)
            table.setdefault(dialect, {})[op] = spec
    with open(out, "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv)
