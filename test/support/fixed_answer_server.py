"""A test HTTP server that answers every request with one status and a JSON error body, and
counts the requests it is sent (t0716): a server that answers everything wrong.

usage: fixed_answer_server.py STATUS PORT_FILE COUNT_FILE
Listens on a free loopback port, writes it to PORT_FILE, and rewrites COUNT_FILE after every
request. Stops on SIGTERM.
"""
import http.server
import json
import os
import socketserver
import sys

status, port_file, count_file = int(sys.argv[1]), sys.argv[2], sys.argv[3]
count = 0


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self):
        global count
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        count += 1
        with open(count_file, "w") as f:
            f.write(str(count))
        body = json.dumps({"message": f"fixed answer {status}"}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = answer

    def log_message(self, *args):
        pass


class Server(socketserver.TCPServer):
    allow_reuse_address = True


with Server(("127.0.0.1", 0), Handler) as server:
    with open(port_file + ".part", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".part", port_file)
    server.serve_forever()
