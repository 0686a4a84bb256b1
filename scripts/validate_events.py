"""Checks recorded event streams with the official models, not ours (issue 17).

Usage: validate_events.py CONTRACT_SCHEMA.json, then one stream a line on stdin (see
`main`). The tests (`tests/integration/common`: `assert_standard_official`, `assert_agora_clean`) send
every stream of every flow they run against a real server on /agui and /ws.

- Every event of both transports must validate as an AG-UI 1.0 `Event` of the PyPI package
  `ag-ui-protocol` 1.0.0 (pydantic models generated from the spec).
- The standard stream (/agui) must carry nothing those models do not define, at any depth:
  the 1.0 client strips unknown properties, so an extra would be lost.
- The AGORA stream (/ws) must also validate against the original system's contract,
  agora-contract/schemas/messages.json: each event against its `<Type>Event` definition, and
  the payloads of `agora:tool_approval_request` and `agora:error`.
"""

import json
import sys

import jsonschema
from pydantic import BaseModel, TypeAdapter

from ag_ui.core import Event
from ag_ui.core.capabilities import AgentCapabilities

EVENT = TypeAdapter(Event)


def extras(model, path):
    """Paths of fields the models do not define, anywhere under `model`."""
    found = []
    if isinstance(model, BaseModel):
        for key in (model.model_extra or {}):
            found.append(f"{path}.{key}")
        for name in type(model).model_fields:
            found += extras(getattr(model, name), f"{path}.{name}")
    elif isinstance(model, (list, tuple)):
        for i, item in enumerate(model):
            found += extras(item, f"{path}[{i}]")
    return found


def definition_name(event_type):
    return "".join(part.capitalize() for part in event_type.split("_")) + "Event"


def check(dialect, stream, schema):
    """The problems of one stream of `dialect` (`standard` for /agui, `agora` for /ws)."""
    definitions = schema["definitions"]
    problems = []
    if dialect == "capabilities":
        try:
            model = AgentCapabilities.model_validate(stream)
        except Exception as error:
            return [f"not AG-UI 1.0 AgentCapabilities: {error}"]
        return [f"{extra} is not in AG-UI 1.0" for extra in extras(model, "capabilities")]
    for i, event in enumerate(stream):
        where = f"{dialect} event {i} ({event.get('type')})"
        try:
            model = EVENT.validate_python(event)
        except Exception as error:  # pydantic's ValidationError, said as it is
            problems.append(f"{where}: not an AG-UI 1.0 event: {error}")
            continue
        if dialect == "standard":
            for extra in extras(model, "event"):
                problems.append(f"{where}: {extra} is not in AG-UI 1.0")
            continue
        name = definition_name(event["type"])
        if name in definitions:
            root = dict(schema, **{"$ref": f"#/definitions/{name}"})
            for error in jsonschema.Draft7Validator(root).iter_errors(event):
                problems.append(f"{where}: contract {name}: {error.message}")
        payloads = {
            "agora:tool_approval_request": "ToolApprovalRequestPayload",
            "agora:error": "ErrorPayload",
        }
        if event["type"] == "CUSTOM" and event.get("name") in payloads:
            payload = payloads[event["name"]]
            root = dict(schema, **{"$ref": f"#/definitions/{payload}"})
            for error in jsonschema.Draft7Validator(root).iter_errors(event["value"]):
                problems.append(f"{where}: contract {payload}: {error.message}")
    return problems


def main():
    """One request a line on stdin, `{"dialect", "events"}`; one answer a line on stdout,
    `{"problems": [...]}`: the tests keep one process for all their streams."""
    schema = json.load(open(sys.argv[1]))
    for line in sys.stdin:
        request = json.loads(line)
        problems = check(request["dialect"], request["events"], schema)
        sys.stdout.write(json.dumps({"problems": problems}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
