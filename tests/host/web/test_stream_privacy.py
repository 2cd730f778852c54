"""Hidden information through the count and timing of updates (issue 10).

When the referee asks the mover a private question, the public and the rival
must not receive anything they would not have received without it.  The test
plays the same game twice, the second time with two of the mover's towers
that the rival never sees swapped in the lineup: the referee then asks the
mover different questions (a Gravity whose pulled towers are alike needs no
question, one whose towers differ does), and every byte the public and the
rival receive, from the streams and from GET, must be the same in both runs.
"""

from tests.support.privacy_runs import compare_runs


def test_public_and_rival_bytes_do_not_depend_on_the_movers_questions(tmp_path):
    results = compare_runs(tmp_path, range(100, 112))
    differ = [where for where, same in results if not same]
    assert not differ, differ


def test_with_clocks_the_public_and_rival_bytes_still_do_not_depend_on_the_movers_questions(tmp_path):
    """Issue 33: the clocks are in every state, and a question does not stop them (docs/rules.md,
    "Clocks"): a pause would tell the rival a question was asked."""
    results = compare_runs(tmp_path, range(100, 112), wanted=2, clock="10+5")
    assert len(results) >= 4
    differ = [where for where, same in results if not same]
    assert not differ, differ


def test_the_comparison_catches_an_update_sent_for_a_question(tmp_path, monkeypatch):
    """The check must be able to fail: send every audience an event at every change, as before the fix."""
    from host.web.events import Broker

    publish = Broker.publish

    def to_everyone(self, states, notices=None):
        for audience in states:
            self._state[audience] = None  # "changed": every audience gets an event
        return publish(self, states, notices)

    monkeypatch.setattr(Broker, "publish", to_everyone)
    results = compare_runs(tmp_path, range(100, 112), wanted=1)
    assert any(not same for where, same in results if where.endswith("stream"))
