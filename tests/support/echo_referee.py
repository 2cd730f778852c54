"""For the hands model's tests (tests/host/simulate): ``run_open``, the hands alone (open loop), and
``Echo``, a stand-in for a referee that never reads the board, for the closed loop: the players' own
taps are left to their own timing.  It is no model of the referee and consults none."""

from dataclasses import dataclass

from host.simulate import Hands


def run_open(played, seed, noise, pace="brisk", without=()):
    """The hands playing ``played`` with nobody listening, run to the end."""
    hands = Hands(played, seed, noise, pace, open_loop=True, without=without)
    while hands.next_time() is not None:
        hands.step()
    return hands


@dataclass(frozen=True)
class Note:
    audience: str
    kind: str
    data: dict


class Echo:
    """A stand-in for a referee that never reads the board: it commits each played action once
    the hands have begun the next one (it peeks at their toggles), so the players' own taps
    are left to their own timing.  Never asks, never refuses."""

    def __init__(self, hands):
        self.hands = hands
        self.game = hands.header.new_game()
        self.started = False
        self.inputs = []
        self.seen, self.begun = 0, -1  # toggles looked at so far, the highest action they belong to

    def next_deadline(self):
        return None

    def tick(self, now):
        return []

    def feed(self, snapshot):
        return self._catch_up()

    def input(self, player, data, now):
        self.inputs.append((now, player, data))
        return self._catch_up()

    def private_status(self, player):
        return {}

    def _catch_up(self):
        out = []
        if not self.started:
            self.started = True
            out.append(Note("public", "started", {"turn": 1, "to_move": self.game.to_move, "text": "go"}))
        toggles = self.hands.toggles
        for tg in toggles[self.seen:]:
            self.begun = max(self.begun, tg.index)
        self.seen = len(toggles)
        plan = self.hands.plan
        while len(self.game.log) < min(self.begun, len(plan)):
            action = plan[len(self.game.log)].action
            player, turn = self.game.to_move, self.game.turn
            self.game.push(action)
            out += [Note("public", "committed", {"turn": turn, "player": player, "action": {"type": "hidden"}}),
                    Note(player, "committed", {"turn": turn, "player": player, "action": action.to_record()})]
        return out
