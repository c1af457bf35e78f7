#!/bin/sh
# tools/rpi/install.sh — install the game on a Raspberry Pi 4 or 5 as a systemd service that starts at boot: sudo tools/rpi/install.sh [BOARD]
# Run it on the Pi, from a checkout of the project. BOARD is a file in boards/
# whose PLATFORM is "linux" (default rpi4). It makes the system user
# what-the-shell (groups gpio and spi: the game needs no root), copies engine/,
# firmware/, circuitpython/code.py and the board file (as board_config.py) to
# $DEST (owned by root, read-only to the game), makes a virtualenv there AS THAT
# USER with the hash-pinned packages of tools/rpi/requirements*.txt (pip never
# runs as root, and takes only the files whose sha256 the requirement files list,
# from PyPI), turns on SPI (Pi 4: the LEDs on GPIO10) and the PWM on GPIO18 (the
# buzzer) in config.txt, and enables what-the-shell.service. Run it again after
# a git pull.
#
# ROOTFS prefixes every system path (/etc, /boot, /proc, /opt): the tests run
# the script against a scratch directory with stand-ins for apt-get,
# systemctl, raspi-config and the user tools (getent, groupadd, useradd,
# usermod, chown, runuser).
set -eu

say() { printf '%s\n' "install: $*" >&2; }
die() { say "$*"; exit 1; }
# The game's user runs pip (and the venv module): never root. No config file (PIP_CONFIG_FILE), no home.
as_user() { runuser -u "$USER_NAME" -- env HOME=/nonexistent PIP_CONFIG_FILE=/dev/null "$@"; }

board=${1:-rpi4}
ROOTFS=${ROOTFS:-}
DEST=$ROOTFS/opt/what-the-shell   # the unit file names this path
USER_NAME=what-the-shell          # the unit's User=; its groups are the unit's SupplementaryGroups=
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

# The user the game runs as: a system user, no home, no login, in the groups
# Raspberry Pi OS's udev rules give the GPIO, SPI, PWM and PIO devices to.
for g in gpio spi; do
    getent group "$g" >/dev/null || groupadd --system "$g" || die "could not create group $g"
done
if ! getent passwd "$USER_NAME" >/dev/null; then
    useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
        --comment "What the Shell game" "$USER_NAME" || die "could not create user $USER_NAME"
fi
usermod -a -G gpio,spi "$USER_NAME" || die "could not add $USER_NAME to groups gpio and spi"

# The files, fresh (no stale modules from an older version), owned by root:
# the game reads them, and only its state directory is writable to it.
mkdir -p "$DEST"
rm -rf "$DEST/engine" "$DEST/firmware" "$DEST/circuitpython"
cp -r "$src/engine" "$src/firmware" "$DEST/"
mkdir -p "$DEST/circuitpython"
cp "$src/circuitpython/code.py" "$DEST/circuitpython/code.py"
cp "$src/boards/$board.py" "$DEST/board_config.py"
find "$DEST" -name __pycache__ -prune -exec rm -rf {} +

# Packages, hash-pinned, installed by the game's user into its own virtualenv
# (an older one made by root is replaced). PyPI only: /etc/pip.conf's piwheels
# serves files with other hashes. The build tools first, so the sdists (rpi_ws281x)
# build with them instead of an isolated build's unchecked downloads.
if [ -d "$DEST/.venv" ] && [ "$(stat -c %U "$DEST/.venv")" != "$USER_NAME" ]; then
    rm -rf "$DEST/.venv"
fi
if [ ! -x "$DEST/.venv/bin/python" ]; then
    mkdir -p "$DEST/.venv"
    chown "$USER_NAME:$USER_NAME" "$DEST/.venv" || die "could not give $DEST/.venv to $USER_NAME"
    as_user "$PY" -m venv "$DEST/.venv" || die "could not create $DEST/.venv"
fi
req="$DEST/.requirements"   # readable copies: the user may not see into the checkout
rm -rf "$req"
mkdir -p "$req"
cp "$src"/tools/rpi/requirements*.txt "$req/"
pip_install() {
    as_user "$DEST/.venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir \
        --index-url https://pypi.org/simple --require-hashes "$@" ||
        die "pip install failed (network? a file whose hash is not in tools/rpi/requirements*.txt? see above)"
}
pip_install -r "$req/requirements-build.txt"
pip_install --no-build-isolation -r "$req/requirements.txt" -r "$req/requirements-pi$pi.txt"

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

# Devices the unit allows by their /proc/devices names (DeviceAllow=): say so now if
# this kernel names them otherwise, rather than leaving a dark board to guess at.
need="gpiochip"
if [ "$pi" = 4 ]; then need="$need spi gpiomem"; else need="$need rp1-pio"; fi
for d in $need; do
    grep -q "^ *[0-9]* .*$d" "$ROOTFS/proc/devices" 2>/dev/null ||
        say "warning: no $d device in /proc/devices (is SPI on? reboot after the first install); the unit allows only the devices it names"
done

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
