"""Hostile: tries to reach a listener on the host's loopback at every decision; the port
is in port.txt beside this file (the test writes it). It reports what happened by
raising, so every decision is a fault whose text says whether it got through."""

import pathlib
import socket


class Bot:
    def act(self, observation):
        port = int((pathlib.Path(__file__).parent / "port.txt").read_text())
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as connection:
                connection.sendall(b"escaped\n")
        except OSError as error:
            raise RuntimeError(f"network blocked: {type(error).__name__}") from None
        raise RuntimeError("network REACHED the host")
