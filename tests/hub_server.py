"""A loopback Hugging Face Hub: a real HTTP server speaking enough of the Hub API for uploads and downloads.

It serves, on 127.0.0.1 and a free port, the endpoints that ``huggingface_hub`` 2.x calls for

- ``create_repo``: ``POST /api/repos/create``;
- ``upload_folder`` / ``create_commit`` without Xet: ``POST /api/validate-yaml`` (README metadata),
  ``POST /api/models/<repo>/preupload/<rev>`` (regular or LFS upload mode per file),
  the git-LFS batch API ``POST /<repo>.git/info/lfs/objects/batch`` with a basic-transfer
  ``PUT /lfs/objects/<sha256>`` and ``POST /lfs/verify`` that this server also serves, then
  ``POST /api/models/<repo>/commit/<rev>`` with the NDJSON body (base64 inline files, ``lfsFile``
  pointers to uploaded objects, deletions);
- ``snapshot_download`` / ``hf_hub_download``: ``GET /api/models/<repo>[/revision/<rev>]``,
  ``GET /api/models/<repo>/tree/<rev>`` and ``HEAD``/``GET /<repo>/resolve/<rev>/<path>`` with the
  ``X-Repo-Commit`` / ``ETag`` / ``X-Linked-Etag`` headers the client caches by.

It does not speak Xet: set ``huggingface_hub.constants.HF_HUB_DISABLE_XET = True`` (or the
``HF_HUB_DISABLE_XET=1`` environment variable before import) so binary files take the LFS path, as
they do against the real Hub without ``hf_xet``. Only the ``main`` branch exists; write endpoints
require ``Authorization: Bearer <token>`` when the server was given a token.

Usage::

    with HubServer(token="hf_test") as hub:
        api = HfApi(endpoint=hub.url, token="hf_test")
        api.create_repo("me/rusty")
        api.upload_folder(folder_path=folder, repo_id="me/rusty")
        hub.repos["me/rusty"].files["README.md"]     # bytes, as committed
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from fnmatch import fnmatch
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self
from urllib.parse import unquote, urlsplit

import yaml

LFS_PATTERNS = ("*.safetensors", "*.bin", "*.pt", "*.pth", "*.ckpt", "*.onnx", "*.msgpack", "*.h5", "*.zip")
LFS_MIN_SIZE = 10 * 1024 * 1024  # the Hub sends big files to LFS whatever their name


def git_blob_oid(content: bytes) -> str:
    """The git object id of a blob, which the Hub reports as a regular file's oid and ETag."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@dataclass
class HubRepo:
    """One model repository: its files at the head of ``main`` and which of them live in LFS."""

    repo_id: str
    private: bool = False
    files: dict[str, bytes] = field(default_factory=dict)
    lfs_paths: set[str] = field(default_factory=set)
    commits: list[dict] = field(default_factory=list)  # {"oid", "summary"}, oldest first

    @property
    def sha(self) -> str:
        return self.commits[-1]["oid"] if self.commits else "0" * 40


class HubServer:
    """The server and everything it stored; a context manager that runs it in a daemon thread."""

    def __init__(self, token: str | None = None, user: str = "rusty-tester") -> None:
        self.token, self.user = token, user
        self.repos: dict[str, HubRepo] = {}
        self.lfs_objects: dict[str, bytes] = {}  # sha256 hex -> content
        self.requests: list[tuple[str, str]] = []  # (method, path), in arrival order
        self.lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="hub-server", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def upload_mode(self, path: str, size: int, sample: bytes) -> str:
        binary = b"\0" in sample
        return "lfs" if size > 0 and (binary or size >= LFS_MIN_SIZE or any(fnmatch(path, p) for p in LFS_PATTERNS)) else "regular"


class HubError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _handler_for(hub: HubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_HubHandler):
        pass

    Handler.hub = hub
    return Handler


_REPO = r"(?P<repo>[\w.-]+/[\w.-]+)"


class _HubHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the client's connection pool expects
    hub: HubServer

    # ------------------------------------------------------------------ plumbing
    def log_message(self, format: str, *args) -> None:
        pass  # keep pytest output clean; hub.requests records the traffic instead

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):  # trailers
                pass
            return b"".join(chunks)
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _send(self, status: int, body: bytes = b"", headers: dict | None = None, *, head: bool = False) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, str(value))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _json(self, status: int, payload: object) -> None:
        self._send(status, json.dumps(payload).encode(), {"Content-Type": "application/json"})

    def _dispatch(self, method: str) -> None:
        path = unquote(urlsplit(self.path).path)
        with self.hub.lock:
            self.hub.requests.append((method, path))
        body = self._body() if method in ("POST", "PUT") else b""
        for route_method, pattern, handler in _ROUTES:
            match = re.fullmatch(pattern, path)
            if route_method == method and match:
                try:
                    with self.hub.lock:
                        handler(self, body, **match.groupdict())
                except HubError as exc:
                    self._send(exc.status, json.dumps({"error": str(exc)}).encode(), {"X-Error-Message": str(exc)})
                return
        self._send(404, json.dumps({"error": f"no route for {method} {path}"}).encode())

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_HEAD(self) -> None:
        self._dispatch("HEAD")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    # ------------------------------------------------------------------ helpers
    def _require_token(self) -> None:
        if self.hub.token is not None and self.headers.get("Authorization") != f"Bearer {self.hub.token}":
            raise HubError(401, "Invalid credentials in Authorization header")

    def _repo(self, repo: str) -> HubRepo:
        if repo not in self.hub.repos:
            raise HubError(404, f"Repository Not Found for url: {repo}")
        return self.hub.repos[repo]

    @staticmethod
    def _check_revision(rev: str) -> None:
        if rev != "main":
            raise HubError(404, f"Revision Not Found: {rev} (this server only has main)")

    # ------------------------------------------------------------------ write API
    def create_repo(self, body: bytes) -> None:
        self._require_token()
        payload = json.loads(body)
        repo_id = f"{payload.get('organization') or self.hub.user}/{payload['name']}"
        if payload.get("type", "model") != "model":
            raise HubError(400, "this server hosts model repositories only")
        if repo_id in self.hub.repos:
            raise HubError(409, "You already created this model repo")
        self.hub.repos[repo_id] = HubRepo(repo_id, private=payload.get("visibility") == "private")
        self._json(200, {"url": f"{self.hub.url}/{repo_id}", "name": repo_id, "id": repo_id})

    def validate_yaml(self, body: bytes) -> None:
        content = json.loads(body)["content"]
        match = re.match(r"^---\s*\n(.*?)\n---\s*\n", content, re.DOTALL)
        try:
            metadata = yaml.safe_load(match.group(1)) if match else {}
        except yaml.YAMLError as exc:
            self._json(400, {"errors": [{"message": f"invalid YAML: {exc}"}], "warnings": []})
            return
        if not isinstance(metadata, dict):
            self._json(400, {"errors": [{"message": "metadata must be a YAML mapping"}], "warnings": []})
            return
        self._json(200, {"errors": [], "warnings": [] if metadata else [{"message": "empty or missing metadata"}]})

    def preupload(self, body: bytes, repo: str, rev: str) -> None:
        self._require_token()
        hub_repo = self._repo(repo)
        self._check_revision(rev)
        files = []
        for entry in json.loads(body)["files"]:
            sample = base64.b64decode(entry["sample"])
            mode = self.hub.upload_mode(entry["path"], entry["size"], sample)
            files.append({"path": entry["path"], "uploadMode": mode, "shouldIgnore": False, "oid": None})
        self._json(200, {"files": files, "commitOid": hub_repo.sha})

    def lfs_batch(self, body: bytes, repo: str) -> None:
        self._require_token()
        self._repo(repo)
        request = json.loads(body)
        if request.get("operation") != "upload" or "basic" not in request.get("transfers", ["basic"]):
            raise HubError(400, "only basic LFS uploads are supported")
        objects = []
        for obj in request["objects"]:
            entry = {"oid": obj["oid"], "size": obj["size"], "authenticated": True}
            if obj["oid"] not in self.hub.lfs_objects:  # already stored: no actions, the client skips it
                entry["actions"] = {
                    "upload": {"href": f"{self.hub.url}/lfs/objects/{obj['oid']}"},
                    "verify": {"href": f"{self.hub.url}/lfs/verify"},
                }
            objects.append(entry)
        self._send(200, json.dumps({"transfer": "basic", "objects": objects}).encode(),
                   {"Content-Type": "application/vnd.git-lfs+json"})

    def lfs_put(self, body: bytes, oid: str) -> None:
        if hashlib.sha256(body).hexdigest() != oid:
            raise HubError(400, f"uploaded content does not hash to {oid}")
        self.hub.lfs_objects[oid] = body
        self._send(200)

    def lfs_verify(self, body: bytes) -> None:
        request = json.loads(body)
        stored = self.hub.lfs_objects.get(request["oid"])
        if stored is None or len(stored) != request["size"]:
            raise HubError(404, f"LFS object {request['oid']} was not uploaded")
        self._json(200, {"ok": True})

    def commit(self, body: bytes, repo: str, rev: str) -> None:
        self._require_token()
        hub_repo = self._repo(repo)
        self._check_revision(rev)
        lines = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
        if not lines or lines[0].get("key") != "header":
            raise HubError(400, "a commit starts with a header line")
        files, lfs_paths = dict(hub_repo.files), set(hub_repo.lfs_paths)
        for line in lines[1:]:
            key, value = line["key"], line["value"]
            if key == "file":
                files[value["path"]] = base64.b64decode(value["content"])
                lfs_paths.discard(value["path"])
            elif key == "lfsFile":
                if value["oid"] not in self.hub.lfs_objects:
                    raise HubError(422, f"LFS object {value['oid']} for {value['path']} was never uploaded")
                files[value["path"]] = self.hub.lfs_objects[value["oid"]]
                lfs_paths.add(value["path"])
            elif key == "deletedFile":
                files.pop(value["path"], None)
            else:
                raise HubError(400, f"unsupported commit operation {key!r}")
        oid = hashlib.sha1(json.dumps([hub_repo.sha, sorted((p, git_blob_oid(c)) for p, c in files.items())]).encode())
        hub_repo.files, hub_repo.lfs_paths = files, lfs_paths
        hub_repo.commits.append({"oid": oid.hexdigest(), "summary": lines[0]["value"]["summary"]})
        url = f"{self.hub.url}/{repo}/commit/{hub_repo.sha}"
        self._json(200, {"commitUrl": url, "commitOid": hub_repo.sha, "pullRequestUrl": None})

    # ------------------------------------------------------------------ read API
    def _tree_entry(self, hub_repo: HubRepo, path: str) -> dict:
        content = hub_repo.files[path]
        entry = {"type": "file", "path": path, "size": len(content), "oid": git_blob_oid(content)}
        if path in hub_repo.lfs_paths:
            entry["lfs"] = {"oid": hashlib.sha256(content).hexdigest(), "size": len(content), "pointerSize": 134}
        return entry

    def model_info(self, body: bytes, repo: str, rev: str | None = None) -> None:
        hub_repo = self._repo(repo)
        self._check_revision(rev or "main")
        siblings = [{"rfilename": path} for path in sorted(hub_repo.files)]
        self._json(200, {"id": repo, "modelId": repo, "sha": hub_repo.sha, "private": hub_repo.private,
                         "siblings": siblings, "tags": [], "downloads": 0, "likes": 0})

    def tree(self, body: bytes, repo: str, rev: str, path: str | None = None) -> None:
        hub_repo = self._repo(repo)
        if rev != hub_repo.sha:
            self._check_revision(rev)
        prefix = f"{path.strip('/')}/" if path else ""
        self._json(200, [self._tree_entry(hub_repo, p) for p in sorted(hub_repo.files) if p.startswith(prefix)])

    def resolve(self, body: bytes, repo: str, rev: str, path: str, head: bool = False) -> None:
        hub_repo = self._repo(repo)
        if rev != hub_repo.sha:
            self._check_revision(rev)
        if path not in hub_repo.files:
            self._send(404, b"", {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": hub_repo.sha}, head=head)
            return
        content = hub_repo.files[path]
        headers = {"X-Repo-Commit": hub_repo.sha, "ETag": f'"{git_blob_oid(content)}"'}
        if path in hub_repo.lfs_paths:
            headers |= {"X-Linked-Etag": f'"{hashlib.sha256(content).hexdigest()}"', "X-Linked-Size": len(content)}
        self._send(200, content, headers, head=head)

    def resolve_head(self, body: bytes, **kwargs) -> None:
        self.resolve(body, head=True, **kwargs)


_ROUTES = [
    ("POST", r"/api/repos/create", lambda h, b: h.create_repo(b)),
    ("POST", r"/api/validate-yaml", lambda h, b: h.validate_yaml(b)),
    ("POST", rf"/api/models/{_REPO}/preupload/(?P<rev>[^/]+)", _HubHandler.preupload),
    ("POST", rf"/api/models/{_REPO}/commit/(?P<rev>[^/]+)", _HubHandler.commit),
    ("POST", rf"/{_REPO}\.git/info/lfs/objects/batch", _HubHandler.lfs_batch),
    ("PUT", r"/lfs/objects/(?P<oid>[0-9a-f]{64})", _HubHandler.lfs_put),
    ("POST", r"/lfs/verify", lambda h, b: h.lfs_verify(b)),
    ("GET", rf"/api/models/{_REPO}(?:/revision/(?P<rev>[^/]+))?", _HubHandler.model_info),
    ("GET", rf"/api/models/{_REPO}/tree/(?P<rev>[^/]+)(?:/(?P<path>.*))?", _HubHandler.tree),
    ("GET", rf"/{_REPO}/resolve/(?P<rev>[^/]+)/(?P<path>.+)", _HubHandler.resolve),
    ("HEAD", rf"/{_REPO}/resolve/(?P<rev>[^/]+)/(?P<path>.+)", _HubHandler.resolve_head),
]
