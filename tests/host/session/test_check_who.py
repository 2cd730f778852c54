"""A player's name and code as a phone sends them (host.session.table.check_who)."""

import pytest

from host.session.table import TableError, check_who


def test_a_code_is_case_blind():
    assert check_who({"name": "Ann", "code": " QP_3F9A0C12 "}) == ("Ann", "qp_3f9a0c12")


def test_a_bad_code_is_quoted_as_the_person_typed_it():
    """The error shows what was typed (qp_1ee0311X), not the lower-cased form the check used."""
    with pytest.raises(TableError) as err:
        check_who({"name": "Ann", "code": "qp_1ee0311X"})
    assert str(err.value).startswith("Player code: 'qp_1ee0311X' is not one: a code is qp_ and 8 of the digits")
    assert "\n" not in str(err.value)
