#!/usr/bin/env python3
"""A provider plugin written on Pulumi's own Python stubs (PyPI `pulumi`), for Ferry's
interoperability test. Started like any plugin (the engine's address as its argument), it prints
its port and serves pulumirpc.ResourceProvider: GetPluginInfo, GetSchema, CheckConfig, Configure,
Check and Read. It leaves Handshake unimplemented, as older plugins do, and logs each Read to the
engine. Some IDs misbehave, for the crash-recovery tests: `crash-…` kills the process in the
middle of its Read, `hang-…` never answers it."""
import json
import os
import sys
import time
from concurrent import futures

import grpc
from google.protobuf import struct_pb2
from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc, plugin_pb2, provider_pb2, provider_pb2_grpc

TOKEN = "pyecho:index:Thing"
SCHEMA = {
    "name": "pyecho",
    "version": "0.0.1",
    "resources": {
        TOKEN: {
            "inputProperties": {"size": {"type": "integer"}},
            "requiredInputs": ["size"],
            "properties": {"size": {"type": "integer"}, "name": {"type": "string"}},
            "required": ["size", "name"],
        }
    },
}


class Provider(provider_pb2_grpc.ResourceProviderServicer):
    def __init__(self, engine_address):
        self.engine = engine_pb2_grpc.EngineStub(grpc.insecure_channel(engine_address))

    def GetPluginInfo(self, request, context):
        return plugin_pb2.PluginInfo(version="0.0.1")

    def GetSchema(self, request, context):
        return provider_pb2.GetSchemaResponse(schema=json.dumps(SCHEMA))

    def CheckConfig(self, request, context):
        return provider_pb2.CheckResponse(inputs=request.news)

    def Configure(self, request, context):
        return provider_pb2.ConfigureResponse(acceptSecrets=True)

    def Check(self, request, context):
        failures = []
        size = request.news.fields["size"].number_value if "size" in request.news.fields else None
        if size is None:
            failures.append(provider_pb2.CheckFailure(property="size", reason="size is required"))
        elif size > 100:
            failures.append(provider_pb2.CheckFailure(property="size", reason="size must be at most 100"))
        return provider_pb2.CheckResponse(inputs=request.news, failures=failures)

    def Read(self, request, context):
        self.engine.Log(engine_pb2.LogRequest(severity=engine_pb2.INFO, message=f"python read {request.id}", urn=request.urn))
        if request.id.startswith("crash-"):
            print(f"Traceback: read of {request.id} exploded", file=sys.stderr, flush=True)
            os._exit(3)
        if request.id.startswith("hang-"):
            time.sleep(3600)
        if request.id == "gone":
            return provider_pb2.ReadResponse()
        tail = request.id.rsplit("-", 1)[-1]
        size = int(tail) if tail.isdigit() else 1
        inputs = struct_pb2.Struct()
        inputs.update({"size": size})
        props = struct_pb2.Struct()
        props.update({"size": size, "name": request.id})
        return provider_pb2.ReadResponse(id=request.id, properties=props, inputs=inputs)


def main():
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    provider_pb2_grpc.add_ResourceProviderServicer_to_server(Provider(sys.argv[1]), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print(port, flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
