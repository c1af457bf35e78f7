"""What the Shell device firmware: pads, display, animations, modes and storage, on top of engine/ (hardware is always passed in)."""
