#!/bin/sh
# venv.sh DIR: makes DIR a Python venv with PyPI `pulumi` (the release the protocol facts were
# read from) unless it already is one, then prints its python. Shared by the tests that run
# python_provider.py as a plugin.
set -e
DIR="$1"
if ! "$DIR/bin/python" -c "import pulumi.runtime.proto.provider_pb2_grpc, grpc" 2>/dev/null; then
  python3 -m venv "$DIR" >&2
  "$DIR/bin/pip" install --quiet --disable-pip-version-check "pulumi==3.272.0" >&2
fi
echo "$DIR/bin/python"
