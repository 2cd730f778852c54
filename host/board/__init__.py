"""The board's hardware path: sources of snapshots, the wire codec, calibration, channel map,
geometry and drawing, LEDs, the doctor, the simulated board and the virtual Pico."""
