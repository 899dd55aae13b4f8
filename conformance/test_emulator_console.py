# SPDX-License-Identifier: MIT
"""Emulator only: the web console's files at /ddbemu/ui, on the control interface.

The console is compiled into the binary (api/console/), served from memory,
and follows the control interface's rules: on by default on loopback, off
with --no-control or on another address, when /ddbemu/ui is an ordinary
DynamoDB path again. What the page does in a browser is tested in
conformance/console/ (headless Chromium).
"""
import re

import pytest

from conftest import send_raw

pytestmark = pytest.mark.usefixtures("emulator")


@pytest.fixture
def base(raw_url):
    return raw_url.rstrip("/")


def test_the_page_and_every_file_it_loads_are_served(base):
    for path in ("/ddbemu/ui", "/ddbemu/ui/"):
        resp = send_raw(base + path, method="GET")
        assert resp.status == 200
        assert resp.headers["Content-Type"] == "text/html; charset=utf-8"
        assert resp.headers["Cache-Control"] == "no-cache"
        assert "<title>DynamoDB console" in resp.data
    page = resp.data
    files = re.findall(r'(?:src|href)="/ddbemu/ui/([^"]+)"', page)
    assert "app.js" in files and "console.css" in files
    # app.js loads the rest as ES modules, which run only with a JavaScript type.
    seen, todo = set(), list(files)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        resp = send_raw(base + "/ddbemu/ui/" + name, method="GET")
        assert resp.status == 200, name
        want = "text/css" if name.endswith(".css") else "text/javascript"
        assert resp.headers["Content-Type"].startswith(want), name
        todo += re.findall(r'from "\./([^"]+)"', resp.data)
    assert {"api.js", "items.js", "streams.js", "monitor.js", "clock.js", "charts.js"} <= seen


def test_unknown_files_and_other_methods(base):
    resp = send_raw(base + "/ddbemu/ui/missing.js", method="GET")
    assert resp.status == 404
    resp = send_raw(base + "/ddbemu/ui", method="DELETE")
    assert resp.status == 405


def test_the_console_is_off_with_the_control_interface(start_server):
    srv = start_server("--no-control")
    resp = send_raw(srv.endpoint_url + "/ddbemu/ui", method="GET")
    # Without the interface the path is DynamoDB's: a GET of any path but / is
    # refused (test_http_edge.py::test_get_of_another_path_is_refused).
    assert resp.status == 404 and resp.data == "<UnknownOperationException/>\n"
    srv = start_server("--host", "0.0.0.0")
    resp = send_raw(srv.endpoint_url + "/ddbemu/ui", method="GET")
    assert resp.status == 404 and resp.data == "<UnknownOperationException/>\n"
