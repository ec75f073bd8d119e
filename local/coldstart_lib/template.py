"""The template: its functions, their environment resolved with local-safe values, and the
throwaway JWT keys."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml  # from local/.venv, as are boto3 and cryptography below

from .common import ACCOUNT, REGION, ROOT, STACK, log


class _CfnLoader(yaml.SafeLoader):
    pass


def _tag(tag: str):
    def construct(loader, node):
        if isinstance(node, yaml.ScalarNode):
            value = loader.construct_scalar(node)
            if tag == "GetAtt" and isinstance(value, str):
                value = value.split(".", 1)
        elif isinstance(node, yaml.SequenceNode):
            value = loader.construct_sequence(node, deep=True)
        else:
            value = loader.construct_mapping(node, deep=True)
        return {("Ref" if tag == "Ref" else "Fn::" + tag): value}

    return construct


for _t in ("Ref", "GetAtt", "Sub", "Join", "If", "Select", "Split", "Equals", "Not",
           "And", "Or", "FindInMap", "ImportValue", "Base64", "GetAZs", "Condition"):
    _CfnLoader.add_constructor("!" + _t, _tag(_t))


@dataclass
class Function:
    logical_id: str
    binary: str
    memory: int = 128
    env: dict = field(default_factory=dict)  # raw template values (intrinsics unresolved)


def load_template(path: Path):
    with open(path) as f:
        template = yaml.load(f, Loader=_CfnLoader)
    glob = (template.get("Globals") or {}).get("Function") or {}
    glob_env = ((glob.get("Environment") or {}).get("Variables")) or {}
    functions = []
    for lid, res in (template.get("Resources") or {}).items():
        if res.get("Type") != "AWS::Serverless::Function":
            continue
        props = res.get("Properties") or {}
        binary = (((res.get("Metadata") or {}).get("BuildProperties")) or {}).get("Binary")
        if not binary:
            log(f"warning: {lid} has no Metadata.BuildProperties.Binary; skipped")
            continue
        env = dict(glob_env)
        env.update(((props.get("Environment") or {}).get("Variables")) or {})
        memory = props.get("MemorySize", glob.get("MemorySize", 128))
        functions.append(Function(lid, binary, int(memory) if str(memory).isdigit() else 128, env))
    return template, functions


class Resolver:
    """Intrinsic functions of the template with the benchmark's local values."""

    def __init__(self, template, params: dict, physical: dict):
        self.template = template
        self.params = params
        self.physical = physical  # logical id -> Ref value (table name, queue URL)

    def ref(self, name):
        if name in self.params:
            return self.params[name]
        if name in self.physical:
            return self.physical[name]
        pseudo = {"AWS::Region": REGION, "AWS::AccountId": ACCOUNT, "AWS::StackName": STACK,
                  "AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com",
                  "AWS::NoValue": ""}
        if name in pseudo:
            return pseudo[name]
        return f"{STACK}-{name}"

    def getatt(self, lid, attr):
        res = (self.template.get("Resources") or {}).get(lid) or {}
        kind = res.get("Type", "")
        name = self.physical.get(lid, f"{STACK}-{lid}")
        if attr == "Arn":
            if kind == "AWS::DynamoDB::Table":
                return f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}"
            if kind == "AWS::SQS::Queue":
                return f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name.rsplit('/', 1)[-1]}"
            return f"arn:aws:{kind.split('::')[1].lower() if '::' in kind else 'x'}:{REGION}:{ACCOUNT}:{lid}"
        if attr == "QueueName":
            return name.rsplit("/", 1)[-1]
        if attr.endswith("Url") or attr.endswith("Endpoint"):
            return "http://127.0.0.1:9"
        return f"{STACK}-{lid}-{attr}"

    def resolve(self, value):
        if isinstance(value, dict) and len(value) == 1:
            (k, v), = value.items()
            if k == "Ref":
                return str(self.ref(v))
            if k == "Fn::GetAtt":
                lid, attr = (v if isinstance(v, list) else str(v).split(".", 1))
                return self.getatt(lid, attr)
            if k == "Fn::Sub":
                text, extra = (v[0], v[1]) if isinstance(v, list) else (v, {})
                def sub(m):
                    key = m.group(1)
                    if key in extra:
                        return self.resolve(extra[key])
                    if "." in key:
                        return self.getatt(*key.split(".", 1))
                    return str(self.ref(key))
                return re.sub(r"\$\{([^}!]+)\}", sub, text)
            if k == "Fn::Join":
                sep, items = v
                return sep.join(self.resolve(i) for i in items)
            if k == "Fn::If":
                return self.resolve(v[2])  # conditions: take the "else" branch
            return json.dumps(value)
        if isinstance(value, bool):
            return "true" if value else "false"
        return "" if value is None else str(value)


def template_parameters(template, keys) -> dict:
    params = {}
    for name, spec in (template.get("Parameters") or {}).items():
        if "Default" in spec:
            params[name] = str(spec["Default"])
    local = ROOT / "local" / "parameters.json"
    if local.exists():
        params.update({k: str(v) for k, v in json.loads(local.read_text()).items()})
    # The key pair, which the template leaves empty (or without a default): throwaway values.
    for name, key in (("JwtPrivateKey", keys[0]), ("JwtPublicKey", keys[1])):
        if not params.get(name):
            params[name] = key
    return params


def ed25519_pair():
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return private, public
