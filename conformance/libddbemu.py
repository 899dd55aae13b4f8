# SPDX-License-Identifier: MIT
"""libddbemu through ctypes: the shared library's functions as Python calls.

Used by test_emulator_library.py and by packaging/lib/verify (which points
DDBEMU_LIB at the library of an unpacked release tarball). Each answer is the
HTTP status and the parsed JSON body; strings the library returns are freed
with ddbemu_free, as the header says.
"""

import ctypes
import json
import os

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def library_path():
    """DDBEMU_LIB, else libddbemu.so beside DDBEMU_BIN (build/emulator/ by default)."""
    if os.environ.get("DDBEMU_LIB"):
        return os.environ["DDBEMU_LIB"]
    binary = os.environ.get("DDBEMU_BIN") or os.path.join(REPO_ROOT, "build", "emulator", "ddbemu")
    return os.path.join(os.path.dirname(os.path.abspath(binary)), "libddbemu.so")


def load(path=None):
    lib = ctypes.CDLL(path or library_path())
    # Strings the library hands over are taken as raw pointers (c_void_p), so
    # that they can be given back to ddbemu_free.
    lib.ddbemu_version.restype = ctypes.c_char_p
    lib.ddbemu_open.restype = ctypes.c_void_p
    lib.ddbemu_open.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_void_p)]
    lib.ddbemu_listen.restype = ctypes.c_int
    lib.ddbemu_listen.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.ddbemu_port.restype = ctypes.c_int
    lib.ddbemu_port.argtypes = [ctypes.c_void_p]
    lib.ddbemu_endpoint.restype = ctypes.c_char_p
    lib.ddbemu_endpoint.argtypes = [ctypes.c_void_p]
    lib.ddbemu_call.restype = ctypes.c_int
    lib.ddbemu_call.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                ctypes.POINTER(ctypes.c_void_p)]
    lib.ddbemu_call_as.restype = ctypes.c_int
    lib.ddbemu_call_as.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                   ctypes.c_char_p, ctypes.c_char_p,
                                   ctypes.POINTER(ctypes.c_void_p)]
    lib.ddbemu_free.restype = None
    lib.ddbemu_free.argtypes = [ctypes.c_void_p]
    lib.ddbemu_close.restype = None
    lib.ddbemu_close.argtypes = [ctypes.c_void_p]
    return lib


def _take(lib, pointer):
    """The text at pointer (freed by the library), or None."""
    if not pointer.value:
        return None
    text = ctypes.string_at(pointer.value).decode()
    lib.ddbemu_free(pointer.value)
    return text


class LibraryError(Exception):
    pass


class Emulator:
    """One ddbemu_open'ed emulator; close() (or a with block) ends it."""

    def __init__(self, lib, *args):
        self.lib = lib
        argv = (ctypes.c_char_p * (len(args) + 1))(*[a.encode() for a in args], None)
        error = ctypes.c_void_p()
        self.handle = lib.ddbemu_open(argv, ctypes.byref(error))
        if not self.handle:
            raise LibraryError(_take(lib, error))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.handle:
            self.lib.ddbemu_close(self.handle)
            self.handle = None

    def listen(self):
        error = ctypes.c_void_p()
        port = self.lib.ddbemu_listen(self.handle, ctypes.byref(error))
        if port < 0:
            raise LibraryError(_take(self.lib, error))
        return port

    @property
    def endpoint(self):
        value = self.lib.ddbemu_endpoint(self.handle)
        return value.decode() if value else None

    def call_text(self, operation, body_text, access_key=None, region="us-east-1"):
        """(status, answer text) of one in-process call of DynamoDB_20120810.<operation>."""
        answer = ctypes.c_void_p()
        target = ("DynamoDB_20120810." + operation).encode()
        if access_key is None:
            status = self.lib.ddbemu_call(self.handle, target, body_text.encode(),
                                          ctypes.byref(answer))
        else:
            status = self.lib.ddbemu_call_as(self.handle, access_key.encode(), region.encode(),
                                             target, body_text.encode(), ctypes.byref(answer))
        return status, _take(self.lib, answer)

    def call(self, operation, body, **credential):
        """(status, parsed JSON answer) of one in-process call."""
        status, text = self.call_text(operation, json.dumps(body), **credential)
        return status, json.loads(text) if text else None
