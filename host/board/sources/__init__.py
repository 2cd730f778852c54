"""Board sources for real hardware: the Pico over USB serial, the Pi's GPIO, Blinka."""
