#!/usr/bin/env python3
"""A fault-injecting HTTP/1.1 proxy for loopback tests: between a client (the worker) and a server.

Each client connection gets its own connection to the server; requests and replies are relayed
one at a time (Content-Length framing, keep-alive). Per request, with the given probabilities:
  drop   the request reaches the server and its reply is read (the server has committed), but the
         client's connection is closed instead of getting it: "the reply was lost";
  reset  the client's connection is reset (RST) before the request is forwarded: "it never
         arrived";
  delay  the reply is held back for a moment before it is forwarded;
  twice  the request reaches the server twice (a retry whose first answer was lost on the way):
         the first reply is read and thrown away, the client gets the second.
A fixed seed makes a run repeatable. The listening port is printed on stdout ("listening PORT");
a line per fault, and totals at exit (SIGTERM), go to the log file.

usage: fault_proxy.py UPSTREAM_PORT LOG [--drop P] [--reset P] [--delay P] [--seed N]
                     [--drop-match TEXT [--drop-count N]] [--twice P [--twice-match TEXT]]

--drop-match drops, as `drop` does, the replies of the first N (default 1) requests whose
request line contains TEXT, whatever the rolls say: one chosen request loses its reply.
--twice-match limits `twice` to the requests whose request line contains TEXT.
"""
import argparse
import random
import signal
import socket
import struct
import sys
import threading
import time

lock = threading.Lock()
counts = {"requests": 0, "dropped": 0, "reset": 0, "delayed": 0, "matched": 0, "twice": 0}


def read_message(sock, buffer):
    """One HTTP message (head and Content-Length body) from sock; (bytes, rest) or (None, b"")."""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            return None, b""
        buffer += chunk
    head, _, rest = buffer.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"transfer-encoding":
            raise RuntimeError("chunked messages are not relayed")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            return None, b""
        rest += chunk
    return head + b"\r\n\r\n" + rest[:length], rest[length:]


def first_line(message):
    return message.split(b"\r\n", 1)[0].decode("latin-1")


def reset(sock):
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def relay(client, upstream_port, args, rng, log):
    upstream = socket.create_connection(("127.0.0.1", upstream_port))
    from_client = from_server = b""
    try:
        while True:
            request, from_client = read_message(client, from_client)
            if request is None:
                return
            with lock:
                counts["requests"] += 1
                roll = rng.random()
                twice = args.twice_match in first_line(request) and rng.random() < args.twice
            line = first_line(request)
            if roll < args.reset:
                with lock:
                    counts["reset"] += 1
                log.write(f"reset before forwarding: {line}\n")
                reset(client)
                return
            upstream.sendall(request)
            reply, from_server = read_message(upstream, from_server)
            if reply is None:
                return
            if twice:
                with lock:
                    counts["twice"] += 1
                log.write(f"sent twice ({first_line(reply)}): {line}\n")
                upstream.sendall(request)
                reply, from_server = read_message(upstream, from_server)
                if reply is None:
                    return
            matched = False
            if args.drop_match and args.drop_match in line:
                with lock:
                    if counts["matched"] < args.drop_count:
                        counts["matched"] += 1
                        matched = True
            if matched or roll < args.reset + args.drop:
                with lock:
                    counts["dropped"] += 1
                log.write(f"dropped the reply ({first_line(reply)}): {line}\n")
                client.close()
                return
            if roll < args.reset + args.drop + args.delay:
                with lock:
                    counts["delayed"] += 1
                time.sleep(rng.uniform(0.05, 0.3))
            client.sendall(reply)
    except OSError:
        return
    finally:
        upstream.close()
        try:
            client.close()
        except OSError:
            pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("upstream_port", type=int)
    parser.add_argument("log")
    parser.add_argument("--drop", type=float, default=0.0)
    parser.add_argument("--reset", type=float, default=0.0)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--drop-match", default="")
    parser.add_argument("--drop-count", type=int, default=1)
    parser.add_argument("--twice", type=float, default=0.0)
    parser.add_argument("--twice-match", default="")
    args = parser.parse_args()
    log = open(args.log, "a", buffering=1)
    rng = random.Random(args.seed)

    def totals(*_):
        with lock:
            log.write("totals " + " ".join(f"{k}={v}" for k, v in counts.items()) + "\n")
        log.flush()
        sys.exit(0)

    signal.signal(signal.SIGTERM, totals)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(f"listening {listener.getsockname()[1]}", flush=True)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=relay, args=(client, args.upstream_port, args, rng, log),
                         daemon=True).start()


if __name__ == "__main__":
    main()
