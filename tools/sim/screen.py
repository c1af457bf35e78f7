"""How the LED strip's values look on a screen: one exposure and one gamma decoding for the terminal simulator and the rendered pictures."""

# The strip gets gamma-encoded values (v = 255 * level^GAMMA) scaled down by
# the brightness setting and the power cap. A screen shows sRGB, which is
# already roughly perceptual, so we take the 1/GAMMA root to get back to the
# level the firmware meant, then stretch so the brightest value expected
# reaches full scale: a real LED at 25 % PWM still looks bright to the eye,
# while a dim picture of it looks broken.

MAX_EXPOSURE = 8.0   # a nearly dark recording is not stretched into noise


def exposure(peak, gamma):
    """The stretch that shows a strip value of `peak` (a fraction of 255: the brightest expected) at full scale."""
    if peak <= 0:
        return 1.0
    return min(MAX_EXPOSURE, 1.0 / (min(1.0, peak) ** (1.0 / gamma)))


def board_exposure(board):
    """A board's LEDs are driven at BRIGHTNESS (default 0.25) of full scale: show that as full screen colour."""
    return exposure(float(getattr(board, "BRIGHTNESS", 0.25)) or 0.25, board_gamma(board))


def board_gamma(board):
    return float(getattr(board, "GAMMA", 2.2)) or 1.0


def recording_exposure(frames, gamma):
    """One exposure for a whole recording [(t, pixels)], so a GIF does not flicker: its brightest channel at full scale."""
    peak = 0
    for _, px in frames:
        for c in px:
            m = max(c)
            if m > peak:
                peak = m
    return exposure(peak / 255.0, gamma)


def perceived(rgb, gamma, exposure):
    """Strip value (r, g, b) -> screen sRGB (r, g, b)."""
    out = []
    for v in rgb:
        x = (v / 255.0) ** (1.0 / gamma) * exposure if v else 0.0
        out.append(min(255, int(round(x * 255))))
    return tuple(out)
