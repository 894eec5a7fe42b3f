#!/usr/bin/env python3
"""Crash consistency of commits (not a test: it takes most of an hour; scripts/crash.sh runs it).

For each store, RUNS times: a fresh stack, a preview of IMPORTS RandomInteger imports, its commit,
and `kill -9` of the server at a random moment of that commit (uniform over the commit's measured
duration, and a little past it). Then the server starts again on the same store and the run checks:

- the stack is at its old version or its new one, never torn: the stored export (or, for a DIY
  backend, the checkpoint file itself) parses, and holds the old resources or all the new ones;
- the preview's record agrees (committed exactly when the new version is there);
- no lock Ferry took is left behind unreported: the backend's lock folder ends up empty, and a
  lock the killed instance held is listed by `GET /stacks/{id}/locks` with what recovery did;
- committing the same preview again either lands it (old version) or is refused as done.

Stores: sqlite (the embedded default), postgres (--database-url), diy-folder (a file:// backend)
and diy-s3 (an s3:// backend on moto's S3 server). Prints one JSON line per store.
"""

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FERRY = os.environ.get("FERRY_BIN", os.path.join(ROOT, "target/server-release/ferry"))
RUNS = int(os.environ.get("CRASH_RUNS", "100"))
IMPORTS = int(os.environ.get("CRASH_IMPORTS", "10000"))
LEASE = 2  # seconds: how soon another process may recover what a killed one held
PAYLOAD_KEY = os.urandom(32).hex()


def http(method, url, body=None, token=None, headers=None, timeout=600):
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", f"Bearer {token}")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            return res.status, res.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


class Server:
    """One `ferry serve` process on the store under test."""

    def __init__(self, store_args, env, log):
        self.store_args, self.env, self.log = store_args, env, log
        self.proc = None

    def start(self):
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.proc = subprocess.Popen(
            [FERRY, "serve", "--addr", f"127.0.0.1:{port}", "--no-demo", "--job-lease-seconds", str(LEASE), *self.store_args],
            env=self.env, stdout=self.log, stderr=self.log, start_new_session=True)
        for _ in range(300):
            try:
                if http("GET", self.url + "/healthz", timeout=2)[0] == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise SystemExit(f"ferry serve exited with {self.proc.returncode}; see its log")
            time.sleep(0.05)
        raise SystemExit("ferry serve did not start")

    def kill(self):
        # The whole process group: the server and the plugins it launched, as a dead machine.
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spec(n):
    return {"resources": [{"type": "random:index/randomInteger:RandomInteger", "name": f"port-{i}", "id": f"{i % 1000},0,1000"} for i in range(n)]}


def checkpoint(name):
    return {"version": 3, "checkpoint": {"stack": name, "latest": {
        "manifest": {"time": "2026-11-24T00:00:00Z", "magic": "", "version": "v3.205.0"}, "resources": []}}}


class Folder:
    """A DIY backend in a folder."""

    def __init__(self, path):
        self.path = path
        self.url = f"file://{path}"
        self.put(".pulumi/meta.yaml", b"version: 1\n")

    def put(self, rel, data):
        full = os.path.join(self.path, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)

    def get(self, rel):
        with open(os.path.join(self.path, rel), "rb") as f:
            return f.read()

    def list(self, prefix):
        full = os.path.join(self.path, prefix)
        return sorted(os.listdir(full)) if os.path.isdir(full) else []

    def staging_files(self):
        """Partly written files a killed write left (object_store writes `<file>#<n>`, then
        renames it into place): litter, never read as state, but counted."""
        return [os.path.join(d, f) for d, _, files in os.walk(os.path.join(self.path, ".pulumi")) for f in files if "#" in f]


class Bucket:
    """A DIY backend in a bucket of moto's S3 server, read and written with boto3 (moto's own
    dependency) as any S3 client would."""

    def __init__(self, endpoint, bucket):
        import boto3
        self.s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test")
        self.bucket = bucket
        self.url = f"s3://{bucket}?endpoint={endpoint}&region=us-east-1&s3ForcePathStyle=true"
        self.s3.create_bucket(Bucket=bucket)
        self.put(".pulumi/meta.yaml", b"version: 1\n")

    def put(self, rel, data):
        self.s3.put_object(Bucket=self.bucket, Key=rel, Body=data)

    def get(self, rel):
        return self.s3.get_object(Bucket=self.bucket, Key=rel)["Body"].read()

    def list(self, prefix):
        found = self.s3.list_objects_v2(Bucket=self.bucket, Prefix=prefix.rstrip("/") + "/").get("Contents", [])
        return sorted(o["Key"].rsplit("/", 1)[-1] for o in found)


def run_store(kind, workdir, moto_endpoint):
    env = dict(os.environ, FERRY_PAYLOAD_KEY=PAYLOAD_KEY, AWS_ACCESS_KEY_ID="test", AWS_SECRET_ACCESS_KEY="test", RUST_LOG="warn")
    data = os.path.join(workdir, kind)
    os.makedirs(data)
    backend = None
    if kind == "postgres":
        db = "ferry_crash"
        subprocess.run(["psql", "-d", "postgres", "-qc", f"DROP DATABASE IF EXISTS {db} WITH (FORCE)", "-c", f"CREATE DATABASE {db}"], check=True)
        store_args = ["--database-url", f"postgres://postgres@127.0.0.1:5432/{db}?sslmode=disable"]
    else:
        store_args = ["--data-dir", data]
    if kind == "diy-folder":
        os.makedirs(os.path.join(data, "backend"))
        backend = Folder(os.path.join(data, "backend"))
    elif kind == "diy-s3":
        backend = Bucket(moto_endpoint, f"crash-{random.randrange(1 << 30)}")
    if backend:
        store_args += ["--allow-backend", f"organization={backend.url}"]
    token = subprocess.run([FERRY, "token", "create", *store_args[:2], "--user", "crash", "--role", "admin", "--days", "1"],
                           env=env, check=True, capture_output=True, text=True).stdout.strip()
    log = open(os.path.join(workdir, f"{kind}.log"), "ab")
    server = Server(store_args, env, log)
    server.start()
    try:
        return crash_runs(kind, server, token, backend)
    finally:
        if server.proc.poll() is None:
            server.kill()


def crash_runs(kind, server, token, backend):
    body = spec(IMPORTS)
    new_count = None  # measured by run 0
    outcomes = {"old": 0, "new": 0, "finished_before_kill": 0}
    locks_left = recovered = 0
    recovery_waits = []
    failures = []
    commit_seconds = None
    for run in range(RUNS + 1):  # run 0 measures the commit, uninterrupted
        name = f"organization/crash/run-{run}"
        if backend:
            backend.put(f".pulumi/stacks/crash/run-{run}.json", json.dumps(checkpoint(name)).encode())
            status, stack = http("POST", server.url + "/api/v1/stacks", {"backend": backend.url, "name": name}, token)
        else:
            status, stack = http("POST", server.url + f"/api/v1/stacks?name=crash/crash/run-{run}", {"version": 3, "deployment": {}}, token)
        assert status == 201, stack
        stack = json.loads(stack)
        sid = stack["id"]
        status, preview = http("POST", server.url + f"/api/v1/stacks/{sid}/previews", body, token)
        assert status == 201, preview[:500]
        pid = json.loads(preview)["id"]
        commit_path = f"/api/v1/previews/{pid}/commit"
        if run == 0:
            started = time.monotonic()
            status, done = http("POST", server.url + commit_path, b"", token)
            commit_seconds = time.monotonic() - started
            assert status == 201, done[:500]
            new_count = count_resources(server, sid, token, backend, run)
            print(f"{kind}: an uninterrupted commit of {IMPORTS} imports takes {commit_seconds:.2f} s; the stack then holds {new_count} resources", file=sys.stderr)
            continue
        old_count = count_resources(server, sid, token, backend, run)
        delay = random.uniform(0, commit_seconds * 1.1)
        result = {}

        def commit():
            try:
                result["status"] = http("POST", server.url + commit_path, b"", token)[0]
            except OSError:
                result["status"] = None  # the connection died with the server
        thread = threading.Thread(target=commit)
        thread.start()
        time.sleep(delay)
        server.kill()
        thread.join()
        finished = result.get("status") == 201
        # What the kill left, then what a restart finds.
        lock_dir = f".pulumi/locks/organization/crash/run-{run}"
        left = backend.list(lock_dir) if backend else []
        if left:
            locks_left += 1
        server.start()
        problems = []
        if backend:
            waited = time.monotonic()
            while backend.list(lock_dir):
                if time.monotonic() - waited > 3 * LEASE + 10:
                    problems.append(f"lock files left in {lock_dir}: {backend.list(lock_dir)}")
                    break
                time.sleep(0.2)
            if left and not problems:
                recovery_waits.append(time.monotonic() - waited)
                status, locks = http("GET", server.url + f"/api/v1/stacks/{sid}/locks", token=token)
                locks = json.loads(locks)
                reported = [l for l in locks if l["path"].rsplit("/", 1)[-1] in left and l.get("recovery")]
                if len(reported) != len(left):
                    problems.append(f"the lock the killed server left is not reported: {left} vs {locks}")
                else:
                    recovered += 1
        count = count_resources(server, sid, token, backend, run)
        if count not in (old_count, new_count):
            problems.append(f"torn: {count} resources, neither {old_count} nor {new_count}")
        landed = count == new_count
        if finished and not landed:
            problems.append("the commit answered 201 but the stack is at its old version")
        # The preview again: lands if the old version is there, refused as done (or as behind the
        # backend, whose checkpoint already moved) if the new one is.
        status, again = http("POST", server.url + commit_path, b"", token)
        if landed and status not in (409,):
            problems.append(f"committing again after the new version landed answered {status}: {again[:300]}")
        if not landed and status != 201:
            problems.append(f"committing again at the old version answered {status}: {again[:300]}")
        if count_resources(server, sid, token, backend, run) != new_count:
            problems.append("after committing again the stack is not at the new version")
        outcomes["finished_before_kill" if finished else ("new" if landed else "old")] += 1
        if problems:
            failures.append({"run": run, "delay": round(delay, 3), "problems": problems})
            print(f"{kind} run {run}: {problems}", file=sys.stderr)
        if run % 10 == 0:
            print(f"{kind}: {run} of {RUNS} runs, {len(failures)} failing", file=sys.stderr)
    staging = len(backend.staging_files()) if isinstance(backend, Folder) else None
    return {"store": kind, "staging_files_left": staging, "runs": RUNS, "imports": IMPORTS, "commit_seconds": round(commit_seconds, 2), "killed_before_landing": outcomes["old"],
            "killed_after_landing": outcomes["new"], "finished_before_kill": outcomes["finished_before_kill"], "locks_left_by_the_kill": locks_left,
            "locks_recovered_and_reported": recovered, "max_recovery_seconds": round(max(recovery_waits), 1) if recovery_waits else None,
            "failures": failures}


def count_resources(server, sid, token, backend, run):
    """The resources of the stack's state: the backend's checkpoint file itself for DIY stacks,
    the stored export for the others; -1 when it does not parse (torn)."""
    try:
        return read_count(server, sid, token, backend, run)
    except (ValueError, KeyError, AssertionError) as e:
        print(f"run {run}: the state does not read: {e}", file=sys.stderr)
        return -1


def read_count(server, sid, token, backend, run):
    if backend:
        raw = backend.get(f".pulumi/stacks/crash/run-{run}.json")
        return len(json.loads(raw)["checkpoint"]["latest"].get("resources") or [])
    status, export = http("GET", server.url + f"/api/v1/stacks/{sid}/export", token=token)
    assert status == 200, export[:300]
    return len(json.loads(export)["deployment"].get("resources") or [])


def main():
    kinds = sys.argv[1:] or ["sqlite", "postgres", "diy-folder", "diy-s3"]
    moto = None
    endpoint = None
    if "diy-s3" in kinds:
        port = free_port()
        moto = subprocess.Popen([os.path.join(ROOT, "target/s3-venv/bin/moto_server"), "-H", "127.0.0.1", "-p", str(port)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        endpoint = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                http("GET", endpoint + "/", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
    failed = False
    try:
        with tempfile.TemporaryDirectory() as work:
            for kind in kinds:
                summary = run_store(kind, work, endpoint)
                failed |= bool(summary["failures"])
                print(json.dumps(summary), flush=True)
    finally:
        if moto:
            moto.kill()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
