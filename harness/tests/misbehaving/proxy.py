"""A misbehaving agent, made from a well-behaved one: it stands between navguard and a real
agent (the example JSON-lines adapter, or `navguard mcp`), passes every line both ways, and at
one call misbehaves as a broken agent would. Used by harness/tests/misbehaving.rs.

    proxy.py <jsonl|mcp> <mode> <call> -- <agent command...>

<call> counts the tool calls navguard sends, from 1 (a scenario's set-up navigate is the first).
The modes are the branches of misbehave() below; each says what the agent does at that call.
"""

import json
import os
import signal
import subprocess
import sys
import threading

KIND, MODE, AT = sys.argv[1], sys.argv[2], int(sys.argv[3])
COMMAND = sys.argv[sys.argv.index("--") + 1 :]

out_lock = threading.Lock()


def write_out(data: bytes) -> None:
    with out_lock:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def is_call(line: bytes) -> bool:
    if KIND == "jsonl":
        return b'"tool"' in line
    return b'"tools/call"' in line


def request_id(line: bytes) -> bytes:
    """The id of a request line, as written (a number)."""
    return str(json.loads(line)["id"]).encode()


# The calls whose answers the proxy drops (it answered them itself, or never will).
dropped = set()
# Once set, nothing more is passed to navguard: the agent has gone mute.
mute = threading.Event()


def forever(data: bytes) -> None:
    """Writes `data` to navguard until it stops reading (the pipe breaks)."""
    try:
        while True:
            write_out(data)
    except (BrokenPipeError, OSError):
        os._exit(0)


def misbehave(line: bytes, agent: subprocess.Popen) -> bool:
    """Misbehaves at the chosen call; True if the call is still to be passed on."""
    call_id = request_id(line)
    # The agent behind shares this process's stderr, and Node makes the pipes it is given
    # non-blocking, for every process that shares them: Python's writes would then fail, and
    # lose their text, whenever navguard has not yet read what came before.
    os.set_blocking(sys.stderr.fileno(), True)
    if MODE == "flood-stdout":
        mute.set()
        forever(b"the agent is busy, here is a line that is not an answer\n" * 64)
    if MODE == "long-line":
        mute.set()
        write_out(b'{"id": ' + call_id + b', "ok": true, "text": "' + b"x" * (65 << 20) + b'"}\n')
        return False
    if MODE == "die":
        sys.stderr.write("dying on purpose, in the middle of a call\n")
        sys.stderr.flush()
        os._exit(3)
    if MODE == "flood-stderr-die":
        # Many lines, then one far longer than all that is kept, then the last words.
        sys.stderr.write("".join(f"stderr line {n} of a chatty agent\n" for n in range(50_000)))
        sys.stderr.write("y" * (1 << 20))
        sys.stderr.write("\ndying on purpose after much said\n")
        sys.stderr.flush()
        os._exit(3)
    if MODE == "mute-child":
        # A child that ignores SIGTERM, then no answer to anything.
        subprocess.Popen(
            [sys.executable, "-c", "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True: time.sleep(60)"],
        )
        mute.set()
        return False
    if MODE == "stray-id":
        dropped.add(call_id)
        write_out(b'{"id": 9999, "ok": true, "text": "an answer to nobody"}\n')
        return True
    if MODE == "half-line":
        mute.set()
        write_out(b'{"id": ' + call_id + b', "ok": tr')
        return False
    if MODE == "flood-notifications":
        dropped.add(call_id)
        threading.Thread(
            target=forever,
            args=(b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"busy"}}\n',),
            daemon=True,
        ).start()
        return True
    if MODE == "stray-line":
        # A log line on the wrong stream, then the call goes on as it should.
        write_out(b"[agent] a log line written to stdout\n")
        return True
    if MODE == "json-log-line":
        # A structured logger's line on the wrong stream: JSON, yet no line of the protocol's.
        write_out(b'{"level":"info","msg":"a structured log line written to stdout"}\n')
        return True
    if MODE == "stray-error":
        dropped.add(call_id)
        write_out(b'{"jsonrpc":"2.0","id":99999,"error":{"code":-32000,"message":"an error for nobody"}}\n')
        return True
    raise SystemExit(f"proxy.py: no mode {MODE!r}")


def from_agent(agent: subprocess.Popen) -> None:
    for line in agent.stdout:
        if mute.is_set():
            continue
        if dropped:
            try:
                answer_id = str(json.loads(line).get("id")).encode()
            except ValueError:
                answer_id = None
            if answer_id in dropped:
                continue
        try:
            write_out(line)
        except (BrokenPipeError, OSError):
            os._exit(0)
    os._exit(0)


def main() -> None:
    agent = subprocess.Popen(COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    threading.Thread(target=from_agent, args=(agent,), daemon=True).start()
    calls = 0
    for line in sys.stdin.buffer:
        if MODE == "no-initialize" and b'"initialize"' in line:
            continue
        if is_call(line):
            calls += 1
            if calls == AT and not misbehave(line, agent):
                continue
            if mute.is_set():
                continue
        agent.stdin.write(line)
        agent.stdin.flush()
    agent.stdin.close()
    agent.wait()


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    main()
