#!/bin/sh
# venv.sh VENV PLUGIN_DIR: makes VENV a Python venv with PyPI `pulumi` (the release the protocol
# facts were read from) unless it already is one, and writes PLUGIN_DIR/pulumi-resource-pyecho,
# which runs python_provider.py with it. Shared by the tests that use that provider as a plugin.
set -e
VENV="$1"
PLUGIN_DIR="$2"
if ! "$VENV/bin/python" -c "import pulumi.runtime.proto.provider_pb2_grpc, grpc" 2>/dev/null; then
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "pulumi==3.272.0" >&2
fi
HERE="$(cd "$(dirname "$0")" && pwd)"
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$VENV/bin/python" "$HERE/python_provider.py" > "$PLUGIN_DIR/pulumi-resource-pyecho"
chmod 755 "$PLUGIN_DIR/pulumi-resource-pyecho"
