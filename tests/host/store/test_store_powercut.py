"""Power cuts (issue 18), the way SQLite tests itself: a file layer (an apsw VFS,
tests/support/powercut.py) keeps unsynced writes apart and, at a random write or sync, drops or
tears them, under real play through the web app, the table, the referee and the store.  After
each cut the store opens as `quin serve` opens it and holds every action a screen had shown as
committed.  bench/powercut.py runs 1,000 cuts; the suite runs a seeded few."""


from tests.support import powercut


def test_seeded_power_cuts_lose_no_action_a_screen_showed_as_committed(tmp_path):
    report = powercut.run(cuts=30, seed=18, folder=tmp_path)
    assert report.cuts == 30 and report.opened == 30, report.problems
    assert report.during_sync > 0 and report.during_write > 0  # the power went at both
    assert report.during_checkpoint > 0  # and while the WAL was copied into the database
    assert report.shown > 0 and report.actions_played > 0
    assert report.sectors["dropped"] and report.sectors["garbage"]  # unsynced writes were lost and torn
    assert report.lost == 0 and report.wrong == 0, report.problems


def test_the_harness_finds_the_losses_of_a_store_that_does_not_wait_for_the_disk(tmp_path):
    """The same run with the store's commits not synced (synchronous=OFF): actions shown as
    committed are lost, and the harness says so (it is not a test that cannot fail)."""
    off = {"PRAGMA synchronous=FULL": "PRAGMA synchronous=OFF", "PRAGMA synchronous=NORMAL": "PRAGMA synchronous=OFF"}
    report = powercut.run(cuts=12, seed=18, folder=tmp_path, rewrite=off)
    assert report.lost > 0, report.to_json()
