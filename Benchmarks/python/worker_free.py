"""How soon `imagepipe serve --workers 1` takes the next request after an expensive one is answered
503 at its deadline, or after its client disconnects: the time from that moment until a cheap
request is answered. Prints one line per output format, milliseconds per run and their median.

    worker_free.py IMAGEPIPE [--formats webp,avif,png,jpg,gif,jxl] [--runs 3] [--timeout 3]
                   [--disconnect 2] [--size 7000] [--source 2000]

The expensive request enlarges a SOURCE x SOURCE noise PNG to SIZE x SIZE (`rs:force:S:S/el:1`;
`--size 0` converts a SOURCE x SOURCE PNG of noise bands as it is, so that a debug build's
slow resize is not where the deadline falls), which no encoder finishes within the deadline; the cheap one fits an 8x8 PNG into 16x16. With one worker,
the cheap request waits in the queue until the worker is free, so its answer time is the free time
plus its own few milliseconds (printed as the idle figure, measured first).
"""
import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zlib


def png(width: int, height: int, rows: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b"")


def noise_png(side: int) -> bytes:
    return png(side, side, b"".join(b"\0" + os.urandom(side * 3) for _ in range(side)))


def stripes_png(side: int) -> bytes:
    """Bands of 16 equal rows of noise, each band a new row: little PNG (PNG's Up filter makes the
    repeated rows zeros), still tens of megapixels an encoder must work through."""
    rows = []
    for y in range(side):
        if y % 16 == 0:
            row = os.urandom(side * 3)
            rows.append(b"\0" + row)
        else:
            rows.append(b"\2" + bytes(side * 3))
    return png(side, side, b"".join(rows))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def request(port: int, path: str, give_up_after: float | None = None) -> tuple[int | None, float]:
    """GET path; the status (None when this side closed first) and when the answer, or the close, came."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(give_up_after if give_up_after is not None else 120)
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        data = b""
        try:
            while b"\r\n" not in data:
                part = sock.recv(65536)
                if not part:
                    break
                data += part
        except socket.timeout:
            if give_up_after is None:
                raise
            return None, time.monotonic()
        status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else -1
        answered = time.monotonic()
        # The rest of the body, so that the server is done writing before this side closes.
        try:
            while sock.recv(65536):
                pass
        except OSError:
            pass
        return status, answered


def wait_until_free(port: int, cheap: str, since: float) -> float:
    """Milliseconds from `since` until the cheap request is answered 200 (a busy worker makes it 503)."""
    while True:
        status, answered = request(port, cheap)
        if status == 200:
            return (answered - since) * 1000
        if time.monotonic() - since > 120:
            return float("inf")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("imagepipe")
    parser.add_argument("--formats", default="webp,avif,png,jpg,gif,jxl")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=3, help="the server's --request-timeout, seconds")
    parser.add_argument("--disconnect", type=float, default=2, help="seconds before the client hangs up")
    parser.add_argument("--size", type=int, default=7000)
    parser.add_argument("--source", type=int, default=2000, help="the noise PNG's side")
    arguments = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="worker-free.") as folder:
        with open(os.path.join(folder, "noise.png"), "wb") as file:
            file.write(noise_png(arguments.source) if arguments.size > 0 else stripes_png(arguments.source))
        with open(os.path.join(folder, "small.png"), "wb") as file:
            file.write(png(8, 8, b"".join(b"\0" + bytes([200, 120, 40]) * 8 for _ in range(8))))
        port = free_port()
        server = subprocess.Popen(
            [arguments.imagepipe, "serve", "--host", "127.0.0.1", "--port", str(port), "--allow-unsigned", "--quiet", "--no-cache",
             "--workers", "1", "--request-timeout", f"{arguments.timeout:g}", "--local-root", folder],
            stdout=subprocess.DEVNULL)
        try:
            cheap = "/insecure/rs:fit:16:16/plain/local:///small.png@png"
            for _ in range(300):
                try:
                    if request(port, "/health")[0] == 200:
                        break
                except OSError:
                    time.sleep(0.1)
            else:
                sys.exit("worker_free.py: the server did not start")
            idle = []
            for _ in range(5):
                start = time.monotonic()
                idle.append(wait_until_free(port, cheap, start))
            print(f"idle: a cheap request answered in {statistics.median(idle):.0f} ms (median of 5)")
            size = arguments.size
            print(f"format  after 503 (ms, {arguments.runs} runs; median)    after disconnect (ms; median)")
            for name in arguments.formats.split(","):
                resize = f"rs:force:{size}:{size}/el:1/" if size > 0 else ""
                heavy = f"/insecure/{resize}plain/local:///noise.png@{name}"
                deadline, disconnect = [], []
                for _ in range(arguments.runs):
                    status, answered = request(port, heavy)
                    if status != 503:
                        print(f"{name}: the expensive request was answered {status}, not 503; raise --size", file=sys.stderr)
                    deadline.append(wait_until_free(port, cheap, answered))
                    _, closed = request(port, heavy, give_up_after=arguments.disconnect)
                    disconnect.append(wait_until_free(port, cheap, closed))
                shown = lambda values: " ".join(f"{value:.0f}" for value in values) + f"; {statistics.median(values):.0f}"
                print(f"{name:6}  {shown(deadline):38}  {shown(disconnect)}", flush=True)
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
