"""``manage.py serve --room`` for real, from an address that is not loopback.

The test makes its own network: a new user and network namespace (``unshare -rn``) whose
loopback device also carries 192.0.2.10/24 (TEST-NET-1, a documentation range: nothing outside
the namespace is ever named or reached). Inside it, ``serve --room`` detects 192.0.2.10 as the
machine's network address; a lecturer opens a class and reads the presenter page through that
address; the QR code's modules are read back from the SVG and must be the QR code of the join
link; plotly.js comes hashed, Brotli-compressed and immutable; a student opens the join link;
then ``bench_class`` joins three students over HTTP and websockets at that address, steps, asks,
answers and reveals.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ADDRESS = "192.0.2.10"
PORT = 8000


def _namespace_works() -> bool:
    if not shutil.which("unshare") or not shutil.which("ip"):
        return False
    probe = subprocess.run(
        ["unshare", "-rn", "sh", "-c", f"ip link set lo up && ip addr add {ADDRESS}/24 dev lo"],
        capture_output=True,
    )
    return probe.returncode == 0


pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not _namespace_works(), reason="this sandbox cannot make a network namespace (unshare -rn)"
    ),
]

# Runs inside the namespace: the network, the server, the lecturer's and students' clients.
SCRIPT = """
set -e
ip link set lo up
ip addr add {address}/24 dev lo
"$PY" manage.py serve --room --port {port} > "$TMP/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER' EXIT
"$PY" "$CLIENT" http://{address}:{port} > "$TMP/client.json"
"$PY" manage.py bench_class --url http://{address}:{port} --students 3 > "$TMP/bench.log" 2>&1
"""

# Runs inside the namespace after the server is up: what a lecturer's and a student's browser
# fetch, through the room address only. Prints one JSON object.
CLIENT = r"""
import json, re, sys, time, urllib.request
import django
django.setup()
from playground.classes import bench
from playground.management.commands.bench_class import lecturer_cookie

url = sys.argv[1]
for _ in range(600):
    try:
        urllib.request.urlopen(url + "/join/", timeout=2)
        break
    except OSError:
        time.sleep(0.5)
cookie = lecturer_cookie()
code = bench.class_open_http(url, cookie, "scoring")
present = f"/classes/{code}/present/"
status, _, page = bench.http_request(url, "GET", present, headers={"Cookie": cookie})
html = page.decode()
link = re.search(r'id="join-link" href="([^"]+)"', html).group(1).replace("&amp;", "&")
svg = re.search(r'<svg[^>]*class="segno".*?</svg>', html, re.S).group(0)
join_status, _, join_page = bench.http_request(url, "GET", link.split(url, 1)[-1])
plotly = re.search(r'src="(/static/plotly/[^"]+)"', html).group(1)
_, plotly_headers, plotly_body = bench.http_request(
    url, "GET", plotly, headers={"Accept-Encoding": "gzip, br"}
)
student_status, body = bench.student_join(url, code, "Ann")
print(json.dumps({
    "url": url, "code": code, "present": status, "link": link, "svg": svg,
    "warning": 'id="join-local-only"' in html,
    "join": join_status, "join_has_code": code in join_page.decode(),
    "student": student_status, "token": bool(body.get("token")),
    "plotly": [plotly, plotly_headers.get("content-encoding"), len(plotly_body),
               plotly_headers.get("cache-control", "")],
}))
"""


def qr_modules(svg: str) -> set[tuple[int, int]]:
    """The dark modules of a segno SVG: its path is moves and horizontal runs (M x y, m dx dy,
    h n), each run one module high, drawn at the row's middle."""
    d = re.search(r'\sd="([^"]+)"', svg).group(1)
    dark: set[tuple[int, int]] = set()
    x = y = 0.0
    for op, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?:\s(-?[\d.]+))?", d):
        if op == "M":
            x, y = float(a), float(b)
        elif op == "m":
            x, y = x + float(a), y + float(b)
        else:
            dark |= {(int(x) + i, int(y)) for i in range(int(a))}
            x += float(a)
    return dark


def encoded(text: str) -> set[tuple[int, int]]:
    import segno

    matrix = segno.make(text, error="m").matrix
    return {(c + 4, r + 4) for r, row in enumerate(matrix) for c, v in enumerate(row) if v}


def test_students_join_and_answer_through_the_room_address(tmp_path):
    client = tmp_path / "client.py"
    client.write_text(CLIENT)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "PY": sys.executable,
        "TMP": str(tmp_path),
        "CLIENT": str(client),
        "PYTHONPATH": str(ROOT),
        "PYTHONUNBUFFERED": "1",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PLAYGROUND_VAR_DIR": str(tmp_path / "var"),
        "SQLITE_PATH": str(tmp_path / "db.sqlite3"),
    }
    script = SCRIPT.format(address=ADDRESS, port=PORT)
    done = subprocess.run(
        ["unshare", "-rn", "sh", "-c", script], cwd=ROOT, env=env, timeout=600, capture_output=True
    )
    logs = {p.name: p.read_text() for p in tmp_path.glob("*.log")}
    assert done.returncode == 0, (done.stderr.decode()[-2000:], logs)
    assert f"students join at http://{ADDRESS}:{PORT}/join/" in logs["serve.log"]

    seen = json.loads((tmp_path / "client.json").read_text())
    url = f"http://{ADDRESS}:{PORT}"
    assert seen["present"] == 200 and not seen["warning"]
    assert seen["link"] == f"{url}/join/?code={seen['code']}"
    assert qr_modules(seen["svg"]) == encoded(seen["link"])
    assert qr_modules(seen["svg"]) != encoded(f"http://127.0.0.1:{PORT}/join/?code={seen['code']}")
    assert seen["join"] == 200 and seen["join_has_code"]
    assert seen["student"] == 201 and seen["token"]
    # plotly.js from the collected static files: hashed, Brotli (4.8 MB plain), cached for good
    path, encoding, size, cache = seen["plotly"]
    assert re.fullmatch(r"/static/plotly/plotly\.min\.[0-9a-f]{12}\.js", path)
    assert encoding == "br" and size <= 2_000_000
    assert "immutable" in cache and int(cache.split("max-age=")[1].split(",")[0]) >= 86400

    result = json.loads(logs["bench.log"].strip().splitlines()[-1])
    assert result["errors"] == 0, logs["bench.log"][-3000:]
    assert result["joined"] == 3 and result["answered"] == 3
