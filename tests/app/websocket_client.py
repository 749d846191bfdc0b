"""A minimal RFC 6455 client for the tests (the standard library has none):
the opening handshake, masked client frames, fragmented and control frames
from the server. Test code only: it trusts the server it talks to."""

import base64
import hashlib
import os
import socket
import struct

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TEXT, BINARY, CLOSE, PING, PONG = 0x1, 0x2, 0x8, 0x9, 0xA


class HandshakeRefused(Exception):
    def __init__(self, status, body):
        super().__init__("handshake refused: %d %s" % (status, body[:200]))
        self.status = status
        self.body = body


class WebSocket:
    def __init__(self, port, path, headers=None, timeout=30):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buffer = b""
        self.close_code = None
        self.close_reason = ""
        key = base64.b64encode(os.urandom(16)).decode()
        lines = ["GET %s HTTP/1.1" % path, "Host: 127.0.0.1:%d" % port, "Upgrade: websocket",
                 "Connection: Upgrade", "Sec-WebSocket-Key: " + key, "Sec-WebSocket-Version: 13"]
        lines += ["%s: %s" % item for item in (headers or {}).items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = self._read_until(b"\r\n\r\n")
        status_line, *fields = head.decode("latin-1").split("\r\n")
        status = int(status_line.split()[1])
        if status != 101:
            length = 0
            for field in fields:
                name, _, value = field.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            raise HandshakeRefused(status, self._read_exactly(length).decode(errors="replace"))
        accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        if not any(f.lower().startswith("sec-websocket-accept:") and f.split(":", 1)[1].strip()
                   == accept for f in fields):
            raise HandshakeRefused(status, "bad Sec-WebSocket-Accept")

    def _read_until(self, marker):
        while marker not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed during the handshake")
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(marker)
        return head

    def _read_exactly(self, count):
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed mid-frame")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def send(self, data, opcode=None):
        if isinstance(data, str):
            data, opcode = data.encode(), opcode or TEXT
        opcode = opcode or BINARY
        header = bytes([0x80 | opcode])
        if len(data) < 126:
            header += bytes([0x80 | len(data)])
        elif len(data) < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", len(data))
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", len(data))
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(header + mask + masked)

    def _frame(self):
        first, second = self._read_exactly(2)
        length = second & 0x7F
        if length == 126:
            length = struct.unpack("!H", self._read_exactly(2))[0]
        elif length == 127:
            length = struct.unpack("!Q", self._read_exactly(8))[0]
        return bool(first & 0x80), first & 0x0F, self._read_exactly(length)

    def receive(self):
        """(opcode, payload) of the next data message; (CLOSE, b"") once closed."""
        opcode, payload = None, b""
        while True:
            try:
                final, frame_opcode, data = self._frame()
            except (ConnectionError, OSError):
                return CLOSE, b""
            if frame_opcode == PING:
                self.send(data, PONG)
                continue
            if frame_opcode == CLOSE:
                if len(data) >= 2:
                    self.close_code = struct.unpack("!H", data[:2])[0]
                    self.close_reason = data[2:].decode(errors="replace")
                return CLOSE, b""
            if frame_opcode != 0:
                opcode = frame_opcode
            payload += data
            if final:
                return opcode, payload

    def close(self):
        try:
            self.send(struct.pack("!H", 1000), CLOSE)
        except OSError:
            pass
        self.sock.close()
