"""A join whose answer is lost keeps its seat (issue 28: "join is not idempotent (a lost answer
loses the seat)"): the board's join goes through a proxy that passes the first request to a real
hub (in this process, on real PostgreSQL) and drops its answer; the board asks again with the same
request id and gets the same seat, and the hub took one join, not two."""

import socket
import threading

import pytest
from tests.support.player import RemotePlayer
from tests.support.waiting import wait_for

from host.remote.link import open_game


class LosingProxy:
    """Forwards each connection to the hub; the first ``lose`` answers are read and thrown away
    (the client sees its connection cut), the rest are passed back."""

    def __init__(self, target_port: int, lose: int = 1):
        self.target = target_port
        self.lose = lose
        self.seen = 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(client,), daemon=True).start()

    def _one(self, client):
        self.seen += 1
        drop = self.seen <= self.lose
        with client, socket.create_connection(("127.0.0.1", self.target)) as up:
            client.settimeout(10)
            up.settimeout(10)
            data = b""
            while b"\r\n\r\n" not in data:
                data += client.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            while len(body) < length:
                body += client.recv(65536)
            up.sendall(head.replace(b"Connection: keep-alive", b"Connection: close") + b"\r\n\r\n" + body)
            answer = b""
            while True:
                chunk = up.recv(65536)
                if not chunk:
                    break
                answer += chunk
                if b"\r\n\r\n" in answer:
                    h, _, rest = answer.partition(b"\r\n\r\n")
                    n = next((int(line.split(b":")[1]) for line in h.split(b"\r\n")
                              if line.lower().startswith(b"content-length:")), None)
                    if n is not None and len(rest) >= n:
                        break
            if not drop:
                client.sendall(answer)

    def close(self):
        self.sock.close()


@pytest.fixture
def hub(clocked_hub):
    return clocked_hub


def test_a_join_whose_answer_is_lost_gets_the_same_seat_on_the_retry(hub):
    bob = RemotePlayer(hub.url)
    bob.create(side="white")
    bob.listen()
    proxy = LosingProxy(int(hub.url.rsplit(":", 1)[1]), lose=1)
    try:
        opened = open_game(proxy.url, bob.code, name="Ann")
    finally:
        proxy.close()
    assert proxy.seen == 2  # the lost one and the retry
    assert opened["side"] == "black" and opened["token"].startswith("qs_")
    wait_for(lambda: bob.states and bob.states[-1]["names"]["black"] == "Ann", "Bob to hear Ann joined")
    state = bob.states[-1]
    assert state["names"] == {"white": "Bob", "black": "Ann"} and state["phase"] == "setup"
    assert state["seq"] == 1  # one join: the retry was answered, not applied again
    # the token the retry got is the seat's: it opens the black side's stream
    ann = RemotePlayer(hub.url, "Ann")
    ann.code, ann.side, ann.token = bob.code, "black", opened["token"]
    ann.listen()
    wait_for(lambda: ann.states, "Ann's first state")
    assert ann.states and ann.states[-1]["side"] == "black"
    ann.close()
    bob.close()
