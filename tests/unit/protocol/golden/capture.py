#!/usr/bin/env python3
"""Records real clients' request frames for the codec's golden-bytes tests.

    capture.py LISTEN_PORT UPSTREAM_HOST:PORT OUT_DIR CLIENT_NAME

A TCP proxy: every request frame a client sends is forwarded to the upstream
broker and, the first time an (api key, version) pair is seen, written to
OUT_DIR/<client>_<api>_v<version>.hex (hex of the frame without its size
prefix). Used by hand (see README.md here); the tests read the .hex files.
"""
import os
import socket
import struct
import sys
import threading

API_NAMES = {0: "produce", 1: "fetch", 2: "list_offsets", 3: "metadata", 18: "api_versions", 19: "create_topics",
             10: "find_coordinator", 22: "init_producer_id", 60: "describe_cluster", 20: "delete_topics"}


def pump_requests(src, dst, out_dir, client, seen):
    buf = b""
    while True:
        data = src.recv(65536)
        if not data:
            break
        dst.sendall(data)
        buf += data
        while len(buf) >= 4:
            (n,) = struct.unpack(">i", buf[:4])
            if len(buf) < 4 + n:
                break
            frame, buf = buf[4:4 + n], buf[4 + n:]
            key, ver = struct.unpack(">hh", frame[:4])
            if (key, ver) in seen or key not in API_NAMES:
                continue
            seen.add((key, ver))
            path = os.path.join(out_dir, f"{client}_{API_NAMES[key]}_v{ver}.hex")
            with open(path, "w") as f:
                f.write(frame.hex() + "\n")


def pump(src, dst):
    while True:
        data = src.recv(65536)
        if not data:
            break
        dst.sendall(data)


def main():
    port, upstream, out_dir, client = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    host, uport = upstream.rsplit(":", 1)
    seen = set()
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen()
    while True:
        c, _ = ls.accept()
        u = socket.create_connection((host, int(uport)))
        threading.Thread(target=pump_requests, args=(c, u, out_dir, client, seen), daemon=True).start()
        threading.Thread(target=pump, args=(u, c), daemon=True).start()


if __name__ == "__main__":
    main()
