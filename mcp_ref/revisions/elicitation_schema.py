"""The restricted schema of form-mode elicitation, and the content that answers it.

Spec page: client/elicitation
Its "requested schema" (2025-06-18; enums with titles and defaults 2025-11-25).
https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation#requested-schema
https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#requested-schema

In short:

1. A ``requestedSchema`` is a JSON Schema object (``"type": "object"``) whose ``properties`` are
   flat: no nested object, no array of objects. ``required`` lists the names that must be answered.
2. Each property is one of: a string (``minLength``, ``maxLength``, ``pattern``, ``format``: email,
   uri, date or date-time); a number or integer (``minimum``, ``maximum``); a boolean; an enum, a
   string with ``enum`` (2025-06-18 may add ``enumNames``, display names in the same order). Any
   of them may have a ``title`` and a ``description``.
3. 2025-11-25 adds a ``default`` to every kind (2025-06-18 had it on booleans only), a single
   choice with a title per value (``oneOf`` of ``{"const", "title"}``), and a multiple choice: an
   ``array`` whose ``items`` are such an enum (``enum``, or ``anyOf`` with titles), with
   ``minItems``/``maxItems``.
4. The content of an ``accept`` maps property names to values of those kinds (strings, numbers,
   booleans, lists of strings) and should fit the schema.

``requested_schema`` turns what ``ctx.elicit`` is given into the wire's schema and checks it for
the session's revision (strictly: an unknown keyword is an error, since it is ours to send);
``schema_problem`` is that check, lenient on unknown keywords when it is the peer's schema;
``checked_content`` checks an answer against it.

The Pythonic form of a schema: a dict of property name -> ``str``, ``int``, ``float``, ``bool``, a
list of strings (an enum), or a property dict as on the wire; each of them is required, but a
property dict with a ``default``. ``{"name": str, "age": int, "size": ["S", "M", "L"]}``.
"""

from __future__ import annotations

from typing import Any

from ..lifecycle import since

Schema = dict[str, Any]

PYTHON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}
FORMATS = ("email", "uri", "date", "date-time")
COMMON = {"type", "title", "description", "default"}
# The keywords each kind of property may have, besides COMMON (items 2 and 3).
KEYWORDS = {
    "string": {"minLength", "maxLength", "pattern", "format", "enum", "enumNames", "oneOf"},
    "number": {"minimum", "maximum"},
    "integer": {"minimum", "maximum"},
    "boolean": set(),
    "array": {"items", "minItems", "maxItems"},
}
TOP_KEYWORDS = {"$schema", "type", "properties", "required", "title", "description"}


def _property(value: Any) -> dict[str, Any]:
    """One property of the Pythonic form, as on the wire."""
    if isinstance(value, type) and value in PYTHON_TYPES:
        return {"type": PYTHON_TYPES[value]}
    if isinstance(value, list):
        return {"type": "string", "enum": list(value)}
    if isinstance(value, dict):
        return dict(value)
    raise ValueError(f"a field is str, int, float, bool, a list of choices or a property schema, not {value!r}")


def requested_schema(schema: Any, version: str | None) -> dict[str, Any]:
    """The wire's ``requestedSchema`` for ``schema`` (wire or Pythonic), checked for a session of
    ``version``; ValueError saying what is wrong otherwise."""
    if not isinstance(schema, dict):
        raise ValueError(f"the requested schema must be a dict, not {type(schema).__name__}")
    if schema.get("type") != "object":  # the Pythonic form: name -> field
        properties = {name: _property(value) for name, value in schema.items()}
        required = [name for name, prop in properties.items() if "default" not in prop]
        schema = {"type": "object", "properties": properties, **({"required": required} if required else {})}
    problem = schema_problem(schema, version, strict=True)
    if problem is not None:
        raise ValueError(f"elicitation needs a flat schema of primitive properties: {problem}")
    return dict(schema)


def schema_problem(schema: Any, version: str | None, *, strict: bool) -> str | None:
    """Why ``schema`` is not a requested schema of revision ``version`` (None: the newest), or None.
    ``strict``: unknown keywords count too (for what we send; a peer's are ignored)."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return 'the schema must be an object schema ("type": "object")'
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return '"properties" must be an object'
    if strict and set(schema) - TOP_KEYWORDS:
        return f"unknown keyword(s) at the top: {sorted(set(schema) - TOP_KEYWORDS)}"
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(name, str) and name in properties for name in required):
        return '"required" must list names of properties'
    for name, prop in properties.items():
        problem = _property_problem(prop, version, strict)
        if problem is not None:
            return f"property {name!r}: {problem}"
    return None


def _choices_problem(choices: Any, titled: bool) -> str | None:
    if titled:
        ok = isinstance(choices, list) and all(
            isinstance(c, dict) and isinstance(c.get("const"), str) and isinstance(c.get("title"), str) for c in choices)
        return None if ok and choices else 'the choices must be a list of {"const": str, "title": str}'
    ok = isinstance(choices, list) and all(isinstance(c, str) for c in choices)
    return None if ok and choices else "an enum must be a non-empty list of strings"


def _property_problem(prop: Any, version: str | None, strict: bool) -> str | None:
    kind = prop.get("type") if isinstance(prop, dict) else None
    if kind not in KEYWORDS:
        return 'a property is a string, number, integer, boolean or (2025-11-25) array schema'
    later = version is None or since(version, "2025-11-25")  # revisions/v2025_11_25.py, item 4
    if strict and set(prop) - COMMON - KEYWORDS[kind]:
        return f"unknown keyword(s) for a {kind}: {sorted(set(prop) - COMMON - KEYWORDS[kind])}"
    if not later and (kind == "array" or "oneOf" in prop or ("default" in prop and kind != "boolean")):
        return (f"multiple choices, titled choices and defaults (but a boolean's) came with 2025-11-25; "
                f"this session speaks {version}")
    if kind == "string" and prop.get("format", "email") not in FORMATS:
        return f'"format" must be one of {", ".join(FORMATS)}'
    problem = None
    if "enum" in prop:
        problem = _choices_problem(prop["enum"], titled=False)
    elif "oneOf" in prop:
        problem = _choices_problem(prop["oneOf"], titled=True)
    elif kind == "array":
        items = prop.get("items")
        if not isinstance(items, dict) or ("enum" in items) == ("anyOf" in items):
            return 'a multiple choice needs "items" with "enum" (strings) or "anyOf" (titled)'
        problem = _choices_problem(items.get("enum", items.get("anyOf")), titled="anyOf" in items)
    if problem is None and "default" in prop:
        problem = value_problem(prop["default"], prop)
        problem = problem and f'"default": {problem}'
    return problem


def value_problem(value: Any, prop: dict[str, Any]) -> str | None:
    """Why ``value`` does not fit the property ``prop`` (jsonschema's words), or None."""
    import jsonschema  # loaded on first use, as everywhere

    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(prop).iter_errors(value))
    return None if error is None else str(error.message)


def checked_content(content: Any, schema: dict[str, Any]) -> dict[str, Any]:
    """Item 4: ``content`` if it answers ``schema`` (no name it did not ask, every required one, each
    value of its property's kind and within its limits); ValueError saying what is wrong otherwise."""
    if not isinstance(content, dict):
        raise ValueError(f'"content" must be an object, not {type(content).__name__}')
    properties = schema["properties"]
    unknown = sorted(set(content) - set(properties))
    if unknown:
        raise ValueError(f"content has field(s) the schema did not ask for: {unknown}")
    missing = [name for name in schema.get("required", []) if name not in content]
    if missing:
        raise ValueError(f"content lacks required field(s): {missing}")
    for name, value in content.items():
        problem = value_problem(value, properties[name])
        if problem is not None:
            raise ValueError(f"content field {name!r}: {problem}")
    return content
