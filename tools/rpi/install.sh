#!/bin/sh
# tools/rpi/install.sh — install the game on a Raspberry Pi 4 or 5 as a systemd service that starts at boot: sudo tools/rpi/install.sh [BOARD]
# Run it on the Pi, from a checkout of the project. BOARD is a file in boards/
# whose PLATFORM is "linux" (default rpi4). It copies engine/, firmware/,
# circuitpython/code.py and the board file (as board_config.py) to $DEST, makes
# a virtualenv there with the pinned packages of tools/rpi/requirements*.txt,
# turns on SPI (Pi 4: the LEDs on GPIO10) and the PWM on GPIO18 (the buzzer) in
# config.txt, and enables what-the-shell.service. Run it again after a git pull.
#
# ROOTFS prefixes every system path (/etc, /boot, /proc, /opt): the tests run
# the script against a scratch directory with stand-ins for apt-get,
# systemctl and raspi-config.
set -eu

say() { printf '%s\n' "install: $*" >&2; }
die() { say "$*"; exit 1; }

board=${1:-rpi4}
ROOTFS=${ROOTFS:-}
DEST=$ROOTFS/opt/what-the-shell   # the unit file names this path
PY=${PY:-python3}
src=$(cd "$(dirname "$0")/../.." && pwd)

[ "$(id -u)" = 0 ] || [ -n "$ROOTFS" ] || die "run it as root: sudo $0 $board"
[ -f "$src/boards/$board.py" ] || die "no board file boards/$board.py (Raspberry Pi boards: rpi4)"
grep -q '^PLATFORM = "linux"' "$src/boards/$board.py" || die "boards/$board.py is not a Raspberry Pi board (its PLATFORM is not \"linux\")"

model=$(tr -d '\000' < "$ROOTFS/proc/device-tree/model" 2>/dev/null || echo "")
case "$model" in
    *"Raspberry Pi 5"*) pi=5 ;;
    *"Raspberry Pi 4"* | *"Raspberry Pi 3"* | *"Raspberry Pi Compute Module 4"*) pi=4 ;;
    *) die "this is not a Raspberry Pi 3, 4 or 5 (${model:-no /proc/device-tree/model})" ;;
esac
say "$model: board $board"

# Python, a compiler for rpi_ws281x / gpiod if no wheel fits, and the
# kernel's GPIO character device tools.
apt-get install -y python3-venv python3-dev build-essential swig gpiod >/dev/null ||
    die "apt-get install failed: run 'sudo apt-get update' and try again"

# The files, fresh (no stale modules from an older version).
mkdir -p "$DEST"
rm -rf "$DEST/engine" "$DEST/firmware" "$DEST/circuitpython"
cp -r "$src/engine" "$src/firmware" "$DEST/"
mkdir -p "$DEST/circuitpython"
cp "$src/circuitpython/code.py" "$DEST/circuitpython/code.py"
cp "$src/boards/$board.py" "$DEST/board_config.py"
find "$DEST" -name __pycache__ -prune -exec rm -rf {} +

# Packages, pinned.
[ -x "$DEST/.venv/bin/python" ] || "$PY" -m venv "$DEST/.venv" || die "could not create $DEST/.venv"
"$DEST/.venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r "$src/tools/rpi/requirements.txt" -r "$src/tools/rpi/requirements-pi$pi.txt" ||
    die "pip install failed (network? see the message above)"

# config.txt: the PWM for the buzzer on GPIO18 (func=2 is ALT5 on a Pi 4; a
# Pi 5's RP1 pinctrl maps the same legacy number), SPI for the LEDs on a Pi 4.
cfg="$ROOTFS/boot/firmware/config.txt"
[ -f "$cfg" ] || cfg="$ROOTFS/boot/config.txt"
[ -f "$cfg" ] || die "no config.txt in /boot/firmware or /boot"
reboot=""
add_line() {
    grep -qxF "$1" "$cfg" || { printf '%s\n' "$1" >> "$cfg"; reboot=yes; }
}
add_line "dtoverlay=pwm,pin=18,func=2"
if [ "$pi" = 4 ]; then
    raspi-config nonint do_spi 0 || die "raspi-config could not turn SPI on"
    add_line "core_freq=500"        # SPI runs from the core clock: keep it fixed, or the LED timing drifts
    add_line "core_freq_min=500"
fi

# The service.
install -m 644 "$src/tools/rpi/what-the-shell.service" "$ROOTFS/etc/systemd/system/what-the-shell.service"
systemctl daemon-reload
systemctl enable what-the-shell.service
if [ -n "$reboot" ]; then
    say "config.txt changed: reboot now (sudo reboot); the game starts by itself afterwards"
else
    systemctl restart what-the-shell.service
    say "started: sudo systemctl status what-the-shell  (log: journalctl -u what-the-shell -f)"
fi
