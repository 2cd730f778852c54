"""Packaging that pyproject.toml cannot say: the top-level firmware/ and hardware/
folders travel in the wheel as package data, under host/bundled/, so a wheel-only
install can flash the board and set up the Pi (host.board.hardware_files finds them in
either place).  Everything else about the distribution is in pyproject.toml."""

from setuptools import find_packages, setup

BUNDLED = {"host.bundled.firmware": "firmware", "host.bundled.hardware": "hardware"}

setup(
    packages=find_packages(include=["engine", "engine.*", "host", "host.*"]) + list(BUNDLED),
    package_dir=BUNDLED,
)
