"""Arguments for a tool call, made from the tool's input schema (``check server --call-tools``).

Not a spec section: a helper of the conformance checker's tool cases (server_tools.py). The tools
page gives each tool an ``inputSchema``, a JSON Schema; to call a tool, the kit needs arguments
that meet it:
  https://modelcontextprotocol.io/specification/2024-11-05/server/tools

1. The kit's own generator (``_value``) fills the required properties with a plain value for each
   construct the tools of 2024-11-05 servers use: a type or a list of types, ``enum``, ``const``,
   ``default``, strings of a ``format`` (uri, date-time, date, email, uuid) and of a length,
   numbers within bounds, arrays of ``minItems`` (and at most ``maxItems``) items, nested objects,
   ``anyOf`` and ``oneOf`` (the first branch it can meet), and ``$ref`` to ``$defs`` or
   ``definitions``.
2. Where that fails, or what it makes does not meet the schema (a ``pattern``, ``uniqueItems``,
   a ``oneOf`` whose branches overlap), the optional extra hypothesis-jsonschema is asked, if it
   is installed (``pip install 'mcp-ref[check]'``): ``hypothesis.find`` returns the first value it
   makes, the same one every run (derandomized). Without it, the tool is not called, and the reason says how
   to install it.
3. Every value is checked against the schema with jsonschema before it is sent: the kit never
   blames a server for refusing arguments its schema does not accept.
"""

from __future__ import annotations

import functools
import json
import threading
from dataclasses import dataclass
from typing import Any

FILLER = "mcp-ref-check"  # as helpers.FILLER: the kit's name, in the values it makes up
INSTALL = "pip install 'mcp-ref[check]' (or pip install hypothesis-jsonschema)"
FORMATS = {"uri": "https://example.com/mcp-ref-check", "uri-reference": "https://example.com/mcp-ref-check",
           "url": "https://example.com/mcp-ref-check", "date-time": "2024-11-05T00:00:00Z", "date": "2024-11-05",
           "time": "00:00:00Z", "email": "mcp-ref-check@example.com", "hostname": "example.com",
           "uuid": "00000000-0000-4000-8000-000000000000", "ipv4": "127.0.0.1"}
TYPE_ORDER = ("string", "integer", "number", "boolean", "object", "array", "null")
MAX_DEPTH = 8  # nested objects and $ref chains deeper than this are left to hypothesis-jsonschema


class _Unmet:
    def __repr__(self) -> str:
        return "UNMET"


UNMET: Any = _Unmet()  # "the kit's own generator has no value for this"


@dataclass(frozen=True)
class Made:
    """What the kit could make for a schema: ``arguments``, or None and ``why`` not; ``by`` says
    which generator made them (the kit's own, or hypothesis-jsonschema)."""

    arguments: dict[str, Any] | None
    why: str = ""
    by: str = "the kit"


def arguments_for(schema: Any) -> dict[str, Any] | None:
    """Arguments that meet ``schema`` (checked with jsonschema), or None."""
    return make(schema).arguments


def make(schema: Any) -> Made:
    """Arguments for ``schema``, or why there are none (see the module docstring)."""
    if not isinstance(schema, dict):
        return Made(None, "its inputSchema is not an object")
    return _make(json.dumps(schema, sort_keys=True))


@functools.lru_cache(maxsize=256)
def _make(key: str) -> Made:
    schema = json.loads(key)
    own = _object(schema, schema, 0)
    if own is not UNMET and arguments_valid(schema, own) is not False:
        return Made(own)
    try:
        import hypothesis_jsonschema  # noqa: F401  (an optional extra: only asked here)
    except ImportError:
        return Made(None, "the kit's own generator cannot make arguments that meet its inputSchema, and the "
                    f"optional hypothesis-jsonschema that can is not installed: {INSTALL}")
    found = _from_hypothesis(schema)
    if isinstance(found, Exception):
        return Made(None, f"hypothesis-jsonschema found no arguments that meet its inputSchema ({type(found).__name__}: "
                    f"{str(found)[:120]})")
    if not isinstance(found, dict) or arguments_valid(schema, found) is False:
        return Made(None, "hypothesis-jsonschema made arguments its inputSchema does not accept")
    return Made(found, by="hypothesis-jsonschema")


_HYPOTHESIS = threading.Lock()  # cases run in threads; one search at a time


def _from_hypothesis(schema: dict[str, Any]) -> Any:
    """The first value hypothesis-jsonschema makes for ``schema`` (``derandomize``: the same one
    every run; no shrinking, which takes tens of seconds a schema), or the exception that stopped it."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis_jsonschema import from_schema

    quiet = settings(database=None, derandomize=True, max_examples=50, deadline=None, phases=[Phase.generate],
                     suppress_health_check=list(HealthCheck))
    with _HYPOTHESIS:
        try:
            return find(from_schema(schema), lambda _: True, settings=quiet)
        except Exception as exc:  # an unsatisfiable schema, a construct it does not know, another hypothesis
            return exc


def arguments_valid(schema: Any, arguments: Any) -> bool | None:
    """Do ``arguments`` meet ``schema``, by jsonschema? None when the schema itself is not valid."""
    if not isinstance(schema, dict):
        return None
    import jsonschema

    try:
        validator = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
        validator.check_schema(schema)
        return bool(validator(schema).is_valid(arguments))
    except Exception:  # not valid JSON Schema, or one jsonschema cannot use (a $ref it cannot reach): no verdict
        return None


# --- the kit's own generator ---------------------------------------------------------------------


def _object(schema: dict[str, Any], root: dict[str, Any], depth: int) -> Any:
    """An object with a value for each required property (the optional ones are left out)."""
    properties: dict[str, Any] = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
    made: dict[str, Any] = {}
    for name in schema.get("required") or []:
        value = _value(properties.get(name), root, depth + 1)
        if value is UNMET:
            return UNMET
        made[name] = value
    if len(made) < int(schema.get("minProperties", 0)):
        return UNMET
    return made


def _value(prop: Any, root: dict[str, Any], depth: int) -> Any:
    """A value that meets ``prop``, or UNMET."""
    if prop is True or prop == {}:
        return FILLER
    if not isinstance(prop, dict) or depth > MAX_DEPTH:
        return UNMET
    if isinstance(prop.get("$ref"), str):
        return _value(_resolve(prop["$ref"], root), root, depth + 1)
    if "default" in prop:
        return prop["default"]
    if isinstance(prop.get("enum"), list) and prop["enum"]:
        return prop["enum"][0]
    if "const" in prop:
        return prop["const"]
    for word in ("anyOf", "oneOf"):  # the first branch the kit can meet (checked whole afterwards)
        if isinstance(prop.get(word), list):
            return next((v for v in (_value(branch, root, depth + 1) for branch in prop[word]) if v is not UNMET), UNMET)
    kinds = prop.get("type")
    if isinstance(kinds, list):  # a union of types: the first one, in TYPE_ORDER, the kit can meet
        ordered = sorted((k for k in kinds if k in TYPE_ORDER), key=TYPE_ORDER.index)
        return next((v for v in (_typed(k, prop, root, depth) for k in ordered) if v is not UNMET), UNMET)
    if kinds is None and isinstance(prop.get("properties"), dict):
        kinds = "object"
    return _typed(str(kinds), prop, root, depth)


def _typed(kind: str, prop: dict[str, Any], root: dict[str, Any], depth: int) -> Any:
    if kind == "string":
        if "pattern" in prop:
            return UNMET  # left to hypothesis-jsonschema
        text = FORMATS.get(str(prop.get("format")), FILLER) if "format" in prop else FILLER
        if "format" in prop and prop["format"] not in FORMATS:
            return UNMET
        text = text.ljust(int(prop.get("minLength", 0)), "x")
        return text if len(text) <= int(prop.get("maxLength", 10**6)) else UNMET
    if kind in ("integer", "number"):
        low = prop.get("minimum", prop.get("exclusiveMinimum"))
        value = 1 if low is None else low + (1 if "exclusiveMinimum" in prop and "minimum" not in prop else 0)
        value = int(value) if kind == "integer" and float(value).is_integer() else value
        high = prop.get("maximum")
        return value if high is None or value <= high else UNMET
    if kind == "array":
        count = max(1, int(prop.get("minItems", 0)))
        if count > int(prop.get("maxItems", count)):
            count = int(prop["maxItems"])
        item = _value(prop.get("items", {}), root, depth + 1) if count else None
        if item is UNMET:
            return [] if not prop.get("minItems") else UNMET
        return [item] * count  # uniqueItems with two or more: jsonschema refuses it, hypothesis is asked
    if kind == "object":
        return _object(prop, root, depth)
    return {"boolean": False, "null": None}.get(kind, UNMET)


def _resolve(ref: str, root: dict[str, Any]) -> Any:
    """``#/$defs/Name`` or ``#/definitions/Name`` in the tool's own schema; None otherwise."""
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for part in ref[2:].split("/"):
        node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, dict) else None
    return node
