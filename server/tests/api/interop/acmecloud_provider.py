#!/usr/bin/env python3
"""A provider plugin on Pulumi's own Python stubs (PyPI `pulumi`) that answers GetMapping, as a
bridged provider does: package `acmecloud`, mapping the Terraform provider `acme/acmecloud` in
the bridge's format (or, with `ACMECLOUD_TERRAFORM_PROVIDER` set, a Terraform provider of that
other name, whose resource types start with it, as `hashicorp/google`'s do for Pulumi's `gcp`). Its "cloud" is a table in this file: what Read finds for each ID (with a
drift from what the test's Terraform state recorded), and nothing for IDs it does not hold.
Started like any plugin (the engine's address as its argument), it prints its port and serves
GetPluginInfo, GetSchema, GetMapping(s), CheckConfig, Configure, Check, Diff and Read."""
import json
import os
import sys
from concurrent import futures

import grpc
from google.protobuf import struct_pb2
from google.protobuf.json_format import MessageToDict
from pulumi.runtime.proto import plugin_pb2, provider_pb2, provider_pb2_grpc

BUCKET = "acmecloud:index/bucket:Bucket"
POLICY = "acmecloud:index/policy:Policy"

SCHEMA = {
    "name": "acmecloud",
    "version": "1.2.0",
    "types": {
        "acmecloud:index/BucketVersioning:BucketVersioning": {
            "type": "object",
            "properties": {"enabled": {"type": "boolean"}},
        }
    },
    "resources": {
        BUCKET: {
            "inputProperties": {
                "name": {"type": "string"},
                "size": {"type": "integer"},
                "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                "versioning": {"$ref": "#/types/acmecloud:index/BucketVersioning:BucketVersioning"},
                "secretKey": {"type": "string", "secret": True},
            },
            "requiredInputs": ["name"],
            "properties": {
                "name": {"type": "string"},
                "size": {"type": "integer"},
                "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                "versioning": {"$ref": "#/types/acmecloud:index/BucketVersioning:BucketVersioning"},
                "secretKey": {"type": "string", "secret": True},
                "arn": {"type": "string"},
            },
            "required": ["name", "arn"],
        },
        POLICY: {
            "inputProperties": {"bucket": {"type": "string"}, "document": {"type": "string"}},
            "requiredInputs": ["bucket", "document"],
            "properties": {"bucket": {"type": "string"}, "document": {"type": "string"}},
            "required": ["bucket", "document"],
        },
    },
}

# The Terraform provider this plugin maps, as `GetMappings` names it.
TF = os.environ.get("ACMECLOUD_TERRAFORM_PROVIDER", "acmecloud")

# The bridge's mapping: Terraform's schema (value types numbered as helper/schema numbers them:
# 1 bool, 2 int, 4 string, 5 list, 6 map) and each Terraform type's Pulumi token.
MAPPING = {
    "name": "acmecloud",
    "version": "1.2.0",
    "provider": {
        "resources": {
            TF + "_bucket": {
                "name": {"type": 4, "required": True},
                "size": {"type": 2, "optional": True},
                "tags": {"type": 6, "optional": True, "element": {"schema": {"type": 4}}},
                "versioning": {"type": 5, "optional": True, "maxItems": 1, "element": {"resource": {"enabled": {"type": 1, "optional": True}}}},
                "secret_key": {"type": 4, "optional": True, "sensitive": True},
                "arn": {"type": 4, "computed": True},
            },
            TF + "_policy": {
                "bucket": {"type": 4, "required": True},
                "document": {"type": 4, "required": True},
            },
        }
    },
    "resources": {
        TF + "_bucket": {"tok": BUCKET, "fields": {"secret_key": {"secret": True}}},
        TF + "_policy": {"tok": POLICY},
    },
    "dataSources": {TF + "_region": {"tok": "acmecloud:index/getRegion:getRegion"}},
}


def bucket(name, size, tags):
    return {"name": name, "size": size, "tags": tags, "versioning": {"enabled": True}, "secretKey": "s3cr3t-" + name, "arn": "arn:acme:bucket/" + name}


# What the cloud holds now. `logs` grew since Terraform last looked (size 10 in the state).
CLOUD = {
    "logs": (BUCKET, bucket("logs", 20, {"team": "web"})),
    "assets-0": (BUCKET, bucket("assets-0", 5, {})),
    "assets-1": (BUCKET, bucket("assets-1", 5, {})),
    "site-eu": (BUCKET, bucket("site-eu", 1, {"region": "eu"})),
    "policy-logs": (POLICY, {"bucket": "logs", "document": "{\"allow\": \"read\"}"}),
}
OUTPUT_ONLY = {"arn"}


SECRET_SIG = "4dabf18193072939515e22adb298388d"


def plain(value):
    """The value with Pulumi's secret wrappers taken off (the engine sends secrets marked)."""
    if isinstance(value, dict):
        if value.get(SECRET_SIG) == "1b47061264138c4ac30d75fd1eb44270":
            return plain(value.get("value"))
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def struct(d):
    s = struct_pb2.Struct()
    s.update(d)
    return s


class Provider(provider_pb2_grpc.ResourceProviderServicer):
    def GetPluginInfo(self, request, context):
        return plugin_pb2.PluginInfo(version="1.2.0")

    def GetSchema(self, request, context):
        return provider_pb2.GetSchemaResponse(schema=json.dumps(SCHEMA))

    def GetMappings(self, request, context):
        return provider_pb2.GetMappingsResponse(providers=[TF] if request.key == "terraform" else [])

    def GetMapping(self, request, context):
        if request.key != "terraform" or request.provider not in ("", TF):
            return provider_pb2.GetMappingResponse()
        return provider_pb2.GetMappingResponse(provider=TF, data=json.dumps(MAPPING).encode())

    def CheckConfig(self, request, context):
        return provider_pb2.CheckResponse(inputs=request.news)

    def Configure(self, request, context):
        return provider_pb2.ConfigureResponse(acceptSecrets=False)

    def Check(self, request, context):
        return provider_pb2.CheckResponse(inputs=request.news)

    def Diff(self, request, context):
        olds = plain(MessageToDict(request.olds))
        news = plain(MessageToDict(request.news))
        diffs = sorted(k for k in set(olds) | set(news) if k not in OUTPUT_ONLY and olds.get(k) != news.get(k))
        changes = provider_pb2.DiffResponse.DIFF_SOME if diffs else provider_pb2.DiffResponse.DIFF_NONE
        return provider_pb2.DiffResponse(changes=changes, diffs=diffs)

    def Read(self, request, context):
        found = CLOUD.get(request.id)
        if found is None or found[0] != request.type:
            return provider_pb2.ReadResponse()
        props = found[1]
        inputs = {k: v for k, v in props.items() if k not in OUTPUT_ONLY}
        return provider_pb2.ReadResponse(id=request.id, properties=struct(props), inputs=struct(inputs))


def main():
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    provider_pb2_grpc.add_ResourceProviderServicer_to_server(Provider(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print(port, flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
